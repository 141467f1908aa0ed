//! The sourced peak-throughput table (`assets/knowledge/gpu_peaks.toml`): per GPU model, SM
//! count × clock × FLOPs per clock per SM for each dtype, and DRAM bandwidth. A workload's
//! "fraction of peak" divides its measured rate by these figures.

use super::maths::Dtype;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

const TABLE: &str = include_str!("../../../assets/knowledge/gpu_peaks.toml");

/// One number per dtype.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerDtype {
    pub fp32: f64,
    pub tf32: f64,
    pub fp16: f64,
    pub bf16: f64,
}

impl PerDtype {
    pub fn get(&self, dtype: Dtype) -> f64 {
        match dtype {
            Dtype::Fp32 => self.fp32,
            Dtype::Tf32 => self.tf32,
            Dtype::Fp16 => self.fp16,
            Dtype::Bf16 => self.bf16,
        }
    }
}

/// One GPU model of the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuPeak {
    pub model: String,
    pub architecture: String,
    pub names: Vec<String>,
    pub sm_count: u32,
    pub boost_mhz: f64,
    #[serde(default)]
    pub tensor_boost_mhz: Option<f64>,
    pub flops_per_clock_per_sm: PerDtype,
    pub published_tflops: PerDtype,
    pub memory_gbps: f64,
    pub sources: Vec<String>,
}

impl GpuPeak {
    /// Peak TFLOPS of a dtype: SMs × clock × FLOPs per clock per SM.
    pub fn peak_tflops(&self, dtype: Dtype) -> f64 {
        let clock = match dtype {
            Dtype::Fp32 => self.boost_mhz,
            _ => self.tensor_boost_mhz.unwrap_or(self.boost_mhz),
        };
        self.sm_count as f64 * clock * 1e6 * self.flops_per_clock_per_sm.get(dtype) / 1e12
    }

    pub fn matches(&self, device_name: &str) -> bool {
        let wanted = device_name.trim();
        self.names.iter().any(|n| n.eq_ignore_ascii_case(wanted))
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    gpu: Vec<GpuPeak>,
}

/// A peaks table that does not parse.
#[derive(Debug, thiserror::Error)]
#[error("gpu_peaks.toml: {0}")]
pub struct PeaksError(toml::de::Error);

/// Parses a table in the file's format.
pub fn parse(text: &str) -> Result<Vec<GpuPeak>, PeaksError> {
    toml::from_str::<File>(text)
        .map(|f| f.gpu)
        .map_err(PeaksError)
}

/// The built-in table (empty, never a panic, if it failed to parse).
pub fn table() -> &'static [GpuPeak] {
    static PEAKS: OnceLock<Vec<GpuPeak>> = OnceLock::new();
    PEAKS.get_or_init(|| parse(TABLE).unwrap_or_default())
}

/// The row for a device name as the driver reports it.
pub fn lookup(device_name: &str) -> Option<&'static GpuPeak> {
    table().iter().find(|p| p.matches(device_name))
}

/// `measured / peak`, or `None` when there is no positive peak.
pub fn fraction(measured: f64, peak: Option<f64>) -> Option<f64> {
    peak.filter(|p| *p > 0.0 && p.is_finite())
        .map(|p| measured / p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_table_parses_and_every_row_is_sourced() {
        parse(TABLE).unwrap();
        assert!(table().len() >= 5);
        for row in table() {
            assert!(!row.sources.is_empty(), "{} has no source", row.model);
            assert!(
                row.sources
                    .iter()
                    .all(|s| s.contains("http") || s.contains("whitepaper"))
            );
            assert!(!row.names.is_empty());
            assert!(row.memory_gbps > 100.0);
        }
    }

    #[test]
    fn computed_peaks_agree_with_the_published_figures() {
        for row in table() {
            for d in Dtype::ALL {
                let computed = row.peak_tflops(d);
                let published = row.published_tflops.get(d);
                let off = (computed - published).abs() / published;
                assert!(
                    off < 0.015,
                    "{} {d:?}: {computed:.1} vs {published}",
                    row.model
                );
            }
        }
    }

    #[test]
    fn lookup_is_exact_and_case_insensitive() {
        let a100 = lookup("NVIDIA A100-SXM4-80GB").unwrap();
        assert_eq!(a100.memory_gbps, 2039.0);
        assert!((a100.peak_tflops(Dtype::Fp16) - 312.0).abs() < 1.0);
        assert!(lookup(" nvidia geforce rtx 4090 ").is_some());
        assert!(
            lookup("NVIDIA GeForce RTX 3090 Ti").is_none(),
            "a Ti is not a 3090"
        );
        assert!(lookup("NVIDIA GeForce RTX 3090").is_some());
        assert!(lookup("").is_none());
        let h100 = lookup("NVIDIA H100 80GB HBM3").unwrap();
        assert!((h100.peak_tflops(Dtype::Fp32) - 66.9).abs() < 0.2);
        assert!((h100.peak_tflops(Dtype::Bf16) - 989.4).abs() < 2.0);
    }

    #[test]
    fn fractions() {
        assert_eq!(fraction(50.0, Some(100.0)), Some(0.5));
        assert_eq!(fraction(50.0, None), None);
        assert_eq!(fraction(50.0, Some(0.0)), None);
    }

    #[test]
    fn a_bad_table_is_an_error_not_a_panic() {
        assert!(parse("[[gpu]]\nmodel = 3\n").is_err());
        assert!(parse("nonsense = [").is_err());
    }
}

//! `cudnn_cuda.toml` and `compute_capability.toml`: which CUDA toolkits a cuDNN release supports,
//! the cuDNN version-number encodings, and which compute capabilities toolkits and framework
//! builds cover.

use super::version::{Version, any_contains, compare};
use serde::Deserialize;
use std::cmp::Ordering;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CudnnSupportRow {
    pub cudnn: Vec<String>,
    #[serde(default)]
    pub variant: Option<String>,
    pub cuda: Vec<String>,
    #[serde(default)]
    pub static_only: Vec<String>,
    #[serde(default)]
    pub dynamic_only: Vec<String>,
    #[serde(default)]
    pub driver: Option<String>,
    #[serde(default)]
    pub driver_linux: Option<String>,
    #[serde(default)]
    pub driver_windows: Option<String>,
    #[serde(default)]
    pub cc: Option<String>,
    #[serde(default = "super::yes")]
    pub verified: bool,
    #[serde(default)]
    pub note: Option<String>,
    pub source: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CudnnTables {
    #[serde(default, rename = "support")]
    pub support: Vec<CudnnSupportRow>,
    #[serde(default, rename = "rule")]
    pub rules: Vec<super::TextRule>,
}

impl CudnnTables {
    /// Rows covering a cuDNN release ("8.9.6" or "8.9.6.50").
    pub fn rows_for(&self, cudnn: &str) -> Vec<&CudnnSupportRow> {
        let Some(v) = Version::parse(cudnn) else {
            return Vec::new();
        };
        self.support
            .iter()
            .filter(|r| {
                r.cudnn
                    .iter()
                    .filter_map(|c| Version::parse(c))
                    .any(|c| v.starts_with(&c))
            })
            .collect()
    }

    /// Whether a cuDNN release supports a CUDA toolkit; `None` when no row covers that cuDNN.
    pub fn supports(&self, cudnn: &str, cuda: &str) -> Option<bool> {
        let rows = self.rows_for(cudnn);
        if rows.is_empty() {
            return None;
        }
        Some(rows.iter().any(|r| any_contains(&r.cuda, cuda)))
    }
}

/// The framework rule: the loaded cuDNN must have the same major and an equal or higher minor.
pub fn cudnn_runtime_compatible(loaded: &str, built: &str) -> Option<bool> {
    let (l, b) = (Version::parse(loaded)?, Version::parse(built)?);
    Some(l.major() == b.major() && l.minor() >= b.minor())
}

/// Decodes a CUDNN_VERSION number: cuDNN ≤ 8 is MAJOR*1000 + MINOR*100 + PATCH (8600 → 8.6.0),
/// cuDNN 9 is MAJOR*10000 + MINOR*100 + PATCH (90501 → 9.5.1).
pub fn decode_cudnn_version(n: u64) -> String {
    if n >= 10000 {
        format!("{}.{}.{}", n / 10000, (n % 10000) / 100, n % 100)
    } else {
        format!("{}.{}.{}", n / 1000, (n % 1000) / 100, n % 100)
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolkitCcRow {
    pub cuda: String,
    pub min_cc: String,
    #[serde(default)]
    pub dropped: Vec<String>,
    #[serde(default)]
    pub deprecated: Vec<String>,
    pub text: String,
    pub source: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrameworkArchRow {
    pub framework: String,
    pub versions: String,
    pub cuda: String,
    pub archs: Vec<String>,
    #[serde(default)]
    pub ptx: Option<String>,
    #[serde(default = "super::yes")]
    pub verified: bool,
    #[serde(default)]
    pub note: Option<String>,
    pub source: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SymptomRow {
    pub text: String,
    pub note: String,
    pub source: String,
}

/// The CUDA releases that compile for a compute capability, before the releases whose `ptxas`
/// the generated table reads (11.8 on).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArchSupportRow {
    /// "8.6"
    pub cc: String,
    /// The first CUDA release that compiles for it.
    pub first_cuda: String,
    /// The last one, where a release before 11.8 dropped it.
    #[serde(default)]
    pub last_cuda: Option<String>,
    pub source: String,
}

/// The PTX ISA version a CUDA release before 11.8 introduced (the generated ptxas table holds
/// the later ones).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PtxIsaRow {
    /// "7.1"
    pub isa: String,
    /// "11.1"
    pub cuda: String,
    pub source: String,
}

/// A GPU generation and its compute capabilities.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerationRow {
    pub name: String,
    pub cc: Vec<String>,
    pub source: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComputeTables {
    #[serde(default, rename = "arch")]
    pub archs: Vec<ArchSupportRow>,
    #[serde(default, rename = "generation")]
    pub generations: Vec<GenerationRow>,
    #[serde(default, rename = "ptx_isa")]
    pub ptx_isas: Vec<PtxIsaRow>,
    #[serde(default, rename = "toolkit")]
    pub toolkits: Vec<ToolkitCcRow>,
    #[serde(default, rename = "framework")]
    pub frameworks: Vec<FrameworkArchRow>,
    #[serde(default, rename = "symptom")]
    pub symptoms: Vec<SymptomRow>,
    #[serde(default, rename = "gpu")]
    pub gpus: Vec<GpuNameRow>,
    #[serde(default, rename = "feature")]
    pub features: Vec<FeatureRow>,
    /// `gpus`' patterns, compiled the first time a line is read.
    #[serde(skip)]
    gpu_patterns: std::sync::OnceLock<Vec<Option<regex::Regex>>>,
}

/// A GPU product name as logs print it, and its compute capability.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuNameRow {
    /// A case-insensitive regular expression over a line.
    pub pattern: String,
    /// "3.7"
    pub cc: String,
    pub source: String,
}

/// A number format or hardware unit that needs a minimum compute capability (bfloat16 on
/// Tensor Cores: 8.0), and what to use on older GPUs.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeatureRow {
    pub name: String,
    /// A case-insensitive regular expression over a line that names the feature.
    pub pattern: String,
    pub min_cc: String,
    /// What runs on older GPUs, and how programs are told to use it.
    pub instead: String,
    pub source: String,
}

impl ComputeTables {
    /// The feature a line names (the first `[[feature]]` row whose pattern matches).
    pub fn feature_on(&self, line: &str) -> Option<&FeatureRow> {
        self.features.iter().find(|f| {
            regex::Regex::new(&format!("(?i){}", f.pattern)).is_ok_and(|re| re.is_match(line))
        })
    }

    /// "8.6" of an architecture name (`sm_86`, `compute_90a`, `sm_100`) or capability.
    pub fn cc_of(arch: &str) -> Option<String> {
        if arch.contains('.') {
            return Some(arch.to_string());
        }
        let digits: String = arch.chars().filter(|c| c.is_ascii_digit()).collect();
        (digits.len() >= 2).then(|| {
            format!(
                "{}.{}",
                &digits[..digits.len() - 1],
                &digits[digits.len() - 1..]
            )
        })
    }

    /// The GPU a line names and its compute capability ("Tesla K80" → "3.7"): the first
    /// `[[gpu]]` row whose pattern matches.
    pub fn gpu_on(&self, line: &str) -> Option<(String, &str)> {
        let compiled = self.gpu_patterns.get_or_init(|| {
            self.gpus
                .iter()
                .map(|g| regex::Regex::new(&format!(r"(?i)\b(?:{})", g.pattern)).ok())
                .collect()
        });
        self.gpus.iter().zip(compiled).find_map(|(g, re)| {
            let m = re.as_ref()?.find(line)?;
            Some((m.as_str().to_string(), g.cc.as_str()))
        })
    }

    /// The generation (Kepler, Ampere, ...) of an architecture name or capability.
    pub fn generation(&self, arch: &str) -> Option<&str> {
        let cc = Self::cc_of(arch)?;
        self.generations
            .iter()
            .find(|g| g.cc.contains(&cc))
            .map(|g| g.name.as_str())
    }

    /// The support row of an architecture name (`sm_86`, `compute_90a`) or capability ("8.6").
    pub fn arch(&self, arch: &str) -> Option<&ArchSupportRow> {
        let digits: String = arch.chars().filter(|c| c.is_ascii_digit()).collect();
        let cc = if arch.contains('.') {
            arch.to_string()
        } else if digits.len() >= 2 {
            format!(
                "{}.{}",
                &digits[..digits.len() - 1],
                &digits[digits.len() - 1..]
            )
        } else {
            return None;
        };
        self.archs.iter().find(|r| r.cc == cc)
    }

    /// Whether CUDA `cuda` still builds for compute capability `cc` (by its oldest supported
    /// capability); `None` before the first toolkit the table covers.
    pub fn toolkit_supports(&self, cuda: &str, cc: &str) -> Option<bool> {
        let row = self
            .toolkits
            .iter()
            .filter(|r| compare(&r.cuda, cuda).is_some_and(|o| o != Ordering::Greater))
            .max_by(|a, b| compare(&a.cuda, &b.cuda).unwrap_or(Ordering::Equal))?;
        compare(cc, &row.min_cc).map(|o| o != Ordering::Less)
    }
}

//! `driver_minimums.toml`: the minimum NVIDIA driver per CUDA toolkit release (Linux and
//! Windows), the 13.x driver branches and the minor-version-compatibility floors.

use super::version::{Version, compare};
use crate::engine::context::Platform;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriverRow {
    /// major.minor
    pub cuda: String,
    /// NVIDIA's row label, e.g. "CUDA 12.4 Update 1".
    pub release: String,
    pub linux: String,
    #[serde(default)]
    pub windows: Option<String>,
    pub source: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BranchRow {
    pub cuda: String,
    pub branch: String,
    pub source: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnverifiedRow {
    pub fact: String,
    pub verified: bool,
    pub source: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MinorCompatRow {
    pub major: u64,
    pub min_driver: String,
    #[serde(default)]
    pub upper: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
    pub source: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriverTables {
    #[serde(default, rename = "release")]
    pub releases: Vec<DriverRow>,
    #[serde(default, rename = "branch")]
    pub branches: Vec<BranchRow>,
    #[serde(default)]
    pub unverified: Vec<UnverifiedRow>,
    #[serde(default)]
    pub minor_compat: Vec<MinorCompatRow>,
    #[serde(default, rename = "rule")]
    pub rules: Vec<super::TextRule>,
}

/// The answer to "which driver does CUDA X.Y need?".
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DriverRequirement {
    /// major.minor asked about.
    pub cuda: String,
    /// NVIDIA's row the minimum comes from (the GA release: the lowest requirement of that minor).
    pub release: String,
    pub min_driver: String,
    pub source: String,
}

/// "CUDA 12.8 needs NVIDIA driver 570.124.06 or newer on Linux (572.61 on Windows)": the
/// minimum driver for a CUDA release named in a message (`unsatisfied condition: cuda>=12.8`).
pub fn requirement_words(cuda: &str, tables: &DriverTables) -> Option<String> {
    let linux = tables.min_driver(cuda, Platform::Linux)?;
    let windows = tables
        .min_driver(cuda, Platform::Windows)
        .map(|w| format!(" ({} on Windows, for Docker Desktop and WSL)", w.min_driver))
        .unwrap_or_default();
    Some(format!(
        "CUDA {} needs NVIDIA driver {} or newer on Linux{windows}; nvidia-smi on the host shows the driver and the newest CUDA it supports.",
        linux.cuda, linux.min_driver
    ))
}

/// "CUDA 10.0: 410.48; CUDA 11.0: 450.36.06; ..." — the Linux driver the first release of each
/// CUDA major needs (what an image's `cuda>=X.0` asks of the host).
pub fn major_minimums(tables: &DriverTables) -> String {
    minimums(tables, |mm| mm.ends_with(".0")).join("; ")
}

/// "CUDA 11.0: 450.36.06; 11.1: 455.23; ..." — the Linux driver each CUDA major.minor release
/// needs (its first release's row), oldest first: what PTX from that release asks of the driver.
pub fn minor_minimums(tables: &DriverTables) -> String {
    minimums(tables, |_| true).join("; ")
}

/// "CUDA 6.5: 340.29; 7.0: 346.46; ..." for the `count` CUDA releases after `cuda`: what a driver
/// whose newest CUDA is `cuda` must be updated to, oldest first.
pub fn minimums_after(tables: &DriverTables, cuda: &str, count: usize) -> String {
    let mut rows = minimums(tables, |mm| compare(mm, cuda) == Some(Ordering::Greater));
    rows.truncate(count);
    rows.join("; ")
}

/// The Linux driver of each CUDA major.minor that `keep` accepts, oldest first.
fn minimums(tables: &DriverTables, keep: impl Fn(&str) -> bool) -> Vec<String> {
    let mut releases: Vec<String> = tables
        .releases
        .iter()
        .filter_map(|r| Version::parse(&r.cuda).map(|v| v.major_minor()))
        .filter(|mm| keep(mm))
        .collect();
    releases.sort_by(|a, b| compare(a, b).unwrap_or(Ordering::Equal));
    releases.dedup();
    let rows: Vec<String> = releases
        .iter()
        .filter_map(|mm| {
            let d = tables.min_driver(mm, Platform::Linux)?;
            Some(format!("CUDA {}: {}", d.cuda, d.min_driver))
        })
        .collect();
    rows
}

impl DriverTables {
    /// The newest CUDA release whose Linux minimum driver is `driver` or older: what a Linux
    /// driver of that version supports.
    pub fn newest_cuda_for_linux_driver(&self, driver: &str) -> Option<String> {
        self.releases
            .iter()
            .filter(|r| compare(&r.linux, driver).is_some_and(|o| o != Ordering::Greater))
            .map(|r| r.cuda.clone())
            .max_by(|a, b| compare(a, b).unwrap_or(Ordering::Equal))
    }

    /// The minimum driver for a CUDA toolkit version ("12.4", "12.4.1", "11.8.89") on a platform:
    /// the lowest requirement among the rows of that major.minor. `None` when the table has no
    /// row, or NVIDIA lists N/A (Windows for CUDA 13.x; see [`DriverTables::branch`]).
    pub fn min_driver(&self, cuda: &str, platform: Platform) -> Option<DriverRequirement> {
        let mm = Version::parse(cuda)?.major_minor();
        self.releases
            .iter()
            .filter(|r| r.cuda == mm)
            .filter_map(|r| {
                let min = match platform {
                    Platform::Linux => Some(r.linux.clone()),
                    Platform::Windows => r.windows.clone(),
                }?;
                Some((r, min))
            })
            .min_by(|(_, a), (_, b)| compare(a, b).unwrap_or(Ordering::Equal))
            .map(|(r, min)| DriverRequirement {
                cuda: mm.clone(),
                release: r.release.clone(),
                min_driver: min,
                source: r.source.clone(),
            })
    }

    /// The driver branch NVIDIA names for a 13.x release ("R580" for 13.0).
    pub fn branch(&self, cuda: &str) -> Option<&BranchRow> {
        let mm = Version::parse(cuda)?.major_minor();
        self.branches.iter().find(|b| b.cuda == mm)
    }

    /// The minor-version-compatibility floor for a CUDA major (11 → 450, 12 → 525, 13 → 580).
    pub fn minor_compat(&self, major: u64) -> Option<&MinorCompatRow> {
        self.minor_compat.iter().find(|m| m.major == major)
    }

    /// Whether `driver` meets the minimum for `cuda` on `platform`; `None` when unknown.
    #[cfg(test)]
    pub fn driver_supports(&self, driver: &str, cuda: &str, platform: Platform) -> Option<bool> {
        let need = self.min_driver(cuda, platform)?;
        compare(driver, &need.min_driver).map(|o| o != Ordering::Less)
    }

    /// Decodes the driver CUDA version frameworks print (11040 → "11.4"; 1000*major + 10*minor).
    pub fn decode_cuda_number(n: u64) -> String {
        format!("{}.{}", n / 1000, (n % 1000) / 10)
    }
}

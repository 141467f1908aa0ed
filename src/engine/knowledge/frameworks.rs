//! `tensorflow_builds.toml` and `pytorch_builds.toml`: which Python, CUDA and cuDNN each
//! framework release was built and tested with, and the platform facts (no native-Windows
//! TensorFlow GPU from 2.11).

use super::version::{Version, compare};
use crate::engine::context::Platform;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TensorflowBuild {
    pub version: String,
    /// Last release of a range row ("1.5.0" through "1.12.0").
    #[serde(default)]
    pub through: Option<String>,
    pub package: String,
    pub platform: String,
    pub python: String,
    pub cuda: String,
    pub cudnn: String,
    pub compiler: String,
    pub source: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlatformNote {
    pub id: String,
    pub from_version: String,
    pub platform: String,
    pub text: String,
    pub source: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AndCudaRow {
    pub version: String,
    pub cuda: String,
    pub cudnn: String,
    pub pins: Vec<String>,
    pub source: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TensorflowTables {
    #[serde(default, rename = "build")]
    pub builds: Vec<TensorflowBuild>,
    #[serde(default, rename = "platform_note")]
    pub notes: Vec<PlatformNote>,
    #[serde(default)]
    pub and_cuda: Vec<AndCudaRow>,
}

fn mm(v: &str) -> Option<Version> {
    Version::parse(v).map(|v| Version(vec![v.major(), v.minor()]))
}

fn in_row(version: &Version, from: &str, through: Option<&str>) -> bool {
    let (Some(lo), Some(hi)) = (mm(from), mm(through.unwrap_or(from))) else {
        return false;
    };
    version.cmp_padded(&lo) != Ordering::Less && version.cmp_padded(&hi) != Ordering::Greater
}

impl TensorflowTables {
    /// The tested build for a release ("2.10.1" matches the 2.10.0 row) on a platform.
    pub fn build(&self, version: &str, platform: Platform) -> Option<&TensorflowBuild> {
        let v = mm(version)?;
        self.builds.iter().find(|b| {
            b.platform == platform.as_str() && in_row(&v, &b.version, b.through.as_deref())
        })
    }

    /// For a release newer than every row of `platform`: the newest row, the nearest documented
    /// expectation (to be shown as inferred). `None` when a row covers it or it is older.
    pub fn nearest_newer_than_table(
        &self,
        version: &str,
        platform: Platform,
    ) -> Option<&TensorflowBuild> {
        let v = mm(version)?;
        let newest = self
            .builds
            .iter()
            .filter(|b| b.platform == platform.as_str())
            .filter_map(|b| Some((mm(b.through.as_deref().unwrap_or(&b.version))?, b)))
            .max_by(|a, b| a.0.cmp_padded(&b.0))?;
        (v.cmp_padded(&newest.0) == Ordering::Greater).then_some(newest.1)
    }

    /// Whether a release has a CUDA build for native Windows (only up to 2.10).
    pub fn native_windows_gpu(&self, version: &str) -> Option<bool> {
        let note = self
            .notes
            .iter()
            .find(|n| n.id == "no-native-windows-gpu-from-2.11")?;
        compare(&mm(version)?.to_string(), &note.from_version).map(|o| o == Ordering::Less)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CudaBuild {
    pub cuda: String,
    #[serde(default)]
    pub cudnn: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PytorchRelease {
    pub version: String,
    pub python: String,
    #[serde(default)]
    pub stable: Vec<CudaBuild>,
    #[serde(default)]
    pub experimental: Vec<CudaBuild>,
    pub source: String,
}

impl PytorchRelease {
    /// Every CUDA build of the release, stable first.
    pub fn builds(&self) -> impl Iterator<Item = &CudaBuild> {
        self.stable.iter().chain(self.experimental.iter())
    }

    /// The (min, max) Python minor versions from ">=3.10, <=(3.14, 3.14t exp.)".
    #[cfg(test)]
    pub fn python_range(&self) -> (Option<String>, Option<String>) {
        let grab = |marker: &str| {
            let rest = &self.python[self.python.find(marker)? + marker.len()..];
            let rest = rest.trim_start_matches(['(', ' ']);
            Version::parse(rest).map(|v| v.major_minor())
        };
        (grab(">="), grab("<="))
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PypiDefault {
    pub version: String,
    pub cuda: String,
    pub cudnn: String,
    pub source: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PytorchNote {
    pub id: String,
    pub text: String,
    pub source: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PytorchTables {
    #[serde(default, rename = "release")]
    pub releases: Vec<PytorchRelease>,
    #[serde(default)]
    pub pypi_default: Vec<PypiDefault>,
    #[serde(default, rename = "note")]
    pub notes: Vec<PytorchNote>,
}

/// The CUDA version in a wheel's local tag: "2.4.0+cu121" → "12.1", "+cu92" → "9.2".
pub fn cuda_from_wheel_tag(version: &str) -> Option<String> {
    let tag = version.split_once('+')?.1.to_ascii_lowercase();
    cuda_from_tag_digits(tag.strip_prefix("cu")?)
}

/// The CUDA release a build tag's digits name, as NVIDIA's and the frameworks' tags write them
/// (`cu121`, `mxnet-cu112`, `.post112`): "121" → "12.1", "92" → "9.2".
pub fn cuda_from_tag_digits(digits: &str) -> Option<String> {
    if !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    match digits.len() {
        2 => Some(format!("{}.{}", &digits[..1], &digits[1..])),
        3 => Some(format!("{}.{}", &digits[..2], &digits[2..])),
        _ => None,
    }
}

impl PytorchTables {
    /// The release row for "2.4.0" or "2.4.0+cu121".
    pub fn release(&self, version: &str) -> Option<&PytorchRelease> {
        let base = version.split('+').next().unwrap_or(version);
        let v = mm(base)?;
        self.releases
            .iter()
            .find(|r| mm(&r.version).as_ref() == Some(&v))
    }

    /// The CUDA build a wheel tag names, if that release has it.
    pub fn variant(&self, version: &str) -> Option<&CudaBuild> {
        let cuda = cuda_from_wheel_tag(version)?;
        self.release(version)?.builds().find(|b| b.cuda == cuda)
    }
}

//! The knowledge generator: reads the NVIDIA artefacts that `tests/integration/knowledge_fetch.py`
//! cached (the `cuda-toolkit` meta-package's pins for each CUDA release, the file lists of the
//! wheels they pin and of the cuDNN, NCCL, cuSPARSELt, cuTENSOR, cuDSS and TensorRT wheels, and
//! from the Linux wheels the headers, `libcudart` and `ptxas`) and writes the tables of
//! `assets/knowledge/generated/` ([`super::generated`]). Built for tests only (feature
//! `testing`); the integration test `knowledge_generated` runs it and compares, or with
//! `CUDA_TRIAGE_REGENERATE=1` rewrites the checked-in files.

mod c_enums;
mod driver_api;
mod functions;
mod libraries;
mod packages;
mod status;

use super::version::compare;
use serde::Deserialize;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why the generator could not run.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    #[error("{path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{0}")]
    Missing(String),
}

/// One CUDA release of the `cuda-toolkit` meta-package: its newest patch and the wheels it pins.
#[derive(Debug, Clone, Deserialize)]
pub struct ToolkitRelease {
    pub release: String,
    pub pins: BTreeMap<String, String>,
}

/// `manifest.json` of the cache.
#[derive(Debug, Clone, Deserialize)]
pub struct Manifest {
    /// By CUDA minor ("12.4").
    pub toolkits: BTreeMap<String, ToolkitRelease>,
    pub outside: BTreeMap<String, Vec<String>>,
    pub listings: Vec<String>,
    /// Packages a fix may name: whether PyPI has them.
    #[serde(default)]
    pub packages: BTreeMap<String, bool>,
    /// Debian's packages whose files were extracted, by package name.
    #[serde(default)]
    pub debian: BTreeMap<String, DebianFiles>,
}

/// One Debian package's extracted files (`manifest.debian`): its version and the files, relative
/// to the cache.
#[derive(Debug, Clone, Deserialize)]
pub struct DebianFiles {
    pub version: String,
    pub files: Vec<String>,
}

/// One wheel's file list (`listings/*.json`).
#[derive(Debug, Clone, Deserialize)]
pub struct Listing {
    pub dist: String,
    pub version: String,
    pub platform: String,
    pub wheel: Option<String>,
    pub files: Vec<String>,
    pub fetched: Vec<String>,
    /// The SONAME of each unversioned library whose binary names a versioned one
    /// (`nvvm/lib64/libnvvm.so` → `libnvvm.so.4`): the name a program asks the loader for.
    #[serde(default)]
    pub sonames: BTreeMap<String, String>,
}

/// The cache, read.
pub struct Cache {
    pub root: PathBuf,
    pub manifest: Manifest,
    pub listings: Vec<Listing>,
}

fn read(path: &Path) -> Result<String, GenerateError> {
    std::fs::read_to_string(path).map_err(|source| GenerateError::Read {
        path: path.to_path_buf(),
        source,
    })
}

fn json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, GenerateError> {
    serde_json::from_str(&read(path)?).map_err(|e| GenerateError::Parse {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

impl Cache {
    pub fn open(root: &Path) -> Result<Cache, GenerateError> {
        let manifest: Manifest = json(&root.join("manifest.json"))?;
        let mut listings = Vec::new();
        for rel in &manifest.listings {
            listings.push(json::<Listing>(&root.join(rel))?);
        }
        Ok(Cache {
            root: root.to_path_buf(),
            manifest,
            listings,
        })
    }

    /// The CUDA minors ("12.4") whose meta-package pins `dist` at `version`, oldest first.
    pub fn toolkits_pinning(&self, dist: &str, version: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .manifest
            .toolkits
            .iter()
            .filter(|(_, t)| t.pins.get(dist).map(String::as_str) == Some(version))
            .map(|(minor, _)| minor.clone())
            .collect();
        sort_versions(&mut out);
        out
    }

    /// The fetched member of a listing whose path ends with `suffix`.
    pub fn fetched(&self, l: &Listing, suffix: &str) -> Option<PathBuf> {
        l.fetched
            .iter()
            .find(|f| f.ends_with(suffix))
            .map(|f| self.root.join(f))
    }

    /// The Linux listing of the wheel that CUDA `minor` pins for the component `short`
    /// (`cuda-runtime`, `cuda-nvcc`): `nvidia-cuda-runtime-cu12`, or `nvidia-cuda-runtime` (13+).
    pub fn toolkit_listing(&self, minor: &str, short: &str) -> Option<&Listing> {
        let t = self.manifest.toolkits.get(minor)?;
        let (dist, version) = t.pins.iter().find(|(d, _)| short_name(d) == short)?;
        self.listings
            .iter()
            .find(|l| &l.dist == dist && &l.version == version && l.platform == "linux")
    }
}

/// `nvidia-cublas-cu12` → `cublas`; `nvidia-cuda-runtime` → `cuda-runtime`.
pub fn short_name(dist: &str) -> &str {
    let s = dist.strip_prefix("nvidia-").unwrap_or(dist);
    match s.rfind("-cu") {
        Some(i) if s[i + 3..].chars().all(|c| c.is_ascii_digit()) && i + 3 < s.len() => &s[..i],
        _ => s,
    }
}

pub fn sort_versions(v: &mut [String]) {
    v.sort_by(|a, b| compare(a, b).unwrap_or(Ordering::Equal));
}

/// `major.minor` of a version ("9.1.1.17" → "9.1").
pub fn major_minor(v: &str) -> String {
    v.split('.').take(2).collect::<Vec<_>>().join(".")
}

/// Every generated file: (file name under `assets/knowledge/generated/`, contents).
pub fn generate(cache_root: &Path) -> Result<Vec<(&'static str, String)>, GenerateError> {
    let cache = Cache::open(cache_root)?;
    let header = |what: &str| {
        format!(
            "# GENERATED by src/engine/knowledge/generate ({what}); do not edit.\n\
             # Regenerate: CUDA_TRIAGE_REGENERATE=1 cargo test --test integration knowledge_generated\n\n"
        )
    };
    let to_toml = |value: &dyn erased::Ser| value.to_toml();
    Ok(vec![
        (
            "status_codes.toml",
            header(
                "status enums of NVIDIA's headers in the nvidia-* wheels and of nvEncodeAPI.h in Debian's libffmpeg-nvenc-dev; Windows' NTSTATUS errors of mingw-w64's ntstatus.h; cudaGetErrorString of their libcudart",
            ) + &to_toml(&status::status_codes(&cache)?),
        ),
        (
            "library_files.toml",
            header("file lists of the nvidia-*, cutensor-* and tensorrt-*-libs wheels on PyPI")
                + &to_toml(&libraries::library_files(&cache)),
        ),
        (
            "driver_entry_points.toml",
            header("CUresult functions and _vN #defines of each CUDA release's cuda.h")
                + &to_toml(&driver_api::entry_points(&cache)?),
        ),
        (
            "package_releases.toml",
            header("PyPI's index of every package a fix may name, as of the fetch's snapshot")
                + &to_toml(&packages::package_releases(&cache)?),
        ),
        (
            "ptxas_architectures.toml",
            header("`ptxas --help` of each CUDA release's nvidia-cuda-nvcc wheel")
                + &to_toml(&driver_api::ptxas_architectures(&cache)?),
        ),
        (
            "library_functions.toml",
            header(
                "functions declared by nvrtc.h, nvJitLink.h, cublas_api.h, cufft.h, curand.h, cusparse.h and nccl.h in the nvidia-* wheels",
            ) + &to_toml(&functions::library_functions(&cache)?),
        ),
    ])
}

/// Serialisation of the tables to TOML (the toml crate; a table that cannot be written is a
/// generator bug, reported in the output).
mod erased {
    pub trait Ser {
        fn to_toml(&self) -> String;
    }
    impl<T: serde::Serialize> Ser for T {
        fn to_toml(&self) -> String {
            toml::to_string(self).unwrap_or_else(|e| format!("# cannot serialise: {e}\n"))
        }
    }
}

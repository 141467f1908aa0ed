//! The tables generated from NVIDIA's own artefacts (`assets/knowledge/generated/`), never
//! edited by hand: every status code of every CUDA library's headers (with NVIDIA's comment and
//! the CUDA runtime's own message text), every library file name the `nvidia-*`, cuTENSOR and
//! TensorRT wheels ship, the driver API entry points each `cuda.h` declares, and the GPU
//! architectures each `ptxas` accepts. `engine::knowledge::generate` (feature `testing`) writes
//! them from the cached artefacts; the integration test `knowledge_generated` regenerates them
//! and fails on any difference.
//!
//! Parsed on first use, apart from the hand tables: a scan that never reads an error text never
//! pays for them.

use super::version::compare;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::OnceLock;

/// One enumerator of a status enum (`cudaError_t`, `CUresult`, `cudnnStatus_t`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatusCode {
    /// The C type: `cudaError_t`, `CUresult`, `cublasStatus_t`, ...
    #[serde(rename = "type")]
    pub type_name: String,
    /// The library that returns it: "CUDA runtime", "CUDA driver", "cuBLAS", ...
    pub library: String,
    pub name: String,
    pub number: i64,
    /// The message the library's own `*GetErrorString` returns, where it could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// NVIDIA's comment on the enumerator in the header.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub comment: String,
    /// The first and last release sampled that have it ("CUDA 11.8", "cuDNN 9.0").
    pub first: String,
    pub last: String,
    /// The header and the wheel it was read from (the newest).
    pub source: String,
}

/// One library file a wheel ships.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LibraryFile {
    pub name: String,
    /// `linux` or `windows`.
    pub platform: String,
    pub component: String,
    /// What the name's version means: "CUDA 12" for a toolkit library, "cuDNN 9", "TensorRT 10".
    pub family: String,
    /// CUDA releases (of the `cuda-toolkit` meta-package) whose pinned wheel ships it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub toolkits: Vec<String>,
    /// The distributions and version ranges that ship it ("nvidia-nccl-cu12 2.16.5-2.32.3").
    pub wheels: Vec<String>,
    /// The folders inside the wheels that hold it (`nvidia/cuda_nvcc/nvvm/lib64`): where a
    /// pip install puts it under site-packages, and a hint at the toolkit's own layout.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub folders: Vec<String>,
}

/// A C API function of an NVIDIA library and the sampled releases whose header declares it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LibraryFunction {
    pub name: String,
    pub library: String,
    /// The oldest and newest sampled releases that declare it ("CUDA 12.0", "NCCL 2.21").
    pub first: String,
    pub last: String,
}

/// The functions of the libraries' headers, with the range of releases each table read.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct LibraryFunctions {
    /// Per library, the oldest and newest release read ("NVRTC: CUDA 11.8 to CUDA 13.5").
    #[serde(default)]
    pub read: Vec<LibraryFunction>,
    #[serde(default)]
    pub function: Vec<LibraryFunction>,
}

/// A CUDA API entry point and the CUDA release that introduced it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntryPoint {
    pub name: String,
    /// `driver` (libcuda / nvcuda.dll, cuda.h) or `runtime` (libcudart, cuda_runtime_api.h).
    pub api: String,
    /// "12.5": from the `PFN_<name>_v<CUDA version>` typedef of `cudaTypedefs.h` whose
    /// parameters match, else the oldest sampled release that declares it.
    pub since: String,
    /// Whether `since` is exact; false: the name was already in the oldest header read.
    pub exact: bool,
    /// The first release read whose cuda.h makes the plain name mean this symbol
    /// (`#define cuCtxCreate cuCtxCreate_v4` from 13.0), when the plain name meant another
    /// symbol (`replaces`) in the release read before it: code written for that one's
    /// parameters does not compile against this release's header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plain_name_since: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<String>,
}

/// The GPU architectures one CUDA release's `ptxas` accepts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PtxasArchs {
    pub cuda: String,
    /// The `ptxas` build the list was read from (`ptxas --version`).
    pub build: String,
    /// The newest PTX ISA version it accepts ("8.4"; CUDA 12.4's).
    pub ptx_isa: String,
    pub archs: Vec<String>,
}

/// One package's releases: "2.5.1 linux=cp39,cp310 windows=cp39": the platforms (`linux`
/// x86-64, `windows` x64, `any`) its wheels are for and their Python tags.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackageRow {
    pub name: String,
    pub releases: Vec<String>,
}

#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct PackageReleases {
    #[serde(default)]
    pub package: Vec<PackageRow>,
}

#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusFile {
    #[serde(default)]
    pub code: Vec<StatusCode>,
}

#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct LibraryFiles {
    #[serde(default)]
    pub file: Vec<LibraryFile>,
}

#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntryPoints {
    /// The oldest `cuda.h` read: an entry point already in it has `since` = this release.
    pub sampled_from: String,
    #[serde(default)]
    pub entry: Vec<EntryPoint>,
}

#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct Architectures {
    #[serde(default)]
    pub ptxas: Vec<PtxasArchs>,
}

/// The generated files, by name, as embedded in the binary.
pub const FILES: &[(&str, &str)] = &[
    (
        "status_codes.toml",
        include_str!("../../../assets/knowledge/generated/status_codes.toml"),
    ),
    (
        "library_files.toml",
        include_str!("../../../assets/knowledge/generated/library_files.toml"),
    ),
    (
        "driver_entry_points.toml",
        include_str!("../../../assets/knowledge/generated/driver_entry_points.toml"),
    ),
    (
        "package_releases.toml",
        include_str!("../../../assets/knowledge/generated/package_releases.toml"),
    ),
    (
        "ptxas_architectures.toml",
        include_str!("../../../assets/knowledge/generated/ptxas_architectures.toml"),
    ),
    (
        "library_functions.toml",
        include_str!("../../../assets/knowledge/generated/library_functions.toml"),
    ),
];

fn text(name: &str) -> &'static str {
    FILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .unwrap_or("")
}

/// One generated table, parsed the first time it is read (a scan that needs only the `ptxas`
/// table does not pay for the 170 KB of status codes). A file that does not parse reads as
/// empty (a unit test checks that each parses).
pub struct LazyTable<T> {
    text: &'static str,
    parsed: OnceLock<T>,
}

impl<T> LazyTable<T> {
    fn of(file: &str) -> LazyTable<T> {
        LazyTable {
            text: text(file),
            parsed: OnceLock::new(),
        }
    }
}

impl<T: serde::de::DeserializeOwned + Default> std::ops::Deref for LazyTable<T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.parsed
            .get_or_init(|| toml::from_str(self.text).unwrap_or_default())
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for LazyTable<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.parsed.get() {
            Some(t) => t.fmt(f),
            None => f.write_str("(not parsed yet)"),
        }
    }
}

/// All generated tables, each parsed on first use, with look-up indexes.
#[derive(Debug)]
pub struct Generated {
    pub status: LazyTable<StatusFile>,
    pub libraries: LazyTable<LibraryFiles>,
    pub entry_points: LazyTable<EntryPoints>,
    pub architectures: LazyTable<Architectures>,
    pub packages: LazyTable<PackageReleases>,
    pub functions: LazyTable<LibraryFunctions>,
    by_name: OnceLock<HashMap<String, Vec<usize>>>,
    files_by_name: OnceLock<HashMap<String, Vec<usize>>>,
}

impl Generated {
    /// The embedded files, none parsed yet.
    pub fn load() -> Generated {
        Generated {
            status: LazyTable::of("status_codes.toml"),
            libraries: LazyTable::of("library_files.toml"),
            entry_points: LazyTable::of("driver_entry_points.toml"),
            architectures: LazyTable::of("ptxas_architectures.toml"),
            packages: LazyTable::of("package_releases.toml"),
            functions: LazyTable::of("library_functions.toml"),
            by_name: OnceLock::new(),
            files_by_name: OnceLock::new(),
        }
    }

    /// Every row of a status name (one per numbering: cuDNN 8 and 9 number the same name
    /// differently), case-insensitive.
    pub fn status_named(&self, name: &str) -> Vec<&StatusCode> {
        self.by_name
            .get_or_init(|| index(self.status.code.iter().map(|c| c.name.as_str())))
            .get(&name.to_ascii_lowercase())
            .map(|ix| ix.iter().map(|&i| &self.status.code[i]).collect())
            .unwrap_or_default()
    }

    /// A library function by its exact name, and the releases of its library that were read.
    pub fn function_named(&self, name: &str) -> Option<(&LibraryFunction, &LibraryFunction)> {
        let f = self.functions.function.iter().find(|f| f.name == name)?;
        let read = self
            .functions
            .read
            .iter()
            .find(|r| r.library == f.library)?;
        Some((f, read))
    }

    /// The row of a number in one C type.
    pub fn status_numbered(&self, type_name: &str, number: i64) -> Option<&StatusCode> {
        self.status
            .code
            .iter()
            .find(|c| c.type_name == type_name && c.number == number)
    }

    /// The rows of a library file name (case-insensitive; one per platform).
    pub fn files_named(&self, name: &str) -> Vec<&LibraryFile> {
        self.files_by_name
            .get_or_init(|| index(self.libraries.file.iter().map(|f| f.name.as_str())))
            .get(&name.to_ascii_lowercase())
            .map(|ix| ix.iter().map(|&i| &self.libraries.file[i]).collect())
            .unwrap_or_default()
    }

    /// The entry point of the driver API named `name`.
    pub fn entry_point(&self, name: &str) -> Option<&EntryPoint> {
        self.entry_points.entry.iter().find(|e| e.name == name)
    }

    /// The entry point a plain name came to mean in a later release, with that release
    /// (`cuCtxCreate_v4` → 13.0, replacing `cuCtxCreate_v2`).
    pub fn rebound_entry_point(&self, name: &str) -> Option<(&EntryPoint, &str, &str)> {
        let e = self.entry_point(name)?;
        Some((e, e.plain_name_since.as_deref()?, e.replaces.as_deref()?))
    }

    /// The first and last sampled CUDA releases whose `ptxas` accepts `arch` (`sm_90a`).
    pub fn arch_span(&self, arch: &str) -> Option<(&str, &str)> {
        let has: Vec<&PtxasArchs> = self
            .architectures
            .ptxas
            .iter()
            .filter(|p| p.archs.iter().any(|a| a.eq_ignore_ascii_case(arch)))
            .collect();
        let by_version = |a: &&&PtxasArchs, b: &&&PtxasArchs| {
            compare(&a.cuda, &b.cuda).unwrap_or(Ordering::Equal)
        };
        let first = has.iter().min_by(by_version)?;
        let last = has.iter().max_by(by_version)?;
        Some((&first.cuda, &last.cuda))
    }

    /// The oldest sampled CUDA release whose `ptxas` accepts PTX ISA `isa` ("8.5" → 12.5).
    pub fn first_release_for_ptx_isa(&self, isa: &str) -> Option<&PtxasArchs> {
        self.ptxas_releases()
            .into_iter()
            .find(|p| compare(&p.ptx_isa, isa).is_some_and(|o| o != Ordering::Less))
    }

    /// The sampled `ptxas` releases, oldest first.
    pub fn ptxas_releases(&self) -> Vec<&PtxasArchs> {
        let mut all: Vec<&PtxasArchs> = self.architectures.ptxas.iter().collect();
        all.sort_by(|a, b| compare(&a.cuda, &b.cuda).unwrap_or(Ordering::Equal));
        all
    }
}

impl Generated {
    /// Whether PyPI has the package at all (any version, any platform).
    pub fn package_known(&self, name: &str) -> bool {
        let norm = |s: &str| s.to_ascii_lowercase().replace('_', "-");
        self.packages
            .package
            .iter()
            .any(|p| norm(&p.name) == norm(name))
    }
}

/// Row numbers by lower-case name.
fn index<'a>(names: impl Iterator<Item = &'a str>) -> HashMap<String, Vec<usize>> {
    let mut out: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, name) in names.enumerate() {
        out.entry(name.to_ascii_lowercase()).or_default().push(i);
    }
    out
}

/// The generated tables, parsed on first use.
pub fn generated() -> &'static Generated {
    static G: OnceLock<Generated> = OnceLock::new();
    G.get_or_init(Generated::load)
}

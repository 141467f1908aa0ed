//! Knowledge as data: the typed tables in `assets/knowledge/*.toml` (library names, driver
//! minimums, framework build matrices, cuDNN/CUDA support, compute capability, install locations
//! and the error-message catalog), compiled into the binary and parsed once.
//!
//! Every row cites a public source (a URL, release notes, a file at a tag or commit, a wheel on
//! PyPI, an issue with its repository); rows that rest on a weak or unconfirmed source carry
//! `verified = false`. [`knowledge()`] never panics: if a table
//! failed to parse (a build-time mistake the unit tests catch) it returns empty tables and
//! [`load_error()`] says why.

pub mod catalog;
pub mod closure;
pub mod cudnn;
pub mod docs;
pub mod drivers;
pub mod framework_loads;
pub mod frameworks;
#[cfg(feature = "testing")]
pub mod generate;
pub mod generated;
pub mod libraries;
pub mod locations;
pub mod onnxruntime;
pub mod ptx_isa;
pub mod torch_extensions;
pub mod version;

#[cfg(test)]
mod tests;

pub use catalog::{Catalog, CodeRow, MessageRow};
pub use cudnn::{CudnnTables, decode_cudnn_version};
pub use drivers::{DriverRequirement, DriverTables};
pub use frameworks::{PytorchRelease, PytorchTables, TensorflowBuild, TensorflowTables};
pub use libraries::{LibraryIdentity, LibraryRow, LibraryTable};
pub use locations::LocationTables;

use std::sync::OnceLock;

/// A table that could not be loaded.
#[derive(Debug, Clone, thiserror::Error)]
pub enum KnowledgeError {
    #[error("assets/knowledge/{table}: {message}")]
    Parse {
        table: &'static str,
        message: String,
    },
    #[error("assets/knowledge/{table}: row {row}: {message}")]
    Row {
        table: &'static str,
        row: String,
        message: String,
    },
}

/// The embedded tables, by file name.
pub const TABLES: &[(&str, &str)] = &[
    (
        "library_names.toml",
        include_str!("../../../assets/knowledge/library_names.toml"),
    ),
    (
        "driver_minimums.toml",
        include_str!("../../../assets/knowledge/driver_minimums.toml"),
    ),
    (
        "tensorflow_builds.toml",
        include_str!("../../../assets/knowledge/tensorflow_builds.toml"),
    ),
    (
        "pytorch_builds.toml",
        include_str!("../../../assets/knowledge/pytorch_builds.toml"),
    ),
    (
        "cudnn_cuda.toml",
        include_str!("../../../assets/knowledge/cudnn_cuda.toml"),
    ),
    (
        "compute_capability.toml",
        include_str!("../../../assets/knowledge/compute_capability.toml"),
    ),
    (
        "install_locations.toml",
        include_str!("../../../assets/knowledge/install_locations.toml"),
    ),
    (
        "onnxruntime_builds.toml",
        include_str!("../../../assets/knowledge/onnxruntime_builds.toml"),
    ),
    (
        "framework_closure.toml",
        include_str!("../../../assets/knowledge/framework_closure.toml"),
    ),
    (
        "framework_loads.toml",
        include_str!("../../../assets/knowledge/framework_loads.toml"),
    ),
    (
        "finding_docs.toml",
        include_str!("../../../assets/knowledge/finding_docs.toml"),
    ),
    (
        "error_catalog.toml",
        include_str!("../../../assets/knowledge/error_catalog.toml"),
    ),
];

/// All knowledge tables.
#[derive(Debug, Default)]
pub struct Knowledge {
    pub libraries: LibraryTable,
    pub drivers: DriverTables,
    pub tensorflow: TensorflowTables,
    pub pytorch: PytorchTables,
    pub cudnn: CudnnTables,
    pub compute: cudnn::ComputeTables,
    pub locations: LocationTables,
    /// The error catalog, parsed the first time it is read: a scan that reads no log text never
    /// pays for its hundreds of rows (its unit tests check that it parses).
    pub catalog: std::sync::LazyLock<Catalog>,
    pub closure: closure::ClosureTables,
    pub loads: framework_loads::FrameworkLoads,
    pub onnxruntime: onnxruntime::OnnxruntimeTables,
    pub docs: docs::DocTables,
}

fn table(name: &'static str) -> &'static str {
    TABLES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
        .unwrap_or("")
}

/// Parses one TOML table into its serde type.
pub(crate) fn parse<T: serde::de::DeserializeOwned>(
    name: &'static str,
) -> Result<T, KnowledgeError> {
    toml::from_str(table(name)).map_err(|e| KnowledgeError::Parse {
        table: name,
        message: e.to_string(),
    })
}

impl Knowledge {
    /// Parses every embedded table and compiles their patterns.
    pub fn load() -> Result<Knowledge, KnowledgeError> {
        Ok(Knowledge {
            libraries: LibraryTable::load()?,
            drivers: parse("driver_minimums.toml")?,
            tensorflow: parse("tensorflow_builds.toml")?,
            pytorch: parse("pytorch_builds.toml")?,
            cudnn: parse("cudnn_cuda.toml")?,
            compute: parse("compute_capability.toml")?,
            locations: parse("install_locations.toml")?,
            catalog: std::sync::LazyLock::new(|| Catalog::load().unwrap_or_default()),
            closure: parse("framework_closure.toml")?,
            loads: parse("framework_loads.toml")?,
            onnxruntime: parse("onnxruntime_builds.toml")?,
            docs: parse("finding_docs.toml")?,
        })
    }
}

static KNOWLEDGE: OnceLock<(Knowledge, Option<KnowledgeError>)> = OnceLock::new();

fn loaded() -> &'static (Knowledge, Option<KnowledgeError>) {
    KNOWLEDGE.get_or_init(|| match Knowledge::load() {
        Ok(k) => (k, None),
        Err(e) => (Knowledge::default(), Some(e)),
    })
}

/// The tables, parsed on first use.
pub fn knowledge() -> &'static Knowledge {
    &loaded().0
}

/// Why the tables are empty, if they failed to load.
pub fn load_error() -> Option<&'static KnowledgeError> {
    loaded().1.as_ref()
}

/// Identifies a library file name (see [`LibraryTable::identify`]).
pub fn identify_library(name: &str) -> Option<LibraryIdentity> {
    knowledge().libraries.identify(name)
}

/// Minimum driver for a CUDA toolkit version on a platform (see [`DriverTables::min_driver`]).
pub fn min_driver_for_cuda(
    cuda: &str,
    platform: crate::engine::context::Platform,
) -> Option<DriverRequirement> {
    knowledge().drivers.min_driver(cuda, platform)
}

/// The minor-version-compatibility floor of a CUDA major (11 → 450, 12 → 525, 13 → 580).
pub fn minor_compat(major: u64) -> Option<&'static drivers::MinorCompatRow> {
    knowledge().drivers.minor_compat(major)
}

/// The tested build of a TensorFlow release on a platform.
#[cfg(test)]
pub fn tensorflow_build(
    version: &str,
    platform: crate::engine::context::Platform,
) -> Option<&'static TensorflowBuild> {
    knowledge().tensorflow.build(version, platform)
}

/// The CUDA builds of a PyTorch release ("2.4.0", "2.4.0+cu121").
#[cfg(test)]
pub fn pytorch_build(version: &str) -> Option<&'static PytorchRelease> {
    knowledge().pytorch.release(version)
}

/// Whether a cuDNN release supports a CUDA toolkit; `None` when the tables do not say.
#[cfg(test)]
pub fn cudnn_supports_cuda(cudnn: &str, cuda: &str) -> Option<bool> {
    knowledge().cudnn.supports(cudnn, cuda)
}

/// Whether a CUDA toolkit still builds for a compute capability; `None` when unknown.
#[cfg(test)]
pub fn toolkit_supports_cc(cuda: &str, cc: &str) -> Option<bool> {
    knowledge().compute.toolkit_supports(cuda, cc)
}

/// A sourced rule stated in words (cuDNN and driver tables' `[[rule]]` rows).
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextRule {
    pub id: String,
    pub text: String,
    #[serde(default = "yes")]
    pub verified: bool,
    pub source: String,
}

/// Serde default for `verified`: a row is verified unless it says otherwise.
fn yes() -> bool {
    true
}

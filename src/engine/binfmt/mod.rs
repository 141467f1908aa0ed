//! Binary formats: what the loaders need from a PE (DLL/EXE) or ELF (.so/executable) file,
//! read from headers and tables through a memory map — a 700 MB cuBLAS is never read whole.
//!
//! `read_binary` picks the parser from the file's magic bytes. Parsers never panic on bad input:
//! a truncated or corrupt file is a `BinaryError` naming the path.

use serde::{Deserialize, Serialize};

/// Which executable format a file is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Pe,
    Elf,
}

/// CPU architecture and word size of a binary (`x86_64`, `i386`, `aarch64`, ...).
/// A loader skips a candidate whose machine differs from the one that needs it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Machine {
    /// `x86_64`, `i386`, `aarch64`, `arm`, or `unknown(0x...)`.
    pub arch: String,
    /// 32 or 64.
    pub bits: u8,
}

/// How an import is bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ImportKind {
    /// Resolved when the binary loads (PE import table, ELF DT_NEEDED).
    Load,
    /// PE delay-load import: resolved at first call.
    Delay,
}

/// One library a binary imports, with the symbols it takes from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    /// The library name as written in the binary (`KERNEL32.dll`, `libcudart.so.12`).
    pub name: String,
    pub kind: ImportKind,
    /// Imported symbol names (PE: by name; ordinals as `#N`). Empty for ELF (symbols are global).
    pub symbols: Vec<String>,
}

/// One exported symbol (PE).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Export {
    pub name: Option<String>,
    pub ordinal: u32,
    /// `OTHERDLL.Function` when the export forwards elsewhere.
    pub forwarder: Option<String>,
}

/// ELF version requirement (`.gnu.version_r`): library file and the version names needed from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionNeed {
    pub library: String,
    pub versions: Vec<String>,
}

/// Version facts read from a binary (PE VS_VERSIONINFO; for ELF, from the file name or strings).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionInfo {
    /// The true library version as best known, e.g. `12.9.86` or `2025.1.1`.
    pub version: Option<String>,
    /// Where `version` came from: `ProductName`, `FileVersion`, `OriginalFilename`, `soname`, ...
    pub source: Option<String>,
    /// Raw string-table fields (FileVersion, ProductVersion, ProductName, FileDescription,
    /// OriginalFilename, CompanyName) as found.
    pub fields: std::collections::BTreeMap<String, String>,
}

/// Everything the loaders and rules need from one binary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BinaryInfo {
    pub format: Format,
    pub machine: Machine,
    /// Load-time and delay-load imports, in table order.
    pub imports: Vec<Import>,
    /// PE exports (empty for ELF; use `dynamic_symbols`).
    pub exports: Vec<Export>,
    /// ELF: defined dynamic symbols (exports), for undefined-symbol checks.
    pub dynamic_symbols: Vec<String>,
    /// ELF DT_SONAME.
    pub soname: Option<String>,
    /// ELF DT_RPATH entries, unexpanded (`$ORIGIN/../lib`), empty entries kept.
    pub rpath: Vec<String>,
    /// ELF DT_RUNPATH entries, unexpanded.
    pub runpath: Vec<String>,
    /// ELF DF_1_NODEFLIB.
    pub nodeflib: bool,
    /// ELF version needs (GLIBC_2.27 ...).
    pub version_needs: Vec<VersionNeed>,
    /// Library names embedded as strings (candidates for run-time LoadLibrary/dlopen).
    pub embedded_library_names: Vec<String>,
    pub version: VersionInfo,
}

/// A binary that could not be read.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum BinaryError {
    #[error("{path}: cannot open: {message}")]
    Open { path: String, message: String },
    #[error("{path}: not a PE or ELF binary")]
    NotBinary { path: String },
    #[error("{path}: damaged {format} file: {message}")]
    Malformed {
        path: String,
        format: &'static str,
        message: String,
    },
}

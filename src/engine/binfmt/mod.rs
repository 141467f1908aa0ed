//! Binary formats: what the loaders need from a PE (DLL/EXE) or ELF (.so/executable) file,
//! read from headers and tables through a memory map — a 700 MB cuBLAS is never read whole.
//!
//! `read_binary` picks the parser from the file's magic bytes. Parsers never panic on bad input:
//! a truncated or corrupt file is a `BinaryError` naming the path. Every table read from a file
//! is capped (see the `MAX_*` constants), so a hostile count cannot make us allocate without bound.
//! `parse_bytes` is the same entry point for bytes already in memory (tests, fuzzing).

pub mod cache;
mod elf;
mod elf_symbols;
mod pe;
pub mod pe_clr;
mod pe_delay;
pub mod pe_manifest;
mod pe_version;
pub mod replay;
pub mod strings;
pub mod true_version;
mod version_source;

pub use elf_symbols::{SymbolNeed, SymbolTable};
use serde::{Deserialize, Serialize};
use std::path::Path;
pub use version_source::BinaryVersionSource;

/// At most this many imported libraries (PE descriptors or ELF DT_NEEDED) are kept.
pub const MAX_IMPORTS: usize = 4_096;
/// At most this many symbols are kept per imported library.
pub const MAX_SYMBOLS_PER_IMPORT: usize = 65_536;
/// At most this many exports (PE) or defined dynamic symbols (ELF) are kept.
pub const MAX_EXPORTS: usize = 262_144;
/// At most this many RPATH/RUNPATH entries and version needs are kept.
pub const MAX_PATH_ENTRIES: usize = 1_024;

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

/// Version facts read from a binary (PE VS_VERSIONINFO; for ELF, the nvcc banner, file name or
/// SONAME). How `version` is chosen is documented in `true_version.rs`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionInfo {
    /// The true library version as best known, e.g. `12.9.86` or `2025.1.1`.
    pub version: Option<String>,
    /// Where `version` came from: `ProductName`, `FileDescription`, `OriginalFilename`,
    /// `FileVersion`, `ProductVersion`, `VS_FIXEDFILEINFO`, `nvcc banner`, `file name`, `soname`.
    pub source: Option<BinaryVersionSource>,
    /// Raw string-table fields (FileVersion, ProductVersion, ProductName, FileDescription,
    /// OriginalFilename, CompanyName, InternalName) as found, trimmed; plus `FixedFileVersion`
    /// (`a.b.c.d` from VS_FIXEDFILEINFO) when present.
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
    /// ELF: defined dynamic symbols (exports). Read only with `Detail::FULL` (`read_binary`);
    /// the loaders never need them and listing them is most of the cost of parsing a big library.
    #[serde(default)]
    pub dynamic_symbols: Vec<String>,
    /// ELF: version names defined in `.gnu.version_d` (`GLIBC_2.34`), minus the base entry.
    #[serde(default)]
    pub version_definitions: Vec<String>,
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
    /// Library names embedded as strings (candidates for run-time LoadLibrary/dlopen), from
    /// `.rdata`/`.rodata`, in order, minus names the import table or SONAME already gives.
    pub embedded_library_names: Vec<String>,
    pub version: VersionInfo,
    /// PE: the side-by-side assemblies its embedded manifest depends on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assemblies: Vec<pe_manifest::AssemblyRef>,
    /// PE: the .NET (CLR) header, for a managed program or library.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clr: Option<pe_clr::ClrInfo>,
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

impl BinaryError {
    pub(crate) fn malformed(path: &str, format: &'static str, message: impl ToString) -> Self {
        BinaryError::Malformed {
            path: path.to_owned(),
            format,
            message: message.to_string(),
        }
    }
}

impl BinaryInfo {
    /// An empty record of the given format and machine; parsers fill in the rest.
    /// A binary with no imports, exports or paths (a starting point for parsers and tests).
    pub fn empty(format: Format, machine: Machine) -> Self {
        BinaryInfo {
            format,
            machine,
            imports: Vec::new(),
            exports: Vec::new(),
            dynamic_symbols: Vec::new(),
            version_definitions: Vec::new(),
            soname: None,
            rpath: Vec::new(),
            runpath: Vec::new(),
            nodeflib: false,
            version_needs: Vec::new(),
            embedded_library_names: Vec::new(),
            version: VersionInfo::default(),
            assemblies: Vec::new(),
            clr: None,
        }
    }

    /// Load-time imports only (PE import table, ELF DT_NEEDED), in table order.
    #[cfg(any(test, feature = "testing"))]
    pub fn load_imports(&self) -> impl Iterator<Item = &Import> {
        self.imports.iter().filter(|i| i.kind == ImportKind::Load)
    }

    /// Delay-load imports (PE only).
    pub fn delay_imports(&self) -> impl Iterator<Item = &Import> {
        self.imports.iter().filter(|i| i.kind == ImportKind::Delay)
    }

    /// Whether the binary exports `symbol` (PE export by name, ELF defined dynamic symbol).
    #[cfg(any(test, feature = "testing"))]
    pub fn exports_symbol(&self, symbol: &str) -> bool {
        match self.format {
            Format::Pe => self
                .exports
                .iter()
                .any(|e| e.name.as_deref() == Some(symbol)),
            Format::Elf => self.dynamic_symbols.iter().any(|s| s == symbol),
        }
    }
}

impl Machine {
    pub(crate) fn new(arch: impl Into<String>, bits: u8) -> Self {
        Machine {
            arch: arch.into(),
            bits,
        }
    }
}

/// How much of a binary to read beyond its headers and tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detail {
    /// Scan read-only data for embedded library names (and, for ELF, the nvcc banner version).
    pub embedded_names: bool,
    /// List ELF defined dynamic symbols (`BinaryInfo::dynamic_symbols`).
    pub symbols: bool,
}

impl Detail {
    pub const HEADERS: Detail = Detail {
        embedded_names: false,
        symbols: false,
    };
    pub const NAMES: Detail = Detail {
        embedded_names: true,
        symbols: false,
    };
    pub const FULL: Detail = Detail {
        embedded_names: true,
        symbols: true,
    };
}

/// Reads a PE or ELF file through a memory map. Never reads the whole file into memory and
/// never panics; every failure names `path`. Reads everything (`Detail::FULL`).
pub fn read_binary(path: &Path) -> Result<BinaryInfo, BinaryError> {
    read_binary_with(path, Detail::FULL)
}

/// Headers and tables only: no scan of read-only data for embedded library names (and so no
/// `nvcc` banner version for ELF), no ELF symbol list. What a tree without run-time edges needs;
/// on a 500 MB library it is the difference between touching a few pages and reading hundreds of MB.
pub fn read_binary_headers(path: &Path) -> Result<BinaryInfo, BinaryError> {
    read_binary_with(path, Detail::HEADERS)
}

/// Headers, tables and embedded library names, no ELF symbol list: what a tree with run-time
/// edges needs.
pub fn read_binary_names(path: &Path) -> Result<BinaryInfo, BinaryError> {
    read_binary_with(path, Detail::NAMES)
}

/// Reads a binary file to the given detail (a context's file view reads through its
/// [`cache::FileCache`], which also records and replays reads for reports).
pub fn read_binary_with(path: &Path, detail: Detail) -> Result<BinaryInfo, BinaryError> {
    read_binary_mapped(path, detail, || map_file(path))
}

/// Reads a binary to the given detail from a mapping `map` makes (a [`cache::FileCache`] hands
/// out one mapping per file, shared by every reader and by its symbol table).
pub(crate) fn read_binary_mapped(
    path: &Path,
    detail: Detail,
    map: impl FnOnce() -> Result<MappedFile, BinaryError>,
) -> Result<BinaryInfo, BinaryError> {
    map().and_then(|m| parse_mapped(path, &m, detail))
}

/// A binary file mapped read-only, shared by the readers of one scan or tree.
pub type MappedFile = std::sync::Arc<memmap2::Mmap>;

/// Maps the regular file at `path` (at least 4 bytes: anything shorter is no binary).
pub fn map_file(path: &Path) -> Result<MappedFile, BinaryError> {
    let shown = || path.display().to_string();
    let open_err = |e: std::io::Error| BinaryError::Open {
        path: shown(),
        message: e.to_string(),
    };
    let file = std::fs::File::open(path).map_err(open_err)?;
    let meta = file.metadata().map_err(open_err)?;
    if !meta.is_file() {
        return Err(BinaryError::Open {
            path: shown(),
            message: "not a regular file".into(),
        });
    }
    if meta.len() < 4 {
        return Err(BinaryError::NotBinary { path: shown() });
    }
    // SAFETY: the map is read-only. Another process truncating the file while we read could
    // raise SIGBUS; that is the accepted risk of every mmap-based reader (readelf, objdump,
    // pelite's own FileMap), and the only way to avoid reading 700 MB files whole.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(open_err)?;
    Ok(std::sync::Arc::new(map))
}

fn parse_mapped(path: &Path, bytes: &[u8], detail: Detail) -> Result<BinaryInfo, BinaryError> {
    let mut info = parse_bytes_with(bytes, &path.display().to_string(), detail)?;
    if let Some(name) = path.file_name().and_then(|n| n.to_str()) {
        true_version::from_file_name(name, &mut info.version);
    }
    Ok(info)
}

/// The read-only data sections of an ELF binary (where `nvcc` and `ptxas` keep their
/// `Cuda compilation tools, release X.Y, VX.Y.Z` banner); `None` for anything else.
pub fn elf_rodata(bytes: &[u8]) -> Option<Vec<&[u8]>> {
    if !bytes.starts_with(b"\x7fELF") {
        return None;
    }
    elf::rodata_sections(bytes)
}

/// Parses a binary already in memory; `path_for_messages` only names it in errors.
pub fn parse_bytes(bytes: &[u8], path_for_messages: &str) -> Result<BinaryInfo, BinaryError> {
    parse_bytes_with(bytes, path_for_messages, Detail::FULL)
}

fn parse_bytes_with(
    bytes: &[u8],
    path_for_messages: &str,
    detail: Detail,
) -> Result<BinaryInfo, BinaryError> {
    if bytes.starts_with(b"MZ") {
        pe::parse(bytes, path_for_messages, detail.embedded_names)
    } else if bytes.starts_with(b"\x7fELF") {
        elf::parse(bytes, path_for_messages, detail)
    } else {
        Err(BinaryError::NotBinary {
            path: path_for_messages.to_owned(),
        })
    }
}

//! ELF symbol versions, read on demand (never by the loaders): which versioned symbols a library
//! needs from which file — `__nvJitLinkComplete_12_4` at version `libnvJitLink.so.12` from
//! `libnvJitLink.so.12` — and which versioned symbols it defines. This is what ld.so checks when
//! it binds a library with `RTLD_NOW` (Python imports extensions that way, and NVIDIA's
//! libraries are linked `-z now`), and what `ldd -r` reports as `undefined symbol: NAME, version
//! VERSION`. A version *definition* missing altogether is the other check ("version ... not
//! found", `BinaryInfo::version_definitions`); this one finds the symbol missing from a version
//! the file does define — an older build of the same soname.

use super::BinaryError;
use super::elf::{DynStr, parse_tables};
use goblin::elf::sym::{STB_WEAK, STT_FILE, STT_SECTION};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// One undefined symbol bound to a version of another file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolNeed {
    pub symbol: String,
    /// The version name (`libnvJitLink.so.12`, `libcublasLt.so.11`, `GLIBC_2.34`).
    pub version: String,
    /// The file the version is needed from (`vn_file`: a DT_NEEDED name).
    pub library: String,
}

/// The versioned symbols of one ELF file.
#[derive(Debug, Clone, Default)]
pub struct VersionedSymbols {
    /// Undefined, non-weak symbols that carry a version, in table order.
    pub needs: Vec<SymbolNeed>,
    /// Defined symbols by version name.
    pub defines: HashMap<String, HashSet<String>>,
}

impl VersionedSymbols {
    /// Whether the file defines `symbol` at `version`.
    pub fn defines(&self, symbol: &str, version: &str) -> bool {
        self.defines
            .get(version)
            .is_some_and(|names| names.contains(symbol))
    }

    /// Whether the file defines any symbol at `version` (or the version itself).
    pub fn has_version(&self, version: &str) -> bool {
        self.defines.contains_key(version)
    }

    /// What this file needs from `library` that `provider` does not define, among the versions
    /// `provider` does define (a version it lacks entirely is the version check's finding).
    pub fn missing_from(&self, library: &str, provider: &VersionedSymbols) -> Vec<&SymbolNeed> {
        self.needs
            .iter()
            .filter(|n| n.library == library)
            .filter(|n| {
                provider.has_version(&n.version) && !provider.defines(&n.symbol, &n.version)
            })
            .collect()
    }
}

/// Reads the versioned symbols of the ELF file at `path` (PE files and unversioned ELF files give
/// an empty answer).
pub fn read_versioned_symbols(path: &Path) -> Result<VersionedSymbols, BinaryError> {
    let shown = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| BinaryError::Open {
        path: shown.clone(),
        message: e.to_string(),
    })?;
    // SAFETY: read-only map for the duration of this call (see `read_file_with`).
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| BinaryError::Open {
        path: shown.clone(),
        message: e.to_string(),
    })?;
    parse_versioned_symbols(&map, &shown)
}

/// [`read_versioned_symbols`] for bytes already in memory (tests, fuzzing); `shown` names them in
/// errors.
pub fn parse_versioned_symbols(bytes: &[u8], shown: &str) -> Result<VersionedSymbols, BinaryError> {
    if !bytes.starts_with(b"\x7fELF") {
        return Ok(VersionedSymbols::default());
    }
    parse(bytes).map_err(|e| BinaryError::malformed(shown, "ELF", e))
}

fn parse(bytes: &[u8]) -> goblin::error::Result<VersionedSymbols> {
    use goblin::container::{Container, Ctx};
    let (elf, dynstr) = parse_tables(bytes)?;
    let ctx = Ctx::new(
        if elf.is_64 {
            Container::Big
        } else {
            Container::Little
        },
        if elf.little_endian {
            scroll::Endian::Little
        } else {
            scroll::Endian::Big
        },
    );
    let Some(versym) = goblin::elf::symver::VersymSection::parse(bytes, &elf.section_headers, ctx)?
    else {
        return Ok(VersionedSymbols::default());
    };
    // Version index → (version name, file it is needed from) / version name it defines.
    let mut needed: HashMap<u16, (String, String)> = HashMap::new();
    if let Some(verneed) = &elf.verneed {
        for need in verneed.iter() {
            let Some(file) = dynstr.get(need.vn_file as u64) else {
                continue;
            };
            for aux in need.iter() {
                if let Some(name) = dynstr.get(aux.vna_name as u64) {
                    needed.insert(aux.vna_other & 0x7fff, (name.to_owned(), file.to_owned()));
                }
            }
        }
    }
    let mut defined: HashMap<u16, String> = HashMap::new();
    if let Some(verdef) = &elf.verdef {
        for def in verdef.iter() {
            if let Some(name) = def
                .iter()
                .next()
                .and_then(|a| dynstr.get(a.vda_name as u64))
            {
                defined.insert(def.vd_ndx, name.to_owned());
            }
        }
    }
    let mut out = VersionedSymbols::default();
    for (index, sym) in elf.dynsyms.iter().enumerate() {
        if matches!(sym.st_type(), STT_SECTION | STT_FILE) {
            continue;
        }
        let Some(v) = versym.get_at(index) else {
            break;
        };
        let Some(name) = name_of(&dynstr, sym.st_name) else {
            continue;
        };
        if sym.st_shndx == 0 {
            if sym.st_bind() == STB_WEAK {
                continue;
            }
            if let Some((version, library)) = needed.get(&v.version()) {
                out.needs.push(SymbolNeed {
                    symbol: name.to_owned(),
                    version: version.clone(),
                    library: library.clone(),
                });
            }
        } else if let Some(version) = defined.get(&v.version()) {
            out.defines
                .entry(version.clone())
                .or_default()
                .insert(name.to_owned());
        }
    }
    Ok(out)
}

fn name_of<'a>(dynstr: &DynStr<'a>, offset: usize) -> Option<&'a str> {
    dynstr.get(offset as u64).filter(|n| !n.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_in_memory_read_as_the_file_does() {
        // The test binary itself: an ELF that needs glibc's versioned symbols.
        let path = std::env::current_exe().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let from_bytes = parse_versioned_symbols(&bytes, "self").unwrap();
        let from_file = read_versioned_symbols(&path).unwrap();
        assert_eq!(from_bytes.needs, from_file.needs);
        assert_eq!(from_bytes.defines, from_file.defines);
        assert!(
            from_bytes
                .needs
                .iter()
                .any(|n| n.version.starts_with("GLIBC_"))
        );
        // Not an ELF file: nothing to check; a cut-off one: an error naming it, never a panic.
        assert!(
            parse_versioned_symbols(b"MZ\0\0", "x.dll")
                .unwrap()
                .needs
                .is_empty()
        );
        let cut = parse_versioned_symbols(&bytes[..200], "cut.so");
        assert!(cut.map_or_else(|e| e.to_string().contains("cut.so"), |v| v.needs.is_empty()));
    }
}

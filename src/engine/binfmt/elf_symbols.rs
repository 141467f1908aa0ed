//! ELF symbol versions, read on demand (never by the loaders): which versioned symbols a library
//! needs from which file — `__nvJitLinkComplete_12_4` at version `libnvJitLink.so.12` from
//! `libnvJitLink.so.12` — and whether another file defines a symbol at a version. This is what
//! ld.so checks when it binds a library with `RTLD_NOW` (Python imports extensions that way, and
//! NVIDIA's libraries are linked `-z now`), and what `ldd -r` reports as `undefined symbol: NAME,
//! version VERSION`. A version *definition* missing altogether is the other check ("version ...
//! not found", `BinaryInfo::version_definitions`); this one finds the symbol missing from a
//! version the file does define — an older build of the same soname.
//!
//! A [`SymbolTable`] keeps the file mapped and touches only `.dynsym`, `.dynstr` and the version
//! tables: opening it walks `.gnu.version` once (no string is copied) to list the undefined
//! versioned symbols; a definition is then looked up, one name at a time, through the file's own
//! GNU hash table, as ld.so does — so a definition ld.so cannot find is not one here either (a
//! file without the table is searched through a sorted index built on first use). Whether a
//! version has definitions is asked of its own version symbol first (the linker defines one per
//! version name), and only without one of the whole table, once.

use super::elf::parse_tables;
use super::{BinaryError, MappedFile, map_file};
use goblin::elf::section_header::{SHT_DYNSYM, SHT_GNU_HASH, SHT_GNU_VERSYM};
use goblin::elf::sym::{STB_WEAK, STT_FILE, STT_SECTION};
use std::path::Path;
use std::sync::OnceLock;

mod gnu_hash;
use gnu_hash::GnuHash;

/// Version indices above this are ignored (the field is 15 bits; real files use a few dozen).
const MAX_VERSION_INDEX: usize = 0x7fff;

/// One undefined symbol bound to a version of another file (borrowed from its table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymbolNeed<'a> {
    pub symbol: &'a str,
    /// The version name (`libnvJitLink.so.12`, `libcublasLt.so.11`, `GLIBC_2.34`).
    pub version: &'a str,
    /// The file the version is needed from (`vn_file`: a DT_NEEDED name).
    pub library: &'a str,
}

/// Where one needed version comes from: its name and the file it is needed from.
#[derive(Debug, Clone)]
struct NeededVersion {
    version: String,
    library: String,
}

/// An undefined versioned symbol: its name's `.dynstr` offset and its version index.
#[derive(Debug, Clone, Copy)]
struct Need {
    name: usize,
    version: u16,
}

/// The dynamic symbols of one ELF file with their versions, kept mapped and read on demand.
pub struct SymbolTable {
    map: MappedFile,
    is_64: bool,
    little: bool,
    /// `.dynstr` as a byte range of the file.
    strtab: (usize, usize),
    /// `.dynsym`: offset, record size, record count.
    symtab: (usize, usize, usize),
    /// `.gnu.version`: offset and entry count (one `u16` per symbol).
    versym: (usize, usize),
    /// Version index → needed version (`.gnu.version_r`).
    needed: Vec<Option<NeededVersion>>,
    /// Version index → defined version name (`.gnu.version_d`).
    defined: Vec<Option<String>>,
    /// Version indices with at least one defined symbol (a walk of the table, on first need).
    has_definitions: OnceLock<Vec<bool>>,
    /// Undefined, non-weak symbols that carry a needed version, in table order.
    needs: Vec<Need>,
    gnu_hash: Option<GnuHash>,
    /// Defined symbol indices sorted by name, when the GNU hash table cannot answer.
    sorted: OnceLock<Vec<u32>>,
}

impl std::fmt::Debug for SymbolTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SymbolTable")
            .field("symbols", &self.symtab.2)
            .field("needs", &self.needs.len())
            .field("gnu_hash", &self.gnu_hash.is_some())
            .finish()
    }
}

/// One `.dynsym` record, the fields the checks use.
struct Sym {
    name: usize,
    info: u8,
    shndx: u16,
}

impl Sym {
    fn kind(&self) -> u8 {
        self.info & 0xf
    }
    fn bind(&self) -> u8 {
        self.info >> 4
    }
    /// A defined symbol another object can bind to (not a section or file marker).
    fn is_definition(&self) -> bool {
        self.shndx != 0 && !matches!(self.kind(), STT_SECTION | STT_FILE)
    }
}

impl SymbolTable {
    /// Maps the ELF file at `path` and indexes its dynamic symbols; `None` for a PE file or an
    /// ELF file without versioned symbols.
    pub fn open(path: &Path) -> Result<Option<SymbolTable>, BinaryError> {
        Self::of_map(map_file(path)?, path)
    }

    /// Indexes the dynamic symbols of the file mapped as `map` (`path` names it in errors).
    pub fn of_map(map: MappedFile, path: &Path) -> Result<Option<SymbolTable>, BinaryError> {
        if !map.starts_with(b"\x7fELF") {
            return Ok(None);
        }
        Self::index(map).map_err(|e| BinaryError::malformed(&path.display().to_string(), "ELF", e))
    }

    fn index(map: MappedFile) -> goblin::error::Result<Option<SymbolTable>> {
        let bytes: &[u8] = &map;
        let (elf, dynstr) = parse_tables(bytes)?;
        let section = |kind: u32| elf.section_headers.iter().find(|sh| sh.sh_type == kind);
        let (Some(dynamic), Some(dynsym), Some(versym)) = (
            elf.dynamic.as_ref(),
            section(SHT_DYNSYM).filter(|sh| sh.sh_entsize != 0),
            section(SHT_GNU_VERSYM),
        ) else {
            return Ok(None);
        };
        let mut needed: Vec<Option<NeededVersion>> = Vec::new();
        if let Some(verneed) = &elf.verneed {
            for need in verneed.iter() {
                let Some(file) = dynstr.get(need.vn_file as u64) else {
                    continue;
                };
                for aux in need.iter() {
                    if let Some(name) = dynstr.get(aux.vna_name as u64) {
                        let at = usize::from(aux.vna_other & 0x7fff);
                        put(&mut needed, at, name_version(name, file));
                    }
                }
            }
        }
        let mut defined: Vec<Option<String>> = Vec::new();
        if let Some(verdef) = &elf.verdef {
            for def in verdef.iter() {
                if let Some(name) = def
                    .iter()
                    .next()
                    .and_then(|a| dynstr.get(a.vda_name as u64))
                {
                    put(&mut defined, usize::from(def.vd_ndx), name.to_owned());
                }
            }
        }
        let symtab = (
            dynsym.sh_offset as usize,
            dynsym.sh_entsize as usize,
            (dynsym.sh_size / dynsym.sh_entsize) as usize,
        );
        let mut table = SymbolTable {
            is_64: elf.is_64,
            little: elf.little_endian,
            strtab: (
                dynamic.info.strtab,
                dynamic.info.strtab.saturating_add(dynamic.info.strsz),
            ),
            symtab,
            versym: (versym.sh_offset as usize, (versym.sh_size / 2) as usize),
            has_definitions: OnceLock::new(),
            needed,
            defined,
            needs: Vec::new(),
            gnu_hash: None,
            sorted: OnceLock::new(),
            map,
        };
        let hash_at = section(SHT_GNU_HASH)
            .map(|sh| sh.sh_offset as usize)
            .or(dynamic.info.gnu_hash.map(|o| o as usize));
        table.gnu_hash = hash_at.and_then(|at| table.read_gnu_hash(at));
        table.walk();
        Ok(Some(table))
    }

    /// One pass over `.gnu.version` (two bytes a symbol), reading a symbol's record only when
    /// its version is a needed one: is it an undefined, non-weak need? `.dynstr` is read only
    /// to skip nameless needs. With a GNU hash table only the symbols before its first one are
    /// looked at: linkers (GNU ld, gold, lld, mold) hash defined symbols only and put every
    /// undefined one first — 480 of libcudnn_cnn_infer.so.8's 39,790 symbols.
    fn walk(&mut self) {
        let needed: Vec<bool> = self.needed.iter().map(Option::is_some).collect();
        let unhashed = self.gnu_hash.map_or(usize::MAX, |h| h.symoffset as usize);
        let count = self.symtab.2.min(self.versym.1).min(unhashed);
        let Some(versym) = self.bytes(self.versym.0, count.saturating_mul(2)) else {
            return;
        };
        let candidates: Vec<(usize, u16)> = versym
            .chunks_exact(2)
            .enumerate()
            .filter_map(|(index, raw)| {
                let raw = [raw[0], raw[1]];
                let version = if self.little {
                    u16::from_le_bytes(raw)
                } else {
                    u16::from_be_bytes(raw)
                } & 0x7fff;
                needed
                    .get(usize::from(version))
                    .copied()
                    .unwrap_or(false)
                    .then_some((index, version))
            })
            .collect();
        for (index, version) in candidates {
            let Some(sym) = self.sym(index) else {
                break;
            };
            if sym.shndx == 0
                && !matches!(sym.kind(), STT_SECTION | STT_FILE)
                && sym.bind() != STB_WEAK
                && self.has_name(sym.name)
            {
                self.needs.push(Need {
                    name: sym.name,
                    version,
                });
            }
        }
    }

    /// Which version indices have at least one defined symbol: one walk of the table.
    fn definitions_by_version(&self) -> Vec<bool> {
        let mut seen = vec![false; self.defined.len()];
        for index in 0..self.symtab.2 {
            let Some(version) = self.version_of(index) else {
                break;
            };
            let v = usize::from(version);
            if seen.get(v) != Some(&false) || self.defined[v].is_none() {
                continue;
            }
            if self
                .sym(index)
                .is_some_and(|s| s.is_definition() && s.name != 0)
            {
                seen[v] = true;
            }
        }
        seen
    }

    fn bytes(&self, at: usize, len: usize) -> Option<&[u8]> {
        self.map.get(at..at.checked_add(len)?)
    }

    fn u16_at(&self, at: usize) -> Option<u16> {
        let b: [u8; 2] = self.bytes(at, 2)?.try_into().ok()?;
        Some(if self.little {
            u16::from_le_bytes(b)
        } else {
            u16::from_be_bytes(b)
        })
    }

    fn u32_at(&self, at: usize) -> Option<u32> {
        let b: [u8; 4] = self.bytes(at, 4)?.try_into().ok()?;
        Some(if self.little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    }

    fn u64_at(&self, at: usize) -> Option<u64> {
        let b: [u8; 8] = self.bytes(at, 8)?.try_into().ok()?;
        Some(if self.little {
            u64::from_le_bytes(b)
        } else {
            u64::from_be_bytes(b)
        })
    }

    fn sym(&self, index: usize) -> Option<Sym> {
        let at = self
            .symtab
            .0
            .checked_add(index.checked_mul(self.symtab.1)?)?;
        // Elf64_Sym: name u32, info u8, other u8, shndx u16, value u64, size u64.
        // Elf32_Sym: name u32, value u32, size u32, info u8, other u8, shndx u16.
        let (info, shndx) = if self.is_64 { (4, 6) } else { (12, 14) };
        Some(Sym {
            name: self.u32_at(at)? as usize,
            info: *self.map.get(at + info)?,
            shndx: self.u16_at(at + shndx)?,
        })
    }

    fn version_of(&self, index: usize) -> Option<u16> {
        if index >= self.versym.1 {
            return None;
        }
        Some(self.u16_at(self.versym.0.checked_add(index.checked_mul(2)?)?)? & 0x7fff)
    }

    fn name_bytes(&self, offset: usize) -> Option<&[u8]> {
        let (start, end) = self.strtab;
        let rest = self.map.get(start.checked_add(offset)?..end)?;
        let len = memchr::memchr(0, rest)?;
        Some(&rest[..len])
    }

    /// Whether the name at `offset` is non-empty (one byte read, not the whole name).
    fn has_name(&self, offset: usize) -> bool {
        self.strtab
            .0
            .checked_add(offset)
            .filter(|&at| at < self.strtab.1)
            .and_then(|at| self.map.get(at))
            .is_some_and(|&b| b != 0)
    }

    fn name(&self, offset: usize) -> Option<&str> {
        std::str::from_utf8(self.name_bytes(offset)?).ok()
    }

    fn needed_version(&self, index: u16) -> Option<&NeededVersion> {
        self.needed.get(usize::from(index))?.as_ref()
    }

    fn defined_version(&self, index: u16) -> Option<&str> {
        self.defined.get(usize::from(index))?.as_deref()
    }

    /// Undefined, non-weak symbols that carry a version, in table order.
    pub fn needs(&self) -> impl Iterator<Item = SymbolNeed<'_>> {
        self.needs.iter().filter_map(|n| {
            let v = self.needed_version(n.version)?;
            Some(SymbolNeed {
                symbol: self.name(n.name)?,
                version: &v.version,
                library: &v.library,
            })
        })
    }

    /// Whether the file defines any symbol at `version` (or the version itself).
    pub fn has_version(&self, version: &str) -> bool {
        if !self.defined.iter().any(|v| v.as_deref() == Some(version)) {
            return false;
        }
        if self.defines(version, version) {
            return true;
        }
        let seen = self
            .has_definitions
            .get_or_init(|| self.definitions_by_version());
        self.defined
            .iter()
            .zip(seen)
            .any(|(v, &seen)| seen && v.as_deref() == Some(version))
    }

    /// Whether the file defines `symbol` at `version`.
    pub fn defines(&self, symbol: &str, version: &str) -> bool {
        self.defines_name(symbol.as_bytes(), version)
    }

    fn defines_name(&self, name: &[u8], version: &str) -> bool {
        let at_version = |index: usize| {
            self.sym(index).is_some_and(|s| s.is_definition())
                && self.version_of(index).and_then(|v| self.defined_version(v)) == Some(version)
        };
        match &self.gnu_hash {
            Some(h) => self
                .hash_chain(h, name)
                .any(|i| self.name_bytes_of(i) == Some(name) && at_version(i)),
            None => {
                let sorted = self.sorted.get_or_init(|| self.sorted_definitions());
                let first =
                    sorted.partition_point(|&i| self.name_bytes_of(i as usize) < Some(name));
                sorted[first..]
                    .iter()
                    .take_while(|&&i| self.name_bytes_of(i as usize) == Some(name))
                    .any(|&i| at_version(i as usize))
            }
        }
    }

    /// What this file needs from `library` that `provider` does not define, among the versions
    /// `provider` does define (a version it lacks entirely is the version check's finding).
    pub fn missing_from<'a>(
        &'a self,
        library: &'a str,
        provider: &'a SymbolTable,
    ) -> impl Iterator<Item = SymbolNeed<'a>> + 'a {
        // Whether the provider has each needed version, asked once per version.
        let wanted: Vec<bool> = self
            .needed
            .iter()
            .map(|v| {
                v.as_ref()
                    .is_some_and(|v| v.library == library && provider.has_version(&v.version))
            })
            .collect();
        self.needs
            .iter()
            .filter(move |n| wanted.get(usize::from(n.version)) == Some(&true))
            .filter_map(|n| Some((n, self.needed_version(n.version)?)))
            // Looked up by bytes; only a missing symbol's name is decoded.
            .filter(|(n, v)| {
                self.name_bytes(n.name)
                    .is_some_and(|name| !provider.defines_name(name, &v.version))
            })
            .filter_map(|(n, v)| {
                Some(SymbolNeed {
                    symbol: self.name(n.name)?,
                    version: &v.version,
                    library: &v.library,
                })
            })
    }

    fn name_bytes_of(&self, index: usize) -> Option<&[u8]> {
        self.name_bytes(self.sym(index)?.name)
    }

    fn sorted_definitions(&self) -> Vec<u32> {
        let mut out: Vec<u32> = (0..self.symtab.2)
            .filter(|&i| self.sym(i).is_some_and(|s| s.is_definition()))
            .filter_map(|i| u32::try_from(i).ok())
            .collect();
        out.sort_by(|&a, &b| {
            self.name_bytes_of(a as usize)
                .cmp(&self.name_bytes_of(b as usize))
        });
        out
    }
}

fn name_version(version: &str, library: &str) -> NeededVersion {
    NeededVersion {
        version: version.to_owned(),
        library: library.to_owned(),
    }
}

/// Sets `slots[at]`, growing the table (indices past [`MAX_VERSION_INDEX`] are dropped).
fn put<T>(slots: &mut Vec<Option<T>>, at: usize, value: T) {
    if at > MAX_VERSION_INDEX {
        return;
    }
    if slots.len() <= at {
        slots.resize_with(at + 1, || None);
    }
    slots[at] = Some(value);
}

#[cfg(test)]
mod tests;

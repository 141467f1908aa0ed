//! ELF (.so/executable) parsing with goblin: class and machine, SONAME, NEEDED, DT_RPATH and
//! DT_RUNPATH, DF_1_NODEFLIB, version needs (`.gnu.version_r`) and definitions
//! (`.gnu.version_d`); on request, defined dynamic symbols and library names embedded in `.rodata`.
//!
//! RPATH/RUNPATH strings are split on `:` with empty entries kept (ld.so treats an empty entry
//! as the current directory) and `$ORIGIN` left unexpanded: expanding it is the loader's job.

use super::strings::{self, Shape};
use super::{
    BinaryError, BinaryInfo, BinaryVersionSource, Detail, Format, Import, ImportKind, MAX_EXPORTS,
    MAX_IMPORTS, MAX_PATH_ENTRIES, Machine, VersionInfo, VersionNeed, true_version,
};
use goblin::elf::Elf;
use goblin::elf::dynamic::{DF_1_NODEFLIB, DT_NEEDED, DT_RPATH, DT_RUNPATH, DT_SONAME};
use goblin::elf::header;
use goblin::elf::section_header::SHT_NOBITS;
use goblin::elf::sym::{STB_GLOBAL, STB_GNU_UNIQUE, STB_WEAK, STT_FILE, STT_SECTION};

const FORMAT: &str = "ELF";

pub(super) fn parse(bytes: &[u8], path: &str, detail: Detail) -> Result<BinaryInfo, BinaryError> {
    let (elf, dynstr) = parse_tables(bytes).map_err(|e| BinaryError::malformed(path, FORMAT, e))?;
    let mut info = BinaryInfo::empty(Format::Elf, machine(&elf));
    if let Some(dynamic) = &elf.dynamic {
        for d in &dynamic.dyns {
            let Some(text) = dynstr.get(d.d_val) else {
                continue;
            };
            match d.d_tag {
                DT_NEEDED if info.imports.len() < MAX_IMPORTS => info.imports.push(Import {
                    name: text.to_owned(),
                    kind: ImportKind::Load,
                    symbols: Vec::new(),
                }),
                DT_SONAME => info.soname = Some(text.to_owned()),
                DT_RPATH => split_path(text, &mut info.rpath),
                DT_RUNPATH => split_path(text, &mut info.runpath),
                _ => {}
            }
        }
        info.nodeflib = dynamic.info.flags_1 & DF_1_NODEFLIB != 0;
    }
    info.version_needs = version_needs(&elf, &dynstr);
    info.version_definitions = version_definitions(&elf, &dynstr);
    if detail.symbols {
        info.dynamic_symbols = defined_symbols(&elf, &dynstr);
    }
    let found = if detail.embedded_names {
        strings::scan(&rodata(&elf, bytes), Shape::So)
    } else {
        Default::default()
    };
    let known =
        |n: &str| info.soname.as_deref() == Some(n) || info.imports.iter().any(|i| i.name == n);
    info.embedded_library_names = found.names.into_iter().filter(|n| !known(n)).collect();
    info.version = elf_version(found.nvcc_version, info.soname.as_deref());
    Ok(info)
}

fn split_path(text: &str, target: &mut Vec<String>) {
    for entry in text.split(':') {
        if target.len() < MAX_PATH_ENTRIES {
            target.push(entry.to_owned());
        }
    }
}

/// `.dynstr`, read on demand: goblin's `Strtab::parse` would first decode every string in it
/// (tens of thousands in a CUDA library) to answer the handful of lookups the loaders need.
pub(super) struct DynStr<'a>(&'a [u8]);

impl<'a> DynStr<'a> {
    pub(super) fn get(&self, offset: u64) -> Option<&'a str> {
        let rest = self.0.get(usize::try_from(offset).ok()?..)?;
        let end = memchr::memchr(0, rest)?;
        std::str::from_utf8(&rest[..end]).ok()
    }
}

/// A loadable segment that reaches past the end of the file means a truncated copy (an
/// interrupted download or unpack). ld.so maps such a file and the process dies with SIGBUS when
/// the missing part is touched, so it is reported here, with the sizes, instead.
fn check_segments_in_file(
    headers: &[goblin::elf::ProgramHeader],
    file_len: usize,
) -> goblin::error::Result<()> {
    use goblin::elf::program_header::PT_LOAD;
    let needed = headers
        .iter()
        .filter(|ph| ph.p_type == PT_LOAD)
        .map(|ph| ph.p_offset.saturating_add(ph.p_filesz))
        .max()
        .unwrap_or(0);
    if needed > file_len as u64 {
        return Err(goblin::error::Error::Malformed(format!(
            "the file is truncated: it has {file_len} bytes, but its segments need {needed} \
             (loading it would crash the process with SIGBUS)"
        )));
    }
    Ok(())
}

/// Parses only what the loaders need: program and section headers, the dynamic section, and
/// where `.dynstr`, `.dynsym` (its size from the section header), `.gnu.version_r` and
/// `.gnu.version_d` are.
/// Unlike `Elf::parse` it never decodes relocations — hundreds of thousands in libcublasLt, which
/// goblin walks only to size the symbol table — nor the static `.symtab`, nor a string table whole.
pub(super) fn parse_tables(bytes: &[u8]) -> goblin::error::Result<(Elf<'_>, DynStr<'_>)> {
    use goblin::elf::section_header::{SHT_DYNSYM, SectionHeader};
    use goblin::elf::{Dynamic, ProgramHeader, Symtab};
    let header = Elf::parse_header(bytes)?;
    let mut elf = Elf::lazy_parse(header)?;
    let ctx = parse_context(&elf);
    elf.program_headers =
        ProgramHeader::parse(bytes, header.e_phoff as usize, header.e_phnum as usize, ctx)?;
    check_segments_in_file(&elf.program_headers, bytes.len())?;
    elf.section_headers =
        SectionHeader::parse(bytes, header.e_shoff as usize, header.e_shnum as usize, ctx)
            .unwrap_or_default();
    // Section names (`.shstrtab`) are decoded only by `rodata`, which needs them.
    let mut dynstr = DynStr(&[]);
    if let Some(dynamic) = Dynamic::parse(bytes, &elf.program_headers, ctx)? {
        let (start, size) = (dynamic.info.strtab, dynamic.info.strsz);
        dynstr = DynStr(
            start
                .checked_add(size)
                .and_then(|end| bytes.get(start..end))
                .ok_or_else(|| {
                    goblin::error::Error::Malformed(format!(
                        "dynamic string table ({size} bytes at {start}) is outside the file"
                    ))
                })?,
        );
        elf.dynamic = Some(dynamic);
    }
    if let Some(sh) = elf
        .section_headers
        .iter()
        .find(|sh| sh.sh_type == SHT_DYNSYM && sh.sh_entsize != 0)
    {
        let count = (sh.sh_size / sh.sh_entsize) as usize;
        elf.dynsyms = Symtab::parse(bytes, sh.sh_offset as usize, count, ctx)?;
    }
    elf.verneed = goblin::elf::symver::VerneedSection::parse(bytes, &elf.section_headers, ctx)?;
    // A damaged version-definition table only costs the version check, not the whole file.
    elf.verdef = goblin::elf::symver::VerdefSection::parse(bytes, &elf.section_headers, ctx)
        .ok()
        .flatten();
    Ok((elf, dynstr))
}

fn machine(elf: &Elf<'_>) -> Machine {
    let bits = if elf.is_64 { 64 } else { 32 };
    let arch = match elf.header.e_machine {
        header::EM_386 => "i386".to_owned(),
        header::EM_X86_64 => "x86_64".to_owned(),
        header::EM_AARCH64 => "aarch64".to_owned(),
        header::EM_ARM => "arm".to_owned(),
        header::EM_PPC64 if elf.little_endian => "ppc64le".to_owned(),
        header::EM_PPC64 => "ppc64".to_owned(),
        header::EM_RISCV => format!("riscv{bits}"),
        header::EM_S390 => "s390x".to_owned(),
        other => format!("unknown(0x{other:04x})"),
    };
    Machine::new(arch, bits)
}

fn version_needs(elf: &Elf<'_>, dynstr: &DynStr<'_>) -> Vec<VersionNeed> {
    let mut out = Vec::new();
    let Some(verneed) = &elf.verneed else {
        return out;
    };
    for need in verneed.iter().take(MAX_PATH_ENTRIES) {
        let Some(library) = dynstr.get(need.vn_file as u64) else {
            continue;
        };
        let versions = need
            .iter()
            .take(MAX_PATH_ENTRIES)
            .filter_map(|aux| dynstr.get(aux.vna_name as u64))
            .map(str::to_owned)
            .collect();
        out.push(VersionNeed {
            library: library.to_owned(),
            versions,
        });
    }
    out
}

/// Version names this file defines (`.gnu.version_d`), without the base entry (its own name):
/// what a `GLIBC_2.34`-style version need is checked against.
fn version_definitions(elf: &Elf<'_>, dynstr: &DynStr<'_>) -> Vec<String> {
    use goblin::elf::symver::VER_FLG_BASE;
    let Some(section) = &elf.verdef else {
        return Vec::new();
    };
    section
        .iter()
        .take(MAX_EXPORTS)
        .filter(|def| def.vd_flags & VER_FLG_BASE == 0)
        .filter_map(|def| def.iter().next())
        .filter_map(|aux| dynstr.get(aux.vda_name as u64))
        .map(str::to_owned)
        .collect()
}

/// Global, weak or unique dynamic symbols defined in this file (what it can satisfy).
fn defined_symbols(elf: &Elf<'_>, dynstr: &DynStr<'_>) -> Vec<String> {
    elf.dynsyms
        .iter()
        .filter(|s| {
            s.st_shndx != 0
                && matches!(s.st_bind(), STB_GLOBAL | STB_WEAK | STB_GNU_UNIQUE)
                && !matches!(s.st_type(), STT_SECTION | STT_FILE)
        })
        .filter_map(|s| dynstr.get(s.st_name as u64))
        .filter(|n| !n.is_empty())
        .take(MAX_EXPORTS)
        .map(str::to_owned)
        .collect()
}

/// The file bytes of `.rodata` (and `.rodata.*`) sections, bounds-checked.
/// goblin's parsing context (word size, byte order) for the ELF whose header `elf` holds.
fn parse_context(elf: &Elf<'_>) -> goblin::container::Ctx {
    use goblin::container::{Container, Ctx};
    let container = if elf.is_64 {
        Container::Big
    } else {
        Container::Little
    };
    let endian = if elf.little_endian {
        scroll::Endian::Little
    } else {
        scroll::Endian::Big
    };
    Ctx::new(container, endian)
}

/// The `.rodata` sections of an ELF image, without decoding anything else (no dynamic section,
/// no symbols); `None` when `bytes` is not an ELF whose section headers can be read.
pub(super) fn rodata_sections(bytes: &[u8]) -> Option<Vec<&[u8]>> {
    use goblin::elf::section_header::SectionHeader;
    let header = Elf::parse_header(bytes).ok()?;
    let mut elf = Elf::lazy_parse(header).ok()?;
    let ctx = parse_context(&elf);
    elf.section_headers =
        SectionHeader::parse(bytes, header.e_shoff as usize, header.e_shnum as usize, ctx).ok()?;
    Some(rodata(&elf, bytes))
}

fn rodata<'a>(elf: &Elf<'_>, bytes: &'a [u8]) -> Vec<&'a [u8]> {
    let names = elf
        .section_headers
        .get(elf.header.e_shstrndx as usize)
        .map(|sh| DynStr(section_bytes(bytes, sh)))
        .unwrap_or(DynStr(&[]));
    elf.section_headers
        .iter()
        .filter(|s| s.sh_type != SHT_NOBITS)
        .filter(|s| {
            names
                .get(s.sh_name as u64)
                .is_some_and(|n| n == ".rodata" || n.starts_with(".rodata."))
        })
        .filter_map(|s| {
            let start = usize::try_from(s.sh_offset).ok()?;
            let end = start.checked_add(usize::try_from(s.sh_size).ok()?)?;
            bytes.get(start..end)
        })
        .collect()
}

fn elf_version(nvcc: Option<String>, soname: Option<&str>) -> VersionInfo {
    let mut info = VersionInfo::default();
    if let Some(v) = nvcc {
        info.version = Some(v);
        info.source = Some(BinaryVersionSource::NvccBanner);
    } else if let Some(v) = soname.and_then(true_version::from_so_name) {
        info.version = Some(v);
        info.source = Some(BinaryVersionSource::Soname);
    }
    info
}

/// A section's bytes, or nothing when it lies outside the file.
fn section_bytes<'a>(bytes: &'a [u8], sh: &goblin::elf::SectionHeader) -> &'a [u8] {
    let start = usize::try_from(sh.sh_offset).unwrap_or(usize::MAX);
    let end = start.saturating_add(usize::try_from(sh.sh_size).unwrap_or(usize::MAX));
    bytes.get(start..end).unwrap_or_default()
}

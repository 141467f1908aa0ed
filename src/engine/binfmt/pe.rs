//! PE (DLL/EXE) parsing with pelite: machine, load-time and delay-load imports, exports with
//! forwarders, the VS_VERSIONINFO string table, and library names embedded in `.rdata`.
//!
//! `pelite::PeFile` wraps PE32 and PE32+ alike, so one code path serves i386 `cudart32_110.dll`
//! and x86_64 `cudart64_12.dll`. A missing table is empty; a damaged import or export table is a
//! `BinaryError::Malformed` (the Windows loader would refuse it too); a damaged version resource
//! only means no version facts. The version resource itself is read by `pe_version` (pelite's
//! reader panics on some corrupt ones).

use super::strings::{self, Shape};
use super::{
    BinaryError, BinaryInfo, Export, Format, Import, ImportKind, MAX_EXPORTS, MAX_IMPORTS, Machine,
    VersionInfo, pe_clr, pe_delay, pe_manifest, pe_version, true_version,
};
use pelite::pe64::exports::Export as PeExport;
use pelite::resources::Name;
use pelite::{PeFile, Wrap};

const FORMAT: &str = "PE";

/// Parses a PE image laid out as a file (not as mapped by the loader).
pub(super) fn parse(
    bytes: &[u8],
    path: &str,
    scan_strings: bool,
) -> Result<BinaryInfo, BinaryError> {
    let bad = |e: &dyn std::fmt::Display| BinaryError::malformed(path, FORMAT, e);
    check_header_alignment(bytes).map_err(|m| bad(&m))?;
    // pelite needs aligned bytes (a memory map always is); copy the rare slice that is not.
    let aligned: Vec<u64>;
    let bytes = if bytes.as_ptr().align_offset(8) == 0 {
        bytes
    } else {
        aligned = bytes
            .chunks(8)
            .map(|c| {
                let mut w = [0u8; 8];
                w[..c.len()].copy_from_slice(c);
                u64::from_ne_bytes(w)
            })
            .collect();
        let all: &[u8] = bytemuck_cast(&aligned);
        &all[..bytes.len()]
    };
    let file = PeFile::from_bytes(bytes).map_err(|e| bad(&e))?;
    let mut info = BinaryInfo::empty(Format::Pe, machine(&file));
    info.imports = imports(file).map_err(|e| bad(&format!("import table: {e}")))?;
    let delayed =
        pe_delay::delay_imports(file).map_err(|e| bad(&format!("delay-load table: {e}")))?;
    info.imports.extend(delayed);
    let own_name;
    (info.exports, own_name) = exports(file).map_err(|e| bad(&format!("export table: {e}")))?;
    if resources_aligned(file) {
        info.version = version_info(file);
        info.assemblies = pe_manifest::dependencies(file);
    }
    info.clr = pe_clr::read(file);
    if scan_strings {
        info.embedded_library_names = embedded_names(file, &info, own_name.as_deref());
    }
    Ok(info)
}

/// Headers pelite must not be given (the message of a damaged-file error).
#[derive(Debug, thiserror::Error)]
enum Misaligned {
    #[error("too short for a DOS header")]
    NoDosHeader,
    #[error("NT headers at {0:#x} are not 8-aligned (unsupported)")]
    NtHeaders(usize),
    #[error("too short for the NT headers")]
    NoNtHeaders,
    #[error("misaligned section headers (SizeOfOptionalHeader {0})")]
    SectionHeaders(u16),
    #[error("section {index}: file offset {raw:#x} and RVA {rva:#x} disagree in alignment")]
    Section { index: usize, raw: u32, rva: u32 },
}

/// Rejects what pelite would turn into undefined behaviour (found by fuzzing): it builds the
/// section-header slice at `e_lfanew + 24 + SizeOfOptionalHeader` without checking alignment,
/// and it checks the alignment of `image + rva` rather than of the file offset the RVA maps to.
/// It also casts the NT headers to an 8-aligned type after checking 4-alignment. Images from
/// real linkers never trip these checks: NT headers are 8-aligned, section headers 4-aligned,
/// and every section's file offset and RVA are multiples of the file and section alignments.
fn check_header_alignment(bytes: &[u8]) -> Result<(), Misaligned> {
    let read = |at: usize, n: usize| bytes.get(at..at.checked_add(n)?);
    let u16_at = |at: usize| read(at, 2).map(|b| u16::from_le_bytes([b[0], b[1]]));
    let u32_at = |at: usize| read(at, 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let lfanew = u32_at(0x3c).ok_or(Misaligned::NoDosHeader)? as usize;
    if !lfanew.is_multiple_of(8) {
        // pelite casts to the 8-aligned IMAGE_NT_HEADERS64 after checking only 4-alignment.
        // Linkers place the NT headers 8-aligned (MSVC, GNU ld, LLD alike).
        return Err(Misaligned::NtHeaders(lfanew));
    }
    let (Some(sections), Some(opt)) = (u16_at(lfanew + 6), u16_at(lfanew + 20)) else {
        return Err(Misaligned::NoNtHeaders);
    };
    let table = lfanew + 24 + usize::from(opt);
    if !table.is_multiple_of(4) {
        return Err(Misaligned::SectionHeaders(opt));
    }
    for i in 0..usize::from(sections.min(96)) {
        let at = table + i * 40;
        let (Some(rva), Some(raw)) = (u32_at(at + 12), u32_at(at + 20)) else {
            break; // pelite reports the truncated table
        };
        if rva % 8 != raw % 8 {
            return Err(Misaligned::Section { index: i, raw, rva });
        }
    }
    Ok(())
}

/// Views `u64`s as bytes (what bytemuck::cast_slice does, without the dependency).
fn bytemuck_cast(words: &[u64]) -> &[u8] {
    // SAFETY: u8 has no alignment or validity requirements; the length is in bytes of the same
    // allocation.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), std::mem::size_of_val(words)) }
}

fn machine(file: &PeFile<'_>) -> Machine {
    let bits = match file.optional_header() {
        Wrap::T32(_) => 32,
        Wrap::T64(_) => 64,
    };
    let arch = match file.file_header().Machine {
        0x014c => "i386".to_owned(),
        0x8664 => "x86_64".to_owned(),
        0xaa64 => "aarch64".to_owned(),
        0x01c4 => "arm".to_owned(),
        0xa641 => "arm64ec".to_owned(),
        other => format!("unknown(0x{other:04x})"),
    };
    Machine::new(arch, bits)
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Load-time imports in table order. Each DLL's thunks are read one by one from its import
/// name table (or, where a linker left none, from the unbound IAT, which holds the same
/// thunks): GNU ld aligns a PE32+ table to 4 bytes only (Wine's own DLLs, mingw builds), which
/// the Windows loader accepts and pelite's 8-byte slices refuse.
fn imports(file: PeFile<'_>) -> pelite::Result<Vec<Import>> {
    let table = match file.imports() {
        Ok(t) => t,
        Err(e) if e.is_null() => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let is64 = matches!(file, Wrap::T64(_));
    let mut out = Vec::new();
    for desc in table.iter().take(MAX_IMPORTS) {
        let name = lossy(desc.dll_name()?.as_ref());
        let image = desc.image();
        let thunks = match image.OriginalFirstThunk {
            0 => image.FirstThunk,
            int => int,
        };
        let symbols = pe_delay::thunks_at(file, thunks, is64, |rva| rva)?
            .into_iter()
            .map(|thunk| pe_delay::thunk_symbol(file, thunk, is64, |rva| rva))
            .collect::<pelite::Result<_>>()?;
        out.push(Import {
            name,
            kind: ImportKind::Load,
            symbols,
        });
    }
    Ok(out)
}

/// Exports in ordinal order, then any extra names that alias the same function; and the
/// export directory's own DLL name.
fn exports(file: PeFile<'_>) -> pelite::Result<(Vec<Export>, Option<String>)> {
    let table = match file.exports() {
        Ok(t) => t,
        Err(e) if e.is_null() => return Ok((Vec::new(), None)),
        Err(e) => return Err(e),
    };
    let own_name = table.dll_name().ok().map(|n| lossy(n.as_ref()));
    let by = table.by()?;
    let base = u32::from(table.ordinal_base());
    let count = by.functions().len().min(MAX_EXPORTS);
    let mut names: Vec<Option<String>> = vec![None; count];
    let mut aliases = Vec::new();
    // Not `iter_name_indices`: it indexes the ordinal table by the name count unchecked
    // (panic found by fuzzing when the two tables differ in length).
    let (name_count, indices) = (by.names().len(), by.name_indices());
    for (hint, &index) in indices.iter().enumerate().take(name_count.min(MAX_EXPORTS)) {
        let name = lossy(by.name_of_hint(hint)?.as_ref());
        let index = usize::from(index);
        match names.get_mut(index) {
            Some(slot @ None) => *slot = Some(name),
            Some(Some(_)) => aliases.push((index, name)),
            None => {}
        }
    }
    let forwarder = |index: usize| match by.index(index) {
        Ok(PeExport::Forward(f)) => Some(lossy(f.as_ref())),
        _ => None,
    };
    let mut out = Vec::new();
    for (index, name) in names.into_iter().enumerate() {
        if by.functions().get(index).copied().unwrap_or(0) == 0 {
            continue; // unused ordinal slot
        }
        out.push(Export {
            name,
            ordinal: base.saturating_add(index as u32),
            forwarder: forwarder(index),
        });
    }
    for (index, name) in aliases {
        out.push(Export {
            name: Some(name),
            ordinal: base.saturating_add(index as u32),
            forwarder: forwarder(index),
        });
    }
    Ok((out, own_name))
}

/// pelite checks resource-table alignment relative to the directory, not in memory (UB found
/// by the damaged-copy test); real images start .rsrc on a section boundary.
fn resources_aligned(file: PeFile<'_>) -> bool {
    file.data_directory()
        .get(pelite::image::IMAGE_DIRECTORY_ENTRY_RESOURCE)
        .is_some_and(|d| d.VirtualAddress % 8 == 0)
}

fn version_info(file: PeFile<'_>) -> VersionInfo {
    let mut info = VersionInfo::default();
    let Ok(resources) = file.resources() else {
        return info;
    };
    let Ok(bytes) = resources.find_resource(&[Name::VERSION, Name::Id(1)]) else {
        return info;
    };
    let raw = pe_version::parse(bytes);
    // The table the translation list names first, else the lowest one present.
    let mut tables: Vec<&str> = raw.strings.iter().map(|(t, _, _)| t.as_str()).collect();
    tables.sort_unstable();
    let table = raw
        .translations
        .iter()
        .find(|t| tables.iter().any(|k| k.eq_ignore_ascii_case(t)))
        .map(String::as_str)
        .or(tables.first().copied());
    for (t, key, value) in &raw.strings {
        let wanted = true_version::PE_FIELDS.contains(&key.as_str());
        if wanted && table.is_some_and(|want| want.eq_ignore_ascii_case(t)) {
            let value = value.trim_matches(|c: char| c == '\0' || c.is_whitespace());
            info.fields
                .entry(key.clone())
                .or_insert_with(|| value.to_owned());
        }
    }
    if let Some(v) = raw.fixed {
        let text = format!("{}.{}.{}.{}", v[0], v[1], v[2], v[3]);
        info.fields
            .entry("FixedFileVersion".to_owned())
            .or_insert(text);
    }
    true_version::pick_pe_version(&mut info, raw.fixed);
    info
}

/// Names in `.rdata` minus what the import tables already say and the DLL's own name.
fn embedded_names(file: PeFile<'_>, info: &BinaryInfo, own: Option<&str>) -> Vec<String> {
    let sections: Vec<&[u8]> = file
        .section_headers()
        .iter()
        .filter(|s| s.name_bytes() == b".rdata")
        .filter_map(|s| file.get_section_bytes(s).ok())
        .collect();
    let known = |n: &str| {
        own.is_some_and(|o| o.eq_ignore_ascii_case(n))
            || info.imports.iter().any(|i| i.name.eq_ignore_ascii_case(n))
    };
    strings::scan(&sections, Shape::Dll)
        .names
        .into_iter()
        .filter(|n| !known(n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PE header skeleton: DOS header, NT headers at 0x40, one section header.
    fn skeleton(size_of_optional_header: u16, rva: u32, raw: u32) -> Vec<u8> {
        let mut b = vec![0u8; 0x400];
        b[..2].copy_from_slice(b"MZ");
        b[0x3c..0x40].copy_from_slice(&0x40u32.to_le_bytes());
        b[0x40..0x44].copy_from_slice(b"PE\0\0");
        b[0x44..0x46].copy_from_slice(&0x8664u16.to_le_bytes());
        b[0x46..0x48].copy_from_slice(&1u16.to_le_bytes());
        b[0x54..0x56].copy_from_slice(&size_of_optional_header.to_le_bytes());
        let table = 0x58 + usize::from(size_of_optional_header);
        b[table + 12..table + 16].copy_from_slice(&rva.to_le_bytes());
        b[table + 20..table + 24].copy_from_slice(&raw.to_le_bytes());
        b
    }

    #[test]
    fn fuzz_regressions_misaligned_headers_are_errors() {
        assert!(check_header_alignment(&skeleton(0xf0, 0x1000, 0x200)).is_ok());
        let odd = skeleton(0xf1, 0x1000, 0x200);
        assert!(check_header_alignment(&odd).is_err());
        assert!(parse(&odd, "odd.dll", true).is_err());
        let skewed = skeleton(0xf0, 0x1000, 0x203);
        assert!(matches!(
            parse(&skewed, "skewed.dll", true),
            Err(BinaryError::Malformed { .. })
        ));
        assert!(parse(b"MZ", "short.dll", true).is_err());
        let mut shifted_nt = skeleton(0xf0, 0x1000, 0x200);
        shifted_nt[0x3c..0x40].copy_from_slice(&0x44u32.to_le_bytes());
        assert!(check_header_alignment(&shifted_nt).is_err());
    }

    #[test]
    fn misaligned_input_slices_are_copied_not_refused() {
        let mut shifted = vec![0u8; 1];
        shifted.extend(skeleton(0xf0, 0x1000, 0x200));
        // Whatever pelite thinks of the skeleton, it must not be "misaligned".
        let err = parse(&shifted[1..], "shifted.dll", true)
            .err()
            .map(|e| e.to_string());
        assert!(!err.unwrap_or_default().contains("misaligned"));
    }
}

//! PE delay-load imports (data directory 13), which pelite does not parse.
//!
//! Each `ImgDelayDescr` is eight u32s: attributes, DLL name, module handle, IAT, INT, bound IAT,
//! unload IAT, time stamp. With attribute bit 0 set (every linker since VC7, and GNU ld/dlltool)
//! the fields are RVAs; without it (VC6) they are virtual addresses, so the image base is
//! subtracted. The INT holds thunks like the normal import table: ordinal flag in the top bit,
//! otherwise the RVA of a hint/name pair.

use super::{Import, ImportKind, MAX_IMPORTS, MAX_SYMBOLS_PER_IMPORT};
use pelite::{PeFile, Wrap};

const DELAY_IMPORT_DIRECTORY: usize = 13;
const DESCRIPTOR_SIZE: u32 = 32;

/// The symbol a thunk names: `#N` for an ordinal, otherwise the name at the hint/name RVA.
pub(super) fn thunk_symbol(
    file: PeFile<'_>,
    thunk: u64,
    is64: bool,
    to_rva: impl Fn(u32) -> u32,
) -> pelite::Result<String> {
    let ordinal_flag = if is64 { 1u64 << 63 } else { 1u64 << 31 };
    if thunk & ordinal_flag != 0 {
        return Ok(format!("#{}", thunk & 0xffff));
    }
    let rva = to_rva((thunk & 0x7fff_ffff) as u32);
    let name = file.derva_c_str(rva.checked_add(2).ok_or(pelite::Error::Bounds)?)?;
    Ok(String::from_utf8_lossy(name.as_ref()).into_owned())
}

/// The thunks of a name table at `table` (up to its null thunk), read one by one: the table's
/// alignment is whatever the linker chose.
pub(super) fn thunks_at(
    file: PeFile<'_>,
    table: u32,
    is64: bool,
    to_rva: impl Fn(u32) -> u32,
) -> pelite::Result<Vec<u64>> {
    let start = to_rva(table);
    let width: u32 = if is64 { 8 } else { 4 };
    let mut thunks = Vec::new();
    for k in 0..MAX_SYMBOLS_PER_IMPORT as u32 {
        let at = k
            .checked_mul(width)
            .and_then(|o| start.checked_add(o))
            .ok_or(pelite::Error::Bounds)?;
        let thunk = if is64 {
            file.derva_copy::<u64>(at)?
        } else {
            u64::from(file.derva_copy::<u32>(at)?)
        };
        if thunk == 0 {
            break;
        }
        thunks.push(thunk);
    }
    Ok(thunks)
}

/// Delay-load imports in table order; empty when the image has none.
pub(super) fn delay_imports(file: PeFile<'_>) -> pelite::Result<Vec<Import>> {
    let Some(dir) = file.data_directory().get(DELAY_IMPORT_DIRECTORY) else {
        return Ok(Vec::new());
    };
    if dir.VirtualAddress == 0 || dir.Size == 0 {
        return Ok(Vec::new());
    }
    let (is64, image_base) = match file.optional_header() {
        Wrap::T32(h) => (false, u64::from(h.ImageBase)),
        Wrap::T64(h) => (true, h.ImageBase),
    };
    // The directory size bounds the table (it counts the null terminator, which some linkers
    // leave out: the null entry also ends it).
    let count = (dir.Size / DESCRIPTOR_SIZE).clamp(1, MAX_IMPORTS as u32);
    let mut out = Vec::new();
    for index in 0..count {
        let at = index
            .checked_mul(DESCRIPTOR_SIZE)
            .and_then(|o| dir.VirtualAddress.checked_add(o))
            .ok_or(pelite::Error::Bounds)?;
        let d: &[u32] = file.derva_slice(at, 8)?;
        if d.iter().all(|&v| v == 0) || d[1] == 0 {
            break;
        }
        let rva_based = d[0] & 1 != 0;
        let to_rva = |v: u32| {
            if rva_based {
                v
            } else {
                (u64::from(v).wrapping_sub(image_base)) as u32
            }
        };
        let name = file.derva_c_str(to_rva(d[1]))?;
        let name = String::from_utf8_lossy(name.as_ref()).into_owned();
        let mut symbols = Vec::new();
        if d[4] != 0 {
            for thunk in thunks_at(file, d[4], is64, to_rva)? {
                symbols.push(thunk_symbol(file, thunk, is64, to_rva)?);
            }
        }
        out.push(Import {
            name,
            kind: ImportKind::Delay,
            symbols,
        });
    }
    Ok(out)
}

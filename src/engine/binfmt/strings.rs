//! Library names embedded as strings: what a binary may `LoadLibrary`/`dlopen` at run time.
//!
//! Only read-only data sections are scanned (`.rdata` for PE, `.rodata` for ELF), each up to
//! `MAX_SCAN_BYTES`, for NUL-terminated names shaped like a library: `*.dll` (any case; ASCII
//! and, for PE, UTF-16LE) or `lib*.so*` (ELF). A path keeps only its last component. Results are
//! deduplicated in discovery order and capped at `MAX_NAMES`. This is how cuDNN 8 is seen to
//! load `zlibwapi.dll`, cuDNN 9 `cublasLt`/`nvrtc`, and cuFFT `nvJitLink`. The same pass picks up
//! the `nvcc` banner (`Cuda compilation tools, release 12.9, V12.9.86`) that ELF libraries
//! carry, the only version they hold.

use aho_corasick::{AhoCorasick, MatchKind};
use memchr::memmem;
use std::sync::LazyLock;

/// At most this many bytes of one section are scanned.
pub const MAX_SCAN_BYTES: usize = 256 << 20;
/// At most this many names are kept.
pub const MAX_NAMES: usize = 512;
/// Longest name accepted; a longer run of name characters is not a library name.
const MAX_NAME_LEN: usize = 200;
/// The banner `nvcc` leaves in every library it built.
const NVCC_BANNER: &[u8] = b"Cuda compilation tools, release ";

/// Which names to look for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `*.dll`, case-insensitive, ASCII and UTF-16LE.
    Dll,
    /// `lib*.so` or `lib*.so.N...`, ASCII.
    So,
}

/// What one scan found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    pub names: Vec<String>,
    /// Version from an `nvcc` banner, e.g. `12.9.86`.
    pub nvcc_version: Option<String>,
}

/// The fixed tails a name ends in; the scan jumps between them (SIMD substring search)
/// and only then looks back for the name, so it runs at memory speed on 500 MB sections.
static DLL_TAILS: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::LeftmostFirst)
        .build([&b".dll\x00"[..], &b".\x00d\x00l\x00l\x00\x00\x00"[..]])
        .ok()
});
static SO_TAIL: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new(b".so"));

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'+' | b'-')
}

/// A name starts a string or follows a path separator: `%d.dll` in `cublasLt64_%d.dll` or
/// `lib.dll` in `Could not load lib.dll` are not names.
fn ascii_starts_name(data: &[u8], start: usize) -> bool {
    match start.checked_sub(1).map(|i| data[i]) {
        None => true,
        Some(b) => matches!(b, 0 | b'\\' | b'/') || !(0x20..0x7f).contains(&b),
    }
}

/// The same for UTF-16LE. The byte before must be 0 (the high byte of a preceding unit, or an
/// ASCII string's terminator), and the two units before must not both be name characters (then
/// the match began inside an overlong run). An ASCII string's last letter plus its NUL looks like
/// one UTF-16 unit, so a single such unit is allowed.
fn utf16_starts_name(data: &[u8], start: usize) -> bool {
    let byte = |back: usize| start.checked_sub(back).map(|i| data[i]);
    match byte(1) {
        None => return true,
        Some(0) => {}
        Some(_) => return false,
    }
    let name_unit = |back: usize| {
        byte(back).is_some_and(is_name_byte) && byte(back - 1) == Some(0) && back >= 2
    };
    !(name_unit(2) && name_unit(4))
}

/// Scans `sections` (already cut to read-only data) for names of `shape`.
pub fn scan(sections: &[&[u8]], shape: Shape) -> Found {
    let mut found = Found::default();
    let mut seen = std::collections::HashSet::new();
    let mut push = |found: &mut Found, name: String| {
        let key = match shape {
            Shape::Dll => name.to_ascii_lowercase(),
            Shape::So => name.clone(),
        };
        if found.names.len() < MAX_NAMES && seen.insert(key) {
            found.names.push(name);
        }
    };
    for section in sections {
        let data = &section[..section.len().min(MAX_SCAN_BYTES)];
        if found.nvcc_version.is_none() {
            found.nvcc_version = nvcc_banner(data);
        }
        match shape {
            Shape::So => {
                for dot in SO_TAIL.find_iter(data) {
                    if let Some(name) = so_name_at(data, dot) {
                        push(&mut found, name);
                    }
                }
            }
            Shape::Dll => {
                for m in DLL_TAILS.iter().flat_map(|ac| ac.find_iter(data)) {
                    let name = if m.pattern().as_usize() == 0 {
                        ascii_dll_name_at(data, m.start())
                    } else {
                        utf16_dll_name_at(data, m.start())
                    };
                    if let Some(name) = name {
                        push(&mut found, name);
                    }
                }
            }
        }
    }
    found
}

/// The version in an `nvcc` banner (`... release 12.9, V12.9.86`), if the section holds one.
/// Format strings such as `release %d.%d` that share the prefix are passed over.
fn nvcc_banner(data: &[u8]) -> Option<String> {
    memmem::find_iter(data, NVCC_BANNER).find_map(|at| {
        let tail = &data[at..data.len().min(at + NVCC_BANNER.len() + 40)];
        let end = tail
            .iter()
            .position(|&b| b == 0 || b == b'\n')
            .unwrap_or(tail.len());
        super::true_version::from_nvcc_banner(&String::from_utf8_lossy(&tail[..end]))
    })
}

/// Start of the run of name bytes that ends at `end` (at most `MAX_NAME_LEN` back).
fn name_start(data: &[u8], end: usize) -> usize {
    let mut start = end;
    while start > 0 && end - start < MAX_NAME_LEN && is_name_byte(data[start - 1]) {
        start -= 1;
    }
    start
}

/// `lib*.so` or `lib*.so.N[.N...]` (up to four numeric parts), NUL-terminated, around the `.so` at `dot`.
fn so_name_at(data: &[u8], dot: usize) -> Option<String> {
    let mut end = dot + 3;
    for _ in 0..4 {
        if data.get(end) != Some(&b'.') {
            break;
        }
        let digits = data[end + 1..]
            .iter()
            .take(10)
            .take_while(|b| b.is_ascii_digit())
            .count();
        if !(1..=9).contains(&digits) {
            break;
        }
        end += 1 + digits;
    }
    if data.get(end) != Some(&0) {
        return None;
    }
    let start = name_start(data, dot);
    let name = &data[start..end];
    (name.starts_with(b"lib")
        && name.len() > 6
        && name.len() < MAX_NAME_LEN
        && ascii_starts_name(data, start))
    .then(|| String::from_utf8_lossy(name).into_owned())
}

/// An ASCII `*.dll` whose `.dll\0` tail starts at `dot`.
fn ascii_dll_name_at(data: &[u8], dot: usize) -> Option<String> {
    let start = name_start(data, dot);
    let name = &data[start..dot + 4];
    (name.len() > 4 && name.len() < MAX_NAME_LEN && ascii_starts_name(data, start))
        .then(|| String::from_utf8_lossy(name).into_owned())
}

/// A UTF-16LE `*.dll` whose `.dll` tail starts at `dot`.
fn utf16_dll_name_at(data: &[u8], dot: usize) -> Option<String> {
    let mut start = dot;
    while start >= 2
        && (dot - start) / 2 < MAX_NAME_LEN
        && is_name_byte(data[start - 2])
        && data[start - 1] == 0
    {
        start -= 2;
    }
    // The first "unit" may be an ASCII string's last letter and its NUL: drop units until the
    // name starts cleanly (as a UTF-16 string would).
    while start < dot && !utf16_starts_name(data, start) {
        start += 2;
    }
    if start == dot || (dot - start) / 2 >= MAX_NAME_LEN {
        return None;
    }
    let name: String = data[start..dot + 8]
        .iter()
        .step_by(2)
        .map(|&b| b as char)
        .collect();
    (name.len() > 4).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(s: &str) -> Vec<u8> {
        s.encode_utf16()
            .flat_map(|u| u.to_le_bytes())
            .chain([0, 0])
            .collect()
    }

    #[test]
    fn finds_dll_names_ascii_and_utf16_deduped_in_order() {
        let mut data =
            b"\x01\x02zlibwapi.dll\0Could not load %s\0C:\\x\\cudnn_ops_infer64_8.dll\0".to_vec();
        data.extend(utf16("nvrtc64_120_0.dll"));
        data.extend(b"ZLIBWAPI.DLL\0cublasLt64_%d.dll\0.dll\0");
        let found = scan(&[&data], Shape::Dll);
        assert_eq!(
            found.names,
            [
                "zlibwapi.dll",
                "cudnn_ops_infer64_8.dll",
                "nvrtc64_120_0.dll"
            ]
        );
    }

    #[test]
    fn finds_so_names_and_the_nvcc_banner() {
        let data = b"libcuda.so.1\0xlibfoo.so\0/usr/lib/libz.so\0libnvrtc.so.12\0not.so.a\0\
            Cuda compilation tools, release %d.%d,\0\
            Cuda compilation tools, release 12.9, V12.9.86\0libcuda.so.1\0";
        let found = scan(&[data], Shape::So);
        assert_eq!(found.names, ["libcuda.so.1", "libz.so", "libnvrtc.so.12"]);
        assert_eq!(found.nvcc_version.as_deref(), Some("12.9.86"));
    }

    #[test]
    fn overlong_runs_and_empty_input_find_nothing() {
        let long = format!("{}.dll\0", "a".repeat(400));
        assert!(scan(&[long.as_bytes()], Shape::Dll).names.is_empty());
        assert_eq!(scan(&[&[]], Shape::So), Found::default());
    }
}

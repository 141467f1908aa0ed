//! Library names embedded as strings: what a binary may `LoadLibrary`/`dlopen` at run time.
//!
//! Only read-only data sections are scanned (`.rdata` for PE, `.rodata` for ELF), each up to
//! `MAX_SCAN_BYTES`, for NUL-terminated names shaped like a library: `*.dll` (any case; ASCII
//! and, for PE, UTF-16LE) or `lib*.so*` (ELF). A path keeps only its last component. Results are
//! deduplicated in discovery order and capped at `MAX_NAMES`. This is how cuDNN 8 is seen to
//! load `zlibwapi.dll`, cuDNN 9 `cublasLt`/`nvrtc`, and cuFFT `nvJitLink`. The same pass picks up
//! the `nvcc` banner (`Cuda compilation tools, release 12.9, V12.9.86`) that ELF libraries
//! carry, the only version they hold.

use regex::bytes::Regex;
use std::sync::LazyLock;

/// At most this many bytes of one section are scanned.
pub const MAX_SCAN_BYTES: usize = 256 << 20;
/// At most this many names are kept.
pub const MAX_NAMES: usize = 512;
/// Longest name accepted; a longer run of name characters is not a library name.
const MAX_NAME_LEN: usize = 200;

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

static DLL_ASCII: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i-u)[a-z0-9_.+\-]{1,200}\.dll\x00").ok());
static DLL_UTF16: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i-u)(?:[a-z0-9_.+\-]\x00){1,200}\.\x00d\x00l\x00l\x00\x00\x00").ok()
});
static SO_ASCII: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?-u)[A-Za-z0-9_.+\-]{0,200}\.so(?:\.[0-9]{1,9}){0,4}\x00").ok());
static NVCC: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?-u)Cuda compilation tools, release [0-9.]{1,12}, V[0-9.]{1,20}").ok()
});

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
            if let Some(m) = NVCC.as_ref().and_then(|re| re.find(data)) {
                let text = String::from_utf8_lossy(m.as_bytes());
                found.nvcc_version = super::version::from_nvcc_banner(&text);
            }
        }
        let ascii = match shape {
            Shape::Dll => DLL_ASCII.as_ref(),
            Shape::So => SO_ASCII.as_ref(),
        };
        // A match that does not start a name has no shorter valid match inside its run (every
        // later start follows a name byte), so the search simply goes on after it.
        for m in ascii.into_iter().flat_map(|re| re.find_iter(data)) {
            let name = &m.as_bytes()[..m.len() - 1];
            let shaped = match shape {
                Shape::Dll => name.len() > 4,
                Shape::So => name.starts_with(b"lib") && name.len() > 6,
            };
            if shaped && name.len() < MAX_NAME_LEN && ascii_starts_name(data, m.start()) {
                push(&mut found, String::from_utf8_lossy(name).into_owned());
            }
        }
        let utf16 = DLL_UTF16.as_ref().filter(|_| shape == Shape::Dll);
        let mut at = 0;
        while let Some(m) = utf16.and_then(|re| re.find_at(data, at)) {
            if !utf16_starts_name(data, m.start()) {
                // The real name may start inside this match (after an ASCII string's last
                // letter and NUL, which look like one UTF-16 unit): look again one byte on.
                at = m.start() + 1;
                continue;
            }
            at = m.end();
            let units = &m.as_bytes()[..m.len() - 2];
            let name: String = units.iter().step_by(2).map(|&b| b as char).collect();
            if name.len() > 4 && name.len() < MAX_NAME_LEN {
                push(&mut found, name);
            }
        }
    }
    found
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

//! The *true* library version of a binary, from wherever its vendor put it.
//!
//! NVIDIA does not use one field consistently. Observed in the real wheels' DLLs:
//! cudart64_12.dll has `ProductName = "NVIDIA CUDA 12.9.79 Runtime"`,
//! `OriginalFilename = "CUDART64_129_79.DLL"` and a driver-style `FileVersion = "6,14,11,12090"`;
//! nvrtc64_120_0.dll / nvJitLink_120_0.dll have `ProductName = "NVIDIA CUDA 12.9.86 NVRTC Library"`
//! and `FileVersion = "6.14.11.9000"` (where 9000 does *not* decode to 12.9);
//! cupti64_2025.2.1.dll has only a year version, `FileVersion = "2025.2.1.0"`.
//! So the order is: a dotted version inside ProductName, then FileDescription; then a
//! build-numbered OriginalFilename (`<name>NN_<MAJORMINOR>_<PATCH>.dll`, patch ≠ 0 — the
//! ABI-frozen names `nvrtc64_120_0.dll` carry no patch); then FileVersion, ProductVersion and the
//! fixed file version, where a year version keeps three parts and the driver-style
//! `6.14.11.NNNNN` decodes to `major.minor` only when NNNNN has five digits (12090 → 12.9).
//! ELF files carry no version resource. Libraries linked with NVIDIA's toolchain embed
//! `Cuda compilation tools, release 12.9, V12.9.86` in .rodata (source `nvcc banner`): the toolkit
//! release they were built with, which is the library's own version for the compiler libraries
//! (libnvrtc 12.4.127, libnvJitLink 12.6.85 in their wheels) but only the toolkit's for others
//! (libcupti from the 12.8.90 wheel says V12.8.13). Otherwise a full version in the file name
//! (`libfoo.so.1.2.3`) or the SONAME's version suffix (`12`, `11.0`) is used.

use super::{BinaryVersionSource, VersionInfo};
use std::collections::BTreeMap;

/// The version-resource fields kept in `VersionInfo::fields`.
pub const PE_FIELDS: [&str; 7] = [
    "FileVersion",
    "ProductVersion",
    "ProductName",
    "FileDescription",
    "OriginalFilename",
    "CompanyName",
    "InternalName",
];

/// The first `\bN.N(.N(.N)?)?\b` in `text` (1–5 digits in the first two parts, 1–6 after),
/// shortened to the longest prefix that ends on a word boundary, as the regex would. Hand-written:
/// compiling a regex costs more than reading a whole library's headers.
fn first_dotted(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let word = |i: usize| {
        bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
    };
    let digits_end = |from: usize| {
        let mut i = from;
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    for start in 0..bytes.len() {
        if !bytes[start].is_ascii_digit() || (start > 0 && word(start - 1)) {
            continue;
        }
        let mut ends = Vec::new();
        let mut at = start;
        for part in 0..4 {
            let from = if part == 0 { at } else { at + 1 };
            if part > 0 && bytes.get(at) != Some(&b'.') {
                break;
            }
            let end = digits_end(from);
            let max = if part < 2 { 5 } else { 6 };
            if end == from || end - from > max {
                break;
            }
            at = end;
            if part >= 1 {
                ends.push(end);
            }
        }
        if let Some(end) = ends.into_iter().rev().find(|&e| !word(e)) {
            return Some(text[start..end].to_owned());
        }
    }
    None
}

fn all_digits(text: &str, lengths: std::ops::RangeInclusive<usize>) -> bool {
    lengths.contains(&text.len()) && text.bytes().all(|b| b.is_ascii_digit())
}

/// `name` without a case-insensitive `.dll` ending, or None.
fn dll_stem(name: &str) -> Option<&str> {
    let cut = name.len().checked_sub(4)?;
    (name.is_char_boundary(cut) && name[cut..].eq_ignore_ascii_case(".dll")).then(|| &name[..cut])
}

/// `CUDART64_129_79.DLL` → `12.9.79`; `nvrtc64_120_0.dll` (patch 0, an ABI name) → None.
pub fn from_original_filename(name: &str) -> Option<String> {
    // `<letters, _ or ->[32|64]_<2-3 digits>_<1-6 digits>.dll`
    let (rest, patch) = dll_stem(name.trim())?.rsplit_once('_')?;
    let (prefix, majmin) = rest.rsplit_once('_')?;
    let letters = prefix
        .strip_suffix("32")
        .or_else(|| prefix.strip_suffix("64"))
        .unwrap_or(prefix);
    let prefix_ok = letters.starts_with(|c: char| c.is_ascii_alphabetic())
        && letters
            .chars()
            .all(|c| c.is_ascii_alphabetic() || c == '_' || c == '-');
    if !prefix_ok || !all_digits(majmin, 2..=3) || !all_digits(patch, 1..=6) {
        return None;
    }
    if patch.trim_start_matches('0').is_empty() {
        return None;
    }
    let (major, minor) = majmin.split_at(majmin.len() - 1);
    Some(format!("{major}.{minor}.{patch}"))
}

/// Numeric components of a version field: `"6,14,11,12090"`, `"2025.2.1.0 Build (0)"`.
fn numeric_parts(text: &str) -> Vec<u64> {
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | ',' | ' ')))
        .unwrap_or(text.len());
    let mut parts = Vec::new();
    for piece in text[..end].trim().split([',', '.']) {
        match piece.trim().parse::<u64>() {
            Ok(n) if parts.len() < 4 => parts.push(n),
            _ => break,
        }
    }
    parts
}

/// A version from a FileVersion-like field, or None when it says nothing about the library.
pub fn from_numeric_field(text: &str) -> Option<String> {
    let parts = numeric_parts(text);
    if parts.len() < 2 {
        return None;
    }
    let join = |p: &[u64]| p.iter().map(u64::to_string).collect::<Vec<_>>().join(".");
    if parts[0] >= 1990 && parts[0] <= 2200 {
        // Year versions (CUPTI, Nsight): the fourth part is a build number or 0.
        return Some(join(&parts[..parts.len().min(3)]));
    }
    if parts.len() == 4 && parts[..3] == [6, 14, 11] {
        // Driver-style: only the five-digit form encodes the CUDA major/minor reliably.
        let n = parts[3];
        return (10_000..100_000)
            .contains(&n)
            .then(|| format!("{}.{}", n / 1000, (n % 1000) / 10));
    }
    if parts.iter().all(|&p| p == 0) {
        return None;
    }
    Some(join(&parts))
}

/// Fills `info.version`/`info.source` from the PE string table and the fixed file version
/// (`major.minor.patch.build` as numbers), following the order in the module comment.
pub fn pick_pe_version(info: &mut VersionInfo, fixed: Option<[u16; 4]>) {
    let fields: &BTreeMap<String, String> = &info.fields;
    use BinaryVersionSource as S;
    let mut found: Option<(String, S)> = None;
    for key in [S::ProductName, S::FileDescription] {
        if let Some(v) = fields.get(key.as_str()).and_then(|t| first_dotted(t)) {
            found = Some((v, key));
            break;
        }
    }
    if found.is_none() {
        found = fields
            .get(S::OriginalFilename.as_str())
            .and_then(|t| from_original_filename(t))
            .map(|v| (v, S::OriginalFilename));
    }
    if found.is_none() {
        for key in [S::FileVersion, S::ProductVersion] {
            if let Some(v) = fields.get(key.as_str()).and_then(|t| from_numeric_field(t)) {
                found = Some((v, key));
                break;
            }
        }
    }
    if found.is_none()
        && let Some([a, b, c, d]) = fixed
    {
        found = from_numeric_field(&format!("{a}.{b}.{c}.{d}")).map(|v| (v, S::FixedFileInfo));
    }
    if let Some((version, source)) = found {
        info.version = Some(version);
        info.source = Some(source);
    }
}

/// `Cuda compilation tools, release 12.9, V12.9.86` → `12.9.86`.
pub fn from_nvcc_banner(text: &str) -> Option<String> {
    let at = text.find(", V")?;
    let rest = &text[at + 3..];
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let v = rest[..end].trim_end_matches('.');
    (v.matches('.').count() >= 1).then(|| v.to_owned())
}

/// The version suffix of an ELF name: `libcudart.so.11.0` → `11.0`.
pub fn from_so_name(name: &str) -> Option<String> {
    name.match_indices(".so.")
        .map(|(at, _)| &name[at + 4..])
        .find(|rest| rest.split('.').all(|p| all_digits(p, 1..=usize::MAX)))
        .map(str::to_owned)
}

/// `cupti64_2025.1.1.dll` → `2025.1.1`: a year version after the last `_` of a DLL name.
fn from_year_file_name(name: &str) -> Option<String> {
    let (_, tail) = dll_stem(name)?.rsplit_once('_')?;
    let parts: Vec<&str> = tail.split('.').collect();
    let ok = matches!(parts.as_slice(), [year, minor, patch]
        if all_digits(year, 4..=4)
            && (year.starts_with("19") || year.starts_with("20"))
            && all_digits(minor, 1..=3)
            && all_digits(patch, 1..=3));
    ok.then(|| tail.to_owned())
}

/// Uses the file name when the contents said less: `libcudart.so.12.9.79` (ELF, better than a
/// SONAME's `12`), `cupti64_2025.1.1.dll` (a year version in the name).
pub fn from_file_name(name: &str, info: &mut VersionInfo) {
    let weak = matches!(info.source, None | Some(BinaryVersionSource::Soname));
    if !weak {
        return;
    }
    let candidate = from_so_name(name)
        .filter(|v| v.matches('.').count() >= 2 || info.version.is_none())
        .or_else(|| from_year_file_name(name));
    if let Some(v) = candidate
        && info.version.as_ref().is_none_or(|old| v.len() > old.len())
    {
        info.version = Some(v);
        info.source = Some(BinaryVersionSource::FileName);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(pairs: &[(&str, &str)], fixed: Option<[u16; 4]>) -> (Option<String>, Option<String>) {
        let mut info = VersionInfo::default();
        for (k, v) in pairs {
            info.fields.insert((*k).into(), (*v).into());
        }
        pick_pe_version(&mut info, fixed);
        (info.version, info.source.map(|s| s.as_str().to_string()))
    }

    #[test]
    fn product_name_wins_over_driver_style_file_version() {
        let (v, s) = pick(
            &[
                ("ProductName", "NVIDIA CUDA 12.9.86 NVRTC Library"),
                ("FileVersion", "6.14.11.9000"),
            ],
            None,
        );
        assert_eq!(
            (v.as_deref(), s.as_deref()),
            (Some("12.9.86"), Some("ProductName"))
        );
    }

    #[test]
    fn original_filename_decodes_build_numbered_names_only() {
        assert_eq!(
            from_original_filename("CUDART64_129_79.DLL").as_deref(),
            Some("12.9.79")
        );
        assert_eq!(
            from_original_filename("CUDART32_118_89.DLL").as_deref(),
            Some("11.8.89")
        );
        assert_eq!(from_original_filename("nvrtc64_120_0.dll"), None);
        assert_eq!(from_original_filename("nvJitLink_120_0.dll"), None);
        assert_eq!(from_original_filename("cublas64_12.dll"), None);
    }

    #[test]
    fn name_parsers_follow_their_patterns() {
        assert_eq!(
            first_dotted("NVIDIA CUDA 12.9.86 NVRTC").as_deref(),
            Some("12.9.86")
        );
        assert_eq!(first_dotted("v12.9.86a 3.1").as_deref(), Some("3.1"));
        assert_eq!(first_dotted("x 12.9.86a").as_deref(), Some("12.9"));
        assert_eq!(first_dotted("1.2.3.4.5").as_deref(), Some("1.2.3.4"));
        assert_eq!(first_dotted("123456.1 and 7.8").as_deref(), Some("7.8"));
        assert_eq!(first_dotted("no version"), None);
        assert_eq!(from_so_name("lib.so.x.so.12").as_deref(), Some("12"));
        assert_eq!(from_so_name("libfoo.so.1."), None);
        assert_eq!(from_so_name("libfoo.so"), None);
        assert_eq!(
            from_year_file_name("CUPTI64_2025.1.1.DLL").as_deref(),
            Some("2025.1.1")
        );
        assert_eq!(from_year_file_name("cupti64_1825.1.1.dll"), None);
        assert_eq!(from_year_file_name("cupti64_2025.1.dll"), None);
        assert_eq!(
            from_original_filename("nv-rtc_x64_129_1.dll").as_deref(),
            Some("12.9.1")
        );
        assert_eq!(from_original_filename("9cudart64_129_79.dll"), None);
        assert_eq!(from_original_filename("cudart64_1290_79.dll"), None);
    }

    #[test]
    fn numeric_fields() {
        assert_eq!(from_numeric_field("6,14,11,12090").as_deref(), Some("12.9"));
        assert_eq!(from_numeric_field("6.14.11.9000"), None);
        assert_eq!(
            from_numeric_field("2025.2.1.0 Build (0)").as_deref(),
            Some("2025.2.1")
        );
        assert_eq!(from_numeric_field("1, 2, 3, 4").as_deref(), Some("1.2.3.4"));
        assert_eq!(from_numeric_field("0.0.0.0"), None);
        assert_eq!(from_numeric_field("garbage"), None);
    }

    #[test]
    fn year_version_from_file_version_when_names_carry_none() {
        let (v, s) = pick(
            &[
                ("ProductName", "NVIDIA CUPTI Library"),
                ("FileVersion", "2025.2.1.0"),
            ],
            None,
        );
        assert_eq!(
            (v.as_deref(), s.as_deref()),
            (Some("2025.2.1"), Some("FileVersion"))
        );
        let (v, s) = pick(&[], Some([3, 1, 4, 0]));
        assert_eq!(
            (v.as_deref(), s.as_deref()),
            (Some("3.1.4.0"), Some("VS_FIXEDFILEINFO"))
        );
    }

    #[test]
    fn elf_versions() {
        assert_eq!(
            from_nvcc_banner("Cuda compilation tools, release 12.9, V12.9.86").as_deref(),
            Some("12.9.86")
        );
        assert_eq!(from_so_name("libcudart.so.11.0").as_deref(), Some("11.0"));
        let mut info = VersionInfo {
            version: Some("12".into()),
            source: Some(BinaryVersionSource::Soname),
            ..Default::default()
        };
        from_file_name("libcudart.so.12.9.79", &mut info);
        assert_eq!(info.version.as_deref(), Some("12.9.79"));
        let mut info = VersionInfo::default();
        from_file_name("cupti64_2025.1.1.dll", &mut info);
        assert_eq!(info.version.as_deref(), Some("2025.1.1"));
    }
}

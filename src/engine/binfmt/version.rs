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

use super::VersionInfo;
use regex::Regex;
use std::collections::BTreeMap;
use std::sync::LazyLock;

static DOTTED: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\b(\d{1,5}\.\d{1,5}(?:\.\d{1,6}){0,2})\b").ok());
static ORIGINAL_FILENAME: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)^[a-z][a-z_\-]*?(?:32|64)?_(\d{2,3})_(\d{1,6})\.dll$").ok());
static YEAR_FILE_NAME: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)_((?:19|20)\d\d\.\d{1,3}\.\d{1,3})\.dll$").ok());
static SO_FILE_NAME: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\.so\.(\d+(?:\.\d+)*)$").ok());

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

fn first_dotted(text: &str) -> Option<String> {
    let re = DOTTED.as_ref()?;
    re.captures(text)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_owned())
}

/// `CUDART64_129_79.DLL` → `12.9.79`; `nvrtc64_120_0.dll` (patch 0, an ABI name) → None.
pub fn from_original_filename(name: &str) -> Option<String> {
    let caps = ORIGINAL_FILENAME.as_ref()?.captures(name.trim())?;
    let majmin = caps.get(1)?.as_str();
    let patch = caps.get(2)?.as_str();
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
    let mut found: Option<(String, &str)> = None;
    for key in ["ProductName", "FileDescription"] {
        if let Some(v) = fields.get(key).and_then(|t| first_dotted(t)) {
            found = Some((v, key));
            break;
        }
    }
    if found.is_none() {
        found = fields
            .get("OriginalFilename")
            .and_then(|t| from_original_filename(t))
            .map(|v| (v, "OriginalFilename"));
    }
    if found.is_none() {
        for key in ["FileVersion", "ProductVersion"] {
            if let Some(v) = fields.get(key).and_then(|t| from_numeric_field(t)) {
                found = Some((v, key));
                break;
            }
        }
    }
    if found.is_none() {
        if let Some([a, b, c, d]) = fixed {
            found =
                from_numeric_field(&format!("{a}.{b}.{c}.{d}")).map(|v| (v, "VS_FIXEDFILEINFO"));
        }
    }
    if let Some((version, source)) = found {
        info.version = Some(version);
        info.source = Some(source.to_owned());
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
    SO_FILE_NAME
        .as_ref()?
        .captures(name)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_owned())
}

/// Uses the file name when the contents said less: `libcudart.so.12.9.79` (ELF, better than a
/// SONAME's `12`), `cupti64_2025.1.1.dll` (a year version in the name).
pub fn from_file_name(name: &str, info: &mut VersionInfo) {
    let weak = matches!(info.source.as_deref(), None | Some("soname"));
    if !weak {
        return;
    }
    let candidate = from_so_name(name)
        .filter(|v| v.matches('.').count() >= 2 || info.version.is_none())
        .or_else(|| {
            YEAR_FILE_NAME
                .as_ref()?
                .captures(name)
                .and_then(|c| c.get(1))
                .map(|m| m.as_str().to_owned())
        });
    if let Some(v) = candidate {
        if info.version.as_ref().is_none_or(|old| v.len() > old.len()) {
            info.version = Some(v);
            info.source = Some("file name".into());
        }
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
        (info.version, info.source)
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
            source: Some("soname".into()),
            ..Default::default()
        };
        from_file_name("libcudart.so.12.9.79", &mut info);
        assert_eq!(info.version.as_deref(), Some("12.9.79"));
        let mut info = VersionInfo::default();
        from_file_name("cupti64_2025.1.1.dll", &mut info);
        assert_eq!(info.version.as_deref(), Some("2025.1.1"));
    }
}

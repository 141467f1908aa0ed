//! Tests that hold the tables to the shared reference text (`../shared/reference/cuda-facts.md`,
//! next to the crate in CI too): every name in its tables is identified with the right
//! component and family, and the driver and TensorFlow tables agree with it. Each test skips with
//! a message when the reference file is absent.

use crate::engine::context::Platform;
use crate::engine::knowledge::version::{Version, VersionSpec};
use crate::engine::knowledge::*;
use regex::Regex;

fn reference() -> Option<String> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/cuda-facts.md");
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) => {
            eprintln!("SKIPPED: reference {} not readable ({e})", path.display());
            None
        }
    }
}

/// The lines of the section that starts with `start` and ends before the next heading `end`.
fn section<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text
        .find(start)
        .unwrap_or_else(|| panic!("no section {start}"));
    let rest = &text[from..];
    let to = rest[start.len()..]
        .find(end)
        .map(|i| i + start.len())
        .unwrap_or(rest.len());
    &rest[..to]
}

fn cells(line: &str) -> Vec<&str> {
    line.trim()
        .trim_matches('|')
        .split('|')
        .map(str::trim)
        .collect()
}

fn family_covers(family: &str, cuda: &str) -> bool {
    let v = Version::parse(cuda).unwrap();
    VersionSpec::parse(family).is_some_and(|s| s.contains(&v))
}

#[test]
fn every_windows_dll_in_section_1_2_is_identified() {
    let Some(text) = reference() else { return };
    let table = section(
        &text,
        "### 1.2 Windows toolkit DLL names",
        "cublasLt first ships",
    );
    let name = Regex::new(r"\b((?:cudart|cublasLt|cublas|cufft|curand|cusolver|cusparse|nvrtc-builtins|nvrtc|cupti)(?:64|32)_[0-9._]+[0-9]|nvJitLink_\d+_0)").unwrap();
    let components = [
        "CUDA runtime",
        "cuBLAS",
        "cuFFT",
        "cuRAND",
        "cuSOLVER",
        "cuSPARSE",
        "NVRTC",
        "nvJitLink",
        "CUPTI",
    ];
    let mut checked = 0;
    for line in table
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| CUDA"))
    {
        let c = cells(line);
        if c.len() < 11 || Version::parse(c[0]).is_none() {
            continue;
        }
        // "13.3 / 13.4" rows cover two releases.
        let cudas: Vec<String> = c[0]
            .split('/')
            .filter_map(Version::parse)
            .map(|v| v.major_minor())
            .collect();
        for (col, expected) in components.iter().enumerate() {
            let cell = c[col + 1];
            for m in name.captures_iter(cell) {
                let file = format!("{}.dll", &m[1]);
                let id = identify_library(&file)
                    .unwrap_or_else(|| panic!("{file} (CUDA {cudas:?}) not identified"));
                let want = if file.starts_with("cublasLt") {
                    "cuBLASLt"
                } else if file.starts_with("nvrtc-builtins") {
                    "NVRTC builtins"
                } else {
                    expected
                };
                assert_eq!(id.component, want, "{file}");
                let weak = cell.contains("weak") || cell.contains("UNVERIFIED");
                if weak {
                    assert!(
                        !id.verified,
                        "{file} is weak/UNVERIFIED in the reference but verified here"
                    );
                    continue;
                }
                assert!(
                    cudas
                        .iter()
                        .any(|c| id.toolkits.contains(c) && family_covers(&id.version_family, c)),
                    "{file}: CUDA {cudas:?} not in toolkits {:?} / family {}",
                    id.toolkits,
                    id.version_family
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 200, "only {checked} names checked");
}

#[test]
fn every_cudnn_name_in_section_1_4_is_identified() {
    let Some(text) = reference() else { return };
    let table = section(&text, "### 1.4 cuDNN file names", "* cuDNN 8 structure");
    let name = Regex::new(r"`([A-Za-z0-9_]+(?:\.dll|\.so\.\d+))`").unwrap();
    let mut checked = 0;
    for line in table
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains(".x |"))
    {
        let major = cells(line)[0].trim_end_matches(".x").to_string();
        for m in name.captures_iter(line) {
            let id = identify_library(&m[1]).unwrap_or_else(|| panic!("{} not identified", &m[1]));
            assert_eq!(
                (id.component.as_str(), id.version_family.as_str()),
                ("cuDNN", major.as_str()),
                "{}",
                &m[1]
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked}");
}

#[test]
fn every_concrete_name_in_section_11_is_identified() {
    let Some(text) = reference() else { return };
    let table = section(&text, "## 11. Derived lookup", "## 12.");
    let name = Regex::new(r"`([A-Za-z0-9_.\-]+)`").unwrap();
    let mut checked = 0;
    for line in table.lines().filter(|l| l.starts_with("| `")) {
        let first = cells(line)[0];
        for m in name.captures_iter(first) {
            let id = identify_library(&m[1]).unwrap_or_else(|| panic!("{} not identified", &m[1]));
            assert!(id.verified || m[1].contains("Lt"), "{} unverified", &m[1]);
            checked += 1;
        }
    }
    assert!(checked >= 40, "only {checked}");
}

#[test]
fn driver_table_agrees_with_section_5() {
    let Some(text) = reference() else { return };
    let table = section(&text, "## 5. CUDA toolkit", "### 5.1");
    let k = knowledge();
    let mut checked = 0;
    for line in table
        .lines()
        .filter(|l| l.starts_with("| CUDA ") && !l.starts_with("| CUDA Toolkit"))
    {
        let c = cells(line);
        let label = c[0].replace('†', "");
        let row = k
            .drivers
            .releases
            .iter()
            .find(|r| r.release == label.trim())
            .unwrap_or_else(|| panic!("no row {label}"));
        assert_eq!(row.linux, c[1].trim_start_matches(">=").trim(), "{label}");
        let win = c[2].trim_start_matches(">=").trim();
        assert_eq!(row.windows.as_deref().unwrap_or("N/A"), win, "{label}");
        checked += 1;
    }
    assert_eq!(checked, k.drivers.releases.len());
    assert_eq!(
        min_driver_for_cuda("12.0", Platform::Linux)
            .unwrap()
            .min_driver,
        "525.60.13"
    );
}

#[test]
fn tensorflow_table_agrees_with_section_3() {
    let Some(text) = reference() else { return };
    for (start, end, platform) in [
        ("### 3.1", "### 3.2", Platform::Linux),
        ("### 3.2", "### 3.3", Platform::Windows),
    ] {
        let mut checked = 0;
        for line in section(&text, start, end)
            .lines()
            .filter(|l| l.starts_with("| tensorflow"))
        {
            let c = cells(line);
            let version = c[0].split('-').nth(1).unwrap().split(' ').next().unwrap();
            let build = tensorflow_build(version, platform).unwrap_or_else(|| panic!("{version}"));
            // tensorflow.org writes CUDA 10.0 as "10" in the Windows table; the wheels' own
            // build_info.py says 64_100 (10.0). A bare major is the same release as major.0.
            let major_dot_zero = |v: &str| {
                if v.contains('.') {
                    v.to_string()
                } else {
                    format!("{v}.0")
                }
            };
            assert_eq!(
                (
                    major_dot_zero(&build.cuda),
                    build.cudnn.as_str(),
                    build.python.as_str()
                ),
                (major_dot_zero(c[5]), c[4], c[1]),
                "{version}"
            );
            checked += 1;
        }
        assert!(checked > 15);
    }
}

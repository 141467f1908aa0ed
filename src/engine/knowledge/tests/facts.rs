//! Tests that hold the tables to the reference tables in `reference_tables.md` (a fixture next to
//! this file, compiled in, each table with the public sources it was read from): every name in
//! them is identified with the right component and family, and the driver and TensorFlow tables
//! agree with them.

use crate::engine::context::Platform;
use crate::engine::knowledge::version::{Version, VersionSpec};
use crate::engine::knowledge::*;
use regex::Regex;

const REFERENCE: &str = include_str!("reference_tables.md");

/// The text of the fixture section whose heading is `## {heading}`, up to the next `## `.
fn table(heading: &str) -> &'static str {
    let start = format!("\n## {heading}\n");
    let from = REFERENCE
        .find(&start)
        .unwrap_or_else(|| panic!("no section {heading:?} in reference_tables.md"))
        + start.len();
    let rest = &REFERENCE[from..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
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
fn every_windows_dll_in_the_reference_table_is_identified() {
    let table = table("Windows toolkit DLL names by CUDA version");
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
                        "{file} rests on a weak source in the reference table but is verified here"
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
fn every_cudnn_name_in_the_reference_table_is_identified() {
    let table = table("cuDNN file names");
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
fn every_concrete_name_in_the_derived_lookup_is_identified() {
    let table = table("Requested file name and the CUDA family it implies");
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
fn driver_table_agrees_with_the_reference_table() {
    let table = table("CUDA toolkit and minimum NVIDIA driver");
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
fn tensorflow_table_agrees_with_the_reference_tables() {
    for (heading, platform) in [
        (
            "TensorFlow tested build configurations, Linux GPU",
            Platform::Linux,
        ),
        (
            "TensorFlow tested build configurations, Windows GPU",
            Platform::Windows,
        ),
    ] {
        let mut checked = 0;
        for line in table(heading)
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

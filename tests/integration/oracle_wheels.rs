//! Linux oracle over real NVIDIA libraries: every `.so` of the small CUDA 12 wheels
//! (nvidia-cuda-runtime-cu12, -cupti-cu12, -nvjitlink-cu12, -nvrtc-cu12) must resolve exactly as
//! the real loader resolves it. The wheels are downloaded once into tests/.cache/wheels (never
//! committed); without network or pip the test says so and passes.

use crate::oracle_linux::assert_like_loader;
use crate::oracle_support::cache_dir;
use std::path::{Path, PathBuf};
use std::process::Command;

const WHEELS: &[&str] = &[
    "nvidia-cuda-runtime-cu12",
    "nvidia-cuda-cupti-cu12",
    "nvidia-nvjitlink-cu12",
    "nvidia-cuda-nvrtc-cu12",
];

/// The extracted `site-packages`-like folder holding `nvidia/*/lib`, downloading if needed.
pub fn wheel_site() -> Option<PathBuf> {
    let base = cache_dir().join("wheels");
    let site = base.join("site");
    if site.join("nvidia").is_dir() {
        return Some(site);
    }
    std::fs::create_dir_all(&base).ok()?;
    let ok = Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--platform",
        ])
        .arg("manylinux2014_x86_64")
        .args(WHEELS)
        .arg("-d")
        .arg(&base)
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        return None;
    }
    for entry in std::fs::read_dir(&base).ok()?.flatten() {
        let p = entry.path();
        if p.extension().is_some_and(|e| e == "whl") {
            let o = Command::new("python3")
                .args(["-m", "zipfile", "-e"])
                .arg(&p)
                .arg(&site)
                .output()
                .ok()?;
            if !o.status.success() {
                return None;
            }
        }
    }
    site.join("nvidia").is_dir().then_some(site)
}

fn shared_objects(site: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for component in std::fs::read_dir(site.join("nvidia"))
        .into_iter()
        .flatten()
        .flatten()
    {
        for file in std::fs::read_dir(component.path().join("lib"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let name = file.file_name().to_string_lossy().into_owned();
            if name.contains(".so") {
                out.push(file.path());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn nvidia_wheel_libraries_resolve_like_the_real_loader() {
    let Some(site) = wheel_site() else {
        eprintln!("NVIDIA wheels not available (no network or pip): skipped");
        return;
    };
    let sos = shared_objects(&site);
    assert!(sos.len() >= 4, "{sos:?}");
    for so in &sos {
        let g = assert_like_loader(so, &[]);
        assert!(!g.nodes.is_empty(), "{}", so.display());
    }
}

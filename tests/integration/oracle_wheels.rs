//! Linux oracle over real NVIDIA libraries: every `.so` of the small CUDA 12 wheels
//! (nvidia-cuda-runtime-cu12, -cupti-cu12, -nvjitlink-cu12, -nvrtc-cu12) must resolve exactly as
//! the real loader resolves it. The wheels' files are read out of PyPI once (Range requests,
//! `release_fetch.py`) into tests/.cache/wheels/site (never committed); a failed download fails
//! the test with the reason.

use crate::oracle_linux::assert_like_loader;
use std::path::{Path, PathBuf};

const WHEELS: &[(&str, &str)] = &[
    ("nvidia-cuda-runtime-cu12", "12.9.79"),
    ("nvidia-cuda-cupti-cu12", "12.8.90"),
    ("nvidia-nvjitlink-cu12", "12.9.86"),
    ("nvidia-cuda-nvrtc-cu12", "12.9.86"),
];

/// The `site-packages`-like folder holding `nvidia/*/lib`, fetched on first use.
pub fn wheel_site() -> PathBuf {
    let site = crate::wheels::cache_root().join("site");
    if site.join(".complete").is_file() {
        return site;
    }
    let tmp = crate::wheels::unique_tmp(&site);
    for (dist, version) in WHEELS {
        let spec = serde_json::json!({
            "mode": "unpack", "dist": dist, "version": version, "platform": "linux",
            "python": "3.11", "dest": tmp, "index_cache": crate::wheels::index_cache(),
        });
        if let Err(e) = crate::wheels::run_fetch(&spec) {
            panic!("{dist} {version} (Linux) from PyPI: {e}");
        }
    }
    std::fs::write(tmp.join(".complete"), "").unwrap();
    if !site.join(".complete").is_file() {
        let _ = std::fs::remove_dir_all(&site); // a folder from before the marker
    }
    if std::fs::rename(&tmp, &site).is_err() {
        // Another test process won the race; its copy is as good as ours.
        let _ = std::fs::remove_dir_all(&tmp);
    }
    site
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
    let site = wheel_site();
    let sos = shared_objects(&site);
    assert!(sos.len() >= 4, "{sos:?}");
    for so in &sos {
        let g = assert_like_loader(so, &[]);
        assert!(!g.nodes.is_empty(), "{}", so.display());
    }
}

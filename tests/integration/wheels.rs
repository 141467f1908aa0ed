//! Real NVIDIA binaries for tests, taken from PyPI wheels (`nvidia-cuda-runtime-cu12`, ...).
//!
//! `wheel_member("nvidia-cuda-runtime-cu12", "12.9.79", WheelPlatform::Windows, "cudart64_12.dll")`
//! finds the wheel in PyPI's simple index the first time and reads only that member out of it
//! with HTTP Range requests (`release_fetch.py`: a wheel is a zip, so its central directory and
//! the one member are all that travel; no whole wheel is downloaded or kept), into
//! `tests/.cache/wheels/<dist>-<version>-<platform>/members/`, and returns its path. Extractions
//! go to a unique temporary name and are renamed into place, so parallel tests (threads or
//! processes) never see half-written files. A failed download is a test failure with the reason —
//! CI has network access to PyPI.

#![allow(dead_code)] // a shared helper: each test uses part of it

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

/// Which wheel of a release to fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WheelPlatform {
    /// x86_64 Linux (manylinux1 up to manylinux_2_28).
    Linux,
    LinuxAarch64,
    Windows,
}

impl WheelPlatform {
    /// Names the cache directory.
    pub fn label(self) -> &'static str {
        match self {
            WheelPlatform::Linux => "linux_x86_64",
            WheelPlatform::LinuxAarch64 => "linux_aarch64",
            WheelPlatform::Windows => "win_amd64",
        }
    }

    /// The platform as `release_fetch.py` names it.
    pub fn fetch_name(self) -> &'static str {
        match self {
            WheelPlatform::Linux => "linux",
            WheelPlatform::LinuxAarch64 => "linux_aarch64",
            WheelPlatform::Windows => "windows",
        }
    }
}

/// One lock per member inside one test process (a second test asking for a member being fetched
/// waits for it); renames keep separate processes safe.
static MEMBER_LOCKS: Mutex<Vec<(PathBuf, Arc<Mutex<()>>)>> = Mutex::new(Vec::new());

fn member_lock(dest: &Path) -> Arc<Mutex<()>> {
    let mut locks = MEMBER_LOCKS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, l)) = locks.iter().find(|(d, _)| d == dest) {
        return l.clone();
    }
    let lock = Arc::new(Mutex::new(()));
    locks.push((dest.to_path_buf(), lock.clone()));
    lock
}

pub fn cache_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/.cache/wheels")
}

/// A unique temporary name beside `path` (this process, this instant), to rename into place.
pub fn unique_tmp(path: &Path) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp-{}-{nanos}", std::process::id()));
    path.with_file_name(name)
}

/// Where PyPI's simple-index pages are kept (shared with `release_files.rs`).
pub fn index_cache() -> PathBuf {
    cache_root()
        .with_file_name("release-files")
        .join("simple-index")
}

/// Runs `release_fetch.py` with `spec` (its modes: `member`, `unpack`); the error says why.
pub fn run_fetch(spec: &serde_json::Value) -> Result<(), String> {
    let out = Command::new("python3")
        .args(["-c", include_str!("release_fetch.py")])
        .arg(spec.to_string())
        .output()
        .map_err(|e| format!("cannot run python3 (Debian package python3): {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ))
}

/// The wheel member whose path ends with `member_suffix`, extracted once into the cache.
pub fn try_wheel_member(
    package: &str,
    version: &str,
    platform: WheelPlatform,
    member_suffix: &str,
) -> Result<PathBuf, String> {
    let leaf = member_suffix.rsplit('/').next().unwrap_or(member_suffix);
    let dir = cache_root()
        .join(format!("{package}-{version}-{}", platform.label()))
        .join("members");
    let dest = dir.join(leaf);
    let lock = member_lock(&dest);
    let _guard = lock.lock().unwrap_or_else(|p| p.into_inner());
    if dest.is_file() {
        return Ok(dest);
    }
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let tmp = unique_tmp(&dest);
    let spec = serde_json::json!({
        "mode": "member", "dist": package, "version": version,
        "platform": platform.fetch_name(), "python": "3.11",
        "suffix": member_suffix, "out": tmp, "index_cache": index_cache(),
    });
    if let Err(e) = run_fetch(&spec) {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!(
            "{member_suffix} of {package}=={version} ({}) from PyPI: {e}",
            platform.label()
        ));
    }
    std::fs::rename(&tmp, &dest).map_err(|e| format!("{}: {e}", dest.display()))?;
    Ok(dest)
}

/// Like `try_wheel_member`, but a failure fails the test with the reason.
pub fn wheel_member(
    package: &str,
    version: &str,
    platform: WheelPlatform,
    member_suffix: &str,
) -> PathBuf {
    try_wheel_member(package, version, platform, member_suffix).unwrap_or_else(|e| {
        panic!("real NVIDIA binary {member_suffix} from {package}=={version} is unavailable: {e}")
    })
}

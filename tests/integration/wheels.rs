//! Real NVIDIA binaries for tests, taken from PyPI wheels (`nvidia-cuda-runtime-cu12`, ...) that
//! the test downloads once into `tests/.cache/wheels` (gitignored, never committed).
//!
//! `wheel_member("nvidia-cuda-runtime-cu12", "12.9.79", WheelPlatform::Windows, "cudart64_12.dll")`
//! runs `python3 -m pip download --no-deps --only-binary=:all: --platform <tags> ...` the first
//! time, extracts the one member whose path ends with the suffix (python3's zipfile), and returns
//! its path. Downloads and extractions go to a unique temporary name and are renamed into place,
//! so parallel tests (threads or processes) never see half-written files. A failed download is a
//! test failure with pip's message — CI has network access to PyPI.

#![allow(dead_code)] // a shared helper: each test uses part of it

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

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

    /// `--platform` values for pip. pip expands the legacy `manylinux2014` tag to 2010 and 1
    /// but not `manylinux_2_28` to older ones, so the newer tags NVIDIA uses are listed too.
    pub fn pip_tags(self) -> &'static [&'static str] {
        match self {
            WheelPlatform::Linux => &[
                "manylinux2014_x86_64",
                "manylinux_2_24_x86_64",
                "manylinux_2_25_x86_64",
                "manylinux_2_27_x86_64",
                "manylinux_2_28_x86_64",
            ],
            WheelPlatform::LinuxAarch64 => &[
                "manylinux2014_aarch64",
                "manylinux_2_24_aarch64",
                "manylinux_2_25_aarch64",
                "manylinux_2_27_aarch64",
                "manylinux_2_28_aarch64",
            ],
            WheelPlatform::Windows => &["win_amd64"],
        }
    }
}

/// Serialises downloads inside one test process; renames keep separate processes safe.
static LOCK: Mutex<()> = Mutex::new(());

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

fn wheel_file(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "whl"))
}

/// Downloads (once) the wheel of `package==version` for `platform` and CPython 3.11; returns its
/// path.
pub fn try_wheel(package: &str, version: &str, platform: WheelPlatform) -> Result<PathBuf, String> {
    try_wheel_for(package, version, platform, "3.11")
}

/// Downloads (once) the wheel of `package==version` for `platform` and CPython `python`
/// ("3.10"); returns its path. The cache folder of a Python other than 3.11 carries its tag
/// (`numpy-1.26.4-cp310-win_amd64`): one release has a wheel per Python minor.
pub fn try_wheel_for(
    package: &str,
    version: &str,
    platform: WheelPlatform,
    python: &str,
) -> Result<PathBuf, String> {
    let tag = match python {
        "3.11" => String::new(),
        other => format!("cp{}-", other.replace('.', "")),
    };
    let dir = cache_root().join(format!("{package}-{version}-{tag}{}", platform.label()));
    if let Some(w) =
        wheel_file(&dir).or_else(|| pure_wheel_of_any_minor(package, version, platform))
    {
        return Ok(w);
    }
    std::fs::create_dir_all(cache_root()).map_err(|e| e.to_string())?;
    let tmp = unique_tmp(&dir);
    let mut cmd = Command::new("python3");
    cmd.args([
        "-m",
        "pip",
        "download",
        "--quiet",
        "--no-deps",
        "--only-binary=:all:",
    ]);
    for tag in platform.pip_tags() {
        cmd.args(["--platform", tag]);
    }
    let out = cmd
        .args(["--python-version", python])
        .args([
            "--implementation",
            "cp",
            "--disable-pip-version-check",
            "-d",
        ])
        .arg(&tmp)
        .arg(format!("{package}=={version}"))
        .output()
        .map_err(|e| format!("cannot run python3 -m pip: {e}"))?;
    if !out.status.success() || wheel_file(&tmp).is_none() {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(format!(
            "pip download {package}=={version} ({}) failed: {}{}",
            platform.label(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    if std::fs::rename(&tmp, &dir).is_err() {
        // Another process won the race; its copy is as good as ours.
        let _ = std::fs::remove_dir_all(&tmp);
    }
    wheel_file(&dir).ok_or_else(|| format!("{}: no wheel after download", dir.display()))
}

/// A pure-Python wheel (`*-none-any.whl`) of `package==version` cached for another Python minor:
/// one file serves every minor (pip checks a release's Requires-Python only when it downloads, so
/// the caller names a release that supports the minor it asks for).
fn pure_wheel_of_any_minor(
    package: &str,
    version: &str,
    platform: WheelPlatform,
) -> Option<PathBuf> {
    let start = format!("{package}-{version}-");
    std::fs::read_dir(cache_root())
        .ok()?
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with(&start) && name.ends_with(platform.label())
        })
        .filter_map(|e| wheel_file(&e.path()))
        .find(|w| w.to_string_lossy().ends_with("-none-any.whl"))
}

const EXTRACT: &str = r#"
import sys, zipfile
wheel, suffix, dest = sys.argv[1], sys.argv[2], sys.argv[3]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if n.endswith(suffix)]
    if not names:
        sys.exit("no member ending with %r in %s" % (suffix, wheel))
    with z.open(sorted(names, key=len)[0]) as src, open(dest, "wb") as out:
        while True:
            chunk = src.read(1 << 20)
            if not chunk:
                break
            out.write(chunk)
"#;

/// The wheel member whose path ends with `member_suffix`, extracted once into the cache.
pub fn try_wheel_member(
    package: &str,
    version: &str,
    platform: WheelPlatform,
    member_suffix: &str,
) -> Result<PathBuf, String> {
    let _guard = LOCK.lock().unwrap_or_else(|p| p.into_inner());
    let wheel = try_wheel(package, version, platform)?;
    let leaf = member_suffix.rsplit('/').next().unwrap_or(member_suffix);
    let dir = wheel.with_file_name("members");
    let dest = dir.join(leaf);
    if dest.is_file() {
        return Ok(dest);
    }
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let tmp = unique_tmp(&dest);
    let out = Command::new("python3")
        .args(["-c", EXTRACT])
        .arg(&wheel)
        .arg(member_suffix)
        .arg(&tmp)
        .output()
        .map_err(|e| format!("cannot run python3: {e}"))?;
    if !out.status.success() {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!(
            "extracting {member_suffix} from {}: {}",
            wheel.display(),
            String::from_utf8_lossy(&out.stderr)
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

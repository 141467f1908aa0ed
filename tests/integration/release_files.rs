//! The real files of real framework releases, for the framework readers' tests: the releases
//! are listed in `tests/fixtures/framework_releases.toml`; for each wheel the helper finds its
//! URL in PyPI's simple index (`https://pypi.org/simple/<dist>/`, JSON form), reads the zip's
//! central directory and the wanted members with HTTP Range requests (a wheel is a zip; a few
//! hundred KB to ~3 MB per wheel instead of hundreds of MB) and stores them, as installed under
//! site-packages (`<dist>.data/purelib/` stripped), in `tests/.cache/release-files/`. Members
//! named in `list` are only listed: an empty file per name, for folders whose listing the scan
//! reads (`torch/lib`, `onnxruntime/capi`). Written to a temporary folder and renamed into place,
//! so parallel tests never see half a release. A failed download fails the test with the reason.

use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Wheel {
    pub dist: String,
    pub version: String,
    /// Regular expressions over member paths: these files are fetched.
    #[serde(default)]
    pub members: Vec<String>,
    /// Regular expressions over member paths: only the names are kept (empty files).
    #[serde(default)]
    pub list: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Release {
    pub framework: String,
    /// "windows" or "linux".
    pub platform: String,
    pub wheel: Vec<Wheel>,
    /// What the reader must report.
    pub expect: Expect,
    /// Where the expectation comes from.
    pub source: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    pub cuda_build: Option<bool>,
    pub cuda: Option<String>,
    pub cudnn: Option<String>,
    /// A substring of `expects.basis`.
    pub basis: Option<String>,
    #[serde(default)]
    pub cupti: Vec<String>,
    /// `(name, version)` pairs of `expects.optional`.
    #[serde(default)]
    pub optional: Vec<(String, String)>,
    /// A substring of one of `expects.unread`.
    pub unread: Option<String>,
    /// `expects.inferred_from`, for a release newer than every documented row.
    pub inferred: Option<String>,
}

#[derive(Deserialize)]
struct Releases {
    release: Vec<Release>,
}

/// Every release of `framework` in the data file.
pub fn releases(framework: &str) -> Vec<Release> {
    let path = crate::support::fixture("framework_releases.toml");
    let text = std::fs::read_to_string(&path).expect("framework_releases.toml is readable");
    let all: Releases = toml::from_str(&text).expect("framework_releases.toml parses");
    all.release
        .into_iter()
        .filter(|r| r.framework == framework)
        .collect()
}

/// The listed release of `framework` `version` on `platform`; panics when the data file lacks it.
pub fn release(framework: &str, version: &str, platform: &str) -> Release {
    releases(framework)
        .into_iter()
        .find(|r| r.platform == platform && r.wheel[0].version == version)
        .unwrap_or_else(|| {
            panic!("framework_releases.toml lists {framework} {version} ({platform})")
        })
}

const FETCH: &str = include_str!("release_fetch.py");

fn cache_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/.cache/release-files")
}

/// The folder holding this wheel's wanted members as installed (a site-packages tree).
pub fn wheel_files(w: &Wheel, platform: &str) -> PathBuf {
    let key = format!("{}-{}-{platform}", w.dist, w.version);
    let dir = cache_root().join(&key);
    if dir.join(".complete").is_file() {
        return dir;
    }
    std::fs::create_dir_all(cache_root()).expect("create tests/.cache/release-files");
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let tmp = cache_root().join(format!("{key}.tmp-{}-{nanos}", std::process::id()));
    let spec = serde_json::json!({
        "dist": w.dist, "version": w.version, "platform": platform,
        "members": w.members, "list": w.list,
        "index_cache": cache_root().join("simple-index"),
    });
    let out = Command::new("python3")
        .args(["-c", FETCH])
        .arg(spec.to_string())
        .arg(&tmp)
        .output()
        .unwrap_or_else(|e| panic!("cannot run python3 (Debian package python3): {e}"));
    if !out.status.success() {
        let _ = std::fs::remove_dir_all(&tmp);
        panic!(
            "fetching {} {} ({platform}) from PyPI failed: {}{}",
            w.dist,
            w.version,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    if std::fs::rename(&tmp, &dir).is_err() {
        // Another test process won the race; its copy is as good as ours.
        let _ = std::fs::remove_dir_all(&tmp);
    }
    assert!(
        dir.join(".complete").is_file(),
        "{}: incomplete",
        dir.display()
    );
    dir
}

/// Every file under `root`, as paths relative to it (the `.complete`/`.wheel` markers left out).
pub fn files_under(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(rel) = p.strip_prefix(root)
                && !rel.starts_with(".complete")
                && !rel.starts_with(".wheel")
            {
                out.push(rel.to_path_buf());
            }
        }
    }
    out.sort();
    out
}

//! The real files of real framework releases, for the framework readers' tests: the releases
//! are listed in `tests/fixtures/framework_releases.toml`; for each wheel the helper finds its
//! URL in PyPI's simple index (`https://pypi.org/simple/<dist>/`, JSON form), reads the zip's
//! central directory and the wanted members with HTTP Range requests (a wheel is a zip; a few
//! hundred KB to ~3 MB per wheel instead of hundreds of MB) and stores them, as installed under
//! site-packages (`<dist>.data/purelib/` stripped), in `tests/.cache/release-files/`. Members
//! named in `list` are only listed: an empty file per name, for folders whose listing the scan
//! reads (`torch/lib`, `onnxruntime/capi`). Written to a temporary folder and renamed into place,
//! so parallel tests never see half a release. A failed download fails the test with the reason.

use cuda_triage::engine::context::fake::FakeMachine;
use cuda_triage::engine::context::{Platform, SystemContext};
use cuda_triage::engine::progress::Progress;
use cuda_triage::engine::scan::{self, Framework, FrameworkKind, Inventory};
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

/// Where the releases are installed on the fake machines.
pub const WIN_PY: &str = r"C:\Users\u\AppData\Local\Programs\Python\Python310";
pub const LINUX_VENV: &str = "/home/u/venv";

/// A fake machine of the release's platform with a Python whose site-packages holds the
/// release's real files; returns it with the machine path of that site-packages.
pub fn machine_with(rel: &Release) -> (FakeMachine, String) {
    let windows = rel.platform == "windows";
    let mut m = FakeMachine::new(if windows {
        Platform::Windows
    } else {
        Platform::Linux
    })
    .expect("a fake machine folder");
    let site = if windows {
        m.file(&format!(r"{WIN_PY}\python.exe"), b"MZ");
        m.file(&format!(r"{WIN_PY}\python310.dll"), b"MZ");
        format!(r"{WIN_PY}\Lib\site-packages")
    } else {
        m.file(
            &format!("{LINUX_VENV}/pyvenv.cfg"),
            "home = /usr/bin\nversion = 3.10.12\n",
        );
        m.file(&format!("{LINUX_VENV}/bin/python"), b"\x7fELF");
        format!("{LINUX_VENV}/lib/python3.10/site-packages")
    };
    install_into(&mut m, rel, &site);
    (m, site)
}

/// Copies the release's real files into `site` (a machine path) of `m`.
pub fn install_into(m: &mut FakeMachine, rel: &Release, site: &str) {
    let windows = rel.platform == "windows";
    for w in &rel.wheel {
        let root = wheel_files(w, &rel.platform);
        for rel_path in files_under(&root) {
            let parts: Vec<String> = rel_path
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let sep = if windows { "\\" } else { "/" };
            m.copy(
                &format!("{site}{sep}{}", parts.join(sep)),
                &root.join(&rel_path),
            );
        }
    }
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

/// Scans the release's machine; returns its context, inventory and the one framework found.
pub fn scanned(rel: &Release) -> (FakeMachine, SystemContext, Inventory, Framework) {
    let (m, _) = machine_with(rel);
    let ctx = m.context();
    let inv = scan::run(&ctx, &Progress::new()).inventory;
    let kind = kind_of(&rel.framework);
    let found: Vec<&Framework> = inv
        .frameworks()
        .map(|(_, f)| f)
        .filter(|f| f.kind == kind)
        .collect();
    assert_eq!(
        found.len(),
        1,
        "{} {:?}: {:#?}",
        rel.framework,
        rel.wheel,
        inv.python_envs
    );
    let f = found[0].clone();
    (m, ctx, inv, f)
}

fn kind_of(framework: &str) -> FrameworkKind {
    match framework {
        "tensorflow" => FrameworkKind::TensorFlow,
        "torch" => FrameworkKind::PyTorch,
        "jax" => FrameworkKind::Jax,
        "cupy" => FrameworkKind::CuPy,
        "onnxruntime" => FrameworkKind::OnnxRuntime,
        other => panic!("framework_releases.toml: unknown framework {other}"),
    }
}

/// Asserts that the reader reported what the data file expects for this release.
pub fn assert_expected(rel: &Release, f: &Framework) {
    let e = &rel.expect;
    let what = format!(
        "{} {} ({}), source: {}\n{f:#?}",
        rel.wheel[0].dist, rel.wheel[0].version, rel.platform, rel.source
    );
    assert_eq!(f.cuda_build, e.cuda_build, "cuda_build of {what}");
    assert_eq!(f.expects.cuda, e.cuda, "expects.cuda of {what}");
    assert_eq!(f.expects.cudnn, e.cudnn, "expects.cudnn of {what}");
    match &e.basis {
        Some(b) => assert!(
            f.expects
                .basis
                .as_deref()
                .is_some_and(|x| x.contains(b.as_str())),
            "expects.basis should contain {b:?}: {what}"
        ),
        None if e.cuda.is_none() => {}
        None => {
            panic!("framework_releases.toml: a release with a cuda expectation names its basis")
        }
    }
    assert_eq!(f.expects.cupti, e.cupti, "expects.cupti of {what}");
    let optional: Vec<(String, String)> = f
        .expects
        .optional
        .iter()
        .map(|p| (p.name.clone(), p.version.clone().unwrap_or_default()))
        .collect();
    let mut want = e.optional.clone();
    let mut got = optional;
    want.sort();
    got.sort();
    assert_eq!(got, want, "expects.optional of {what}");
    match &e.unread {
        Some(u) => assert!(
            f.expects.unread.iter().any(|x| x.contains(u.as_str())),
            "expects.unread should mention {u:?}: {what}"
        ),
        None => assert!(
            f.expects.unread.is_empty() || f.expects.cuda.is_some(),
            "nothing unread expected: {what}"
        ),
    }
    assert_eq!(
        f.expects.inferred_from, None,
        "a real release is not inferred: {what}"
    );
}

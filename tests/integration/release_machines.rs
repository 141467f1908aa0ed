//! Fake machines holding the real files of a listed release (see `release_files`): a Windows
//! python.org Python or a Linux venv whose site-packages is the release as installed, scanned
//! in-process; the check that the scan reads each release as the data file expects; and the
//! findings for a release beside a chosen Windows toolkit.

use crate::release_files::{Release, files_under, releases, wheel_files};
use cuda_triage::engine::context::fake::FakeMachine;
use cuda_triage::engine::context::{Platform, SystemContext};
use cuda_triage::engine::findings::Finding;
use cuda_triage::engine::progress::Progress;
use cuda_triage::engine::rules;
use cuda_triage::engine::scan::{Framework, FrameworkKind, Inventory};

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

/// Scans the release's machine; returns its context, inventory and the one framework found.
pub fn scanned(rel: &Release) -> (FakeMachine, SystemContext, Inventory, Framework) {
    let (m, _) = machine_with(rel);
    let ctx = m.context();
    let inv = cuda_triage::engine::diagnosis::run(&ctx, &Progress::new()).inventory;
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
        f.expects.inferred_from, e.inferred,
        "expects.inferred_from of {what}"
    );
}

/// Every listed release of `framework` (at least `at_least` of them) read by the scan as the data
/// file expects.
pub fn check_every_release(framework: &str, at_least: usize) -> Vec<(Release, Framework)> {
    let all = releases(framework);
    assert!(
        all.len() >= at_least,
        "a spread of {framework} releases is listed"
    );
    all.into_iter()
        .map(|rel| {
            let (_, _, _, f) = scanned(&rel);
            assert_expected(&rel, &f);
            (rel, f)
        })
        .collect()
}

/// All findings for the release's real install on a Windows machine with `toolkit` (version, DLLs)
/// whose bin (and extra folders) are on PATH.
pub fn windows_findings(
    rel: &Release,
    toolkit: (&str, &[&str]),
    extra: &[&str],
    path_extra: &[&str],
) -> Vec<Finding> {
    let m = windows_machine(rel, toolkit, extra, path_extra);
    let ctx = m.context();
    let inv = cuda_triage::engine::diagnosis::run(&ctx, &Progress::new()).inventory;
    rules::run_all(&ctx, &inv)
}

/// The machine [`windows_findings`] scans: the release, the toolkit with `extra` files (relative
/// to its root) and `path_extra` folders on PATH, the driver in System32.
pub fn windows_machine(
    rel: &Release,
    toolkit: (&str, &[&str]),
    extra: &[&str],
    path_extra: &[&str],
) -> FakeMachine {
    let (mut m, _) = machine_with(rel);
    let root = m.windows_toolkit(toolkit.0, toolkit.1);
    for file in extra {
        m.file(&format!(r"{root}\{file}"), b"MZ");
    }
    let mut path = format!(r"{root}\bin");
    for p in path_extra {
        path.push_str(&format!(r";{root}\{p}"));
    }
    m.env("PATH", &format!(r"{path};C:\Windows\System32;{WIN_PY}"));
    m.file(r"C:\Windows\System32\nvcuda.dll", b"MZ");
    m.driver("546.33", "12.3");
    m
}

/// The DLLs a Windows CUDA 11.x toolkit ships for what frameworks load (JuliaPackaging/Yggdrasil's
/// `C/CUDA/CUDA_Runtime/build_11.*.jl`).
pub const CUDA11_DLLS: &[&str] = &[
    "cudart64_110.dll",
    "cublas64_11.dll",
    "cublasLt64_11.dll",
    "cufft64_10.dll",
    "curand64_10.dll",
    "cusolver64_11.dll",
    "cusparse64_11.dll",
];

/// The same for CUDA 12.x.
pub const CUDA12_DLLS: &[&str] = &[
    "cudart64_12.dll",
    "cublas64_12.dll",
    "cublasLt64_12.dll",
    "cufft64_11.dll",
    "curand64_10.dll",
    "cusolver64_11.dll",
    "cusparse64_12.dll",
];

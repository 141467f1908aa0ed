//! Per-rule unit tests: each file builds fake machines with `FakeMachine`, scans them into an
//! `Inventory` and calls one rule family directly. Shared fake layouts and assertions live here.

mod builds;
mod closure_own;
mod containers;
mod cudnn_zlib;
mod cupti;
mod cupy_nvcc;
mod driver_presence;
mod framework_libs;
mod framework_versions;
mod triton;
mod wheels;
mod xla;

use crate::engine::context::SystemContext;
use crate::engine::context::fake::FakeMachine;
use crate::engine::findings::Finding;
use crate::engine::inventory::Inventory;
use crate::engine::progress::Progress;

/// The Windows installer's parent folder of every `vX.Y` toolkit.
const CUDA: &str = crate::engine::context::fake::WINDOWS_TOOLKITS;
/// A python.org install (found under the user's `AppData\Local\Programs\Python`).
const PY: &str = r"C:\Users\u\AppData\Local\Programs\Python\Python310";
/// The CUDA 11.x DLLs TensorFlow 2.10 (built for CUDA 11.2) loads.
const CUDA11_DLLS: [&str; 7] = [
    "cudart64_110.dll",
    "cublas64_11.dll",
    "cublasLt64_11.dll",
    "cufft64_10.dll",
    "curand64_10.dll",
    "cusolver64_11.dll",
    "cusparse64_11.dll",
];

/// The context and what the scan finds on it.
fn scan(m: &FakeMachine) -> (SystemContext, Inventory) {
    let ctx = m.context();
    let inv = crate::engine::diagnosis::run(&ctx, &Progress::new()).inventory;
    (ctx, inv)
}

/// TensorFlow 2.10.1 (CUDA 11.2, cuDNN 8, the last native-Windows GPU release) in [`PY`].
fn win_tf210(m: &mut FakeMachine) -> String {
    win_tf(m, "2.10.1", "64_112", "64_8")
}

/// TensorFlow `version` in [`PY`] with a build_info.py naming `cuda`/`cudnn`, in the form the
/// real 2.4–2.10 Windows wheels ship (an `OrderedDict` of tuples); returns its folder.
fn win_tf(m: &mut FakeMachine, version: &str, cuda: &str, cudnn: &str) -> String {
    m.file(&format!(r"{PY}\python.exe"), b"MZ");
    m.file(&format!(r"{PY}\python310.dll"), b"MZ");
    let sp = format!(r"{PY}\Lib\site-packages");
    m.file(
        &format!(r"{sp}\tensorflow-{version}.dist-info\METADATA"),
        format!("Metadata-Version: 2.1\nName: tensorflow\nVersion: {version}\n"),
    );
    m.file(
        &format!(r"{sp}\tensorflow\python\platform\build_info.py"),
        format!(
            "import collections\n\nbuild_info = collections.OrderedDict([('cuda_version', '{cuda}'), ('cudnn_version', '{cudnn}'), ('is_cuda_build', True), ('is_rocm_build', False)])\n"
        ),
    );
    format!(r"{sp}\tensorflow")
}

/// A Linux venv `/home/u/<name>` (pyvenv.cfg, bin/python, Python 3.11); returns site-packages.
fn linux_venv(m: &mut FakeMachine, name: &str) -> String {
    let root = format!("/home/u/{name}");
    m.file(
        &format!("{root}/pyvenv.cfg"),
        "home = /usr/bin\nversion = 3.11.4\n",
    );
    m.file(&format!("{root}/bin/python"), b"\x7fELF");
    let site = format!("{root}/lib/python3.11/site-packages");
    m.dir(&site);
    site
}

/// A TensorFlow `version` in a Linux site-packages with the given build_info.py body.
fn linux_tf(m: &mut FakeMachine, site: &str, version: &str, build_info: &str) -> String {
    m.file(
        &format!("{site}/tensorflow-{version}.dist-info/METADATA"),
        format!("Metadata-Version: 2.1\nName: tensorflow\nVersion: {version}\n"),
    );
    m.file(
        &format!("{site}/tensorflow/python/platform/build_info.py"),
        build_info,
    );
    format!("{site}/tensorflow")
}

/// The only finding with `code`; panics (listing every finding) when there is none or several.
fn only<'a>(findings: &'a [Finding], code: &str) -> &'a Finding {
    let hits: Vec<&Finding> = findings.iter().filter(|f| f.code == code).collect();
    assert_eq!(hits.len(), 1, "want one {code} finding, got: {findings:#?}");
    hits[0]
}

/// The finding with `code` that names `library`.
fn about<'a>(findings: &'a [Finding], code: &str, library: &str) -> &'a Finding {
    findings
        .iter()
        .find(|f| f.code == code && f.libraries.iter().any(|l| l == library))
        .unwrap_or_else(|| panic!("no {code} finding for {library}: {findings:#?}"))
}

/// Every evidence path of a finding.
fn evidence_paths(f: &Finding) -> Vec<&str> {
    f.evidence
        .iter()
        .filter_map(|e| e.path.as_deref())
        .collect()
}

/// `(kind, id)` of each fix of a finding.
fn fixes(f: &Finding) -> Vec<(&str, &str)> {
    f.fixes
        .iter()
        .map(|x| (x.kind.as_str(), x.id.as_str()))
        .collect()
}

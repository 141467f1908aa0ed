//! The CuPy reader on the real files of real releases, listed in
//! tests/fixtures/framework_releases.toml: cupy-cuda101 7.8 (cuDNN/NCCL inside the wheel, no
//! `_wheel.json`), cupy-cuda102, -cuda110, -cuda11x 11 to 13 and -cuda12x 12 to 14 with their
//! `_wheel.json` preloads; and what the real `cupy/_environment.py` does on Windows: the DLL folder
//! it adds at import, or (7.x) the RuntimeError it raises when it finds no CUDA path.

use crate::release_machines::{CUDA11_DLLS, check_every_release};
use cuda_triage::engine::findings::{Finding, Severity};

#[test]
fn every_listed_cupy_release_reads_as_its_files_say() {
    check_every_release("cupy", 11);
}

/// The real CuPy `version` on Windows (Python 3.10) beside the CUDA `toolkit` whose bin is on
/// PATH, with `cuda_path` as CUDA_PATH and `extra` files in the toolkit: the DLL folders the real
/// `cupy/_environment.py` adds at import, and the findings.
fn windows_cupy(
    version: &str,
    toolkit: (&str, &[&str]),
    cuda_path: Option<&str>,
    extra: &[&str],
) -> (Vec<String>, Vec<Finding>) {
    use crate::release_machines::windows_machine;
    use cuda_triage::engine::progress::Progress;
    use cuda_triage::engine::rules;
    use cuda_triage::engine::scan::FrameworkKind;
    let rel = crate::release_files::release("cupy", version, "windows");
    let mut m = windows_machine(&rel, toolkit, extra, &[]);
    if let Some(c) = cuda_path {
        m.env("CUDA_PATH", c);
    }
    let ctx = m.context();
    let inv = cuda_triage::engine::diagnosis::run(&ctx, &Progress::new()).inventory;
    let cupy = inv
        .frameworks()
        .find(|(_, f)| f.kind == FrameworkKind::CuPy)
        .map(|(_, f)| f.clone())
        .unwrap_or_else(|| panic!("{inv:#?}"));
    (cupy.dll_directories, rules::run_all(&ctx, &inv))
}

/// `import cupy` adds `<CUDA_PATH>\bin` with os.add_dll_directory, so Python 3.8+ ignoring PATH
/// costs it nothing; without CUDA_PATH it takes the folder above the first nvcc on PATH; with
/// neither, the CUDA DLLs are reachable only through PATH, which Python ignores: a warning.
#[test]
fn real_cupy_adds_the_cuda_path_bin_as_its_environment_py_does() {
    const ROOT: &str = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8";
    let cupy =
        |cuda_path, extra: &[&str]| windows_cupy("12.3.0", ("11.8", CUDA11_DLLS), cuda_path, extra);
    let ignores = |findings: &[Finding]| {
        findings.iter().any(|f| {
            f.code == "python-ignores-path" && f.libraries.iter().any(|l| l == "cublas64_11.dll")
        })
    };
    let (dirs, codes) = cupy(Some(ROOT), &[]);
    assert_eq!(dirs, [format!(r"{ROOT}\bin")]);
    assert!(!ignores(&codes), "{codes:#?}");
    let (dirs, codes) = cupy(None, &[r"bin\nvcc.exe"]);
    assert_eq!(dirs, [format!(r"{ROOT}\bin")]);
    assert!(!ignores(&codes), "{codes:#?}");
    let (dirs, codes) = cupy(None, &[]);
    assert!(dirs.is_empty(), "{dirs:?}");
    assert!(ignores(&codes), "{codes:#?}");
}

/// Real CuPy 7.8 raises at `import cupy` on Windows with Python ≥ 3.8 when it finds no CUDA path
/// (its `_environment.py`): an error naming the exception, with CUDA_PATH as the fix; with
/// CUDA_PATH set, its bin is added and there is no such error.
#[test]
fn real_cupy_7_import_fails_without_a_cuda_path() {
    const ROOT: &str = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v10.1";
    const DLLS: &[&str] = &["cudart64_101.dll", "cublas64_10.dll", "curand64_10.dll"];
    let (_, findings) = windows_cupy("7.8.0", ("10.1", DLLS), None, &[]);
    let f = findings
        .iter()
        .find(|f| f.code == "framework-import-fails")
        .unwrap_or_else(|| panic!("{findings:#?}"));
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(
        f.summary,
        "import cupy fails: RuntimeError: CUDA path could not be detected."
    );
    assert!(f.detail.contains("CuPy 7.8.0"), "{}", f.detail);
    crate::support::fix(f, &format!("set-cuda-path:{ROOT}"));
    let (dirs, findings) = windows_cupy("7.8.0", ("10.1", DLLS), Some(ROOT), &[]);
    assert_eq!(dirs, [format!(r"{ROOT}\bin")]);
    assert!(
        !findings.iter().any(|f| f.code == "framework-import-fails"),
        "{findings:#?}"
    );
}

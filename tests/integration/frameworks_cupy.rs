//! The CuPy reader on the real files of real releases, listed in
//! tests/fixtures/framework_releases.toml: cupy-cuda101 7.8 (cuDNN/NCCL inside the wheel, no
//! `_wheel.json`), cupy-cuda102, -cuda110, -cuda11x 11 to 13 and -cuda12x 12 to 14 with their
//! `_wheel.json` preloads; and the DLL folder the real `cupy/_environment.py` adds on Windows.

use crate::release_machines::check_every_release;

#[test]
fn every_listed_cupy_release_reads_as_its_files_say() {
    check_every_release("cupy", 10);
}

/// Real cupy-cuda11x 12.3.0 on Windows (Python 3.10) beside CUDA 11.8 whose bin is on PATH, with
/// `cuda_path` as CUDA_PATH and `extra` files in the toolkit: the DLL folders the real
/// `cupy/_environment.py` adds at import, and the codes of the findings.
fn windows_cupy(cuda_path: Option<&str>, extra: &[&str]) -> (Vec<String>, Vec<String>) {
    use crate::release_machines::{CUDA11_DLLS, windows_machine};
    use cuda_triage::engine::progress::Progress;
    use cuda_triage::engine::scan::FrameworkKind;
    use cuda_triage::engine::{rules, scan};
    let rel = crate::release_files::release("cupy", "12.3.0", "windows");
    let mut m = windows_machine(&rel, ("11.8", CUDA11_DLLS), extra, &[]);
    if let Some(c) = cuda_path {
        m.env("CUDA_PATH", c);
    }
    let ctx = m.context();
    let inv = scan::run(&ctx, &Progress::new()).inventory;
    let cupy = inv
        .frameworks()
        .find(|(_, f)| f.kind == FrameworkKind::CuPy)
        .map(|(_, f)| f.clone())
        .unwrap_or_else(|| panic!("{inv:#?}"));
    let codes = rules::run_all(&ctx, &inv)
        .into_iter()
        .map(|f| format!("{} {:?}", f.code, f.libraries))
        .collect();
    (cupy.dll_directories, codes)
}

/// `import cupy` adds `<CUDA_PATH>\bin` with os.add_dll_directory, so Python 3.8+ ignoring PATH
/// costs it nothing; without CUDA_PATH it takes the folder above the first nvcc on PATH; with
/// neither, the CUDA DLLs are reachable only through PATH, which Python ignores: a warning.
#[test]
fn real_cupy_adds_the_cuda_path_bin_as_its_environment_py_does() {
    const ROOT: &str = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8";
    let ignores = |codes: &[String]| {
        codes
            .iter()
            .any(|c| c.starts_with("python-ignores-path") && c.contains("cublas64_11.dll"))
    };
    let (dirs, codes) = windows_cupy(Some(ROOT), &[]);
    assert_eq!(dirs, [format!(r"{ROOT}\bin")]);
    assert!(!ignores(&codes), "{codes:#?}");
    let (dirs, codes) = windows_cupy(None, &[r"bin\nvcc.exe"]);
    assert_eq!(dirs, [format!(r"{ROOT}\bin")]);
    assert!(!ignores(&codes), "{codes:#?}");
    let (dirs, codes) = windows_cupy(None, &[]);
    assert!(dirs.is_empty(), "{dirs:?}");
    assert!(ignores(&codes), "{codes:#?}");
}

//! `framework_libs::check`: the CUDA libraries a framework build loads, resolved the way its
//! process searches — present elsewhere but not searched (Windows PATH, Linux ld.so), present only
//! in another major, absent, or reachable only through PATH that Python ≥ 3.8 ignores.

use super::{CUDA11_DLLS, PY, about, evidence_paths, fixes, linux_tf, linux_venv, only};
use super::{scan, win_tf, win_tf210};
use crate::engine::context::Platform;
use crate::engine::context::fake::FakeMachine;
use crate::engine::findings::Severity;
use crate::engine::graph::load_list::needed_names;
use crate::engine::rules::RuleInput;
use crate::engine::rules::framework_libs::check;

#[test]
fn tf210_with_cuda_11_2_off_path_is_not_searched() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    let root = m.windows_toolkit("11.2", &CUDA11_DLLS);
    m.file(&format!(r"{root}\bin\cudnn64_8.dll"), b"MZ");
    win_tf210(&mut m);
    m.env("PATH", &format!(r"C:\Windows\System32;{PY}"));
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    // Seven CUDA libraries and cuDNN, each in the toolkit's bin and none searched.
    assert_eq!(findings.len(), 8, "{findings:#?}");
    assert!(findings.iter().all(|f| f.code == "library-not-searched"));
    let bin = format!(r"{root}\bin");
    let f = about(&findings, "library-not-searched", "cublas64_11.dll");
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(
        f.summary,
        format!(
            "cublas64_11.dll exists in {bin}, but TensorFlow 2.10.1 in {PY} does not search there"
        )
    );
    assert_eq!(
        f.evidence[0].path.as_deref(),
        Some(format!(r"{bin}\cublas64_11.dll").as_str())
    );
    assert!(f.evidence.iter().any(|e| e.kind == "searched"), "{f:#?}");
    assert!(
        f.detail.contains("is not on this process's PATH"),
        "{}",
        f.detail
    );
    assert_eq!(
        fixes(f),
        [("path-edit", format!("path-prepend:{bin}").as_str())]
    );
    about(&findings, "library-not-searched", "cudnn64_8.dll");
}

#[test]
fn tf210_with_only_cuda_12_is_wrong_major_or_missing() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    let root = m.windows_toolkit(
        "12.1",
        &["cudart64_12.dll", "cublas64_12.dll", "cublasLt64_12.dll"],
    );
    win_tf210(&mut m);
    m.env("PATH", &format!(r"{root}\bin;C:\Windows\System32;{PY}"));
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    let f = about(&findings, "library-wrong-major", "cublas64_11.dll");
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(
        f.summary,
        format!(
            "TensorFlow 2.10.1 in {PY} needs cublas64_11.dll (cuBLAS 11.x); only another major is installed"
        )
    );
    assert!(
        evidence_paths(f).contains(&format!(r"{root}\bin\cublas64_12.dll").as_str()),
        "{f:#?}"
    );
    assert_eq!(
        fixes(f),
        [
            ("install", "install-cublas-11.x"),
            ("pin-version", "pin-tensorflow")
        ]
    );
    about(&findings, "library-wrong-major", "cudart64_110.dll");
    // No cuRAND of any major: plainly missing, with an install fix.
    let r = about(&findings, "library-missing", "curand64_10.dll");
    assert_eq!(r.severity, Severity::Error);
    assert_eq!(r.fixes.len(), 1, "{r:#?}");
    assert_eq!(r.fixes[0].kind, "install");
    assert!(r.fixes[0].summary.contains("cuRAND"), "{:?}", r.fixes);
}

/// Every library TensorFlow built for CUDA 12.2 / cuDNN 8 loads, in `/usr/local/cuda-12.2/lib64`.
fn linux_tf_and_toolkit(m: &mut FakeMachine) -> Vec<String> {
    let names = needed_names(Platform::Linux, "12.2", Some("8"));
    for n in &names {
        m.file(&format!("/usr/local/cuda-12.2/lib64/{n}"), b"\x7fELF");
    }
    m.file("/usr/local/cuda-12.2/bin/nvcc", b"\x7fELF");
    let site = linux_venv(m, "tf");
    linux_tf(
        m,
        &site,
        "2.15.0",
        "build_info = {'cuda_version': '12.2', 'cudnn_version': '8', 'is_cuda_build': True}\n",
    );
    names
}

#[test]
fn linux_toolkit_not_in_the_ld_so_search_gets_an_ld_library_path_fix() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    let names = linux_tf_and_toolkit(&mut m);
    assert!(names.iter().any(|n| n == "libcublas.so.12"), "{names:?}");
    m.env("PATH", "/usr/local/cuda-12.2/bin:/usr/bin");
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    assert_eq!(findings.len(), names.len(), "{findings:#?}");
    let f = about(&findings, "library-not-searched", "libcublas.so.12");
    assert!(f.detail.contains("not in LD_LIBRARY_PATH"), "{}", f.detail);
    assert_eq!(
        f.evidence[0].path.as_deref(),
        Some("/usr/local/cuda-12.2/lib64/libcublas.so.12")
    );
    assert_eq!(
        fixes(f),
        [(
            "path-edit",
            "ld-library-path-prepend:/usr/local/cuda-12.2/lib64"
        )]
    );
}

/// CuPy `dist` (`cupy_cuda12x`) 13.2.0 in the python.org Python 3.10 [`PY`], toolkit `root` on PATH.
fn win_cupy(m: &mut FakeMachine, dist: &str, root: &str) {
    m.file(&format!(r"{PY}\python.exe"), b"MZ")
        .file(&format!(r"{PY}\python310.dll"), b"MZ");
    let sp = format!(r"{PY}\Lib\site-packages");
    m.file(
        &format!(r"{sp}\{dist}-13.2.0.dist-info\METADATA"),
        format!("Metadata-Version: 2.1\nName: {dist}\nVersion: 13.2.0\n"),
    )
    .file(&format!(r"{sp}\cupy\__init__.py"), "")
    .env("PATH", &format!(r"{root}\bin;C:\Windows\System32;{PY}"));
}

#[test]
fn cupy_on_python_3_10_reaches_cuda_only_through_path() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    let names = needed_names(Platform::Windows, "12.x", None);
    assert!(names.iter().any(|n| n == "cublas64_12.dll"), "{names:?}");
    let dlls: Vec<&str> = names.iter().map(String::as_str).collect();
    let root = m.windows_toolkit("12.4", &dlls);
    win_cupy(&mut m, "cupy_cuda12x", &root);
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = only(&findings, "python-ignores-path");
    assert_eq!(f.severity, Severity::Warning);
    assert!(
        f.summary
            .starts_with("Python 3.10 ignores PATH: CuPy cannot find"),
        "{}",
        f.summary
    );
    assert_eq!(
        f.libraries, names,
        "every library is reachable only through PATH"
    );
    let bin = format!(r"{root}\bin");
    assert!(
        evidence_paths(f).contains(&format!(r"{bin}\cublas64_12.dll").as_str()),
        "{f:#?}"
    );
    assert_eq!(
        fixes(f),
        [("dll-directory", format!("add-dll-directory:{bin}").as_str())]
    );
    assert!(f.fixes[0].summary.contains("before importing cupy"));
}

#[test]
fn cupy_cuda11x_needs_the_64bit_cuda_runtime() {
    for cuda in ["11.8", "11.x"] {
        let names = needed_names(Platform::Windows, cuda, None);
        assert!(
            names.iter().any(|n| n == "cudart64_110.dll"),
            "{cuda}: {names:?}"
        );
        assert!(
            !names.iter().any(|n| n == "cudart32_110.dll"),
            "{cuda}: {names:?}"
        );
    }
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    let root = m.windows_toolkit("11.8", &CUDA11_DLLS);
    win_cupy(&mut m, "cupy_cuda11x", &root);
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = only(&findings, "python-ignores-path");
    assert!(
        f.libraries.iter().any(|l| l == "cudart64_110.dll"),
        "{f:#?}"
    );
}

#[test]
fn healthy_tf210_with_cuda_and_cudnn_on_path() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    let root = m.windows_toolkit("11.2", &CUDA11_DLLS);
    m.file(&format!(r"{root}\bin\cudnn64_8.dll"), b"MZ");
    win_tf210(&mut m);
    m.env("PATH", &format!(r"{root}\bin;C:\Windows\System32;{PY}"));
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    assert!(findings.is_empty(), "{findings:#?}");
}

#[test]
fn healthy_linux_toolkit_on_ld_library_path() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    linux_tf_and_toolkit(&mut m);
    m.env("LD_LIBRARY_PATH", "/usr/local/cuda-12.2/lib64");
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    assert!(findings.is_empty(), "{findings:#?}");
}

#[test]
fn windows_tf_2_12_loads_no_cuda_at_all() {
    // No CUDA on the machine, but TensorFlow ≥ 2.11 on native Windows never loads it.
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    win_tf(&mut m, "2.12.0", "64_112", "64_8");
    m.env("PATH", &format!(r"C:\Windows\System32;{PY}"));
    let (ctx, inv) = scan(&m);
    assert_eq!(inv.python_envs[0].frameworks.len(), 1, "{inv:#?}");
    let findings = check(&RuleInput::new(&ctx, &inv));
    assert!(findings.is_empty(), "{findings:#?}");
}

/// TensorFlow 2.15's DsoLoader refuses the GPU without cuBLAS (an error citing the loader's
/// source row), while cuRAND is not in its device check for that release: only a warning that
/// says what fails later.
#[test]
fn tensorflow_load_list_rows_set_the_severity_and_are_cited() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    linux_tf_and_toolkit(&mut m);
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    let cublas = about(&findings, "library-not-searched", "libcublas.so.12");
    assert_eq!(cublas.severity, Severity::Error);
    assert!(
        cublas
            .evidence
            .iter()
            .any(|e| e.kind == "load-list" && e.text.contains("dlopen_checker.cc")),
        "{cublas:#?}"
    );
    let curand = about(&findings, "library-not-searched", "libcurand.so.10");
    assert_eq!(curand.severity, Severity::Warning);
    assert!(curand.detail.contains("fails later"), "{}", curand.detail);
}

/// cuDNN unpacked where TensorFlow's Windows guide puts it (`C:\tools\cuda`) but left off PATH:
/// the copy is found and the fix puts its `bin` on PATH (the TensorFlow import oracle's
/// cuDNN-off-PATH case, where the scan once said cuDNN was not on the machine).
#[test]
fn tf210_with_cudnn_in_tools_cuda_off_path_is_not_searched() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    let root = m.windows_toolkit("11.2", &CUDA11_DLLS);
    m.file(r"C:\tools\cuda\bin\cudnn64_8.dll", b"MZ");
    win_tf210(&mut m);
    m.env("PATH", &format!(r"{root}\bin;C:\Windows\System32;{PY}"));
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = only(&findings, "library-not-searched");
    assert_eq!(f.libraries, ["cudnn64_8.dll"]);
    assert_eq!(fixes(f), [("path-edit", r"path-prepend:C:\tools\cuda\bin")]);
}

/// cuDNN nowhere: the install fix names cuDNN's major and no CUDA release (cuDNN ships with
/// none; it once said "it ships with CUDA 8").
#[test]
fn tf210_without_cudnn_offers_to_install_cudnn_8_alone() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    let root = m.windows_toolkit("11.2", &CUDA11_DLLS);
    win_tf210(&mut m);
    m.env("PATH", &format!(r"{root}\bin;C:\Windows\System32;{PY}"));
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    let f = about(&findings, "library-missing", "cudnn64_8.dll");
    let summaries: Vec<&str> = f.fixes.iter().map(|x| x.summary.as_str()).collect();
    assert_eq!(summaries, ["Install cuDNN 8"], "{f:#?}");
}

//! `cupti::check`, its toolkit half (`toolkit_folder_not_searched`): CUPTI in a toolkit's
//! `extras\CUPTI\lib64` (or the pre-10.1 `libx64`) that the loading process does not search —
//! Info with no user, Warning when a matching TensorFlow needs it — and nothing when the folder
//! is on PATH or on Linux.

use super::{CUDA, PY, evidence_paths, fixes, only, scan, win_tf210};
use crate::engine::context::Platform;
use crate::engine::context::fake::FakeMachine;
use crate::engine::findings::Severity;
use crate::engine::rules::cupti::toolkit_folder_not_searched;

const CUPTI_118: &str = "cupti64_2022.3.0.dll";

/// Toolkit 11.8 with CUPTI in `extras\CUPTI\lib64`; returns that folder.
fn toolkit_118_with_cupti(m: &mut FakeMachine) -> String {
    let root = m.windows_toolkit("11.8", &["cudart64_110.dll", "cublas64_11.dll"]);
    let dir = format!(r"{root}\extras\CUPTI\lib64");
    m.file(&format!(r"{dir}\{CUPTI_118}"), b"MZ");
    dir
}

#[test]
fn cupti_not_on_path_without_a_user_is_info() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    let dir = toolkit_118_with_cupti(&mut m);
    m.env(
        "PATH",
        &format!(r"{CUDA}\v11.8\bin;{CUDA}\v11.8\libnvvp;C:\Windows\System32"),
    );
    let (ctx, inv) = scan(&m);
    let findings = toolkit_folder_not_searched(&ctx, &inv);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = only(&findings, "cupti-not-searched");
    assert_eq!(f.severity, Severity::Info);
    assert_eq!(
        f.summary,
        format!("{CUPTI_118} is in {dir}, which is not on PATH")
    );
    assert_eq!(f.libraries, [CUPTI_118]);
    assert!(f.detail.contains("CUDA 11.8.0"), "{}", f.detail);
    assert!(!f.detail.contains("libx64"), "{}", f.detail);
    assert_eq!(
        f.evidence[0].path.as_deref(),
        Some(format!(r"{dir}\{CUPTI_118}").as_str())
    );
    assert!(
        evidence_paths(f).contains(&format!(r"{CUDA}\v11.8\bin").as_str()),
        "the searched PATH folders are listed: {f:#?}"
    );
    assert_eq!(
        fixes(f),
        [("path-edit", format!("path-append:{dir}").as_str())]
    );
    assert_eq!(f.fixes[0].summary, format!("Add {dir} to PATH"));
}

#[test]
fn tensorflow_of_the_same_major_makes_it_a_warning() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    toolkit_118_with_cupti(&mut m);
    win_tf210(&mut m);
    m.env(
        "PATH",
        &format!(r"{CUDA}\v11.8\bin;C:\Windows\System32;{PY}"),
    );
    let (ctx, inv) = scan(&m);
    let findings = toolkit_folder_not_searched(&ctx, &inv);
    let f = only(&findings, "cupti-not-searched");
    assert_eq!(f.severity, Severity::Warning);
    assert!(
        f.detail.contains(&format!("TensorFlow 2.10.1 in {PY}")),
        "{}",
        f.detail
    );
    // The warning shows the load-list row: TensorFlow's GetCuptiDsoHandle asks for the name.
    let row = f
        .evidence
        .iter()
        .find(|e| e.kind == "load-list")
        .unwrap_or_else(|| panic!("{f:#?}"));
    assert!(
        row.text.starts_with(&format!("{}:", f.libraries[0]))
            && row.text.contains("GetCuptiDsoHandle"),
        "{row:?}"
    );
}

#[test]
fn legacy_libx64_of_cuda_10_0_is_named() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    let root = m.windows_toolkit("10.0", &["cudart64_100.dll"]);
    let dir = format!(r"{root}\extras\CUPTI\libx64");
    m.file(&format!(r"{dir}\cupti64_100.dll"), b"MZ")
        .env("PATH", &format!(r"{root}\bin;C:\Windows\System32"));
    // TensorFlow 2.10 is built for 11.2: before CUDA 11 major.minor must match, so no user.
    win_tf210(&mut m);
    let (ctx, inv) = scan(&m);
    let findings = toolkit_folder_not_searched(&ctx, &inv);
    let f = only(&findings, "cupti-not-searched");
    assert_eq!(f.severity, Severity::Info);
    assert!(f.summary.contains(r"extras\CUPTI\libx64"), "{}", f.summary);
    assert!(
        f.detail.contains("(CUDA 10.0 and older put it in libx64)"),
        "{}",
        f.detail
    );
    assert_eq!(f.libraries, ["cupti64_100.dll"]);
}

#[test]
fn healthy_cupti_folder_on_path() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    let dir = toolkit_118_with_cupti(&mut m);
    win_tf210(&mut m);
    m.env(
        "PATH",
        &format!(r"{CUDA}\v11.8\bin;{dir};C:\Windows\System32;{PY}"),
    );
    let (ctx, inv) = scan(&m);
    assert!(inv.toolkits[0].cupti.is_some(), "{inv:#?}");
    let findings = toolkit_folder_not_searched(&ctx, &inv);
    assert!(findings.is_empty(), "{findings:#?}");
}

#[test]
fn linux_gets_nothing() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    m.file("/usr/local/cuda-11.8/bin/nvcc", b"\x7fELF")
        .file(
            "/usr/local/cuda-11.8/extras/CUPTI/lib64/libcupti.so.11.8",
            b"\x7fELF",
        )
        .env("PATH", "/usr/local/cuda-11.8/bin:/usr/bin");
    let (ctx, inv) = scan(&m);
    assert!(inv.toolkits[0].cupti.is_some(), "{inv:#?}");
    assert!(toolkit_folder_not_searched(&ctx, &inv).is_empty());
}

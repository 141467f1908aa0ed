//! `cudnn_zlib::check`: cuDNN 8 on Windows without a `zlibwapi.dll` the process can find, or with a
//! 32-bit one found first; nothing with a 64-bit copy in reach, for cuDNN 9, or on Linux.

use super::{PY, evidence_paths, fixes, only, scan};
use crate::engine::context::Platform;
use crate::engine::context::fake::FakeMachine;
use crate::engine::findings::Severity;
use crate::engine::rules::RuleInput;
use crate::engine::rules::cudnn_zlib::check;
use crate::engine::scan::cudnn::fake_pe;

const CUDNN: &str = r"C:\Program Files\NVIDIA\CUDNN\v8.9";
const CUDNN_BIN: &str = r"C:\Program Files\NVIDIA\CUDNN\v8.9\bin";

/// cuDNN 8.9.7 installed with NVIDIA's zip layout under [`CUDNN`].
fn cudnn8(m: &mut FakeMachine) {
    for d in [
        "cudnn64_8.dll",
        "cudnn_cnn_infer64_8.dll",
        "cudnn_ops_infer64_8.dll",
    ] {
        m.file(&format!(r"{CUDNN_BIN}\{d}"), b"MZ");
    }
    m.file(
        &format!(r"{CUDNN}\include\cudnn_version.h"),
        "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 9\n#define CUDNN_PATCHLEVEL 7\n",
    );
}

#[test]
fn cudnn8_without_zlibwapi_is_missing() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    cudnn8(&mut m);
    m.dir(r"C:\Windows\System32")
        .env("PATH", &format!(r"{CUDNN_BIN};C:\Windows\System32"));
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = only(&findings, "cudnn8-zlibwapi-missing");
    // A run-time load (no cuDNN 8 DLL imports zlibwapi.dll): what fails is named, as a warning.
    assert_eq!(f.severity, Severity::Warning);
    // The row of the load list it comes from: who opens zlibwapi.dll, and the source.
    assert!(
        f.evidence.iter().any(|e| e.kind == "load-list"
            && e.text
                .starts_with("zlibwapi.dll: opened at run time by cudnn64_8.dll")
            && e.text.contains("docs.nvidia.com")),
        "{:#?}",
        f.evidence
    );
    assert!(
        f.summary.contains("convolutions will fail"),
        "{}",
        f.summary
    );
    assert!(
        f.detail.contains("Could not locate zlibwapi.dll"),
        "{}",
        f.detail
    );
    assert_eq!(f.libraries[0], "zlibwapi.dll");
    assert!(f.libraries.iter().any(|l| l == "cudnn_cnn_infer64_8.dll"));
    // First evidence: the cuDNN install, with its version from cudnn_version.h.
    assert_eq!(f.evidence[0].text, "cuDNN 8.9.7 install");
    assert_eq!(f.evidence[0].path.as_deref(), Some(CUDNN));
    // The folders the process searched are shown.
    assert!(
        evidence_paths(f).contains(&CUDNN_BIN),
        "cuDNN's bin is on PATH and searched: {f:#?}"
    );
    assert_eq!(
        fixes(f),
        [(
            "copy-file",
            format!("copy-zlibwapi-x64:{CUDNN_BIN}").as_str()
        )]
    );
    assert!(f.fixes[0].summary.contains(CUDNN_BIN));
}

#[test]
fn zlibwapi_copied_into_a_toolkit_not_on_path_is_named_as_a_copy() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    cudnn8(&mut m);
    // The common advice "copy zlibwapi.dll into CUDA's bin" followed for a toolkit whose bin
    // folder this process does not have on PATH.
    let toolkit = m.windows_toolkit("11.8", &["cudart64_110.dll"]);
    let copy = format!(r"{toolkit}\bin\zlibwapi.dll");
    m.file(&copy, fake_pe(0x8664))
        .env("PATH", &format!(r"{CUDNN_BIN};C:\Windows\System32"));
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    let f = only(&findings, "cudnn8-zlibwapi-missing");
    let copies: Vec<&str> = f
        .evidence
        .iter()
        .filter(|e| e.text == "a zlibwapi.dll outside the searched folders")
        .filter_map(|e| e.path.as_deref())
        .collect();
    assert_eq!(copies, [copy.as_str()], "{f:#?}");
}

/// The loader skips a wrong-machine file and goes on (Wine's loader agrees:
/// tests/integration/oracle_wine.rs, "a 32-bit root earlier on PATH is skipped"): a 32-bit copy
/// ahead of a good 64-bit one is a trap worth a warning, not an error 193.
#[test]
fn a_32bit_zlibwapi_ahead_of_a_64bit_one_is_skipped_with_a_warning() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    cudnn8(&mut m);
    // winimage's dll32 copy in a folder ahead of cuDNN's, and a good 64-bit copy next to cuDNN.
    let bad = r"C:\tools\zlib\zlibwapi.dll";
    m.file(bad, fake_pe(0x014c))
        .file(&format!(r"{CUDNN_BIN}\zlibwapi.dll"), fake_pe(0x8664))
        .env(
            "PATH",
            &format!(r"C:\tools\zlib;{CUDNN_BIN};C:\Windows\System32"),
        );
    let (ctx, inv) = scan(&m);
    let z = inv.zlibwapi.iter().find(|z| z.path == bad);
    assert_eq!(z.and_then(|z| z.bits), Some(32), "{:#?}", inv.zlibwapi);
    let findings = check(&RuleInput::new(&ctx, &inv));
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = only(&findings, "zlibwapi-wrong-bitness");
    assert_eq!(f.severity, Severity::Warning, "{f:#?}");
    assert!(f.summary.contains("32-bit"), "{}", f.summary);
    assert!(f.detail.contains("skips it"), "{}", f.detail);
    assert_eq!(f.evidence[0].path.as_deref(), Some(CUDNN));
    assert!(
        f.evidence
            .iter()
            .any(|e| e.kind == "file" && e.path.as_deref() == Some(bad)),
        "the 32-bit copy is named: {f:#?}"
    );
    assert_eq!(
        fixes(f),
        [("manual", format!("remove-32bit-zlibwapi:{bad}").as_str())]
    );
}

/// Alone, the 32-bit copy makes cuDNN's run-time load fail with error 193 at the first
/// convolution: a warning that says so (the import and cuDNN's start-up do not load it).
#[test]
fn a_32bit_zlibwapi_alone_is_error_193_at_the_first_convolution() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    cudnn8(&mut m);
    let bad = r"C:\tools\zlib\zlibwapi.dll";
    m.file(bad, fake_pe(0x014c)).env(
        "PATH",
        &format!(r"C:\tools\zlib;{CUDNN_BIN};C:\Windows\System32"),
    );
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    let f = only(&findings, "zlibwapi-wrong-bitness");
    assert_eq!(f.severity, Severity::Warning);
    assert!(f.detail.contains("193"), "{}", f.detail);
    assert!(f.detail.contains("the first convolution"), "{}", f.detail);
    assert_eq!(
        fixes(f),
        [
            (
                "copy-file",
                format!("copy-zlibwapi-x64:{CUDNN_BIN}").as_str()
            ),
            ("manual", format!("remove-32bit-zlibwapi:{bad}").as_str()),
        ]
    );
}

#[test]
fn healthy_64bit_zlibwapi_next_to_cudnn() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    cudnn8(&mut m);
    m.file(&format!(r"{CUDNN_BIN}\zlibwapi.dll"), fake_pe(0x8664))
        .env("PATH", &format!(r"{CUDNN_BIN};C:\Windows\System32"));
    let (ctx, inv) = scan(&m);
    assert_eq!(inv.cudnn.len(), 1, "{inv:#?}");
    let findings = check(&RuleInput::new(&ctx, &inv));
    assert!(findings.is_empty(), "{findings:#?}");
}

#[test]
fn cudnn9_and_linux_need_no_zlibwapi() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    let bin = r"C:\Program Files\NVIDIA\CUDNN\v9.1\bin\12.4";
    m.file(&format!(r"{bin}\cudnn64_9.dll"), b"MZ")
        .file(
            r"C:\Program Files\NVIDIA\CUDNN\v9.1\include\12.4\cudnn_version.h",
            "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n",
        )
        .env("PATH", &format!(r"{bin};C:\Windows\System32"));
    let (ctx, inv) = scan(&m);
    assert!(
        check(&RuleInput::new(&ctx, &inv)).is_empty(),
        "{:#?}",
        check(&RuleInput::new(&ctx, &inv))
    );
    let mut l = FakeMachine::new(Platform::Linux).unwrap();
    l.file("/usr/lib/x86_64-linux-gnu/libcudnn.so.8", b"\x7fELF")
        .file(
            "/usr/include/cudnn_version.h",
            "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 9\n#define CUDNN_PATCHLEVEL 7\n",
        );
    let (ctx, inv) = scan(&l);
    assert!(
        check(&RuleInput::new(&ctx, &inv)).is_empty(),
        "{:#?}",
        check(&RuleInput::new(&ctx, &inv))
    );
}

/// [`PY`] holding onnxruntime-gpu `version` whose capi\version_info.py records `cudnn`.
fn win_ort(m: &mut FakeMachine, version: &str, cudnn: &str) {
    let sp = format!(r"{PY}\Lib\site-packages");
    m.file(&format!(r"{PY}\python.exe"), b"MZ")
        .file(&format!(r"{PY}\python310.dll"), b"MZ")
        .file(
            &format!(r"{sp}\onnxruntime_gpu-{version}.dist-info\METADATA"),
            format!("Metadata-Version: 2.1\nName: onnxruntime-gpu\nVersion: {version}\n"),
        )
        .file(
            &format!(r"{sp}\onnxruntime\capi\version_info.py"),
            format!("use_cuda = True\ncuda_version = \"12.2.128\"\ncudnn_version = \"{cudnn}\"\n"),
        );
}

/// A cuDNN 8 install without zlibwapi.dll beside an environment whose only framework expects
/// cuDNN 9 (onnxruntime-gpu 1.19.2, which loads its provider there for real under Wine): that
/// process never loads cuDNN 8, so nothing is said; a cuDNN 8 build in the same place is told.
#[test]
fn cudnn8_without_zlibwapi_concerns_only_processes_that_load_cudnn_8() {
    for (version, cudnn, told) in [("1.19.2", "9", false), ("1.18.0", "8", true)] {
        let mut m = FakeMachine::new(Platform::Windows).unwrap();
        cudnn8(&mut m);
        win_ort(&mut m, version, cudnn);
        m.dir(r"C:\Windows\System32")
            .env("PATH", &format!(r"{CUDNN_BIN};C:\Windows\System32;{PY}"));
        let (ctx, inv) = scan(&m);
        assert_eq!(inv.frameworks().count(), 1, "{inv:#?}");
        let findings = check(&RuleInput::new(&ctx, &inv));
        assert_eq!(!findings.is_empty(), told, "{version}: {findings:#?}");
    }
}

//! The ONNX Runtime reader on the real files of real releases (onnxruntime-gpu 1.12 → 1.31 on
//! Windows, 1.13 → 1.31 on Linux: CUDA 11 / cuDNN 8 builds to 1.18, CUDA 12 / cuDNN 9 from 1.19,
//! CUDA 13 from 1.27; the Linux wheels record no version file, so their METADATA pins (1.21+) or
//! the requirements table's row (older) say it, the newest row marked inferred past the table),
//! listed in tests/fixtures/framework_releases.toml; and a cuDNN 8 and a cuDNN 9 build on one
//! machine, on both platforms, each told what it lacks.

use crate::release_machines::check_every_release;

#[test]
fn every_listed_onnxruntime_release_reads_as_its_files_say() {
    check_every_release("onnxruntime", 23);
}

/// The libraries the findings about missing or wrong-major CUDA libraries name. These machines
/// hold the releases' real metadata but placeholder providers (no import table to read), so the
/// names are the generic guess: warnings that say they guess, never errors.
fn error_libraries(findings: Vec<cuda_triage::engine::findings::Finding>) -> Vec<String> {
    use cuda_triage::engine::findings::Severity;
    let library = |f: &cuda_triage::engine::findings::Finding| f.code.starts_with("library-");
    assert!(
        !findings
            .iter()
            .any(|f| library(f) && f.severity == Severity::Error),
        "a guess is never an error: {findings:#?}"
    );
    findings
        .into_iter()
        .filter(|f| f.severity == Severity::Warning && library(f))
        .filter(|f| {
            f.evidence
                .iter()
                .any(|e| e.kind == "load-list" && e.text.contains(": guessed: "))
        })
        .flat_map(|f| f.libraries)
        .collect()
}

/// Asserts that a cuDNN 8 / CUDA 11 build (`old`) and a cuDNN 9 / CUDA 12 build (`new`) on the
/// same machine with CUDA 12 and cuDNN 8 are each told what they lack: `old` its CUDA 11 cuBLAS
/// (`old_cublas`) and no cuDNN, `new` its cuDNN 9 (`new_cudnn`) and no cuBLAS.
fn assert_each_asks_for_its_own(old: &[String], old_cublas: &str, new: &[String], new_cudnn: &str) {
    assert!(old.iter().any(|l| l == old_cublas), "{old:?}");
    assert!(!old.iter().any(|l| l.contains("cudnn")), "{old:?}");
    assert!(new.iter().any(|l| l == new_cudnn), "{new:?}");
    assert!(!new.iter().any(|l| l.contains("cublas")), "{new:?}");
}

/// The same Windows machine (CUDA 12.1 with cuDNN 8 in its bin) seen by a real cuDNN 8 build
/// (1.18.1, CUDA 11.8) and a real cuDNN 9 build (1.20.0, CUDA 12.2): each is told what it lacks.
#[test]
fn cudnn_8_and_9_builds_ask_for_their_own_libraries() {
    let errors = |version: &str| -> Vec<String> {
        let rel = crate::release_files::release("onnxruntime", version, "windows");
        error_libraries(crate::release_machines::windows_findings(
            &rel,
            ("12.1", crate::release_machines::CUDA12_DLLS),
            &[r"bin\cudnn64_8.dll"],
            &[],
        ))
    };
    assert_each_asks_for_its_own(
        &errors("1.18.1"),
        "cublas64_11.dll",
        &errors("1.20.0"),
        "cudnn64_9.dll",
    );
}

/// The error findings' libraries for a Linux venv with the real files of onnxruntime-gpu
/// `version`, CUDA 12.4 with cuDNN 8 in /usr/local/cuda-12.4/lib64 on LD_LIBRARY_PATH.
fn linux_errors(version: &str) -> Vec<String> {
    use cuda_triage::engine::progress::Progress;
    use cuda_triage::engine::rules;
    const LIB: &str = "/usr/local/cuda-12.4/lib64";
    let rel = crate::release_files::release("onnxruntime", version, "linux");
    let (mut m, _) = crate::release_machines::machine_with(&rel);
    for lib in [
        "libcudart.so.12",
        "libcublas.so.12",
        "libcublasLt.so.12",
        "libcufft.so.11",
        "libcurand.so.10",
        "libcusolver.so.11",
        "libcusparse.so.12",
        "libcudnn.so.8",
    ] {
        m.file(&format!("{LIB}/{lib}"), b"\x7fELF");
    }
    m.file(
        "/usr/local/cuda-12.4/version.json",
        r#"{"cuda" : {"name" : "CUDA SDK", "version" : "12.4.1"}}"#,
    )
    .env("LD_LIBRARY_PATH", LIB);
    let ctx = m.context();
    let inv = cuda_triage::engine::diagnosis::run(&ctx, &Progress::new()).inventory;
    error_libraries(rules::run_all(&ctx, &inv))
}

/// The same on Linux: the real 1.17.1 (CUDA 11.8, cuDNN 8 by the requirements table) and 1.19.2
/// (CUDA 12, cuDNN 9) files.
#[test]
fn linux_cudnn_8_and_9_builds_ask_for_their_own_libraries() {
    let errors = linux_errors;
    assert_each_asks_for_its_own(
        &errors("1.17.1"),
        "libcublas.so.11",
        &errors("1.19.2"),
        "libcudnn.so.9",
    );
}

/// The wizard's Scan card never calls a build whose CUDA was only inferred fine (✔). No real
/// release is newer than the table (it reaches 1.31, the newest on PyPI), so the next one is
/// stood in for by the real Linux 1.22.0 files renamed 1.40.0 and stripped of the METADATA pins
/// that name their CUDA (as the wheels up to 1.20 had none): the card marks it and says what it
/// was inferred from.
#[test]
fn scan_card_marks_an_inferred_build_and_says_why() {
    use cuda_triage::engine::api::Source;
    use cuda_triage::ui::TriageApp;
    use egui_kittest::kittest::Queryable;
    let rel = crate::release_files::release("onnxruntime", "1.22.0", "linux");
    let (m, site) = crate::release_machines::machine_with(&rel);
    let real = m.host(&format!("{site}/onnxruntime_gpu-1.22.0.dist-info"));
    let next = m.host(&format!("{site}/onnxruntime_gpu-1.40.0.dist-info"));
    std::fs::rename(&real, &next).expect("rename the dist-info folder");
    let metadata = next.join("METADATA");
    let text = std::fs::read_to_string(&metadata).expect("METADATA");
    let unpinned: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("Requires-Dist: nvidia-"))
        .map(|l| {
            if l.starts_with("Version:") {
                "Version: 1.40.0"
            } else {
                l
            }
        })
        .collect();
    std::fs::write(&metadata, unpinned.join("\n")).expect("write METADATA");
    let file = m.write_machine_file().expect("machine.toml");
    let mut h = crate::gui::harness(TriageApp::new(Source::machine_file(file)));
    h.run_steps(2);
    h.get_by_label("Start scan").click();
    h.step();
    crate::gui::wait_for_scan(&mut h);
    assert!(h.query_by_label_contains("⚠ GPU frameworks (1)").is_some());
    assert!(h.query_by_label_contains("✔ GPU frameworks").is_none());
    assert!(
        h.query_by_label_contains(
            "⚠ ONNX Runtime 1.40.0 — CUDA 13 (inferred from ONNX Runtime 1.31)"
        )
        .is_some(),
        "the framework line says CUDA was inferred, and from what"
    );
}

/// The real Linux 1.31.1 files pin CUDA 13 wheels (METADATA `nvidia-cuda-runtime~=13.0`): on the
/// same CUDA 12.4 machine it is told it lacks CUDA 13's libraries, not that CUDA 12 serves it.
#[test]
fn a_linux_cuda_13_build_asks_for_cuda_13_libraries() {
    let errors = linux_errors("1.31.1");
    for wanted in ["libcudart.so.13", "libcublas.so.13", "libcudnn.so.9"] {
        assert!(errors.iter().any(|l| l == wanted), "{wanted}: {errors:?}");
    }
    // CUDA 13's cuFFT and cuSOLVER are libcufft.so.12 and libcusolver.so.12 (the 1.31.1 METADATA
    // pins nvidia-cufft~=12.0); its runtime and cuBLAS are never the toolkit's .so.12 files.
    assert!(
        !errors
            .iter()
            .any(|l| l == "libcudart.so.12" || l == "libcublas.so.12"),
        "{errors:?}"
    );
}

//! The ONNX Runtime reader on the real files of real releases (onnxruntime-gpu 1.12 → 1.20, cuDNN
//! 8 and 9 builds, and the Linux wheels that record no version: the requirements table's row, or
//! the newest row marked inferred), listed in
//! tests/fixtures/framework_releases.toml.

use crate::release_machines::check_every_release;

#[test]
fn every_listed_onnxruntime_release_reads_as_its_files_say() {
    check_every_release("onnxruntime", 3);
}

/// The same Windows machine (CUDA 12.1 with cuDNN 8 in its bin) seen by a real cuDNN 8 build
/// (1.18.1, CUDA 11.8) and a real cuDNN 9 build (1.20.0, CUDA 12.2): each is told what it lacks.
#[test]
fn cudnn_8_and_9_builds_ask_for_their_own_libraries() {
    use cuda_triage::engine::findings::Severity;
    let errors = |version: &str| -> Vec<String> {
        let rel = crate::release_files::release("onnxruntime", version, "windows");
        crate::release_machines::windows_findings(
            &rel,
            ("12.1", crate::release_machines::CUDA12_DLLS),
            &[r"bin\cudnn64_8.dll"],
            &[],
        )
        .into_iter()
        .filter(|f| f.severity == Severity::Error && f.code.starts_with("library-"))
        .flat_map(|f| f.libraries)
        .collect()
    };
    let ort118 = errors("1.18.1");
    assert!(
        ort118.contains(&"cublas64_11.dll".to_string()),
        "{ort118:?}"
    );
    assert!(!ort118.iter().any(|l| l.starts_with("cudnn")), "{ort118:?}");
    let ort120 = errors("1.20.0");
    assert!(ort120.contains(&"cudnn64_9.dll".to_string()), "{ort120:?}");
    assert!(
        !ort120.iter().any(|l| l.starts_with("cublas")),
        "{ort120:?}"
    );
}

/// The wizard's Scan card never calls a build whose CUDA was only inferred fine (✔): the real Linux
/// onnxruntime-gpu 1.22.0 files record no version and the table's newest row is 1.20, so the card
/// marks it and says what it was inferred from.
#[test]
fn scan_card_marks_an_inferred_build_and_says_why() {
    use cuda_triage::ui::TriageApp;
    use cuda_triage::ui::worker::Target;
    use egui_kittest::kittest::Queryable;
    let rel = crate::release_files::release("onnxruntime", "1.22.0", "linux");
    let (m, _) = crate::release_machines::machine_with(&rel);
    let file = m.write_machine_file().expect("machine.toml");
    let mut h = crate::gui::harness(TriageApp::new(Target::MachineFile(file)));
    h.run_steps(2);
    h.get_by_label("Start scan").click();
    h.step();
    crate::gui::wait_for_scan(&mut h);
    assert!(h.query_by_label_contains("⚠ GPU frameworks (1)").is_some());
    assert!(h.query_by_label_contains("✔ GPU frameworks").is_none());
    assert!(
        h.query_by_label_contains(
            "⚠ ONNX Runtime 1.22.0 — CUDA 12 (inferred from ONNX Runtime 1.20)"
        )
        .is_some(),
        "the framework line says CUDA was inferred, and from what"
    );
}

//! "✔" means checked and fine: the Scan step's cards mark each line ✔ / ⚠ / ✖ / ? and take the
//! worst, so unknown content never shows as fine and a framework the findings name is not ✔;
//! the GPU test step on a machine file picks no library and says why.

use crate::gui::{harness, relative_machine, scanned};
use crate::support::fixture;
use cuda_triage::ui::TriageApp;
use cuda_triage::ui::steps::Step;
use egui_kittest::kittest::Queryable;

#[test]
fn scan_cards_mark_each_line_and_frameworks_named_by_findings_are_not_fine() {
    let h = scanned("win-cuda-tf-torch");
    assert!(h.query_by_label("✔ NVIDIA driver 546.33").is_some());
    assert!(h.query_by_label("✔ CUDA toolkits (3)").is_some());
    // CuPy cannot find its DLLs (Python ignores PATH): a warning, not ✔. ONNX Runtime loads its
    // provider with LOAD_WITH_ALTERED_SEARCH_PATH, so PATH is searched and it is fine.
    assert!(h.query_by_label("⚠ GPU frameworks (4)").is_some());
    assert!(
        h.query_by_label("✔ ONNX Runtime 1.16.3 — CUDA 11.8.0")
            .is_some()
    );
    assert!(h.query_by_label_contains("⚠ CuPy 13.0.0").is_some());
    assert!(
        h.query_by_label("✔ PyTorch 2.1.2+cu121 — CUDA 12.1")
            .is_some()
    );
    // The Store Python is a warning; the others were read and are fine.
    assert!(h.query_by_label("⚠ Python environments (5)").is_some());
    assert!(
        h.query_by_label_contains("✔ Python 3.10.13 (conda-env)")
            .is_some()
    );
    assert!(h.query_by_label_contains("OK").is_none(), "no bare OK left");
}

#[test]
fn content_the_scan_could_not_read_is_marked_unknown_never_fine() {
    let ctx = cuda_triage::engine::context::machine_file::load(&fixture(
        "machines/win-cuda-tf-torch/machine.toml",
    ))
    .unwrap();
    let mut doc = cuda_triage::engine::api::scan(&ctx, &Default::default(), &Default::default())
        .expect("not cancelled");
    // TensorFlow whose CUDA build its files do not tell, and a GPU without a compute capability.
    let inventory = doc.inventory.as_mut().unwrap();
    for env in &mut inventory.python_envs {
        for fw in &mut env.frameworks {
            if fw.kind == cuda_triage::engine::inventory::FrameworkKind::TensorFlow {
                fw.expects.cuda = None;
                fw.expects.unread = Vec::new();
            }
        }
    }
    doc.machine.gpus[0].compute_capability = None;
    let mut app = TriageApp::with_report(relative_machine("win-cuda-tf-torch"), doc, "r.json");
    app.step = Step::Scan;
    let mut h = harness(app);
    h.run_steps(3);
    assert!(
        h.query_by_label("? TensorFlow 2.10.1 — CUDA unknown: its files do not say")
            .is_some()
    );
    assert!(h.query_by_label_contains("✔ GPU frameworks").is_none());
    assert!(h.query_by_label("? GPUs (1)").is_some());
    assert!(
        h.query_by_label("? NVIDIA GeForce RTX 3080 — compute capability ?, 10240 MiB")
            .is_some()
    );
}

#[test]
fn gpu_test_step_of_a_machine_file_fills_no_library_field_and_says_why() {
    let mut h = scanned("linux-cuda124-jax");
    h.get_by_label("5. GPU test").click();
    h.run_steps(2);
    assert!(h.query_by_label_contains("No GPU test here").is_some());
    assert!(
        h.query_by_label("CUDA runtime").is_none(),
        "no library field"
    );
    assert!(h.query_by_label("Run GPU test").is_none());
    assert!(h.state().gpu.paths.iter().all(|p| p.is_empty()));
}

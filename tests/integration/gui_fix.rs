//! The Fix step driven through egui_kittest by accessibility labels on the win-cuda-tf-torch
//! machine file: the fixes are listed under their findings, picking one fills the preview pane
//! with the exact registry change, and Apply stays disabled because a machine file is not this
//! computer. Snapshotted into screenshots/.

use crate::gui::{harness, relative_machine, snapshot_options, wait_for_scan};
use cuda_triage::ui::TriageApp;
use cuda_triage::ui::steps::Step;
use egui_kittest::kittest::{NodeT, Queryable};
use std::time::{Duration, Instant};

const CUPTI: &str = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8\extras\CUPTI\lib64";

#[test]
fn fix_step_previews_the_exact_change_and_refuses_to_apply_to_a_machine_file() {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    let mut h = harness(TriageApp::new(relative_machine("win-cuda-tf-torch")));
    h.run_steps(2);
    h.get_by_label("Start scan").click();
    h.step();
    wait_for_scan(&mut h);
    h.get_by_label("6. Fix").click();
    h.run_steps(2);
    assert_eq!(h.state().step, Step::Fix);
    // Grouped by finding: the finding's summary, then its fixes.
    assert!(h.query_all_by_label_contains("CUPTI").count() >= 2);
    h.get_by_label(&format!("Add {CUPTI} to PATH (path-edit)"))
        .click();
    h.run_steps(1);
    let deadline = Instant::now() + Duration::from_secs(60);
    while h.state().fix.preview.is_none() {
        assert!(Instant::now() < deadline, "the plan never arrived");
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
    h.run_steps(2);
    let after = format!("+ after:  REG_EXPAND_SZ {CUPTI}");
    assert!(
        h.query_by_label_contains(&after).is_some(),
        "{:?}",
        h.state().fix.preview
    );
    assert!(h.query_by_label_contains("preview").is_some());
    let apply = h.get_by_label("Apply checked fixes");
    assert!(
        apply.accesskit_node().is_disabled(),
        "a machine file is never applied"
    );
    h.remove_cursor();
    h.run_steps(1);
    h.snapshot_options("6-fix-preview", &snapshot_options());
}

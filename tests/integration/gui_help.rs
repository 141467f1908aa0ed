//! Help where it is needed: technical terms explained on hover, Copy buttons for the commands
//! and paths a finding gives, links to the documentation it relies on, and keys for the common
//! actions.

use crate::gui::{harness, relative_machine, scanned, wait_for_scan};
use cuda_triage::ui::TriageApp;
use cuda_triage::ui::steps::Step;
use egui_kittest::kittest::Queryable;

/// The harness's clock does not run between steps: tooltips show without their delay here.
fn no_tooltip_delay(h: &egui_kittest::Harness<'_, TriageApp>) {
    h.ctx.all_styles_mut(|s| s.interaction.tooltip_delay = 0.0);
}

#[test]
fn findings_explain_their_terms_copy_their_commands_and_link_their_docs() {
    let mut h = harness(TriageApp::new(relative_machine("win-cuda-tf-torch")));
    no_tooltip_delay(&h);
    h.run_steps(2);
    h.key_press(egui::Key::F5);
    h.run_steps(1);
    assert_eq!(h.state().step, Step::Scan, "F5 scans");
    wait_for_scan(&mut h);
    h.get_by_label("3. Findings").click();
    h.run_steps(2);
    // The documentation each finding relies on, as links.
    for title in [
        "Python: os.add_dll_directory",
        "Windows: dynamic-link library search order",
        "CuPy: installation",
        "CUDA Installation Guide for Microsoft Windows",
    ] {
        assert!(
            h.query_all_by_label(title).next().is_some(),
            "no link {title}"
        );
    }
    // A term the finding uses, explained on hover.
    h.query_all_by_label("LOAD_LIBRARY_SEARCH_DEFAULT_DIRS")
        .next()
        .expect("the term is listed")
        .hover();
    h.run_steps(3);
    assert!(
        h.query_by_label_contains("Python 3.8+ uses for extensions")
            .is_some(),
        "the explanation shows on hover"
    );
    // The fix's command goes to the clipboard.
    let copy = h
        .query_all_by_label("Copy")
        .next()
        .expect("a Copy button per fix");
    copy.click();
    h.run_steps(2);
    let status = h.state().status.clone();
    let copied = status
        .strip_prefix("Copied to the clipboard: ")
        .unwrap_or_else(|| panic!("{status}"));
    let doc = h.state().document.as_ref().unwrap();
    assert!(
        doc.findings
            .iter()
            .flat_map(|f| &f.fixes)
            .any(|fix| fix.summary == copied),
        "copied {copied}"
    );
}

#[test]
fn the_gpus_card_explains_compute_capability() {
    let mut h = scanned("win-cuda-tf-torch");
    no_tooltip_delay(&h);
    h.query_all_by_label("compute capability")
        .next()
        .expect("the term under the GPUs card")
        .hover();
    h.run_steps(3);
    assert!(
        h.query_by_label_contains("The GPU architecture's version")
            .is_some()
    );
}

//! The Findings step with hundreds of findings lays out only the cards in view (the others keep
//! their measured height): every card is still reached by scrolling, and nothing is lost.

use crate::gui::{harness, relative_machine};
use cuda_triage::engine::findings::{Finding, Severity};
use cuda_triage::engine::report::Report;
use cuda_triage::ui::TriageApp;
use cuda_triage::ui::app::ScanState;
use cuda_triage::ui::steps::Step;
use egui_kittest::kittest::Queryable;

#[test]
fn two_hundred_findings_scroll_from_the_first_to_the_last() {
    let ctx = cuda_triage::engine::context::machine_file::load(&crate::support::fixture(
        "machines/linux-basic/machine.toml",
    ))
    .unwrap();
    let findings = (0..200)
        .map(|i| {
            Finding::new(
                "library-not-found",
                Severity::Warning,
                format!("Finding number {i:03}"),
                "A library is not found where the loader looks.",
            )
        })
        .collect();
    let mut app = TriageApp::new(relative_machine("linux-basic"));
    app.document = Some(Report::new(&ctx, findings));
    app.scan = ScanState::Done;
    app.step = Step::Findings;
    let mut h = harness(app);
    h.run_steps(3);
    assert!(h.query_by_label("Finding number 000").is_some());
    assert!(
        h.query_by_label("Finding number 199").is_none(),
        "a card far below the view is not laid out"
    );
    for _ in 0..200 {
        if h.query_by_label("Finding number 199").is_some() {
            break;
        }
        crate::wheel::wheel(
            &mut h,
            egui::pos2(600.0, 400.0),
            egui::MouseWheelUnit::Page,
            1.0,
        );
        h.run_steps(2);
    }
    assert!(h.query_by_label("Finding number 199").is_some());
    assert!(h.query_by_label("Finding number 000").is_none());
}

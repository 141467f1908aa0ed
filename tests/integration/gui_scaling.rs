//! The wizard at 125 %, 150 % and 200 % display scaling: a full-HD screen (1920×1080 physical
//! pixels) filled by the window leaves 1536×864, 1280×720 and 960×540 points. On every step the
//! navigation (the step list, Back, Next) and the step's main action stay inside the window —
//! reachable by scrolling at most — and work when clicked. One snapshot at 200 % goes to
//! screenshots/.

use crate::gui::{snapshot_options, wait_for_scan};
use cuda_triage::engine::api::Source;
use cuda_triage::ui::TriageApp;
use cuda_triage::ui::steps::Step;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

const SCREEN: [f32; 2] = [1920.0, 1080.0];

/// The Windows seed machine with real torch DLLs (so the first suggestion's tree has rows).
fn scaled(ppp: f32, work: &std::path::Path) -> Harness<'static, TriageApp> {
    let machine = crate::gui_dependencies::windows_seed_with_real_torch_dlls(work);
    Harness::builder()
        .with_size([SCREEN[0] / ppp, SCREEN[1] / ppp])
        .with_pixels_per_point(ppp)
        .wgpu()
        .build_ui_state(
            |ui, app: &mut TriageApp| app.frame_ui(ui),
            TriageApp::new(Source::machine_file(machine)),
        )
}

/// The widget labelled `label` (the first, if several) lies whole inside the window once
/// scrolled to.
fn reachable(h: &mut Harness<'_, TriageApp>, label: &str, ppp: f32) {
    let window =
        egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(SCREEN[0], SCREEN[1]) / ppp);
    let node = h
        .query_all_by_label_contains(label)
        .next()
        .unwrap_or_else(|| panic!("at {ppp}: no {label:?} on {:?}", h.state().step));
    node.scroll_to_me();
    h.run_steps(20); // the scroll is animated
    let rect = h.query_all_by_label_contains(label).next().unwrap().rect();
    assert!(
        window.expand(0.5).contains_rect(rect) && rect.height() > 1.0,
        "at {ppp}: {label:?} on {:?} is cut off: {rect:?} outside {window:?}",
        h.state().step
    );
}

fn navigation(h: &mut Harness<'_, TriageApp>, ppp: f32) {
    for step in Step::ALL {
        reachable(h, &format!("{}. {}", step.index() + 1, step.title()), ppp);
    }
    reachable(h, "Back", ppp);
    reachable(h, "Next", ppp);
}

fn walk_at(ppp: f32, work: &std::path::Path) -> Harness<'static, TriageApp> {
    let mut h = scaled(ppp, work);
    h.run_steps(2);
    navigation(&mut h, ppp);
    reachable(&mut h, "Start scan", ppp);
    reachable(&mut h, "Explain this error", ppp);
    h.get_by_label("Start scan").click();
    h.step();
    assert_eq!(h.state().step, Step::Scan);
    wait_for_scan(&mut h);
    // Each step's main action, reached by Next.
    let actions: [(Step, &str); 6] = [
        (Step::Scan, "See findings"),
        (Step::Findings, "Why? ("),
        (Step::Dependencies, "Suggested by the scan ("),
        (Step::GpuTest, "No GPU test here"),
        (Step::Fix, "Apply checked fixes"),
        (Step::Report, "Save JSON report…"),
    ];
    for (step, action) in actions {
        if step != Step::Scan {
            h.get_by_label("Next").click();
            h.run_steps(2);
        }
        assert_eq!(h.state().step, step, "at {ppp}: Next works");
        navigation(&mut h, ppp);
        reachable(&mut h, action, ppp);
    }
    // The first suggestion builds its tree, and the tree has room to show rows.
    h.get_by_label("4. Dependencies").click();
    h.run_steps(2);
    let first = h.state().deps.suggestions[0].label.clone();
    reachable(&mut h, &first, ppp);
    h.get_by_label(&first).click();
    crate::gui_dependencies::wait_for_tree(&mut h);
    reachable(&mut h, "cudart64_12.dll", ppp);
    reachable(&mut h, "Only problems", ppp);
    navigation(&mut h, ppp);
    h
}

#[test]
fn gui_at_125_percent_keeps_navigation_and_actions_in_the_window() {
    walk_at(1.25, tempfile::tempdir().unwrap().path());
}

#[test]
fn gui_at_150_percent_keeps_navigation_and_actions_in_the_window() {
    walk_at(1.5, tempfile::tempdir().unwrap().path());
}

#[test]
fn gui_at_200_percent_keeps_navigation_and_actions_in_the_window() {
    let work = tempfile::tempdir().unwrap();
    let mut h = walk_at(2.0, work.path());
    h.remove_cursor();
    h.run_steps(1);
    h.snapshot_options("8-scaled-200-dependencies", &snapshot_options());
}

//! The Report step driven by label: after a scan it offers JSON, Markdown and HTML, copies the
//! Markdown, says what turning redaction off adds, and writes each format atomically — redacted
//! by default — to the file the Save dialog returns.

use crate::support::fixture;
use cuda_triage::engine::api::Source;
use cuda_triage::engine::report::ReportFormat;
use cuda_triage::ui::TriageApp;
use cuda_triage::ui::steps::{Step, UiCommand};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::time::{Duration, Instant};

fn scanned(machine: std::path::PathBuf) -> Harness<'static, TriageApp> {
    let mut h = Harness::builder()
        .with_size([1000.0, 640.0])
        .build_ui_state(
            |ui, app: &mut TriageApp| app.frame_ui(ui),
            TriageApp::new(Source::machine_file(machine)),
        );
    h.run_steps(2);
    h.get_by_label("Start scan").click();
    h.step();
    let deadline = Instant::now() + Duration::from_secs(60);
    while h.state().scan_running() {
        assert!(Instant::now() < deadline, "scan did not finish");
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
    h.state_mut().apply(UiCommand::GoTo(Step::Report));
    h.run_steps(2);
    h
}

/// Whether text names the user folder, plainly or JSON-escaped.
fn names_ana(text: &str) -> bool {
    text.contains(r"Users\ana") || text.contains(r"Users\\ana")
}

#[test]
fn report_step_saves_every_format_redacted_and_copies_markdown() {
    let dir = tempfile::tempdir().unwrap();
    // The seed machine's user folder is C:\Users\ana; plant the user name it belongs to.
    let seed = fixture("machines/win-cuda-tf-torch/machine.toml");
    let text = std::fs::read_to_string(&seed)
        .unwrap()
        .replace(
            "[env]\n",
            "[env]\nUSERNAME = 'ana'\nUSERPROFILE = 'C:\\Users\\ana'\n",
        )
        .replace(
            "C = \"fs/C\"",
            &format!("C = {:?}", seed.parent().unwrap().join("fs/C")),
        );
    let machine = dir.path().join("machine.toml");
    std::fs::write(&machine, text).unwrap();

    let mut h = scanned(machine);
    for label in [
        "Save JSON report…",
        "Save Markdown report…",
        "Save HTML report…",
        "Copy Markdown",
        "Compare with another report…",
    ] {
        assert!(h.query_by_label(label).is_some(), "{label}");
    }
    h.get_by_label("Copy Markdown").click();
    h.run_steps(2);
    assert!(
        h.state().status.contains("Markdown report copied"),
        "{}",
        h.state().status
    );

    for format in [
        ReportFormat::Json,
        ReportFormat::Markdown,
        ReportFormat::Html,
    ] {
        let path = dir.path().join(format!("saved.{}", format.extension()));
        h.state_mut()
            .apply(UiCommand::SaveReportTo(path.clone(), format));
        h.run_steps(2);
        let saved = std::fs::read_to_string(&path).expect("the report is written");
        assert!(!names_ana(&saved), "{format:?} is redacted");
        assert!(
            saved.contains(r"Users\<user>")
                || saved.contains(r"Users\\<user>")
                || saved.contains(r"Users\&lt;user&gt;"),
            "{format:?}"
        );
        assert!(h.query_by_label_contains("Saved to").is_some());
    }

    // The wizard's JSON report reopens anywhere: the CLI re-runs the rules on its snapshot.
    let saved_json = dir.path().join("saved.json");
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&saved_json).unwrap()).unwrap();
    assert!(
        saved["snapshot"]["files"]["paths"].is_object(),
        "the scan recorded its files"
    );
    let reopened = crate::support::run_cli(&["open", saved_json.to_str().unwrap(), "--json"]);
    assert!(
        !crate::support::stderr(&reopened).contains("showing the findings saved"),
        "{}",
        crate::support::stderr(&reopened)
    );
    assert_eq!(
        crate::support::json(&reopened)["findings"],
        saved["findings"]
    );

    h.get_by_label("Redact personal details (recommended)")
        .click();
    h.run_steps(2);
    assert!(!h.state().report.redact);
    assert!(
        h.query_by_label_contains("Without redaction the report also contains")
            .is_some()
    );
    let path = dir.path().join("open.json");
    h.state_mut()
        .apply(UiCommand::SaveReportTo(path.clone(), ReportFormat::Json));
    assert!(names_ana(&std::fs::read_to_string(&path).unwrap()));
}

#[test]
fn a_reopened_unredacted_report_is_redacted_when_saved_with_redaction_on() {
    let dir = tempfile::tempdir().unwrap();
    let seed = fixture("machines/win-basic/machine.toml");
    let text = std::fs::read_to_string(&seed)
        .unwrap()
        .replace(
            "[env]\n",
            "[env]\nUSERNAME = 'ana'\nUSERPROFILE = 'C:\\Users\\ana'\nHF_TOKEN = 'hf_ReopenedSecret77'\n",
        )
        .replace(
            "C = \"fs/C\"",
            &format!("C = {:?}", seed.parent().unwrap().join("fs/C")),
        );
    let machine = dir.path().join("machine.toml");
    std::fs::write(&machine, text).unwrap();
    let open = dir.path().join("open.json");
    let o = crate::support::run_cli(&[
        "report",
        "--machine",
        machine.to_str().unwrap(),
        "--no-redact",
        "-o",
        open.to_str().unwrap(),
    ]);
    assert!(o.status.code().is_some_and(|c| c < 2), "{o:?}");
    assert!(names_ana(&std::fs::read_to_string(&open).unwrap()));

    let doc = cuda_triage::engine::report::Report::load(&open).unwrap();
    let mut h = Harness::builder()
        .with_size([1000.0, 640.0])
        .build_ui_state(
            |ui, app: &mut TriageApp| app.frame_ui(ui),
            TriageApp::with_report(Source::machine_file(machine), doc, "open.json"),
        );
    h.state_mut().apply(UiCommand::GoTo(Step::Report));
    h.run_steps(2);
    assert!(h.state().report.redact, "redaction is on by default");
    let path = dir.path().join("saved.json");
    h.state_mut()
        .apply(UiCommand::SaveReportTo(path.clone(), ReportFormat::Json));
    let saved = std::fs::read_to_string(&path).expect("the report is written");
    assert!(!names_ana(&saved), "the reopened report is redacted");
    assert!(!saved.contains("hf_ReopenedSecret77"));
    let saved: serde_json::Value = serde_json::from_str(&saved).unwrap();
    assert_eq!(saved["redacted"], true);
    assert_eq!(saved["snapshot"]["env"]["USERNAME"], "<user>");
}

//! The wizard reopens a report through the one pipeline the command line uses
//! (`api::report::open`), and keeps what it says about the findings it shows.

use crate::engine::api::report;
use crate::ui::TriageApp;
use crate::ui::steps::{Step, UiCommand};
use crate::ui::worker::Source;

/// A report saved without a snapshot of its machine (an older build's, or one edited by hand).
const WITHOUT_SNAPSHOT: &str = r#"{
  "schema": "cuda-triage/1",
  "machine": {"platform": "linux", "wsl": false, "source": {"kind": "live"}},
  "findings": [
    {"code": "no-nvidia-driver", "severity": "error", "summary": "No NVIDIA driver", "detail": ""}
  ]
}"#;

#[test]
fn a_reopened_report_keeps_its_note_in_the_wizard_as_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("saved.json");
    std::fs::write(&path, WITHOUT_SNAPSHOT).unwrap();
    let note = report::open(&path)
        .unwrap()
        .note
        .expect("a report without a snapshot says its findings are the saved ones");

    let mut app = TriageApp::new(Source::machine_file("machine.toml".into()));
    app.apply(UiCommand::OpenRecent(path.clone()));

    assert_eq!(app.step, Step::Findings);
    let codes: Vec<&str> = app
        .document
        .as_ref()
        .map(|d| d.findings.iter().map(|f| f.code.as_str()).collect())
        .unwrap_or_default();
    assert_eq!(codes, ["no-nvidia-driver"]);
    assert!(
        app.status.to_lowercase().contains(&note.to_lowercase()),
        "the status {:?} drops the note {note:?}",
        app.status
    );
}

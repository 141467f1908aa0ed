//! The Report step's state, and the report the wizard would save: the current document with the
//! trees the Dependencies step built, a pasted error, the window's renderer and the redaction
//! choice, made by [`api::report`] (saving, comparing and reopening are there too). Nothing
//! here loads the machine: it all runs on the UI thread from what the scan already read.

use super::worker::Source;
use crate::engine::api::fix::Journal;
use crate::engine::api::{self, Report, SavedTree, WindowRenderer};

/// The Report step's own state.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportState {
    /// Redact identifying values (on by default).
    pub redact: bool,
    /// What turning redaction off adds (worked out when it is turned off).
    pub unredacted_note: Option<String>,
    /// The comparison with another report, as text, once asked for.
    pub comparison: Option<String>,
}

impl Default for ReportState {
    fn default() -> Self {
        ReportState {
            redact: true,
            unredacted_note: None,
            comparison: None,
        }
    }
}

/// The report as it would be saved now: [`api::report::build`] of the current document (whose
/// snapshot the scan took) with the wizard's pasted error, trees, renderer and redaction choice.
/// Nothing is loaded: this runs on the UI thread; the fixes applied are those of the fix
/// journal the wizard's jobs last read (`journals`). When redaction fails the report is a stand-in
/// that says so, and is never saved.
pub fn build_report(
    doc: &Report,
    pasted: Option<&Report>,
    target: &Source,
    trees: &[(String, serde_json::Value)],
    redact: bool,
    renderer: Option<&WindowRenderer>,
    journals: &[Journal],
) -> Report {
    let this_computer = target.is_this_computer();
    let request = api::report::ReportRequest {
        pasted,
        trees: trees
            .iter()
            .map(|(root, nodes)| SavedTree {
                nodes: serde_json::from_value(nodes.clone()).unwrap_or_default(),
                root: root.clone(),
            })
            .collect(),
        redact,
        renderer: renderer.filter(|_| this_computer),
        fixes_applied: (this_computer && doc.captured_at.is_none())
            .then(|| api::report::fixes_applied_of(journals)),
    };
    api::report::build(doc, request).unwrap_or_else(|e| api::report::redaction_failed(&e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::api::fix::JournalState;
    use crate::ui::steps::fix_state::tests::journal;

    fn document() -> Report {
        serde_json::from_value(serde_json::json!({
            "schema": "cuda-triage/1",
            "machine": {"platform": "linux", "wsl": false, "source": {"kind": "live"}},
            "findings": []
        }))
        .unwrap()
    }

    #[test]
    fn a_report_of_this_computer_lists_the_fixes_of_the_journal_the_jobs_read() {
        let journals = [
            journal("1795627183-249670", 1_795_627_183, JournalState::Applied),
            journal("1795627200-249671", 1_795_627_200, JournalState::Undone),
        ];
        let report = build_report(
            &document(),
            None,
            &Source::live(),
            &[],
            false,
            None,
            &journals,
        );
        let rows = report.fixes_applied.expect("fixes_applied");
        let listed: Vec<(&str, &str, JournalState)> = rows
            .iter()
            .map(|r| (r.id.as_str(), r.applied_at.as_str(), r.state))
            .collect();
        assert_eq!(
            listed,
            [
                (
                    "1795627183-249670",
                    "2026-11-25T17:19:43Z",
                    JournalState::Applied
                ),
                (
                    "1795627200-249671",
                    "2026-11-25T17:20:00Z",
                    JournalState::Undone
                ),
            ]
        );
        let machine_file = Source::machine_file("machine.json".into());
        let report = build_report(
            &document(),
            None,
            &machine_file,
            &[],
            false,
            None,
            &journals,
        );
        assert!(report.fixes_applied.is_none(), "not this computer's fixes");
    }
}

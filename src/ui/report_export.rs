//! The Report step's state, and the report the wizard would save: the current document with the
//! trees the Dependencies step built, a pasted error, the window's renderer and the redaction
//! choice, made by [`api::report`] (saving, comparing and reopening are there too). Nothing
//! here loads the machine: it all runs on the UI thread from what the scan already read.

use super::worker::Source;
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
/// Nothing is loaded: this runs on the UI thread. When redaction fails the report is a stand-in
/// that says so, and is never saved.
pub fn build_report(
    doc: &Report,
    pasted: Option<&Report>,
    target: &Source,
    trees: &[(String, serde_json::Value)],
    redact: bool,
    renderer: Option<&WindowRenderer>,
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
            .then(crate::engine::api::report::fixes_applied),
    };
    api::report::build(doc, request).unwrap_or_else(|e| api::report::redaction_failed(&e))
}

//! The Report step's work: the report the wizard would save (the current document, the tree the
//! Dependencies step built, metadata and snapshot, redacted unless the user turned it off — a
//! reopened report too, whatever it was saved as), written atomically in the chosen format, copied
//! as Markdown, opened, or compared with another report. When redaction fails the report is a
//! stand-in that says so and is never saved.

use super::worker::Source;
use crate::engine::atomic_file::write_atomically;
use crate::engine::context::{ContextSource, MachineSummary, SystemContext, WindowRenderer};
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Finding, Severity};
use crate::engine::report::capture::{self, CaptureOptions};
use crate::engine::report::redact_check::RedactError;
use crate::engine::report::{Report, ReportFormat, compare};
use anyhow::Context;
use std::path::Path;

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

/// The report as it would be saved now. A fresh result gets metadata, the scan's snapshot (or
/// this machine's) and, unless turned off, redaction; a reopened report keeps its metadata and is
/// redacted again while the toggle is on (it may have been saved with `--no-redact`). An error
/// the user pasted comes with it: what it names and its findings, as the Findings step shows them.
/// A fresh result of this computer also says how the wizard's window is drawn (`renderer`, its
/// `machine.renderer`): a fact about this computer's graphics stack.
pub fn build_report(
    doc: &Report,
    pasted: Option<&Report>,
    target: &Source,
    trees: &[(String, serde_json::Value)],
    redact: bool,
    renderer: Option<&WindowRenderer>,
) -> Report {
    let mut doc = doc.clone();
    if doc.captured_at.is_none() && target.is_this_computer() && renderer.is_some() {
        doc.machine.renderer = renderer.cloned();
    }
    if let Some(pasted) = pasted {
        with_pasted(&mut doc, pasted);
    }
    if !trees.is_empty() {
        let trees = trees
            .iter()
            .map(|(root, nodes)| crate::engine::report::SavedTree {
                nodes: serde_json::from_value(nodes.clone()).unwrap_or_default(),
                root: root.clone(),
            })
            .collect();
        doc.trees = Some(trees);
    }
    let finished = if doc.captured_at.is_some() {
        if !redact {
            return doc;
        }
        let identity = capture::identity_of_report(&doc);
        doc.redacted = Some(true);
        capture::redact(doc, &identity)
    } else {
        if target.is_this_computer() {
            doc.fixes_applied = Some(capture::fixes_applied());
        }
        let ctx = context_of(target, &doc);
        capture::finish_report(doc, &ctx, CaptureOptions { redact }, capture::now_unix())
    };
    finished.unwrap_or_else(|e| redaction_failed(&e))
}

/// Adds a pasted error's explanation: the findings the scan did not already make, and what the
/// text names (libraries, symbols, error codes), as `why --json` reports them.
fn with_pasted(doc: &mut Report, pasted: &Report) {
    for finding in &pasted.findings {
        let known = doc
            .findings
            .iter()
            .any(|f| f.code == finding.code && f.summary == finding.summary);
        if !known {
            doc.findings.push(finding.clone());
        }
    }
    doc.identified = doc.identified.take().or_else(|| pasted.identified.clone());
    doc.unrecognized = doc
        .unrecognized
        .take()
        .or_else(|| pasted.unrecognized.clone());
    doc.symbols = doc.symbols.take().or_else(|| pasted.symbols.clone());
    doc.codes = doc.codes.take().or_else(|| pasted.codes.clone());
}

/// What the report step holds when redaction failed: the reason, nothing of the machine.
fn redaction_failed(error: &RedactError) -> Report {
    let machine = MachineSummary {
        platform: crate::engine::context::Platform::host(),
        wsl: false,
        source: ContextSource::Report("(not redacted)".into()),
        driver: None,
        driver_note: None,
        gpus: Vec::new(),
        env: Default::default(),
        runs_in: Default::default(),
        renderer: None,
    };
    let finding = Finding::new(
        codes::REPORT_REDACTION_FAILED,
        Severity::Error,
        "The report could not be redacted, so it is not saved",
        error.to_string(),
    );
    let mut report = Report::for_machine(machine, vec![finding]);
    report.redacted = Some(true);
    report.redaction_failed = Some(error.to_string());
    report
}

/// The context behind a document: the target's (a machine file, or this computer).
fn context_of(target: &Source, doc: &Report) -> SystemContext {
    crate::engine::api::load(target, crate::engine::api::Driver::Ask)
        .unwrap_or_else(|_| SystemContext::from_report_machine(&doc.machine, "unsaved"))
}

/// What turning redaction off adds, for the toggle's explanation.
pub fn unredacted_note(target: &Source, doc: &Report) -> String {
    capture::unredacted_additions(&context_of(target, doc))
}

/// Writes a report to `path` in `format`.
pub fn save(report: &Report, path: &Path, format: ReportFormat) -> anyhow::Result<()> {
    if let Some(why) = &report.redaction_failed {
        anyhow::bail!("Nothing was saved to {}: {why}", path.display());
    }
    write_atomically(path, format.render(report).as_bytes())
        .with_context(|| format!("Could not save the report to {}", path.display()))
}

/// Compares the current document with a saved report, as text.
pub fn compare_with(current: &Report, other_path: &Path) -> anyhow::Result<String> {
    let other = Report::load(other_path)?;
    let c = compare::compare(current, &other);
    Ok(compare::render_text(
        "this report",
        &other_path.display().to_string(),
        &c,
    ))
}

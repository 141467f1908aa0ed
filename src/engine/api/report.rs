//! Reports, for both front ends (`cuda-triage report`/`open`/`gpu-test` and the wizard's Report,
//! GPU and reopen actions): the saved report of a scan — tool and time, the scan's snapshot of
//! its machine, trees, a pasted error, GPU results, the fixes applied, redaction —, written
//! atomically in a format, reopened, compared.
//!
//! Everything here works from the document and the snapshot the scan attached to it
//! ([`ContextSnapshot`], taken on the scan's worker): nothing loads the machine again, so the
//! wizard can save, copy and compare on its UI thread without waiting on the driver.

use crate::engine::atomic_file::write_atomically;
use crate::engine::context::{
    ContextSource, MachineSummary, Platform, SystemContext, WindowRenderer,
};
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Finding, Severity, sort_by_severity};
use crate::engine::gpu::runner::Outcome;
use crate::engine::report::capture::{self, ContextSnapshot};
use crate::engine::report::redact_check::RedactError;
use crate::engine::report::{Report, ReportError, ReportFormat, SavedTree, reopen};
use std::path::Path;

pub use crate::engine::report::capture::{
    AppliedFix, fixes_applied, fixes_applied_of, rfc3339_utc, start_recording,
};
pub use crate::engine::report::reopen::Reopened;
pub use crate::engine::report::text::{render_findings, render_text};
pub use crate::engine::report::{compare, fleet, runs_in_lines};

/// What goes into a saved report besides the document. The default redacts, as the CLI and the
/// wizard do unless told not to.
#[derive(Debug, Clone)]
pub struct ReportRequest<'a> {
    /// An error the user pasted, explained (`why --json`): its findings and what it names.
    pub pasted: Option<&'a Report>,
    /// The dependency trees built for it (`--tree`, the Dependencies step).
    pub trees: Vec<SavedTree>,
    /// Redact identifying values (user, host, home, tokens, GPU UUIDs).
    pub redact: bool,
    /// How the wizard's window is drawn: a fact about a live computer's graphics stack.
    pub renderer: Option<&'a WindowRenderer>,
    /// The fixes applied on this computer (`fixes_applied`), for a live scan.
    pub fixes_applied: Option<Vec<AppliedFix>>,
}

impl Default for ReportRequest<'_> {
    fn default() -> Self {
        ReportRequest {
            pasted: None,
            trees: Vec::new(),
            redact: true,
            renderer: None,
            fixes_applied: None,
        }
    }
}

/// Attaches the snapshot of the machine a scan read (what `open` rebuilds it from); the scan's
/// worker calls this once, with the context it scanned.
pub fn attach_snapshot(doc: &mut Report, ctx: &SystemContext) {
    doc.snapshot = Some(ContextSnapshot::of(ctx));
}

/// The report as it is saved. A fresh scan's document (no `captured_at` yet) gets the tool,
/// the time and — unless `redact` is off — redaction, from the snapshot it carries; a reopened
/// report keeps its metadata and is redacted again when asked (it may have been saved with
/// `--no-redact`). Fails, saving nothing, when redaction could not keep the report readable.
pub fn build(doc: &Report, request: ReportRequest<'_>) -> Result<Report, RedactError> {
    let mut doc = doc.clone();
    let fresh = doc.captured_at.is_none();
    if fresh && request.renderer.is_some() {
        doc.machine.renderer = request.renderer.cloned();
    }
    if let Some(pasted) = request.pasted {
        with_pasted(&mut doc, pasted);
    }
    if !request.trees.is_empty() {
        doc.trees = Some(request.trees);
    }
    if request.fixes_applied.is_some() {
        doc.fixes_applied = request.fixes_applied;
    }
    if !fresh {
        if !request.redact {
            return Ok(doc);
        }
        let identity = capture::identity_of_report(&doc);
        doc.redacted = Some(true);
        return capture::redact(doc, &identity);
    }
    capture::finish_captured(doc, request.redact, capture::now_unix())
}

/// What the Report step holds when redaction failed: the reason, nothing of the machine.
pub fn redaction_failed(error: &RedactError) -> Report {
    let machine = MachineSummary {
        platform: Platform::host(),
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

/// What turning redaction off would add to this document's report, in words.
pub fn unredacted_note(doc: &Report) -> String {
    capture::unredacted_additions_of_report(doc)
}

/// Writes a report to `path` in `format`, atomically; a report whose redaction failed is
/// never written.
pub fn save(report: &Report, path: &Path, format: ReportFormat) -> anyhow::Result<()> {
    use anyhow::Context;
    if let Some(why) = &report.redaction_failed {
        anyhow::bail!("Nothing was saved to {}: {why}", path.display());
    }
    write_atomically(path, format.render(report).as_bytes())
        .with_context(|| format!("Could not save the report to {}", path.display()))
}

/// A saved report, read and diagnosed again by this build's rules on its snapshot (or shown as
/// saved, with a note saying why).
pub fn open(path: &Path) -> Result<Reopened, ReportError> {
    Report::load(path).map(reopen::rediagnose)
}

/// The document compared with a saved report, as text.
pub fn compare_with(current: &Report, other_path: &Path) -> anyhow::Result<String> {
    let other = Report::load(other_path)?;
    let c = compare::compare(current, &other);
    Ok(compare::render_text(
        "this report",
        &other_path.display().to_string(),
        &c,
    ))
}

/// Puts a finished GPU test into a document — the one place this happens: earlier GPU-test
/// findings give way to the new ones, and the `"gpu"` key holds the new result.
pub fn with_gpu_test(mut doc: Report, outcome: &Outcome) -> Report {
    doc.findings.retain(|f| {
        !f.code
            .starts_with(crate::engine::finding_codes::GPU_TEST_PREFIX)
    });
    doc.findings.extend(outcome.findings.iter().cloned());
    sort_by_severity(&mut doc.findings);
    doc.gpu = Some(outcome.report.clone());
    doc
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

#[cfg(test)]
mod tests {
    use super::*;

    fn document() -> Report {
        serde_json::from_value(serde_json::json!({
            "schema": "cuda-triage/1",
            "machine": {"platform": "linux", "wsl": false, "source": {"kind": "live"}},
            "findings": [
                {"code": "gpu-test-timeout", "severity": "error", "summary": "old", "detail": ""},
                {"code": "no-nvidia-driver", "severity": "error", "summary": "kept", "detail": ""}
            ]
        }))
        .unwrap()
    }

    #[test]
    fn a_finished_test_replaces_the_previous_one_in_the_document() {
        let opts = crate::engine::gpu::runner::Options {
            exe: Some("/no/such/cuda-triage".into()),
            ..Default::default()
        };
        let outcome = crate::engine::gpu::runner::run(
            &opts,
            &crate::engine::progress::Progress::new(),
            |_| {},
        );
        let merged = with_gpu_test(document(), &outcome);
        let codes: Vec<&str> = merged.findings.iter().map(|f| f.code.as_str()).collect();
        assert_eq!(codes, ["no-nvidia-driver", "gpu-test-not-started"]);
        let report = merged.gpu.clone().expect("the gpu key reads back");
        assert_eq!(report.verdict, crate::engine::gpu::results::Verdict::Failed);
        assert!(document().gpu.is_none());
    }
}

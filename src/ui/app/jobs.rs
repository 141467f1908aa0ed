//! Every background job of the wizard polled in one place, once a frame: the scan, the pasted
//! text's triage, the dependency tree, the GPU test, the fix jobs and the fleet view's reading. Each finished job's result
//! goes into the app's plain-data state and the status line; while any job runs, the frame asks
//! for another repaint so progress shows without input.

use super::{ScanState, TriageApp};
use crate::engine::api::Severity;
use crate::ui::steps::Step;
use crate::ui::worker::{ScanOutcome, failure_text};
use std::time::Duration;

/// How often a running job's progress is redrawn.
const REPAINT: Duration = Duration::from_millis(100);

impl TriageApp {
    /// Starts rolling back the fixes an earlier run left half applied (`ui::run` does, as the
    /// window opens): a worker job, polled with the others; Apply, Undo and a scan of this
    /// computer wait for it.
    pub fn start_fix_recovery(&mut self) {
        if self.fix.recovery_job.is_none() {
            self.fix.recovery_job = Some(crate::ui::worker::start_fix_recovery());
        }
    }

    /// A scan of this computer waits while an interrupted fix is rolled back (`poll_jobs` starts
    /// it after); says so and returns true then.
    pub(super) fn scan_waits_for_recovery(&mut self) -> bool {
        if !self.fix.recovering() || !self.target.is_this_computer() {
            return false;
        }
        self.scan_after_recovery = true;
        self.status =
            "Rolling back an interrupted fix first; the scan starts when it is done.".into();
        true
    }

    /// Whether any background job is running.
    pub fn jobs_running(&self) -> bool {
        self.scan_running()
            || self.paste.job.is_some()
            || self.deps.job.is_some()
            || self.gpu.running()
            || self.fix.jobs_running()
            || self.fleet.job.is_some()
    }

    /// Takes in what the jobs finished since the last frame.
    pub(super) fn poll_jobs(&mut self, ctx: &egui::Context) {
        self.poll_scan();
        self.poll_paste();
        if let Some(status) = self.deps.poll() {
            self.status = status;
        }
        self.poll_gpu();
        let fix_words = self.fix.poll(&mut self.target.session);
        if self.scan_after_recovery && !self.fix.recovering() {
            self.scan_after_recovery = false;
            self.apply(crate::ui::steps::UiCommand::StartScan);
            if let Some(words) = fix_words {
                self.status = format!("{words} {}", self.status);
            }
        } else if let Some(status) = fix_words {
            self.status = status;
        }
        if let Some(status) = self.fleet.poll() {
            self.status = status;
        }
        if self.jobs_running() {
            ctx.request_repaint_after(REPAINT);
        }
    }

    fn poll_scan(&mut self) {
        let ScanState::Running(job) = &self.scan else {
            return;
        };
        match job.poll() {
            None => {}
            Some(Ok(ScanOutcome::Done(doc, sets, suggestions, journals))) => {
                self.gpu.offer_sets(sets);
                if let Some(journals) = journals {
                    self.fix.adopt_history(journals, &mut self.target.session);
                }
                self.deps.suggestions = suggestions;
                let errors = doc
                    .findings
                    .iter()
                    .filter(|f| f.severity == Severity::Error)
                    .count();
                self.status = format!(
                    "Scan finished: {} finding(s), {errors} error(s).",
                    doc.findings.len()
                );
                self.fix.forget_fixes_not_in(&doc.findings);
                self.document = Some(*doc);
                self.scan = ScanState::Done;
            }
            Some(Ok(ScanOutcome::Cancelled)) => {
                self.status = "Scan cancelled.".into();
                self.scan = ScanState::Cancelled;
            }
            Some(Err(e)) => {
                self.status = "Scan failed.".into();
                self.scan = ScanState::Failed(failure_text(&e));
            }
        }
    }

    fn poll_paste(&mut self) {
        match self.paste.poll() {
            Some(true) => {
                self.status = "Explained the pasted text: see Findings.".into();
                self.step = Step::Findings;
            }
            Some(false) => {
                self.status = format!(
                    "Could not explain the text: {}",
                    self.paste.error.clone().unwrap_or_default()
                )
            }
            None => {}
        }
    }

    /// Takes a finished GPU test into the document (this computer's, if none was open).
    fn poll_gpu(&mut self) {
        match self.gpu.poll() {
            Some(Ok((outcome, base))) => {
                self.status = format!("GPU test finished: {}", outcome.report.summary);
                let doc = self.document.take().unwrap_or(base);
                self.document = Some(crate::engine::api::report::with_gpu_test(doc, &outcome));
            }
            Some(Err(e)) => {
                self.status = format!("The GPU test could not run: {}", failure_text(&e))
            }
            None => {}
        }
    }
}

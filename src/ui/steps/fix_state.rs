//! State of the Fix step: the checked fixes, the one whose plan the preview pane shows, the
//! scope, the jobs that plan, apply (then verify) and undo — started by the app's command
//! handler and polled with every other job — and what they said. The UI never blocks.

use crate::engine::fix::journal::Journal;
use crate::engine::fix::planner::PlanOptions;
use crate::engine::fix::session::{self, ApplyReport};
use crate::engine::fix::{FixPlan, Scope};
use crate::ui::worker::{FixJob, Job, error_text, failure_text};
use std::collections::BTreeSet;

/// What the Fix step asks the app to do.
#[derive(Debug, Clone, PartialEq)]
pub enum FixCommand {
    /// Show this fix's plan in the preview pane.
    Focus(String),
    Toggle(String),
    SetScope(Scope),
    /// Apply the checked fixes (each previewed first), then verify each.
    ApplyChecked,
    Undo(Option<String>),
    RefreshHistory,
    /// Stop the running apply (a pip run is killed and its fix rolled back).
    Cancel,
}

/// The Fix step's state.
pub struct FixState {
    pub checked: BTreeSet<String>,
    pub focused: Option<String>,
    pub scope: Scope,
    /// The focused fix's plan, or why it could not be planned.
    pub preview: Option<anyhow::Result<FixPlan>>,
    pub plan_job: Option<Job<FixPlan>>,
    /// Applying or undoing (one at a time).
    pub apply_job: Option<FixJob>,
    pub results: Vec<ApplyReport>,
    pub log: Vec<String>,
    /// Command output (pip, conda) of the running apply as it arrives, shown live.
    pub live: Vec<String>,
    pub history: Vec<Journal>,
}

impl Default for FixState {
    fn default() -> FixState {
        FixState {
            checked: BTreeSet::new(),
            focused: None,
            scope: Scope::User,
            preview: None,
            plan_job: None,
            apply_job: None,
            results: Vec::new(),
            log: Vec::new(),
            live: Vec::new(),
            history: Vec::new(),
        }
    }
}

impl FixState {
    pub fn busy(&self) -> bool {
        self.plan_job.is_some() || self.apply_job.is_some()
    }

    /// The running job's current stage, for the progress line.
    pub fn stage(&self) -> Option<String> {
        self.apply_job.as_ref().map(|j| j.progress.snapshot().0)
    }

    /// Takes what the jobs finished or streamed since the last frame.
    pub fn poll(&mut self) {
        if let Some(out) = self.plan_job.as_ref().and_then(|j| j.poll()) {
            self.preview = Some(out);
            self.plan_job = None;
        }
        let Some(job) = &self.apply_job else {
            return;
        };
        let outcome = job.poll();
        self.live.extend(job.updates());
        let Some(outcome) = outcome else {
            return;
        };
        match outcome {
            Ok((reports, log)) => {
                if !reports.is_empty() {
                    self.results = reports;
                }
                self.log.extend(log);
            }
            Err(e) => self.log.push(failure_text(&e)),
        }
        self.apply_job = None;
        self.refresh_history();
    }

    /// Reads the fix journals again.
    pub fn refresh_history(&mut self) {
        match session::history() {
            Ok(h) => self.history = h,
            Err(e) => self.log.push(error_text(&e)),
        }
    }

    /// What the wizard plans with: the chosen scope, everything else as the fix proposes it.
    pub fn options(&self) -> PlanOptions {
        PlanOptions {
            scope: Some(self.scope),
            ..Default::default()
        }
    }
}

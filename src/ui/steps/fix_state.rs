//! State of the Fix step: the checked fixes, the one whose plan the preview pane shows, the
//! scope, and the worker jobs that plan, apply (then verify) and undo — the UI polls them and
//! never blocks. Planning reloads the target's context; applying runs exactly the plan shown.

use crate::engine::findings::Finding;
use crate::engine::fix::host::{Feedback, LineSink};
use crate::engine::fix::journal::Journal;
use crate::engine::fix::planner::PlanOptions;
use crate::engine::fix::session::{self, ApplyReport};
use crate::engine::fix::{FixPlan, Scope};
use crate::engine::progress::Progress;
use crate::ui::worker::{Job, Source};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

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
    pub preview: Option<Result<FixPlan, String>>,
    plan_job: Option<Job<FixPlan>>,
    apply_job: Option<Job<(Vec<ApplyReport>, Vec<String>)>>,
    pub results: Vec<ApplyReport>,
    pub log: Vec<String>,
    /// Command output (pip) as it arrives from the worker, shown live.
    pub live: Arc<Mutex<Vec<String>>>,
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
            live: Arc::default(),
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

    /// Takes finished jobs in; true while one still runs.
    pub fn poll(&mut self) -> bool {
        if let Some(out) = self.plan_job.as_ref().and_then(|j| j.poll()) {
            self.preview = Some(out);
            self.plan_job = None;
        }
        if let Some(out) = self.apply_job.as_ref().and_then(|j| j.poll()) {
            match out {
                Ok((reports, log)) => {
                    if !reports.is_empty() {
                        self.results = reports;
                    }
                    self.log.extend(log);
                }
                Err(e) => self.log.push(e),
            }
            self.apply_job = None;
            self.refresh_history();
        }
        self.busy()
    }

    fn refresh_history(&mut self) {
        match session::history() {
            Ok(h) => self.history = h,
            Err(e) => self.log.push(e.to_string()),
        }
    }

    /// What the wizard plans with: the chosen scope, everything else as the fix proposes it.
    fn options(&self) -> PlanOptions {
        PlanOptions {
            scope: Some(self.scope),
            ..Default::default()
        }
    }

    fn start_plan(&mut self, target: Source, findings: Vec<Finding>) {
        let Some(id) = self.focused.clone() else {
            return;
        };
        let opts = self.options();
        self.preview = None;
        self.plan_job = Some(Job::start(Progress::new(), move |_| {
            let ctx = crate::engine::api::load(&target, crate::engine::api::Driver::Skip)
                .map_err(|e| e.to_string())?;
            session::plan(&ctx, &findings, &id, &opts).map_err(|e| e.to_string())
        }));
    }

    fn start_apply(&mut self, target: Source, findings: Vec<Finding>) {
        let ids: Vec<String> = self.checked.iter().cloned().collect();
        let opts = self.options();
        self.results.clear();
        let live = self.live.clone();
        if let Ok(mut l) = live.lock() {
            l.clear();
        }
        self.apply_job = Some(Job::start(Progress::new(), move |progress| {
            let ctx = crate::engine::api::load(&target, crate::engine::api::Driver::Skip)
                .map_err(|e| e.to_string())?;
            let mut reports = Vec::new();
            let mut log = Vec::new();
            progress.stage("Applying fixes", ids.len());
            for id in &ids {
                progress.stage(&format!("Applying {id}"), ids.len());
                match session::plan(&ctx, &findings, id, &opts).and_then(|plan| {
                    let sink = live.clone();
                    let on_line: LineSink = Box::new(move |l| {
                        if let Ok(mut v) = sink.lock() {
                            v.push(l.to_string());
                        }
                    });
                    let feedback = Feedback {
                        on_line: Some(on_line),
                        // Cancel stops a running pip and rolls its fix back.
                        cancel: progress.cancel_flag(),
                    };
                    session::apply(&ctx, &findings, &plan, false, feedback)
                }) {
                    Ok(r) => {
                        log.push(match &r.verification {
                            Some(v) if v.verified => {
                                format!("{id}: {} and verified: its finding is gone", r.outcome)
                            }
                            Some(v) => format!(
                                "{id}: {} but NOT verified: {}",
                                r.outcome,
                                v.still_found.clone().unwrap_or_default()
                            ),
                            None => format!("{id}: {}", r.outcome),
                        });
                        reports.push(r);
                    }
                    Err(e) => log.push(format!("{id}: {e}")),
                }
                progress.tick();
            }
            Ok((reports, log))
        }));
    }
}

/// Applies a Fix command to the step's state (called from `app/commands.rs`), for the machine
/// `target` whose scan found `findings`.
pub fn apply(state: &mut FixState, target: Source, findings: Vec<Finding>, command: FixCommand) {
    match command {
        FixCommand::Focus(id) => {
            state.focused = Some(id);
            state.start_plan(target, findings);
        }
        FixCommand::Toggle(id) => {
            if !state.checked.remove(&id) {
                state.checked.insert(id);
            }
        }
        FixCommand::SetScope(scope) => {
            state.scope = scope;
            state.start_plan(target, findings);
        }
        FixCommand::ApplyChecked => {
            if !state.busy() && target.is_this_computer() && !state.checked.is_empty() {
                state.start_apply(target, findings);
            }
        }
        FixCommand::Undo(id) => {
            if !state.busy() {
                // Undoing a pin runs pip: off the UI thread, like applying.
                state.apply_job = Some(Job::start(Progress::new(), move |progress| {
                    progress.stage("Undoing", 1);
                    let line = match session::undo(id.as_deref()) {
                        Ok(j) => format!(
                            "Undid {} ({}): every file and value is back as it was.",
                            j.id, j.fix_id
                        ),
                        Err(e) => format!("Undo failed: {e}"),
                    };
                    Ok((Vec::new(), vec![line]))
                }));
            }
        }
        FixCommand::RefreshHistory => state.refresh_history(),
        FixCommand::Cancel => {
            if let Some(job) = &state.apply_job {
                job.cancel();
            }
        }
    }
}

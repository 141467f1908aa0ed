//! State of the Fix step: the checked fixes, the one whose plan the preview pane shows, the
//! scope, the jobs that plan, apply (then verify), undo and read the history — started by the
//! app's command handler and polled with every other job — and what they said. The UI never
//! blocks.

use crate::engine::api::SessionEnvironment;
use crate::engine::api::fix::{
    ApplyOutcome, ApplyReport, FixPlan, Journal, JournalState, PlanOptions, Scope,
};
use crate::ui::worker::{FixDone, FixJob, Job, Recovered, failure_text};
use std::collections::{BTreeMap, BTreeSet};

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
    /// The file a copy fix copies, as typed (planned again only on `UseCopySource`).
    EditCopySource(String),
    /// Plan the focused fix again with the typed file.
    UseCopySource,
    /// Pick the file to copy with the system's file dialog, then plan again.
    PickCopySource,
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
    /// The fix journal as last read (by the scan of this computer, each apply or undo job, the
    /// History button's job): what a saved report's `fixes_applied` lists.
    pub history: Vec<Journal>,
    /// Whether the step lists `history` (after an apply or undo, or History).
    pub show_history: bool,
    /// Reading the journal for History.
    pub history_job: Option<Job<Vec<Journal>>>,
    /// Rolling back, at start-up, a fix an earlier run left half applied (Apply, Undo and a
    /// scan of this computer wait for it).
    pub recovery_job: Option<Job<Recovered>>,
    /// For a copy fix (`zlibwapi.dll` beside cuDNN 8): the file the user chose to copy; empty
    /// means the first usable file the finding names.
    pub copy_from: String,
    /// The environment this computer was diagnosed with before each fix applied here (by
    /// journal id), put back when that fix is undone.
    environments_before: BTreeMap<String, SessionEnvironment>,
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
            show_history: false,
            history_job: None,
            recovery_job: None,
            copy_from: String::new(),
            environments_before: BTreeMap::new(),
        }
    }
}

impl FixState {
    pub fn busy(&self) -> bool {
        self.plan_job.is_some() || self.apply_job.is_some() || self.recovering()
    }

    /// Whether the start-up recovery of an interrupted fix still runs.
    pub fn recovering(&self) -> bool {
        self.recovery_job.is_some()
    }

    /// Whether any of the step's jobs runs (the journal read for History included).
    pub fn jobs_running(&self) -> bool {
        self.busy() || self.history_job.is_some()
    }

    /// The running job's current stage, for the progress line.
    pub fn stage(&self) -> Option<String> {
        let progress = match (&self.apply_job, &self.recovery_job) {
            (Some(job), _) => &job.progress,
            (None, Some(job)) => &job.progress,
            (None, None) => return None,
        };
        Some(progress.snapshot().0)
    }

    /// Takes what the jobs finished or streamed since the last frame; when an apply or undo job
    /// finished, the words for the status bar (the scan's counts there are from before it).
    /// `session` is the environment the wizard diagnoses this computer in: a fix applied or
    /// undone here changes it.
    pub fn poll(&mut self, session: &mut SessionEnvironment) -> Option<String> {
        let recovered = self.poll_recovery(session);
        if let Some(out) = self.plan_job.as_ref().and_then(|j| j.poll()) {
            self.preview = Some(out);
            self.plan_job = None;
        }
        if let Some(out) = self.history_job.as_ref().and_then(|j| j.poll()) {
            self.history_job = None;
            match out {
                Ok(journals) => {
                    self.adopt_history(journals, session);
                    self.show_history = true;
                }
                Err(e) => self.log.push(failure_text(&e)),
            }
        }
        let Some(job) = self.apply_job.as_ref() else {
            return recovered;
        };
        let outcome = job.poll();
        self.live.extend(job.updates());
        let Some(outcome) = outcome else {
            return recovered;
        };
        let status = match outcome {
            Ok(FixDone {
                reports,
                log,
                history,
            }) => {
                self.adopt_new_session_environment(&reports, session);
                let status = finished_words(&reports);
                if !reports.is_empty() {
                    self.results = reports;
                }
                self.log.extend(log);
                self.adopt_history(history, session);
                status
            }
            Err(e) => {
                let text = failure_text(&e);
                self.log.push(text.clone());
                text
            }
        };
        self.apply_job = None;
        self.show_history = true;
        Some(status)
    }

    /// Takes the start-up recovery's result once it arrives: words for the status bar when it
    /// rolled something back or failed (nothing to say when there was nothing to roll back).
    fn poll_recovery(&mut self, session: &mut SessionEnvironment) -> Option<String> {
        let outcome = self.recovery_job.as_ref()?.poll()?;
        self.recovery_job = None;
        let Recovered {
            rolled_back,
            history,
        } = match outcome {
            Ok(recovered) => recovered,
            Err(e) => Recovered {
                rolled_back: Err(failure_text(&e)),
                history: self.history.clone(),
            },
        };
        self.adopt_history(history, session);
        let words = match rolled_back {
            Ok(ids) if ids.is_empty() => return None,
            Ok(ids) => {
                // What each fix did, as History lists it; the journal id where none is read.
                let what: Vec<String> = ids
                    .iter()
                    .map(|id| {
                        self.history
                            .iter()
                            .find(|j| &j.id == id)
                            .map_or_else(|| id.clone(), |j| format!("\"{}\"", j.summary))
                    })
                    .collect();
                format!(
                    "Rolled back {} interrupted fix(es): {}.",
                    ids.len(),
                    what.join(", ")
                )
            }
            Err(e) => format!("Could not roll back an interrupted fix: {e}"),
        };
        self.log.push(words.clone());
        self.show_history = true;
        Some(words)
    }

    /// After a new scan: the checked fixes it no longer offers are dropped (a fix applied and
    /// verified is gone with its finding), so Apply never runs a stale one; the preview, planned
    /// on the old scan, is cleared.
    pub fn forget_fixes_not_in(&mut self, findings: &[crate::engine::api::Finding]) {
        let offered = |id: &str| findings.iter().flat_map(|f| &f.fixes).any(|x| x.id == id);
        self.checked.retain(|id| offered(id));
        self.focused = None;
        self.preview = None;
    }

    /// Takes the fix journal a job read (no job recovers an interrupted fix but apply and undo,
    /// and nothing reads the journal on the UI thread); a fix applied here and undone since gives
    /// back (in `session`) the environment this computer was diagnosed with before it.
    pub fn adopt_history(&mut self, journals: Vec<Journal>, session: &mut SessionEnvironment) {
        self.history = journals;
        for journal in &self.history {
            if journal.state == JournalState::Undone
                && let Some(before) = self.environments_before.remove(&journal.id)
            {
                *session = before;
                self.log.push(format!(
                    "This window diagnoses this computer as before {} again.",
                    journal.fix_id
                ));
            }
        }
    }

    /// After an apply: programs started from now on get the environment each fix's
    /// verification rebuilt (a new PATH, the login profile's block); this window diagnoses that
    /// one (`session`) from now on, as a user who opens a new terminal would see it.
    fn adopt_new_session_environment(
        &mut self,
        reports: &[ApplyReport],
        session: &mut SessionEnvironment,
    ) {
        for report in reports
            .iter()
            .filter(|r| r.outcome == ApplyOutcome::Applied)
        {
            let (Some(journal), Some(v)) = (&report.journal, &report.verification) else {
                continue;
            };
            if v.environment.is_empty() {
                continue;
            }
            let after = SessionEnvironment::after_fix(v.environment.clone());
            let before = std::mem::replace(session, after);
            self.environments_before.insert(journal.clone(), before);
            self.log.push(format!(
                "This window now diagnoses this computer with the environment new programs get after {}.",
                report.fix_id
            ));
        }
    }

    /// What the wizard plans with: the chosen scope, everything else as the fix proposes it.
    pub fn options(&self) -> PlanOptions {
        let chosen = self.copy_from.trim();
        PlanOptions {
            scope: Some(self.scope),
            copy_from: (!chosen.is_empty()).then(|| chosen.to_string()),
            ..Default::default()
        }
    }
}

/// "2 fixes applied, 2 verified: scan again to see the findings now", or the undo's words.
fn finished_words(reports: &[crate::engine::api::fix::ApplyReport]) -> String {
    let applied = reports
        .iter()
        .filter(|r| r.outcome == ApplyOutcome::Applied)
        .count();
    if reports.is_empty() || applied == 0 {
        return "Done: see the Fix step's log; scan again to see the findings now.".into();
    }
    let verified = reports
        .iter()
        .filter(|r| r.verification.as_ref().is_some_and(|v| v.verified))
        .count();
    format!(
        "{applied} fix(es) applied, {verified} verified: the findings above are from before; scan again to see them now."
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::{FixState, SessionEnvironment};
    use crate::engine::api::fix::{Journal, JournalState};
    use crate::engine::api::{Finding, FixKind, FixRef, Progress, Severity};
    use crate::ui::worker::{Job, Recovered};

    /// A journal of a fix applied at `created` (seconds since 1970).
    pub(crate) fn journal(id: &str, created: u64, state: JournalState) -> Journal {
        Journal {
            id: id.to_string(),
            fix_id: "fix-cuda_home".into(),
            finding: "cuda-home-missing".into(),
            summary: "Set CUDA_HOME to /usr/local/cuda".into(),
            created,
            state,
            pid: 0,
            targets: Vec::new(),
            dir: Default::default(),
        }
    }

    fn offering(ids: &[&str]) -> Vec<Finding> {
        let mut f = Finding::new("library-not-searched", Severity::Error, "s", "d");
        for id in ids {
            f = f.with_fix(FixRef {
                id: id.to_string(),
                kind: FixKind::Manual,
                summary: format!("fix {id}"),
            });
        }
        vec![f]
    }

    #[test]
    fn a_new_scan_drops_the_checked_fixes_it_no_longer_offers_and_the_stale_preview() {
        let mut state = FixState::default();
        state
            .checked
            .extend(["path-a".to_string(), "path-b".to_string()]);
        state.focused = Some("path-a".into());
        state.preview = Some(Err(anyhow::anyhow!("planned on the old scan")));
        state.forget_fixes_not_in(&offering(&["path-b", "path-c"]));
        assert_eq!(state.checked.iter().collect::<Vec<_>>(), ["path-b"]);
        assert!(state.focused.is_none() && state.preview.is_none());
        assert!(state.options().copy_from.is_none(), "no file chosen");
        state.copy_from = "  C:\\Downloads\\zlibwapi.dll ".into();
        assert_eq!(
            state.options().copy_from.as_deref(),
            Some("C:\\Downloads\\zlibwapi.dll")
        );
    }

    #[test]
    fn history_comes_from_a_job_and_is_listed_once_it_arrives() {
        let mut state = FixState::default();
        let read = vec![journal(
            "1795627183-249670",
            1_795_627_183,
            JournalState::Applied,
        )];
        let from_the_job = read.clone();
        state.history_job = Some(Job::start(Progress::new(), move |_| Ok(from_the_job)));
        assert!(state.jobs_running() && !state.busy(), "reading is no apply");
        while state.history_job.is_some() {
            assert_eq!(
                state.poll(&mut SessionEnvironment::default()),
                None,
                "a history read says nothing in the status bar"
            );
            std::thread::yield_now();
        }
        assert!(state.show_history);
        let ids: Vec<&str> = state.history.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(ids, ["1795627183-249670"]);
        // The scan's read of this computer's journal is kept for reports, not listed.
        let mut fresh = FixState::default();
        fresh.adopt_history(read, &mut SessionEnvironment::default());
        assert!(!fresh.show_history && fresh.history.len() == 1);
    }

    #[test]
    fn an_applied_fix_changes_this_windows_session_environment_and_its_undo_puts_it_back() {
        use crate::engine::api::fix::{ApplyOutcome, ApplyReport, Verification};
        use crate::ui::worker::FixDone;
        const ID: &str = "1795627183-249670";
        let after: std::collections::BTreeMap<String, String> =
            [("CUDA_HOME".to_string(), "/usr/local/cuda".to_string())].into();
        let report = ApplyReport {
            fix_id: "fix-cuda_home".into(),
            outcome: ApplyOutcome::Applied,
            journal: Some(ID.into()),
            would: Vec::new(),
            verification: Some(Verification {
                verified: true,
                checked: Vec::new(),
                still_found: None,
                environment: after.clone(),
            }),
        };
        let mut state = FixState::default();
        let history = vec![journal(ID, 1_795_627_183, JournalState::Applied)];
        state.apply_job = Some(Job::streaming(Progress::new(), move |_, _| {
            Ok(FixDone {
                reports: vec![report],
                log: Vec::new(),
                history,
            })
        }));
        // Each window holds its own session: this one's changes, another's does not.
        let mut session = SessionEnvironment::this_process();
        let other_window = SessionEnvironment::this_process();
        while state.apply_job.is_some() {
            state.poll(&mut session);
            std::thread::yield_now();
        }
        assert_eq!(session, SessionEnvironment::after_fix(after));
        assert!(other_window.is_this_process());

        state.adopt_history(
            vec![journal(ID, 1_795_627_183, JournalState::Undone)],
            &mut session,
        );
        assert!(
            session.is_this_process(),
            "the undo gives back the environment from before"
        );
    }

    /// Polls until the start-up recovery job is taken in; what each poll said, the last first.
    fn poll_until_recovered(state: &mut FixState) -> Vec<Option<String>> {
        let mut said = Vec::new();
        while state.recovering() {
            said.insert(0, state.poll(&mut SessionEnvironment::default()));
            std::thread::yield_now();
        }
        said
    }

    #[test]
    fn the_start_up_recovery_holds_apply_back_then_says_what_it_rolled_back() {
        let mut state = FixState::default();
        let history = vec![journal(
            "1795627183-249670",
            1_795_627_183,
            JournalState::RolledBack,
        )];
        let (go, wait) = std::sync::mpsc::channel::<()>();
        state.recovery_job = Some(Job::start(Progress::new(), move |_| {
            let _ = wait.recv();
            Ok(Recovered {
                rolled_back: Ok(vec!["1795627183-249670".into()]),
                history,
            })
        }));
        assert!(state.busy(), "Apply and Undo wait for the rollback");
        assert!(state.jobs_running());
        assert_eq!(
            state.poll(&mut SessionEnvironment::default()),
            None,
            "nothing to say while it runs"
        );
        go.send(()).unwrap();
        let said = poll_until_recovered(&mut state);
        assert_eq!(
            said[0].as_deref(),
            Some("Rolled back 1 interrupted fix(es): \"Set CUDA_HOME to /usr/local/cuda\".")
        );
        assert!(!state.busy());
        assert!(state.show_history, "History lists the rolled-back fix");
        assert_eq!(state.history[0].state, JournalState::RolledBack);
        assert_eq!(state.log, [said[0].clone().unwrap_or_default()]);
    }

    #[test]
    fn a_start_up_with_nothing_to_roll_back_is_silent_and_a_failure_is_said() {
        let recovering = |rolled_back: Result<Vec<String>, String>| FixState {
            recovery_job: Some(Job::start(Progress::new(), move |_| {
                Ok(Recovered {
                    rolled_back,
                    history: Vec::new(),
                })
            })),
            ..FixState::default()
        };
        let mut quiet = recovering(Ok(Vec::new()));
        let said = poll_until_recovered(&mut quiet);
        assert!(
            !said.is_empty() && said.iter().all(Option::is_none),
            "{said:?}"
        );
        assert!(!quiet.show_history && quiet.log.is_empty());
        let mut failed = recovering(Err("permission denied".into()));
        let said = poll_until_recovered(&mut failed);
        assert_eq!(
            said[0].as_deref(),
            Some("Could not roll back an interrupted fix: permission denied")
        );
    }
}

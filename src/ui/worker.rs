//! Background work for the wizard, one model for all of it: a [`Job`] runs a closure on a worker
//! thread with a shared [`Progress`] (stage, counts, cancel) and, for work that streams (the GPU
//! test's sensors and log, a fix's pip/conda output), a channel of updates; the app polls every
//! job in one place each frame and never blocks. A job fails with an [`anyhow::Error`] that keeps
//! the engine's error and its causes; the wizard shows it with [`error_text`]. This file also
//! holds what each job does — scan, pasted-text triage, dependency tree, GPU test, fix plan,
//! apply, undo, the start-up recovery of an interrupted fix and reading the fix history — so that steps only ask for work (a `UiCommand`) and the app's command handler
//! starts it.

use crate::engine::api::fix::{
    self, ApplyReport, Feedback, FixPlan, Journal, LineSink, PlanOptions,
};
use crate::engine::api::gpu::{self, LibrarySet, Update};
use crate::engine::api::{
    self, BinarySuggestion, Driver, Finding, Progress, Report, TreeOutcome, TreeRequest,
};
pub use crate::engine::api::{Machine, Source};
use crate::ui::steps::dependencies::TreeResult;
use anyhow::anyhow;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};

/// A closure running on a worker thread; its result arrives through `poll`, its streamed
/// updates (of type `U`, none by default) through `updates`.
pub struct Job<T, U = ()> {
    pub progress: Progress,
    receiver: Receiver<anyhow::Result<T>>,
    updates: Receiver<U>,
}

/// The worker's end of a job's update channel.
pub struct Updates<U>(Sender<U>);

impl<U> Clone for Updates<U> {
    fn clone(&self) -> Self {
        Updates(self.0.clone())
    }
}

impl<U> Updates<U> {
    /// Sends an update; one the UI no longer listens to is dropped.
    pub fn send(&self, update: U) {
        let _ = self.0.send(update);
    }
}

impl<T: Send + 'static> Job<T> {
    /// Runs `work` on a new thread. A panic inside becomes an error, never a crash of the UI.
    pub fn start(
        progress: Progress,
        work: impl FnOnce(&Progress) -> anyhow::Result<T> + Send + 'static,
    ) -> Job<T> {
        Job::streaming(progress, move |progress, _| work(progress))
    }
}

impl<T: Send + 'static, U: Send + 'static> Job<T, U> {
    /// Runs `work` on a new thread, handing it the sending end of the update channel.
    pub fn streaming(
        progress: Progress,
        work: impl FnOnce(&Progress, &Updates<U>) -> anyhow::Result<T> + Send + 'static,
    ) -> Job<T, U> {
        let (tx, rx) = channel();
        let (update_tx, update_rx) = channel();
        let worker_progress = progress.clone();
        let spawned = std::thread::Builder::new()
            .name("wizard-worker".into())
            .spawn(move || {
                let updates = Updates(update_tx);
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    work(&worker_progress, &updates)
                }))
                .unwrap_or_else(|_| Err(anyhow!("the work stopped unexpectedly (internal error)")));
                let _ = tx.send(outcome);
            });
        let receiver = match spawned {
            Ok(_) => rx,
            Err(e) => {
                let (tx, rx) = channel();
                let _ = tx.send(Err(anyhow!(e).context("could not start a worker thread")));
                rx
            }
        };
        Job {
            progress,
            receiver,
            updates: update_rx,
        }
    }

    /// The outcome once the worker has finished; `None` while it still runs. Every update sent
    /// before the outcome can still be drained with `updates` afterwards.
    pub fn poll(&self) -> Option<anyhow::Result<T>> {
        match self.receiver.try_recv() {
            Ok(outcome) => Some(outcome),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err(anyhow!("the worker went away"))),
        }
    }

    /// The updates sent since the last call.
    pub fn updates(&self) -> impl Iterator<Item = U> + '_ {
        self.updates.try_iter()
    }

    /// Asks the work to stop (it ends at its next check, with its cancelled outcome).
    pub fn cancel(&self) {
        self.progress.cancel();
    }
}

/// An error as the wizard shows it: its message and each of its sources, joined with ": " (a
/// source whose text the message already carries is not repeated).
pub fn error_text(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        source = s.source();
    }
    text
}

/// A failed job as the wizard shows it: [`error_text`] of the error the job ended with.
pub fn failure_text(error: &anyhow::Error) -> String {
    error_text(error.as_ref())
}

/// How a finished scan ended.
#[derive(Debug, Clone)]
pub enum ScanOutcome {
    /// The document, the library sets the GPU test can take from the scan (a live scan only),
    /// the binaries the Dependencies step suggests, and — for this computer — the fix journal
    /// as it stands (read here, so a saved report's `fixes_applied` needs no read on the UI
    /// thread).
    Done(
        Box<Report>,
        Vec<LibrarySet>,
        Vec<BinarySuggestion>,
        Option<Vec<Journal>>,
    ),
    Cancelled,
}

/// A scan running on a worker thread.
pub type ScanJob = Job<ScanOutcome>;

/// Starts a scan of `target`.
pub fn start_scan(target: Source) -> ScanJob {
    start_scan_with_progress(target, Progress::new())
}

/// Starts a scan that reports on (and can be cancelled through) the given progress handle.
pub fn start_scan_with_progress(target: Source, progress: Progress) -> ScanJob {
    start_scan_with_options(target, progress, api::ScanOptions::default())
}

/// Starts a scan that also imports each framework in a child process (the import probe).
pub fn start_probing_scan(target: Source) -> ScanJob {
    let opts = api::ScanOptions {
        probe_imports: true,
        ..api::ScanOptions::default()
    };
    start_scan_with_options(target, Progress::new(), opts)
}

fn start_scan_with_options(target: Source, progress: Progress, opts: api::ScanOptions) -> ScanJob {
    Job::start(progress, move |progress| {
        progress.stage("Reading the machine", 1);
        let mut ctx = api::load(&target, Driver::Ask)?;
        if progress.is_cancelled() {
            return Ok(ScanOutcome::Cancelled);
        }
        // What the rules read is recorded, so a report saved from this scan reopens anywhere.
        api::report::start_recording(&mut ctx);
        let Some(mut report) = api::scan(&ctx, &opts, progress) else {
            return Ok(ScanOutcome::Cancelled);
        };
        let inventory = report.inventory.clone().unwrap_or_default();
        let (sets, journals) = match target.is_this_computer() {
            true => (api::gpu_sets(&ctx, &inventory), Some(fix::read_history())),
            false => (Vec::new(), None),
        };
        let suggestions = api::suggestions(&ctx, &inventory);
        api::report::attach_snapshot(&mut report, &ctx);
        Ok(ScanOutcome::Done(
            Box::new(report),
            sets,
            suggestions,
            journals,
        ))
    })
}

/// Triages pasted error text against `target`: a document of its findings.
pub fn start_explain(target: Source, text: String) -> Job<Report> {
    Job::start(Progress::new(), move |progress| {
        progress.stage("Explaining the pasted text", 0);
        let ctx = api::load(&target, Driver::Skip)?;
        Ok(api::explain(&ctx, &text).report)
    })
}

/// Builds the tree `request` asks for on `target`: `None` once cancelled through `progress`, an
/// error (with every place tried) for a bare name the process would not find.
pub fn start_tree(
    target: Source,
    request: TreeRequest,
    progress: Progress,
) -> Job<Option<TreeResult>> {
    Job::start(progress, move |progress| {
        let ctx = api::load(&target, Driver::Skip)?;
        if progress.is_cancelled() {
            return Ok(None);
        }
        match api::tree(&ctx, &request, progress) {
            Ok(TreeOutcome::Built {
                graph, findings, ..
            }) => Ok(Some(TreeResult {
                ctx,
                graph,
                findings,
            })),
            Ok(TreeOutcome::NotFound {
                finding,
                resolution,
                ..
            }) => {
                let tried: Vec<String> = resolution
                    .attempts
                    .iter()
                    .map(crate::engine::api::graph::attempt_text)
                    .collect();
                Err(anyhow!("{}. Tried: {}", finding.summary, tried.join("; ")))
            }
            Err(crate::engine::api::Error::Cancelled) => Ok(None),
            Err(e) => Err(e.into()),
        }
    })
}

/// The GPU test running in a child process: the outcome and a document of this computer (for
/// when the wizard has none yet); the child's sensors and log lines stream as updates.
pub type GpuJob = Job<Box<(gpu::Outcome, Report)>, Update>;

/// Starts the GPU test with `opts`.
pub fn start_gpu_test(opts: gpu::Options) -> GpuJob {
    let progress = Progress::new();
    progress.stage("Starting the test process", 0);
    Job::streaming(progress, move |progress, updates| {
        let outcome = gpu::run(&opts, progress, |u| updates.send(u));
        let this_computer = api::load(
            &Source {
                machine: Machine::Live,
                session: opts.session.clone(),
            },
            Driver::Ask,
        )?;
        let base = Report::new(&this_computer, Vec::new());
        Ok(Box::new((outcome, base)))
    })
}

/// Plans fix `id` for the preview pane: the target's context is loaded again, so the plan reads
/// the machine as it is now.
pub fn start_fix_plan(
    target: Source,
    findings: Vec<Finding>,
    id: String,
    opts: PlanOptions,
) -> Job<FixPlan> {
    Job::start(Progress::new(), move |_| {
        let ctx = api::load(&target, Driver::Skip)?;
        Ok(fix::plan(&ctx, &findings, &id, &opts)?)
    })
}

/// Applying or undoing fixes: each fix's report and a line per fix for the log; the output of
/// the commands a fix runs (pip, conda) streams as updates, a line each.
pub type FixJob = Job<FixDone, String>;

/// What an apply or undo job did, and the fix journal after it (read on the worker).
#[derive(Debug)]
pub struct FixDone {
    pub reports: Vec<ApplyReport>,
    pub log: Vec<String>,
    pub history: Vec<Journal>,
}

/// Applies the fixes `ids` one after the other (each planned again, exactly as previewed), then
/// verifies each. Cancelling stops a running pip or conda and rolls its fix back.
pub fn start_fix_apply(
    target: Source,
    findings: Vec<Finding>,
    ids: Vec<String>,
    opts: PlanOptions,
) -> FixJob {
    Job::streaming(Progress::new(), move |progress, updates| {
        let ctx = api::load(&target, Driver::Skip)?;
        let mut reports = Vec::new();
        let mut log = Vec::new();
        progress.stage("Applying fixes", ids.len());
        for id in &ids {
            progress.stage(&format!("Applying {id}"), ids.len());
            let sink = updates.clone();
            let on_line: LineSink = Box::new(move |line| sink.send(line.to_string()));
            let feedback = Feedback {
                on_line: Some(on_line),
                cancel: progress.cancel_flag(),
            };
            match fix::plan(&ctx, &findings, id, &opts)
                .and_then(|plan| fix::apply(&ctx, &findings, &plan, false, feedback))
            {
                Ok(r) => {
                    log.push(applied_line(id, &r));
                    reports.push(r);
                }
                Err(e) => log.push(format!("{id}: {}", error_text(&e))),
            }
            progress.tick();
        }
        Ok(FixDone {
            reports,
            log,
            history: fix::read_history(),
        })
    })
}

/// The log's line for one applied fix: its outcome and whether its finding is gone.
fn applied_line(id: &str, r: &ApplyReport) -> String {
    match &r.verification {
        Some(v) if v.verified => format!("{id}: {} and verified: its finding is gone", r.outcome),
        Some(v) => format!(
            "{id}: {} but NOT verified: {}",
            r.outcome,
            v.still_found.clone().unwrap_or_default()
        ),
        None => format!("{id}: {}", r.outcome),
    }
}

/// Undoes fix journal `id` (the last applied one without): off the UI thread, since undoing a
/// pin runs pip.
pub fn start_fix_undo(id: Option<String>) -> FixJob {
    Job::streaming(Progress::new(), move |progress, _| {
        progress.stage("Undoing", 1);
        let line = match fix::undo(id.as_deref()) {
            Ok(j) => fix::undone_words(&j),
            Err(e) => format!("Undo failed: {}", error_text(&e)),
        };
        Ok(FixDone {
            reports: Vec::new(),
            log: vec![line],
            history: fix::read_history(),
        })
    })
}

/// What the start-up recovery did: the journal ids of the fixes an earlier run left half
/// applied and that are rolled back now (or why that failed), and the journal after it.
#[derive(Debug)]
pub struct Recovered {
    pub rolled_back: Result<Vec<String>, String>,
    pub history: Vec<Journal>,
}

/// Rolls back the fixes an earlier run left half applied (at start-up): off the UI thread,
/// since rolling back a package pin runs pip or conda.
pub fn start_fix_recovery() -> Job<Recovered> {
    Job::start(Progress::new(), |progress| {
        progress.stage("Rolling back an interrupted fix", 1);
        let rolled_back = fix::recover().map_err(|e| error_text(&e));
        Ok(Recovered {
            rolled_back,
            history: fix::read_history(),
        })
    })
}

/// Reads the fix journal (only reads it: an interrupted fix is rolled back by the next apply or
/// undo job, and at start-up) for the Fix step's History.
pub fn start_fix_history() -> Job<Vec<Journal>> {
    Job::start(Progress::new(), |_| Ok(fix::read_history()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_streams_its_updates_then_its_outcome() {
        let job: Job<usize, String> = Job::streaming(Progress::new(), |progress, updates| {
            progress.set("Counting", 1, 2);
            updates.send("one".into());
            updates.send("two".into());
            Ok(2)
        });
        let outcome = loop {
            if let Some(outcome) = job.poll() {
                break outcome;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        assert_eq!(outcome.unwrap(), 2);
        assert_eq!(job.updates().collect::<Vec<_>>(), ["one", "two"]);
        assert_eq!(job.progress.snapshot(), ("Counting".into(), 1, 2));
    }

    #[test]
    fn a_cancelled_job_sees_its_flag_and_a_panic_becomes_an_error() {
        let job = Job::start(Progress::new(), |progress| {
            while !progress.is_cancelled() {
                std::thread::yield_now();
            }
            Ok(progress
                .cancel_flag()
                .load(std::sync::atomic::Ordering::Relaxed))
        });
        job.cancel();
        let outcome = loop {
            if let Some(outcome) = job.poll() {
                break outcome;
            }
        };
        assert!(outcome.unwrap());
        let job: Job<()> = Job::start(Progress::new(), |_| panic!("boom"));
        let outcome = loop {
            if let Some(outcome) = job.poll() {
                break outcome;
            }
        };
        assert!(failure_text(&outcome.unwrap_err()).contains("internal error"));
    }

    #[derive(Debug, thiserror::Error)]
    #[error("outer")]
    struct Outer(#[source] Middle);

    #[derive(Debug, thiserror::Error)]
    #[error("middle: inner")]
    struct Middle(#[source] std::io::Error);

    #[test]
    fn an_error_shows_its_chain_without_repeating_a_cause() {
        let e = Outer(Middle(std::io::Error::other("inner")));
        assert_eq!(error_text(&e), "outer: middle: inner");
    }
}

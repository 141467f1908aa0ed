//! Background work for the wizard: a `Job<T>` runs a closure on a worker thread with a shared
//! `Progress` (stage, counts, cancel); the UI polls it each frame and never blocks. Scans and
//! dependency trees both run this way.

pub use crate::engine::api::Source;
use crate::engine::api::{self, Driver};
use crate::engine::gpu::sets::LibrarySet;
use crate::engine::progress::Progress;
use crate::engine::report::Report;
use crate::engine::report::capture;
use crate::engine::scan;
use crate::engine::suggest::BinarySuggestion;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

/// A closure running on a worker thread; its result arrives through `poll`.
pub struct Job<T> {
    pub progress: Progress,
    receiver: Receiver<Result<T, String>>,
}

impl<T: Send + 'static> Job<T> {
    /// Runs `work` on a new thread. A panic inside becomes an error, never a crash of the UI.
    pub fn start(
        progress: Progress,
        work: impl FnOnce(&Progress) -> Result<T, String> + Send + 'static,
    ) -> Job<T> {
        let (tx, rx) = channel();
        let worker_progress = progress.clone();
        let spawned = std::thread::Builder::new()
            .name("wizard-worker".into())
            .spawn(move || {
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    work(&worker_progress)
                }))
                .unwrap_or_else(|_| Err("the work stopped unexpectedly (internal error)".into()));
                let _ = tx.send(outcome);
            });
        if let Err(e) = spawned {
            let (tx, rx) = channel();
            let _ = tx.send(Err(format!("could not start a worker thread: {e}")));
            return Job {
                progress,
                receiver: rx,
            };
        }
        Job {
            progress,
            receiver: rx,
        }
    }

    /// The outcome once the worker has finished; `None` while it still runs.
    pub fn poll(&self) -> Option<Result<T, String>> {
        match self.receiver.try_recv() {
            Ok(outcome) => Some(outcome),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err("the worker went away".into())),
        }
    }
}

/// How a finished scan ended.
#[derive(Debug, Clone)]
pub enum ScanOutcome {
    /// The document, the library sets the GPU test can take from the scan (a live scan only),
    /// and the binaries the Dependencies step suggests.
    Done(Box<Report>, Vec<LibrarySet>, Vec<BinarySuggestion>),
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
    start_scan_with_options(target, progress, scan::ScanOptions::default())
}

/// Starts a scan that also imports each framework in a child process (the import probe).
pub fn start_probing_scan(target: Source) -> ScanJob {
    let opts = scan::ScanOptions {
        probe_imports: true,
        ..scan::ScanOptions::default()
    };
    start_scan_with_options(target, Progress::new(), opts)
}

fn start_scan_with_options(target: Source, progress: Progress, opts: scan::ScanOptions) -> ScanJob {
    Job::start(progress, move |progress| {
        progress.stage("Reading the machine", 1);
        let mut ctx = api::load(&target, Driver::Ask).map_err(|e| e.to_string())?;
        if progress.is_cancelled() {
            return Ok(ScanOutcome::Cancelled);
        }
        // What the rules read is recorded, so a report saved from this scan reopens anywhere.
        capture::start_recording(&mut ctx);
        let Some(scanned) = api::scan(&ctx, &opts, progress) else {
            return Ok(ScanOutcome::Cancelled);
        };
        let mut report = scanned.report;
        let inventory = report.inventory.clone().unwrap_or_default();
        let sets = match target.is_this_computer() {
            true => api::gpu_sets(&ctx, &inventory),
            false => Vec::new(),
        };
        let suggestions = api::suggestions(&ctx, &inventory);
        report.snapshot = Some(capture::ContextSnapshot::of(&ctx));
        Ok(ScanOutcome::Done(Box::new(report), sets, suggestions))
    })
}

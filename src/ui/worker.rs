//! Background scan: the context is loaded and scanned on a worker thread; the UI polls the
//! result each frame and shows the shared `Progress`. The UI thread never blocks.

use crate::engine::context::{SystemContext, live, machine_file};
use crate::engine::progress::Progress;
use crate::engine::report::Document;
use crate::engine::scan;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

/// Which machine the wizard diagnoses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Live,
    MachineFile(PathBuf),
}

/// How a finished scan ended.
#[derive(Debug, Clone)]
pub enum ScanOutcome {
    Done(Box<Document>),
    Cancelled,
    Failed(String),
}

/// A scan running on a worker thread.
pub struct ScanJob {
    pub progress: Progress,
    receiver: Receiver<ScanOutcome>,
}

impl ScanJob {
    pub fn start(target: Target) -> ScanJob {
        ScanJob::start_with_progress(target, Progress::new())
    }

    /// Starts a scan that reports on (and can be cancelled through) the given progress handle.
    pub fn start_with_progress(target: Target, progress: Progress) -> ScanJob {
        let (tx, rx) = channel();
        let worker_progress = progress.clone();
        let spawned = std::thread::Builder::new()
            .name("scan".into())
            .spawn(move || {
                let outcome = std::panic::catch_unwind(|| run(&target, &worker_progress))
                    .unwrap_or_else(|_| {
                        ScanOutcome::Failed("the scan stopped unexpectedly (internal error)".into())
                    });
                let _ = tx.send(outcome);
            });
        if let Err(e) = spawned {
            let (tx, rx) = channel();
            let _ = tx.send(ScanOutcome::Failed(format!(
                "could not start the scan: {e}"
            )));
            return ScanJob {
                progress,
                receiver: rx,
            };
        }
        ScanJob {
            progress,
            receiver: rx,
        }
    }

    /// The outcome once the worker has finished; `None` while it still runs.
    pub fn poll(&self) -> Option<ScanOutcome> {
        match self.receiver.try_recv() {
            Ok(outcome) => Some(outcome),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => {
                Some(ScanOutcome::Failed("the scan worker went away".into()))
            }
        }
    }
}

fn run(target: &Target, progress: &Progress) -> ScanOutcome {
    progress.stage("Reading the machine", 1);
    let ctx: SystemContext = match target {
        Target::Live => live::load(),
        Target::MachineFile(path) => match machine_file::load(path) {
            Ok(ctx) => ctx,
            Err(e) => return ScanOutcome::Failed(e.to_string()),
        },
    };
    if progress.is_cancelled() {
        return ScanOutcome::Cancelled;
    }
    let result = scan::run(&ctx, progress);
    if result.cancelled {
        return ScanOutcome::Cancelled;
    }
    ScanOutcome::Done(Box::new(Document::new(&ctx, result.findings)))
}

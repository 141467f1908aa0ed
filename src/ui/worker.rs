//! Background work for the wizard: a `Job<T>` runs a closure on a worker thread with a shared
//! `Progress` (stage, counts, cancel); the UI polls it each frame and never blocks. Scans and
//! dependency trees both run this way.

use crate::engine::context::activate::activate_python_env;
use crate::engine::context::{SystemContext, live, machine_file};
use crate::engine::progress::Progress;
use crate::engine::report::Document;
use crate::engine::report::capture;
use crate::engine::scan;
use crate::engine::suggest::{self, BinarySuggestion};
use crate::gpu::sets::{self, LibrarySet};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

/// Which machine the wizard diagnoses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Live,
    /// This computer, as a shell where this Python environment is activated.
    PythonEnv(PathBuf),
    MachineFile(PathBuf),
}

impl Target {
    /// Loads the context of the target. `with_driver` queries NVML on a live machine.
    pub fn load(&self, with_driver: bool) -> Result<SystemContext, String> {
        match self {
            Target::Live | Target::PythonEnv(_) => {
                let mut ctx = if with_driver {
                    live::load()
                } else {
                    live::load_without_driver()
                };
                if let Target::PythonEnv(root) = self {
                    activate_python_env(&mut ctx, &root.display().to_string())?;
                }
                Ok(ctx)
            }
            Target::MachineFile(path) => machine_file::load(path).map_err(|e| e.to_string()),
        }
    }

    /// Whether the target is this computer (its Python can run, its GPU can be tested).
    pub fn is_this_computer(&self) -> bool {
        !matches!(self, Target::MachineFile(_))
    }

    /// The target in words: "this computer", "the machine described in m.toml".
    pub fn describe(&self) -> String {
        match self {
            Target::Live => "this computer".to_string(),
            Target::PythonEnv(root) => format!(
                "this computer, with the Python environment {} activated",
                root.display()
            ),
            Target::MachineFile(p) => format!("the machine described in {}", p.display()),
        }
    }
}

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
    Done(Box<Document>, Vec<LibrarySet>, Vec<BinarySuggestion>),
    Cancelled,
}

/// A scan running on a worker thread.
pub type ScanJob = Job<ScanOutcome>;

/// Starts a scan of `target`.
pub fn start_scan(target: Target) -> ScanJob {
    start_scan_with_progress(target, Progress::new())
}

/// Starts a scan that reports on (and can be cancelled through) the given progress handle.
pub fn start_scan_with_progress(target: Target, progress: Progress) -> ScanJob {
    start_scan_with_options(target, progress, scan::ScanOptions::default())
}

/// Starts a scan that also imports each framework in a child process (the import probe).
pub fn start_probing_scan(target: Target) -> ScanJob {
    let opts = scan::ScanOptions {
        probe_imports: true,
        ..scan::ScanOptions::default()
    };
    start_scan_with_options(target, Progress::new(), opts)
}

fn start_scan_with_options(target: Target, progress: Progress, opts: scan::ScanOptions) -> ScanJob {
    Job::start(progress, move |progress| {
        progress.stage("Reading the machine", 1);
        let mut ctx = target.load(true)?;
        if progress.is_cancelled() {
            return Ok(ScanOutcome::Cancelled);
        }
        // What the rules read is recorded, so a report saved from this scan reopens anywhere.
        capture::start_recording(&mut ctx);
        let result = scan::run_with(&ctx, progress, &opts);
        if result.cancelled {
            return Ok(ScanOutcome::Cancelled);
        }
        let sets = match target {
            Target::Live | Target::PythonEnv(_) => sets::from_inventory(&ctx, &result.inventory),
            Target::MachineFile(_) => Vec::new(),
        };
        let suggestions = suggest::binaries(&ctx, &result.inventory);
        let document = result
            .into_document(&ctx)
            .with("snapshot", capture::ContextSnapshot::of(&ctx));
        Ok(ScanOutcome::Done(Box::new(document), sets, suggestions))
    })
}

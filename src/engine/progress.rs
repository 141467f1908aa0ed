//! Progress and cancellation for long engine work (czkawka's pattern): the worker reports
//! stages and counts through a [`Progress`] handle; the front end polls and can cancel. Every
//! kind of long work takes one: scans, trees, the GPU test's runner, fixes.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Shared between a worker and the front end that started it. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Shared on its own so that work which takes a bare flag (a fix's pip run) sees it too.
    cancelled: Arc<AtomicBool>,
    done: AtomicUsize,
    total: AtomicUsize,
    stage: Mutex<String>,
}

impl Progress {
    pub fn new() -> Progress {
        Progress::default()
    }

    /// Starts a named stage with an expected number of steps (0 when unknown).
    pub fn stage(&self, name: &str, total: usize) {
        if let Ok(mut s) = self.inner.stage.lock() {
            *s = name.to_string();
        }
        self.inner.total.store(total, Ordering::Relaxed);
        self.inner.done.store(0, Ordering::Relaxed);
    }

    /// Sets the stage and both counts at once (work that reports its own counts, like the GPU
    /// test's child process).
    pub fn set(&self, name: &str, done: usize, total: usize) {
        self.stage(name, total);
        self.inner.done.store(done, Ordering::Relaxed);
    }

    pub fn tick(&self) {
        self.inner.done.fetch_add(1, Ordering::Relaxed);
    }

    pub fn cancel(&self) {
        self.inner.cancelled.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::Relaxed)
    }

    /// The cancel flag itself, for work that polls a bare flag.
    pub fn cancel_flag(&self) -> Arc<AtomicBool> {
        self.inner.cancelled.clone()
    }

    /// The current stage's name, steps done and steps expected.
    pub fn snapshot(&self) -> (String, usize, usize) {
        let stage = self
            .inner
            .stage
            .lock()
            .map(|s| s.clone())
            .unwrap_or_default();
        (
            stage,
            self.inner.done.load(Ordering::Relaxed),
            self.inner.total.load(Ordering::Relaxed),
        )
    }
}

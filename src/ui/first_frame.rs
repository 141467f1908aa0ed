//! Start-up measurement, run by hand: with `CUDA_TRIAGE_EXIT_AFTER_FIRST_FRAME=1` the wizard
//! prints the time from `main` to its first painted frame on stderr and exits at once, so
//! `hyperfine` can time start-up to first frame (README, "Benchmarks"). Nothing else changes:
//! the renderer attempt that counts frames (`renderer::attempt`) calls [`painted`].

use std::sync::OnceLock;
use std::time::Instant;

/// The variable that asks for the measurement.
pub const VARIABLE: &str = "CUDA_TRIAGE_EXIT_AFTER_FIRST_FRAME";

static STARTED: OnceLock<Instant> = OnceLock::new();

/// Marks the process's start (the first thing `main` does).
pub fn mark_start() {
    STARTED.get_or_init(Instant::now);
}

/// Whether this run measures its start-up and exits.
pub fn requested() -> bool {
    std::env::var_os(VARIABLE).is_some_and(|v| v == "1")
}

/// Called once the first frame was painted (by the renderer attempt that counts frames): when
/// the measurement was asked for, prints the time since start and exits at once.
pub fn painted() {
    if !requested() {
        return;
    }
    let ms = STARTED
        .get()
        .map_or(0.0, |t| t.elapsed().as_secs_f64() * 1e3);
    eprintln!("cuda-triage: first frame painted {ms:.1} ms after start");
    // Exit at once: the process's lifetime is then start-up to first frame, which is what
    // `hyperfine` should time (closing the window and the GPU's teardown are not).
    std::process::exit(0);
}

//! Scan benchmark, run by hand (not a test: it asserts nothing and times everything): a
//! generated Linux machine with 3 CUDA toolkits, 20 Python environments and about 5,000 library
//! files, scanned through the engine's entry point as the command line does (load the machine
//! file, then `engine::api::scan`). Prints min / median / max of 10 runs and the machine file's
//! path, so the whole command can be timed too (`hyperfine 'cuda-triage scan --machine PATH'`).
//!
//! ```sh
//! cargo bench --bench scan
//! ```

// Tests and benchmarks may unwrap: a panic here is the failure report (Cargo.toml, [lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cuda_triage::engine::api::{self, Driver, Source};
use cuda_triage::engine::progress::Progress;
use cuda_triage::engine::scan::generated;
use std::time::Instant;

const RUNS: usize = 10;

fn main() {
    let dir = std::env::temp_dir().join("cuda-triage-scan-bench");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let (machine, libs) = generated::generate(&dir).expect("the generated machine is written");
    println!(
        "Generated {} (3 toolkits, 20 Python environments, {libs} library files).",
        machine.display()
    );
    let source = Source::machine_file(machine);
    let mut times = Vec::new();
    let mut findings = 0;
    for _ in 0..RUNS {
        let start = Instant::now();
        let ctx = api::load(&source, Driver::Skip).expect("the generated machine loads");
        let scanned =
            api::scan(&ctx, &Default::default(), &Progress::new()).expect("not cancelled");
        times.push(start.elapsed().as_secs_f64() * 1e3);
        findings = scanned.findings.len();
    }
    times.sort_by(f64::total_cmp);
    println!(
        "scan of the generated machine ({findings} findings), {RUNS} runs: min {:.1} ms, median {:.1} ms, max {:.1} ms",
        times[0],
        times[RUNS / 2],
        times[RUNS - 1]
    );
}

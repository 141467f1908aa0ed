//! Fleet benchmark, run by hand (not a test: it asserts nothing and times everything): 1,000
//! reports of realistic size (`fleet_reports`: this computer's and the seed machines' real
//! reports, varied per node) read into the fleet view — in process (`fleet_of`, then each
//! renderer) and as the whole `cuda-triage fleet DIR --json` process, with its peak memory.
//!
//! ```sh
//! cargo bench --bench fleet            # 1,000 reports, release
//! cargo bench --bench fleet -- 5000    # another count
//! CUDA_TRIAGE_BIN=target/release/cuda-triage cargo bench --profile dev --bench fleet
//!                                      # a quick build of the bench, the process timed in release
//! ```

// Tests and benchmarks may unwrap: a panic here is the failure report (Cargo.toml, [lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cuda_triage::engine::report::fleet;
use std::time::{Duration, Instant};

mod fleet_reports;

const RUNS: usize = 5;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Runs `cuda-triage fleet DIR --json` (output discarded) and returns its wall time and its
/// own peak resident memory in MiB (wait4's rusage of that one child).
#[allow(clippy::zombie_processes)] // reaped by wait4, which also gives its rusage
fn fleet_process(cli: &str, dir: &std::path::Path) -> (Duration, f64) {
    let start = Instant::now();
    let child = std::process::Command::new(cli)
        .arg("fleet")
        .arg(dir)
        .arg("--json")
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("the CLI runs");
    let mut status = 0;
    // SAFETY: wait4 reaps our own child and fills one rusage through a valid pointer.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    (start.elapsed(), usage.ru_maxrss as f64 / 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        return; // `cargo bench -- --list` and `cargo test --benches` ask this of harness = false
    }
    let n: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(1000);
    let dir = tempfile::tempdir().unwrap();
    let bytes = fleet_reports::write_fleet(dir.path(), n);
    println!(
        "{n} reports, {:.1} MB in all ({:.0} KB each on average), {} build, {} threads",
        bytes as f64 / 1e6,
        bytes as f64 / 1e3 / n as f64,
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
        std::thread::available_parallelism().map_or(1, |p| p.get())
    );

    let inputs = vec![dir.path().to_path_buf()];
    let mut view = fleet::fleet_of(&inputs, Default::default());
    let read = median(
        (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                view = fleet::fleet_of(&inputs, Default::default());
                start.elapsed()
            })
            .collect(),
    );
    println!(
        "read + build (fleet_of): median {:.0} ms of {RUNS}: {} machines, {} rows, {} columns ({} differ), {} findings, {} unreadable",
        ms(read),
        view.machines,
        view.rows.len(),
        view.columns.len(),
        view.differing().count(),
        view.findings.len(),
        view.unreadable.len()
    );
    let start = Instant::now();
    let again = fleet::fleet_of(&inputs, fleet::ReadOptions { rediagnose: true });
    println!(
        "read whole + re-diagnosed (--rediagnose): {:.0} ms, once: {} rows",
        ms(start.elapsed()),
        again.rows.len()
    );
    type Render = fn(&fleet::Fleet) -> String;
    let renders: [(&str, Render); 4] = [
        ("text", fleet::render_text),
        ("markdown", fleet::render_markdown),
        ("html", fleet::render_html),
        ("json", |f| serde_json::to_string_pretty(f).unwrap()),
    ];
    for (name, render) in renders {
        let start = Instant::now();
        let out = render(&view);
        println!(
            "render {name:<8} {:7.1} ms  ({} KB)",
            ms(start.elapsed()),
            out.len() / 1000
        );
    }

    let cli = std::env::var("CUDA_TRIAGE_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_cuda-triage").to_string());
    println!("the process timed: {cli}");
    let runs: Vec<(Duration, f64)> = (0..RUNS).map(|_| fleet_process(&cli, dir.path())).collect();
    let peak = runs.iter().map(|r| r.1).fold(0.0, f64::max);
    println!(
        "`cuda-triage fleet DIR --json` (whole process): median {:.0} ms of {RUNS}, peak memory {peak:.0} MiB",
        ms(median(runs.iter().map(|r| r.0).collect()))
    );
}

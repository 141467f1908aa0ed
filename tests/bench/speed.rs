//! Speed against the tools people compare us with, run by hand (not a test: it asserts nothing
//! and times whole processes, interleaved, so a busy machine slows every tool alike):
//!
//! - the static tree (`cuda-triage tree --no-runtime --json`) of the three largest real NVIDIA
//!   libraries of the PyPI wheels — `libcudnn_cnn_infer.so.8` (cuDNN 8.9.6), `libcublasLt.so.12`
//!   (cuBLAS 12.9), `libonnxruntime_providers_cuda.so` (onnxruntime-gpu 1.18) — against
//!   `libtree -p` and `lddtree` (Debian packages libtree and pax-utils);
//! - the scan (`cuda-triage scan --json`) of a real torch 2.5.1 CUDA venv against
//!   `python -m torch.utils.collect_env` in the same venv, both with only the venv in sight
//!   (`VIRTUAL_ENV` set, `HOME` the bench folder).
//!
//! The wheels come through the tests' cache (`tests/.cache/wheels`, see
//! `tests/integration/wheels.rs`); the venv is the tests' `tests/.cache/venvs/torch-2.5.1`
//! (made once with `python3 -m venv` and pip). Prints the medians of N runs (default 21; the first
//! argument that is a number overrides it) and the ratios the issue asks about. Each ratio comes
//! from its two tools interleaved with each other (cuda-triage with libtree, cuda-triage with
//! lddtree in a third as many rounds), so a slow tool's cold caches never fall on one side only. `BASELINE=/path/to/cuda-triage`
//! times another build in the same rounds (an older commit's release binary), as a last column.
//!
//! ```sh
//! cargo bench --bench speed            # or: cargo bench --bench speed -- 51
//! BASELINE=/tmp/cuda-triage-old cargo bench --bench speed
//! ```

// Tests and benchmarks may unwrap: a panic here is the failure report (Cargo.toml, [lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../integration/wheels.rs"]
mod wheels;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;
use wheels::{WheelPlatform, wheel_member};

const DEFAULT_RUNS: usize = 21;
const TORCH: &str = "2.5.1";

/// A tree target: label, wheel, version, members to extract (the first is the root).
const TREES: &[(&str, &str, &str, &[&str])] = &[
    (
        "libcudnn_cnn_infer.so.8 (cuDNN 8.9.6)",
        "nvidia-cudnn-cu12",
        "8.9.6.50",
        &["lib/libcudnn_cnn_infer.so.8", "lib/libcudnn_ops_infer.so.8"],
    ),
    (
        "libcublasLt.so.12 (cuBLAS 12.9)",
        "nvidia-cublas-cu12",
        "12.9.1.4",
        &["lib/libcublasLt.so.12", "lib/libcublas.so.12"],
    ),
    (
        "libonnxruntime_providers_cuda.so (onnxruntime-gpu 1.18)",
        "onnxruntime-gpu",
        "1.18.0",
        &[
            "capi/libonnxruntime_providers_cuda.so",
            "capi/libonnxruntime_providers_shared.so",
        ],
    ),
];

fn main() {
    let runs = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(DEFAULT_RUNS)
        .max(1);
    let exe = env!("CARGO_BIN_EXE_cuda-triage");
    let baseline = std::env::var("BASELINE").ok().filter(|b| !b.is_empty());
    println!("cuda-triage: {exe}; medians of {runs} interleaved runs of each command");
    if let Some(b) = &baseline {
        println!("baseline: {b}");
    }
    println!(
        "\n| tree | cuda-triage | libtree -p | lddtree | vs libtree | faster than lddtree | baseline |\n|---|---|---|---|---|---|---|"
    );
    for (label, dist, version, members) in TREES {
        let paths: Vec<PathBuf> = members
            .iter()
            .map(|m| wheel_member(dist, version, WheelPlatform::Linux, m))
            .collect();
        let lib = paths[0].to_string_lossy().into_owned();
        let ours = || cmd(exe, &["tree", "--no-runtime", "--json", &lib]);
        // Each comparison interleaves its own two tools: lddtree (a Python process of ~150 ms
        // that leaves the caches cold) never runs between cuda-triage and libtree.
        let mut fast = vec![ours(), cmd("libtree", &["-p", &lib])];
        if let Some(b) = &baseline {
            fast.push(cmd(b, &["tree", "--no-runtime", "--json", &lib]));
        }
        let t = medians(runs, &fast);
        let slow = medians(runs.div_ceil(3), &[ours(), cmd("lddtree", &[&lib])]);
        println!(
            "| {label} | {} | {} | {} | {} | {} | {} |",
            ms(t[0]),
            ms(t[1]),
            ms(slow[1]),
            ratio(t[0], t[1]),
            ratio(slow[1], slow[0]),
            baseline_text(t.get(2).copied().flatten(), t[1], slow[1])
        );
    }
    let venv = torch_venv();
    let bench_home = venv.parent().unwrap_or(&venv).to_path_buf();
    let python = venv.join("bin/python");
    let scan = in_venv(cmd(exe, &["scan", "--json"]), &venv, &bench_home);
    let collect = in_venv(
        cmd(
            &python.to_string_lossy(),
            &["-m", "torch.utils.collect_env"],
        ),
        &venv,
        &bench_home,
    );
    let mut specs = vec![scan, collect];
    if let Some(b) = &baseline {
        specs.push(in_venv(cmd(b, &["scan", "--json"]), &venv, &bench_home));
    }
    // collect_env takes seconds: fewer runs, still interleaved.
    let t = medians(runs.div_ceil(2), &specs);
    let base = t.get(2).copied().flatten();
    println!(
        "\n| scan | cuda-triage scan --json | python -m torch.utils.collect_env | faster | baseline |\n|---|---|---|---|---|\n| torch {TORCH} CUDA venv | {} | {} | {} | {} |",
        ms(t[0]),
        ms(t[1]),
        ratio(t[1], t[0]),
        base.map_or("—".into(), |b| format!(
            "{} ({} faster)",
            ms(Some(b)),
            ratio(t[1], Some(b))
        ))
    );
}

/// The baseline's time with its ratios to libtree and lddtree.
fn baseline_text(base: Option<f64>, libtree: Option<f64>, lddtree: Option<f64>) -> String {
    match base {
        Some(b) => format!(
            "{} ({} libtree, {} faster than lddtree)",
            ms(Some(b)),
            ratio(Some(b), libtree),
            ratio(lddtree, Some(b))
        ),
        None => "—".into(),
    }
}

/// One command to time: program, arguments and, when set, the whole environment.
struct Spec {
    program: String,
    args: Vec<String>,
    env: Option<Vec<(String, String)>>,
}

impl Spec {
    fn command(&self) -> Command {
        let mut c = Command::new(&self.program);
        c.args(&self.args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(env) = &self.env {
            c.env_clear().envs(env.iter().map(|(k, v)| (k, v)));
        }
        c
    }
}

fn cmd(program: &str, args: &[&str]) -> Spec {
    Spec {
        program: program.to_string(),
        args: args.iter().map(|a| a.to_string()).collect(),
        env: None,
    }
}

/// Only the venv in sight: a clean environment with the venv active.
fn in_venv(mut c: Spec, venv: &Path, home: &Path) -> Spec {
    c.env = Some(vec![
        (
            "PATH".into(),
            format!("{}:/usr/bin:/bin", venv.join("bin").display()),
        ),
        ("HOME".into(), home.display().to_string()),
        ("VIRTUAL_ENV".into(), venv.display().to_string()),
        ("LANG".into(), "C.UTF-8".into()),
    ]);
    c
}

/// Median wall time (ms) of each command over `runs` rounds, one run of each per round; `None`
/// for a command that cannot start (a tool not installed). The order turns by one each round, so
/// no command always runs right after the same other one.
fn medians(runs: usize, commands: &[Spec]) -> Vec<Option<f64>> {
    let mut times: Vec<Option<Vec<f64>>> = vec![Some(Vec::new()); commands.len()];
    for round in 0..runs {
        for k in 0..commands.len() {
            let i = (round + k) % commands.len();
            let (spec, t) = (&commands[i], &mut times[i]);
            let Some(list) = t else { continue };
            let start = Instant::now();
            match spec.command().status() {
                Ok(_) => list.push(start.elapsed().as_secs_f64() * 1e3),
                Err(e) => {
                    eprintln!("{}: {e}", spec.program);
                    *t = None;
                }
            }
        }
    }
    times
        .into_iter()
        .map(|t| {
            t.map(|mut v| {
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            })
        })
        .collect()
}

fn ms(t: Option<f64>) -> String {
    t.map_or("—".into(), |t| format!("{t:.1} ms"))
}

fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.1}×", a / b),
        _ => "—".into(),
    }
}

/// `tests/.cache/venvs/torch-2.5.1`: a venv with `pip install torch==2.5.1` (the CUDA 12.4 build
/// and its nvidia-* wheels), the one the "would it load" tests make (`closure_installs.rs`,
/// same path, same `.complete` marker), so the bench and the tests share its 4 GB; made here
/// the same way when the tests have not run yet.
fn torch_venv() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/.cache/venvs");
    let venv = dir.join(format!("torch-{TORCH}"));
    let marker = venv.join(".complete");
    if marker.is_file() {
        return venv;
    }
    std::fs::create_dir_all(&dir).expect("create tests/.cache/venvs");
    let run = |c: &mut Command| {
        let status = c.status().unwrap_or_else(|e| panic!("{c:?}: {e}"));
        assert!(status.success(), "{c:?} failed");
    };
    eprintln!("making {} (pip install torch=={TORCH})", venv.display());
    run(Command::new("python3").args(["-m", "venv"]).arg(&venv));
    run(Command::new(venv.join("bin/python"))
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .arg(format!("torch=={TORCH}")));
    std::fs::write(&marker, "").expect("mark the venv complete");
    venv
}

//! The parent side of the GPU test: starts this same executable as `gpu-test --child`, relays
//! its progress lines, enforces the time limit and the cancel flag, and turns however the child
//! ended (a result, a crash, a hang, garbage) into a [`GpuReport`] and findings. No GPU library is
//! ever loaded into the parent.

use super::protocol::{self, Event, Line};
use super::results::{ChildExit, ChildResult, GpuReport, SensorSample, Verdict, verdict};
use super::select::Selection;
use super::test_findings;
use crate::engine::context::SessionEnvironment;
use crate::engine::findings::Finding;
use crate::engine::progress::Progress;
use std::io::{BufRead, Read};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Default time limits: a full run (sizes up to 8192³) and a quick one.
pub const FULL_TIMEOUT: Duration = Duration::from_secs(600);
pub const QUICK_TIMEOUT: Duration = Duration::from_secs(120);
const LOG_LINES: usize = 40;

/// How to run the test.
#[derive(Debug, Clone)]
pub struct Options {
    pub selection: Selection,
    pub quick: bool,
    pub device: u32,
    pub timeout: Duration,
    /// The executable to start as the child; `None` = this one (`current_exe`).
    pub exe: Option<PathBuf>,
    /// The environment the child starts in (this process's, or the session's after a fix).
    pub session: SessionEnvironment,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            selection: Selection::default(),
            quick: false,
            device: 0,
            timeout: FULL_TIMEOUT,
            exe: None,
            session: SessionEnvironment::default(),
        }
    }
}

/// What the parent hears while the child runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    Progress {
        stage: String,
        done: usize,
        total: usize,
    },
    Sensors(SensorSample),
    Log(String),
}

/// The finished test: the report and its findings.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub report: GpuReport,
    pub findings: Vec<Finding>,
}

/// The arguments the child gets.
pub fn child_args(opts: &Options) -> Vec<String> {
    let mut args = vec!["gpu-test".to_string(), "--child".to_string()];
    args.extend(opts.selection.to_args());
    if opts.quick {
        args.push("--quick".into());
    }
    args.push("--device".into());
    args.push(opts.device.to_string());
    args
}

/// Runs the test in a child process. Never panics; every failure becomes a finding. The child's
/// progress lines also go into `progress` (stage and counts), whose cancel stops the child.
pub fn run(opts: &Options, progress: &Progress, mut on_update: impl FnMut(Update)) -> Outcome {
    let started = Instant::now();
    let exe = match opts
        .exe
        .clone()
        .map(Ok)
        .unwrap_or_else(std::env::current_exe)
    {
        Ok(exe) => exe,
        Err(e) => return not_started(opts, started, &format!("cannot find this executable: {e}")),
    };
    let spawned = opts
        .session
        .command(&exe)
        .args(child_args(opts))
        // FP32 must mean FP32: this variable would silently turn SGEMM into TF32.
        .env_remove("NVIDIA_TF32_OVERRIDE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => return not_started(opts, started, &format!("{}: {e}", exe.display())),
    };
    let (tx, rx) = mpsc::channel::<Line>();
    let stderr_reader = child.stderr.take().map(|err| {
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(err).lines() {
                let Ok(line) = line else { break };
                if tx.send(protocol::parse(&line)).is_err() {
                    break;
                }
            }
        })
    });
    let stdout_reader = child.stdout.take().map(|mut out| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = out.read_to_string(&mut text);
            text
        })
    });

    let mut log_tail: Vec<String> = Vec::new();
    let mut sensors = Vec::new();
    let mut last_stage: Option<String> = None;
    let mut handle = |line: Line, on_update: &mut dyn FnMut(Update)| match line {
        Line::Event(Event::Progress { stage, done, total }) => {
            progress.set(&stage, done, total);
            last_stage = Some(stage.clone());
            on_update(Update::Progress { stage, done, total });
        }
        Line::Event(Event::Sensors(s)) => {
            sensors.push(s.clone());
            on_update(Update::Sensors(s));
        }
        Line::Text(text) if !text.trim().is_empty() => {
            log_tail.push(text.clone());
            if log_tail.len() > LOG_LINES {
                log_tail.remove(0);
            }
            on_update(Update::Log(text));
        }
        Line::Text(_) => {}
    };

    let deadline = started + opts.timeout;
    let exit = loop {
        while let Ok(line) = rx.try_recv() {
            handle(line, &mut on_update);
        }
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) => {}
            Err(e) => {
                break Err(ChildExit::Crashed {
                    description: format!("lost track of the process: {e}"),
                });
            }
        }
        if progress.is_cancelled() {
            let _ = child.kill();
            let _ = child.wait();
            break Err(ChildExit::Cancelled);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break Err(ChildExit::TimedOut {
                after_s: opts.timeout.as_secs(),
            });
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    if let Some(r) = stderr_reader {
        let _ = r.join();
    }
    while let Ok(line) = rx.try_recv() {
        handle(line, &mut on_update);
    }
    let stdout = stdout_reader
        .and_then(|r| r.join().ok())
        .unwrap_or_default();

    let (child_exit, parsed) = match exit {
        Err(e) => (e, None),
        Ok(status) => interpret(status, &stdout),
    };
    finish(
        opts, started, child_exit, parsed, sensors, log_tail, last_stage,
    )
}

/// Why the child's standard output holds no result (it exited normally).
#[derive(Debug, thiserror::Error)]
enum BadOutput {
    #[error("invalid JSON ({0})")]
    InvalidJson(serde_json::Error),
    #[error("no output")]
    Nothing,
}

/// How the child ended and its result, from its exit status and standard output.
fn interpret(
    status: std::process::ExitStatus,
    stdout: &str,
) -> (ChildExit, Option<Result<ChildResult, BadOutput>>) {
    let parsed = stdout
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with('{'))
        .map(|l| serde_json::from_str::<ChildResult>(l).map_err(BadOutput::InvalidJson));
    if let Some(description) = abnormal_end(&status) {
        return (ChildExit::Crashed { description }, None);
    }
    let code = status.code().unwrap_or(-1);
    match parsed {
        Some(Ok(r)) if code == 0 => (ChildExit::Finished { code }, Some(Ok(r))),
        Some(Err(e)) => (ChildExit::Finished { code }, Some(Err(e))),
        _ if code != 0 => (
            ChildExit::Crashed {
                description: format!("exited with code {code}"),
            },
            None,
        ),
        _ => (ChildExit::Finished { code }, Some(Err(BadOutput::Nothing))),
    }
}

/// A signal (Unix) or an exception code (Windows) in words; `None` for an ordinary exit.
pub fn abnormal_end(status: &std::process::ExitStatus) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return Some(format!("killed by signal {sig} ({})", signal_name(sig)));
        }
    }
    #[cfg(windows)]
    {
        if let Some(code) = status.code()
            && (code as u32) >= 0xC000_0000
        {
            return Some(format!(
                "exception 0x{:08X} ({})",
                code as u32,
                windows_exception_name(code as u32)
            ));
        }
    }
    let _ = status;
    None
}

pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        15 => "SIGTERM",
        _ => "signal",
    }
}

pub fn windows_exception_name(code: u32) -> &'static str {
    match code {
        0xC000_0005 => "access violation",
        0xC000_0135 => "a DLL was not found",
        0xC000_0139 => "an entry point was not found",
        0xC000_0409 => "stack buffer overrun / fail-fast abort",
        0xC000_001D => "illegal instruction",
        0xC000_00FD => "stack overflow",
        _ => "unhandled exception",
    }
}

fn not_started(opts: &Options, started: Instant, message: &str) -> Outcome {
    let exit = ChildExit::NotStarted {
        message: message.to_string(),
    };
    finish(opts, started, exit, None, Vec::new(), Vec::new(), None)
}

fn finish(
    opts: &Options,
    started: Instant,
    exit: ChildExit,
    parsed: Option<Result<ChildResult, BadOutput>>,
    parent_sensors: Vec<SensorSample>,
    log_tail: Vec<String>,
    last_stage: Option<String>,
) -> Outcome {
    let mut findings = Vec::new();
    let result = match parsed {
        Some(Ok(r)) => r,
        Some(Err(e)) => {
            findings.push(test_findings::bad_output(&e.to_string(), &log_tail));
            ChildResult::default()
        }
        None => ChildResult::default(),
    };
    match &exit {
        ChildExit::Crashed { description } => findings.push(test_findings::crashed(
            description,
            last_stage.as_deref(),
            &log_tail,
        )),
        ChildExit::TimedOut { after_s } => {
            findings.push(test_findings::timed_out(*after_s, last_stage.as_deref()))
        }
        ChildExit::NotStarted { message } => findings.push(test_findings::not_started(message)),
        ChildExit::Cancelled | ChildExit::Finished { .. } => {}
    }
    findings.extend(result.findings.iter().cloned());
    let verdict = verdict(&exit, &result.workloads, &findings);
    let sensors = if result.sensors.is_empty() {
        parent_sensors
    } else {
        result.sensors
    };
    let report = GpuReport {
        verdict,
        summary: summary(verdict, &exit, &result.workloads, &findings),
        quick: opts.quick,
        wall_s: started.elapsed().as_secs_f64(),
        child: exit,
        device: result.device,
        libraries: result.libraries,
        workloads: result.workloads,
        sensors,
        log_tail,
    };
    Outcome { report, findings }
}

/// One sentence for the verdict.
pub fn summary(
    verdict: Verdict,
    exit: &ChildExit,
    workloads: &[super::results::WorkloadResult],
    findings: &[Finding],
) -> String {
    let correct = workloads.iter().filter(|w| w.correctness.passed).count();
    match (verdict, exit) {
        (_, ChildExit::Cancelled) => "The GPU test was cancelled.".into(),
        (Verdict::Passed, _) => format!(
            "All {} workloads ran and gave correct results.",
            workloads.len()
        ),
        (Verdict::Incorrect, _) => format!(
            "{} of {} workloads gave wrong results.",
            workloads.len() - correct,
            workloads.len()
        ),
        (Verdict::Incomplete, _) => format!(
            "{} workloads ran correctly; some could not run (see the findings).",
            workloads.len()
        ),
        (Verdict::Failed, _) => findings
            .iter()
            .find(|f| f.severity == crate::engine::findings::Severity::Error)
            .map(|f| f.summary.clone())
            .unwrap_or_else(|| "The GPU test could not run.".into()),
    }
}

#[cfg(test)]
mod tests;

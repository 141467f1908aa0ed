//! Reading a fleet's reports: every `*.json` of the folders given (not their subfolders) and the
//! files given, on a few threads. Only what the matrix shows is kept of each report — the
//! recorded file view (`snapshot`, most of a report's bytes) is skipped while parsing — so a
//! thousand reports take the memory of a thousand rows. A report that cannot be read is listed
//! with the reason, never dropped in silence. On request each report is read whole and
//! re-diagnosed by this build's rules instead (`fleet --rediagnose`).

use super::facts::{MachineFacts, machine_facts};
use crate::engine::context::MachineSummary;
use crate::engine::findings::Finding;
use crate::engine::gpu::results::GpuReport;
use crate::engine::inventory::Inventory;
use crate::engine::report::reopen::rediagnose;
use crate::engine::report::{Report, SCHEMA};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A report the fleet view could not read, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Unreadable {
    pub path: String,
    pub error: String,
}

/// The parts of a saved report the fleet view reads; serde skips every other key.
#[derive(Deserialize)]
struct FleetInput {
    schema: String,
    machine: MachineSummary,
    findings: Vec<Finding>,
    #[serde(default)]
    inventory: Option<Inventory>,
    #[serde(default)]
    gpu: Option<GpuReport>,
    #[serde(default)]
    label: Option<String>,
}

/// The report files a list of paths names: a folder's `*.json` (sorted), or the file itself.
pub fn report_paths(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, Unreadable> {
    let mut out = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let entries = std::fs::read_dir(input).map_err(|e| Unreadable {
                path: input.display().to_string(),
                error: format!("cannot list the folder: {e}"),
            })?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.is_file()
                        && p.extension()
                            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
                })
                .collect();
            found.sort();
            out.extend(found);
        } else {
            out.push(input.clone());
        }
    }
    Ok(out)
}

/// A report file's name without `.json`: the label of a report that carries none.
fn file_label(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// How the reports are read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Run this build's rules again on each report's snapshot (as `open` does: [`rediagnose`])
    /// instead of taking its saved findings; reads each report whole, so it is slower.
    pub rediagnose: bool,
}

/// One report's facts. A file the fast reader refuses is read again by [`Report::load`], whose
/// error names the cause (not JSON, not a report, a newer schema).
pub fn read_one(path: &Path, options: ReadOptions) -> Result<MachineFacts, Unreadable> {
    let shown = path.display().to_string();
    let unreadable = |error: String| Unreadable {
        path: shown.clone(),
        error,
    };
    if options.rediagnose {
        let doc = rediagnose(Report::load(path).map_err(|e| unreadable(e.to_string()))?).document;
        let label = doc.label.clone().unwrap_or_else(|| file_label(path));
        return Ok(machine_facts(label, shown, &doc));
    }
    let bytes = std::fs::read(path).map_err(|e| unreadable(format!("cannot read: {e}")))?;
    let input: FleetInput = match serde_json::from_slice(&bytes) {
        Ok(input) => input,
        Err(parse) => {
            return Err(match Report::load(path) {
                Err(e) => unreadable(e.to_string()),
                Ok(_) => unreadable(format!("not a CUDA Triage report: {parse}")),
            });
        }
    };
    if input.schema != SCHEMA {
        return Err(match Report::load(path) {
            Err(e) => unreadable(e.to_string()),
            Ok(_) => unreadable(format!("schema {}", input.schema)),
        });
    }
    let mut doc = Report::for_machine(input.machine, input.findings);
    doc.inventory = input.inventory;
    doc.gpu = input.gpu;
    let label = input.label.unwrap_or_else(|| file_label(path));
    Ok(machine_facts(label, shown, &doc))
}

/// Reads every report on `threads` threads, in the order of `paths`.
pub fn read_all(
    paths: &[PathBuf],
    threads: usize,
    options: ReadOptions,
) -> (Vec<MachineFacts>, Vec<Unreadable>) {
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<Result<MachineFacts, Unreadable>>>> =
        Mutex::new(vec![None; paths.len()]);
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, paths.len().max(1)) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = paths.get(i) else { break };
                    let read = read_one(path, options);
                    if let Ok(mut slots) = slots.lock() {
                        slots[i] = Some(read);
                    }
                }
            });
        }
    });
    let mut machines = Vec::new();
    let mut unreadable = Vec::new();
    let slots = slots.into_inner().unwrap_or_default();
    for read in slots.into_iter().flatten() {
        match read {
            Ok(m) => machines.push(m),
            Err(u) => unreadable.push(u),
        }
    }
    (machines, unreadable)
}

//! State of the GPU step: the library selection, the test running in a child process from a
//! worker thread ([`GpuJob`]) and what it reported, and how a finished test enters the document.

use crate::engine::findings::sort_by_severity;
use crate::engine::gpu::results::{GpuReport, Role, SensorSample};
use crate::engine::gpu::runner::{self, Options, Outcome, Update};
use crate::engine::gpu::select::{self, Selection};
use crate::engine::gpu::sets::LibrarySet;
use crate::engine::report::Report;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};

/// What the GPU step asks the app to do.
#[derive(Debug, Clone, PartialEq)]
pub enum GpuCommand {
    Start,
    Cancel,
    SetQuick(bool),
    SetPath(Role, String),
    SetDir(String),
    PickDir,
    /// Fill the fields from one of the sets the scan offers.
    ChooseSet(usize),
}

/// Messages from the worker thread.
enum Message {
    Update(Update),
    /// The outcome, and a document of this computer for when the wizard has none yet.
    Done(Box<(Outcome, Report)>),
}

/// A test running in a child process, driven from a worker thread.
pub struct GpuJob {
    cancel: Arc<AtomicBool>,
    receiver: Receiver<Message>,
}

impl GpuJob {
    pub fn start(opts: Options) -> GpuJob {
        let cancel = Arc::new(AtomicBool::new(false));
        let (tx, rx) = channel();
        let flag = cancel.clone();
        let spawned = std::thread::Builder::new()
            .name("gpu-test".into())
            .spawn(move || {
                let updates = tx.clone();
                let outcome = runner::run(&opts, &flag, |u| {
                    let _ = updates.send(Message::Update(u));
                });
                let this_computer = crate::engine::api::load(
                    &crate::engine::api::Source::Live,
                    crate::engine::api::Driver::Ask,
                )
                .expect("this computer always loads");
                let base = Report::new(&this_computer, Vec::new());
                let _ = tx.send(Message::Done(Box::new((outcome, base))));
            });
        if spawned.is_err() {
            // The receiver reports a disconnected worker; poll() then ends the job.
            let (_, rx) = channel();
            return GpuJob {
                cancel,
                receiver: rx,
            };
        }
        GpuJob {
            cancel,
            receiver: rx,
        }
    }

    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// The step's state: the selection, a running job and what it has said so far.
#[derive(Default)]
pub struct GpuTestState {
    pub quick: bool,
    pub paths: [String; 4],
    pub dir: String,
    pub job: Option<GpuJob>,
    pub stage: String,
    pub done: usize,
    pub total: usize,
    pub latest_sensors: Option<SensorSample>,
    pub log: Vec<String>,
    /// The last finished test of this session.
    pub result: Option<GpuReport>,
    /// The executable started as the child (tests point it at the built binary).
    pub exe: Option<PathBuf>,
    /// What the last live scan offers to test: each framework's files, each toolkit's.
    pub sets: Vec<LibrarySet>,
    /// The set the fields were last filled from.
    pub chosen_set: Option<usize>,
}

impl GpuTestState {
    pub fn running(&self) -> bool {
        self.job.is_some()
    }

    /// Takes the sets a scan offers; the first one fills the fields unless the user has already
    /// typed a file or a folder (a test of what the framework really loads, by default).
    pub fn offer_sets(&mut self, sets: Vec<LibrarySet>) {
        self.sets = sets;
        self.chosen_set = None;
        let untouched =
            self.paths.iter().all(|p| p.trim().is_empty()) && self.dir.trim().is_empty();
        if untouched && !self.sets.is_empty() {
            self.choose_set(0);
        }
    }

    /// Fills the four fields from set `index` (empty where the set leaves the OS to choose).
    pub fn choose_set(&mut self, index: usize) {
        let Some(set) = self.sets.get(index) else {
            return;
        };
        for role in Role::ALL {
            self.paths[role_index(role)] = set
                .selection
                .get(role)
                .map(|p| p.display().to_string())
                .unwrap_or_default();
        }
        self.dir.clear();
        self.chosen_set = Some(index);
    }

    /// The options for a run from the current fields.
    pub fn options(&self) -> Options {
        let path = |i: usize| {
            let t = self.paths[i].trim();
            (!t.is_empty()).then(|| PathBuf::from(t))
        };
        let mut selection = Selection {
            driver: path(0),
            cudart: path(1),
            cublas: path(2),
            cudnn: path(3),
        };
        let dir = self.dir.trim();
        if !dir.is_empty() {
            selection.fill_from(
                &select::list_files(std::path::Path::new(dir)),
                cfg!(windows),
            );
        }
        Options {
            selection,
            quick: self.quick,
            timeout: if self.quick {
                runner::QUICK_TIMEOUT
            } else {
                runner::FULL_TIMEOUT
            },
            exe: self.exe.clone(),
            ..Options::default()
        }
    }

    /// Drains the worker's messages; the outcome (and a base document) once the test finished.
    pub fn poll(&mut self) -> Option<(Outcome, Report)> {
        let job = self.job.as_ref()?;
        loop {
            match job.receiver.try_recv() {
                Ok(Message::Update(Update::Progress { stage, done, total })) => {
                    self.stage = stage;
                    self.done = done;
                    self.total = total;
                }
                Ok(Message::Update(Update::Sensors(s))) => self.latest_sensors = Some(s),
                Ok(Message::Update(Update::Log(line))) => {
                    self.log.push(line);
                    if self.log.len() > 200 {
                        self.log.remove(0);
                    }
                }
                Ok(Message::Done(done)) => {
                    self.job = None;
                    self.result = Some(done.0.report.clone());
                    return Some(*done);
                }
                Err(TryRecvError::Empty) => return None,
                Err(TryRecvError::Disconnected) => {
                    self.job = None;
                    return None;
                }
            }
        }
    }
}

pub fn role_index(role: Role) -> usize {
    Role::ALL.iter().position(|r| *r == role).unwrap_or(0)
}

/// Puts a finished test into a document: replaces earlier GPU-test findings and the `"gpu"` key.
pub fn merge(mut doc: Report, outcome: &Outcome) -> Report {
    doc.findings.retain(|f| !f.code.starts_with("gpu-test-"));
    doc.findings.extend(outcome.findings.iter().cloned());
    sort_by_severity(&mut doc.findings);
    doc.gpu = Some(outcome.report.clone());
    doc
}

/// The GPU report a document carries, if any.
pub fn report_in(doc: &Report) -> Option<GpuReport> {
    doc.gpu.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document() -> Report {
        serde_json::from_value(serde_json::json!({
            "schema": "cuda-triage/1",
            "machine": {"platform": "linux", "wsl": false, "source": {"kind": "live"}},
            "findings": [
                {"code": "gpu-test-timeout", "severity": "error", "summary": "old", "detail": ""},
                {"code": "no-nvidia-driver", "severity": "error", "summary": "kept", "detail": ""}
            ]
        }))
        .unwrap()
    }

    #[test]
    fn a_finished_test_replaces_the_previous_one_in_the_document() {
        let opts = Options {
            exe: Some("/no/such/cuda-triage".into()),
            ..Options::default()
        };
        let outcome = runner::run(&opts, &AtomicBool::new(false), |_| {});
        let merged = merge(document(), &outcome);
        let codes: Vec<&str> = merged.findings.iter().map(|f| f.code.as_str()).collect();
        assert_eq!(codes, ["no-nvidia-driver", "gpu-test-not-started"]);
        let report = report_in(&merged).expect("the gpu key reads back");
        assert_eq!(report.verdict, crate::engine::gpu::results::Verdict::Failed);
        assert!(report_in(&document()).is_none());
    }

    #[test]
    fn options_come_from_the_fields() {
        let state = GpuTestState {
            quick: true,
            paths: [
                "/d/libcuda.so.1".into(),
                String::new(),
                " ".into(),
                String::new(),
            ],
            ..Default::default()
        };
        let opts = state.options();
        assert!(opts.quick);
        assert_eq!(opts.timeout, runner::QUICK_TIMEOUT);
        assert_eq!(opts.selection.driver, Some("/d/libcuda.so.1".into()));
        assert_eq!(opts.selection.cublas, None);
        assert_eq!(role_index(Role::Cudnn), 3);
    }
}

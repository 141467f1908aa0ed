//! State of the GPU step: the library selection, the test running in a child process from a
//! worker thread (a [`GpuJob`], started by the app) and what it reported, and how a finished test
//! enters the document.

use crate::engine::api::gpu::{
    self, GpuReport, LibrarySet, Options, Outcome, Role, Selection, SensorSample, Update,
};
use crate::engine::api::{Report, SessionEnvironment};
pub use crate::ui::worker::GpuJob;
use std::path::PathBuf;

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

/// The step's state: the selection, a running job and what it has said so far.
#[derive(Default)]
pub struct GpuTestState {
    pub quick: bool,
    pub paths: [String; 4],
    pub dir: String,
    pub job: Option<GpuJob>,
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

    /// The options for a run from the current fields, its child started in `session`'s
    /// environment (the one this computer is diagnosed in).
    pub fn options(&self, session: &SessionEnvironment) -> Options {
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
            selection.fill_from(&gpu::list_files(std::path::Path::new(dir)), cfg!(windows));
        }
        Options {
            selection,
            quick: self.quick,
            timeout: if self.quick {
                gpu::QUICK_TIMEOUT
            } else {
                gpu::FULL_TIMEOUT
            },
            exe: self.exe.clone(),
            session: session.clone(),
            ..Options::default()
        }
    }

    /// The running test's stage, steps done and steps expected.
    pub fn progress(&self) -> Option<(String, usize, usize)> {
        self.job.as_ref().map(|j| j.progress.snapshot())
    }

    /// Takes the worker's updates in; the outcome (and a base document) once the test finished,
    /// or the error that stopped the worker.
    pub fn poll(&mut self) -> Option<anyhow::Result<(Outcome, Report)>> {
        let job = self.job.as_ref()?;
        let outcome = job.poll();
        for update in job.updates() {
            match update {
                // The stage and counts are in the job's progress already.
                Update::Progress { .. } => {}
                Update::Sensors(s) => self.latest_sensors = Some(s),
                Update::Log(line) => {
                    self.log.push(line);
                    if self.log.len() > 200 {
                        self.log.remove(0);
                    }
                }
            }
        }
        let outcome = outcome?;
        self.job = None;
        Some(outcome.map(|done| {
            self.result = Some(done.0.report.clone());
            *done
        }))
    }
}

pub fn role_index(role: Role) -> usize {
    Role::ALL.iter().position(|r| *r == role).unwrap_or(0)
}

/// The GPU report a document carries, if any.
pub fn report_in(doc: &Report) -> Option<GpuReport> {
    doc.gpu.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let opts = state.options(&SessionEnvironment::this_process());
        assert!(opts.quick);
        assert_eq!(opts.timeout, gpu::QUICK_TIMEOUT);
        assert_eq!(opts.selection.driver, Some("/d/libcuda.so.1".into()));
        assert_eq!(opts.selection.cublas, None);
        assert_eq!(role_index(Role::Cudnn), 3);
    }
}

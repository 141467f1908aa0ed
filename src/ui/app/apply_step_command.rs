//! The GPU and Fix steps' commands, carried out after the frame is drawn like every other
//! `UiCommand`: they change the step's state and start its jobs (the GPU test; a fix's plan,
//! apply and undo), which `jobs` polls with the rest.

use super::TriageApp;
use crate::ui::steps::fix_state::FixCommand;
use crate::ui::steps::gpu_state::role_index;
use crate::ui::steps::gpu_test::{GpuCommand, can_run};
use crate::ui::worker;

impl TriageApp {
    /// Runs, cancels or configures the live GPU test.
    pub(super) fn apply_gpu(&mut self, command: GpuCommand) {
        let runnable = can_run(&self.shown());
        let state = &mut self.gpu;
        match command {
            GpuCommand::Start => {
                if !state.running() && runnable {
                    state.log.clear();
                    state.latest_sensors = None;
                    state.job = Some(worker::start_gpu_test(state.options(&self.target.session)));
                    self.status = "GPU test running...".into();
                }
            }
            GpuCommand::Cancel => {
                if let Some(job) = &state.job {
                    job.cancel();
                    self.status = "Cancelling the GPU test...".into();
                }
            }
            GpuCommand::SetQuick(q) => state.quick = q,
            GpuCommand::SetPath(role, text) => {
                state.paths[role_index(role)] = text;
                state.chosen_set = None;
            }
            GpuCommand::SetDir(dir) => {
                state.dir = dir;
                state.chosen_set = None;
            }
            GpuCommand::ChooseSet(index) => state.choose_set(index),
            GpuCommand::PickDir => {
                if let Some(dir) = rfd::FileDialog::new().pick_folder() {
                    state.dir = dir.display().to_string();
                    state.chosen_set = None;
                }
            }
        }
    }

    /// Runs the Fix step's commands: plans for the preview, apply, undo, cancel, history.
    pub(super) fn apply_fix(&mut self, command: FixCommand) {
        let findings = || {
            self.document
                .as_ref()
                .map(|d| d.findings.clone())
                .unwrap_or_default()
        };
        let replan = match command {
            FixCommand::Focus(id) => {
                self.fix.focused = Some(id);
                true
            }
            FixCommand::Toggle(id) => {
                if !self.fix.checked.remove(&id) {
                    self.fix.checked.insert(id);
                }
                false
            }
            FixCommand::SetScope(scope) => {
                self.fix.scope = scope;
                true
            }
            FixCommand::ApplyChecked => {
                let state = &self.fix;
                if !state.busy() && self.target.is_this_computer() && !state.checked.is_empty() {
                    let ids = state.checked.iter().cloned().collect();
                    let job = worker::start_fix_apply(
                        self.target.clone(),
                        findings(),
                        ids,
                        state.options(),
                    );
                    self.fix.results.clear();
                    self.fix.live.clear();
                    self.fix.apply_job = Some(job);
                }
                false
            }
            FixCommand::Undo(id) => {
                if !self.fix.busy() {
                    self.fix.apply_job = Some(worker::start_fix_undo(id));
                }
                false
            }
            FixCommand::RefreshHistory => {
                if self.fix.history_job.is_none() {
                    self.fix.history_job = Some(worker::start_fix_history());
                }
                false
            }
            FixCommand::Cancel => {
                if let Some(job) = &self.fix.apply_job {
                    job.cancel();
                }
                false
            }
            FixCommand::EditCopySource(text) => {
                self.fix.copy_from = text;
                false
            }
            FixCommand::UseCopySource => true,
            FixCommand::PickCopySource => match rfd::FileDialog::new().pick_file() {
                Some(file) => {
                    self.fix.copy_from = file.display().to_string();
                    true
                }
                None => false,
            },
        };
        if replan && let Some(id) = self.fix.focused.clone() {
            self.fix.preview = None;
            self.fix.plan_job = Some(worker::start_fix_plan(
                self.target.clone(),
                findings(),
                id,
                self.fix.options(),
            ));
        }
    }
}

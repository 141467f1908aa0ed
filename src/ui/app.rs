//! The wizard's state and frame loop. State is plain data; step functions emit commands that
//! `apply` carries out after drawing; the scan runs on a worker thread polled each frame.

use super::prefs::Prefs;
use super::steps::dependencies::DependenciesState;
use super::steps::{self, Step, UiCommand};
use super::theme;
use super::worker::{ScanJob, ScanOutcome, Source};
use crate::engine::report::Report;

mod commands;

/// A report file dropped onto the window opens it.
fn dropped_file_commands(ctx: &egui::Context, commands: &mut Vec<UiCommand>) {
    let dropped = ctx.input(|i| {
        i.raw
            .dropped_files
            .iter()
            .map(|f| f.path().to_path_buf())
            .collect::<Vec<_>>()
    });
    commands.extend(dropped.into_iter().map(UiCommand::OpenDropped));
}

/// Where the scan stands.
pub enum ScanState {
    NotStarted,
    Running(ScanJob),
    Done,
    Cancelled,
    Failed(String),
}

/// The whole wizard.
pub struct TriageApp {
    pub step: Step,
    pub target: Source,
    pub scan: ScanState,
    /// The current result: from a scan, or a reopened report.
    pub document: Option<Report>,
    pub dark_mode: bool,
    /// Reports opened or saved lately, most recent first (remembered between runs).
    pub recent_reports: Vec<String>,
    pub status: String,
    pub last_saved_report: Option<String>,
    /// The Welcome step's paste box and its triage.
    pub paste: super::paste::PasteState,
    /// The Dependencies step's own state.
    pub deps: DependenciesState,
    /// Text to put on the clipboard at the end of the frame.
    clipboard: Vec<String>,
    /// The live GPU test: selection, running job, last result.
    pub gpu: steps::gpu_test::GpuTestState,
    /// The Report step's choices and comparison.
    pub report: super::report_export::ReportState,
    /// The Fix step's checklist, preview, jobs and history.
    pub fix: steps::fix_state::FixState,
    theme_applied: Option<bool>,
}

impl TriageApp {
    pub fn new(target: Source) -> TriageApp {
        TriageApp {
            step: Step::Welcome,
            target,
            scan: ScanState::NotStarted,
            document: None,
            dark_mode: true,
            recent_reports: Vec::new(),
            status: "Ready.".into(),
            last_saved_report: None,
            paste: Default::default(),
            deps: DependenciesState::default(),
            clipboard: Vec::new(),
            gpu: Default::default(),
            report: Default::default(),
            fix: Default::default(),
            theme_applied: None,
        }
    }

    /// A wizard showing a saved report, opened on its findings.
    pub fn with_report(target: Source, document: Report, path: &str) -> TriageApp {
        let mut app = TriageApp::new(target);
        app.document = Some(document);
        app.scan = ScanState::Done;
        app.step = Step::Findings;
        app.status = format!("Opened report {path}.");
        app
    }

    /// What is remembered between runs.
    pub fn prefs(&self) -> Prefs {
        Prefs {
            dark_mode: self.dark_mode,
            recent_reports: self.recent_reports.clone(),
        }
    }

    pub fn restore(&mut self, prefs: Prefs) {
        self.dark_mode = prefs.dark_mode;
        self.recent_reports = prefs.recent_reports;
    }

    pub fn target_description(&self) -> String {
        if let Some(doc) = &self.document
            && let crate::engine::context::ContextSource::Report(_) = doc.machine.source
        {
            return doc.machine.source.describe();
        }
        self.target.describe()
    }

    /// Draws one frame into `ui` and applies what it asked for. Used by eframe and by tests.
    pub fn frame_ui(&mut self, ui: &mut egui::Ui) {
        if self.theme_applied != Some(self.dark_mode) {
            theme::apply(ui.ctx(), self.dark_mode);
            self.theme_applied = Some(self.dark_mode);
        }
        self.poll_scan(ui.ctx());
        match self.paste.poll() {
            None if self.paste.job.is_some() => ui
                .ctx()
                .request_repaint_after(std::time::Duration::from_millis(100)),
            Some(true) => {
                self.status = "Explained the pasted text: see Findings.".into();
                self.step = Step::Findings;
            }
            Some(false) => {
                self.status = format!(
                    "Could not explain the text: {}",
                    self.paste.error.clone().unwrap_or_default()
                )
            }
            None => {}
        }
        let tree_was_running = self.deps.job.is_some();
        if self.deps.poll() {
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(100));
        } else if tree_was_running {
            self.status = match (&self.deps.result, &self.deps.error) {
                (_, Some(e)) => format!("Could not build the dependency tree: {e}"),
                (Some(r), None) => format!(
                    "Dependency tree of {}: {} libraries.",
                    r.graph.root,
                    r.graph.nodes.len()
                ),
                (None, None) => String::new(),
            };
        }
        self.poll_gpu(ui.ctx());
        if self.fix.poll() {
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(100));
        }
        let mut commands = Vec::new();
        dropped_file_commands(ui.ctx(), &mut commands);
        self.keyboard_commands(ui.ctx(), &mut commands);
        egui::Panel::bottom("status_bar").show(ui, |ui| self.status_bar_ui(ui, &mut commands));
        egui::Panel::left("step_list")
            .exact_size(theme::STEP_LIST_WIDTH)
            .show(ui, |ui| self.step_list_ui(ui, &mut commands));
        egui::CentralPanel::default_margins().show(ui, |ui| {
            if self.step == Step::Dependencies {
                // Its tree scrolls by itself (virtualised rows), so no outer scroll area.
                steps::dependencies::dependencies_ui(
                    ui,
                    &mut self.deps,
                    self.dark_mode,
                    &mut commands,
                );
                return;
            }
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, |ui| match self.step {
                    Step::Welcome => steps::welcome::welcome_ui(ui, self, &mut commands),
                    Step::Scan => steps::scan::scan_ui(ui, self, &mut commands),
                    Step::Findings => steps::findings::findings_ui(ui, self, &mut commands),
                    Step::Dependencies => {}
                    Step::GpuTest => steps::gpu_test::gpu_test_ui(ui, self, &mut commands),
                    Step::Fix => steps::fix::fix_ui(ui, self, &mut commands),
                    Step::Report => steps::report::report_ui(ui, self, &mut commands),
                });
        });
        for command in commands {
            self.apply(command);
        }
        for text in self.clipboard.drain(..) {
            ui.ctx().copy_text(text);
        }
    }

    fn step_list_ui(&self, ui: &mut egui::Ui, commands: &mut Vec<UiCommand>) {
        ui.add_space(8.0);
        ui.heading("CUDA Triage");
        ui.add_space(8.0);
        for step in Step::ALL {
            let label = format!("{}. {}", step.index() + 1, step.title());
            if ui.selectable_label(self.step == step, label).clicked() {
                commands.push(UiCommand::GoTo(step));
            }
        }
    }

    fn status_bar_ui(&self, ui: &mut egui::Ui, commands: &mut Vec<UiCommand>) {
        ui.add_space(4.0);
        ui.horizontal(|ui| {
            ui.add_enabled_ui(self.step.previous().is_some(), |ui| {
                if ui.button("Back").clicked()
                    && let Some(prev) = self.step.previous()
                {
                    commands.push(UiCommand::GoTo(prev));
                }
            });
            ui.add_enabled_ui(self.step.next().is_some(), |ui| {
                if ui.button("Next").clicked()
                    && let Some(next) = self.step.next()
                {
                    commands.push(UiCommand::GoTo(next));
                }
            });
            ui.separator();
            ui.label(&self.status);
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let label = if self.dark_mode {
                    "Light theme"
                } else {
                    "Dark theme"
                };
                if ui.button(label).clicked() {
                    commands.push(UiCommand::SetDarkMode(!self.dark_mode));
                }
            });
        });
        ui.add_space(2.0);
    }

    /// Alt+Right / Alt+Left step forward and back; Alt+1…7 jump to a step; Ctrl+O opens a
    /// report, F5 scans (again), Escape cancels a running scan.
    fn keyboard_commands(&self, ctx: &egui::Context, commands: &mut Vec<UiCommand>) {
        use egui::{Key, Modifiers};
        ctx.input_mut(|input| {
            if input.consume_key(Modifiers::ALT, Key::ArrowRight)
                && let Some(next) = self.step.next()
            {
                commands.push(UiCommand::GoTo(next));
            }
            if input.consume_key(Modifiers::ALT, Key::ArrowLeft)
                && let Some(prev) = self.step.previous()
            {
                commands.push(UiCommand::GoTo(prev));
            }
            let digits = [
                Key::Num1,
                Key::Num2,
                Key::Num3,
                Key::Num4,
                Key::Num5,
                Key::Num6,
                Key::Num7,
            ];
            if input.consume_key(Modifiers::COMMAND, Key::O) {
                commands.push(UiCommand::OpenReport);
            }
            if input.consume_key(Modifiers::NONE, Key::F5) {
                commands.push(UiCommand::StartScan);
                commands.push(UiCommand::GoTo(Step::Scan));
            }
            if self.scan_running() && input.consume_key(Modifiers::NONE, Key::Escape) {
                commands.push(UiCommand::CancelScan);
            }
            for (key, step) in digits.into_iter().zip(Step::ALL) {
                if input.consume_key(Modifiers::ALT, key) {
                    commands.push(UiCommand::GoTo(step));
                }
            }
        });
    }

    fn poll_scan(&mut self, ctx: &egui::Context) {
        let ScanState::Running(job) = &self.scan else {
            return;
        };
        match job.poll() {
            None => ctx.request_repaint_after(std::time::Duration::from_millis(100)),
            Some(Ok(ScanOutcome::Done(doc, sets, suggestions))) => {
                self.gpu.offer_sets(sets);
                self.deps.suggestions = suggestions;
                let errors = doc
                    .findings
                    .iter()
                    .filter(|f| f.severity == crate::engine::findings::Severity::Error)
                    .count();
                self.status = format!(
                    "Scan finished: {} finding(s), {errors} error(s).",
                    doc.findings.len()
                );
                self.document = Some(*doc);
                self.scan = ScanState::Done;
            }
            Some(Ok(ScanOutcome::Cancelled)) => {
                self.status = "Scan cancelled.".into();
                self.scan = ScanState::Cancelled;
            }
            Some(Err(message)) => {
                self.status = "Scan failed.".into();
                self.scan = ScanState::Failed(message);
            }
        }
    }

    /// Takes a finished GPU test into the document (this computer's, if none was open).
    fn poll_gpu(&mut self, ctx: &egui::Context) {
        if !self.gpu.running() {
            return;
        }
        ctx.request_repaint_after(std::time::Duration::from_millis(100));
        if let Some((outcome, base)) = self.gpu.poll() {
            self.status = format!("GPU test finished: {}", outcome.report.summary);
            let doc = self.document.take().unwrap_or(base);
            self.document = Some(steps::gpu_test::merge(doc, &outcome));
        }
    }

    /// Whether a scan is still running (tests wait on this).
    pub fn scan_running(&self) -> bool {
        matches!(self.scan, ScanState::Running(_))
    }
}

impl eframe::App for TriageApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.frame_ui(ui);
    }

    /// The theme and recent reports (eframe keeps the window's size and position itself).
    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        self.prefs().store(storage);
    }
}

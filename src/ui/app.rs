//! The wizard's state and frame loop. State is plain data; step functions emit commands that
//! `apply` carries out after drawing; the scan runs on a worker thread polled each frame.

use super::steps::{self, Step, UiCommand};
use super::theme;
use super::worker::{ScanJob, ScanOutcome, Target};
use crate::engine::report::Document;

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
    pub target: Target,
    pub scan: ScanState,
    /// The current result: from a scan, or a reopened report.
    pub document: Option<Document>,
    pub dark_mode: bool,
    pub status: String,
    pub last_saved_report: Option<String>,
    /// The live GPU test: selection, running job, last result.
    pub gpu: steps::gpu_test::GpuTestState,
    theme_applied: Option<bool>,
}

impl TriageApp {
    pub fn new(target: Target) -> TriageApp {
        TriageApp {
            step: Step::Welcome,
            target,
            scan: ScanState::NotStarted,
            document: None,
            dark_mode: true,
            status: "Ready.".into(),
            last_saved_report: None,
            gpu: Default::default(),
            theme_applied: None,
        }
    }

    /// A wizard showing a saved report, opened on its findings.
    pub fn with_report(target: Target, document: Document, path: &str) -> TriageApp {
        let mut app = TriageApp::new(target);
        app.document = Some(document);
        app.scan = ScanState::Done;
        app.step = Step::Findings;
        app.status = format!("Opened report {path}.");
        app
    }

    pub fn target_description(&self) -> String {
        if let Some(doc) = &self.document
            && let crate::engine::context::ContextSource::Report(_) = doc.machine.source
        {
            return doc.machine.source.describe();
        }
        match &self.target {
            Target::Live => "this computer".to_string(),
            Target::MachineFile(p) => format!("the machine described in {}", p.display()),
        }
    }

    /// Draws one frame into `ui` and applies what it asked for. Used by eframe and by tests.
    pub fn frame_ui(&mut self, ui: &mut egui::Ui) {
        if self.theme_applied != Some(self.dark_mode) {
            theme::apply(ui.ctx(), self.dark_mode);
            self.theme_applied = Some(self.dark_mode);
        }
        self.poll_scan(ui.ctx());
        self.poll_gpu(ui.ctx());
        let mut commands = Vec::new();
        self.keyboard_commands(ui.ctx(), &mut commands);
        egui::Panel::bottom("status_bar").show(ui, |ui| self.status_bar_ui(ui, &mut commands));
        egui::Panel::left("step_list")
            .exact_size(theme::STEP_LIST_WIDTH)
            .show(ui, |ui| self.step_list_ui(ui, &mut commands));
        egui::CentralPanel::default_margins().show(ui, |ui| {
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, |ui| match self.step {
                    Step::Welcome => steps::welcome::welcome_ui(ui, self, &mut commands),
                    Step::Scan => steps::scan::scan_ui(ui, self, &mut commands),
                    Step::Findings => steps::findings::findings_ui(ui, self, &mut commands),
                    Step::Dependencies => {
                        steps::dependencies::dependencies_ui(ui, self, &mut commands)
                    }
                    Step::GpuTest => steps::gpu_test::gpu_test_ui(ui, self, &mut commands),
                    Step::Fix => steps::fix::fix_ui(ui, self, &mut commands),
                    Step::Report => steps::report::report_ui(ui, self, &mut commands),
                });
        });
        for command in commands {
            self.apply(command);
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

    /// Alt+Right / Alt+Left step forward and back; Alt+1…7 jump to a step.
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
            Some(ScanOutcome::Done(doc)) => {
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
            Some(ScanOutcome::Cancelled) => {
                self.status = "Scan cancelled.".into();
                self.scan = ScanState::Cancelled;
            }
            Some(ScanOutcome::Failed(message)) => {
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

    pub fn apply(&mut self, command: UiCommand) {
        match command {
            UiCommand::GoTo(step) => self.step = step,
            UiCommand::StartScan => {
                if !self.scan_running() {
                    self.status = "Scanning…".into();
                    self.scan = ScanState::Running(ScanJob::start(self.target.clone()));
                }
            }
            UiCommand::CancelScan => {
                if let ScanState::Running(job) = &self.scan {
                    job.progress.cancel();
                    self.status = "Cancelling…".into();
                }
            }
            UiCommand::SetDarkMode(dark) => self.dark_mode = dark,
            UiCommand::SaveReport => self.save_report(),
            UiCommand::OpenReport => self.open_report(),
            UiCommand::Gpu(command) => steps::gpu_test::apply(self, command),
        }
    }

    fn save_report(&mut self) {
        let Some(doc) = &self.document else { return };
        let Some(path) = rfd::FileDialog::new()
            .add_filter("JSON report", &["json"])
            .set_file_name("cuda-triage-report.json")
            .save_file()
        else {
            return;
        };
        match std::fs::write(&path, doc.to_json_pretty()) {
            Ok(()) => {
                self.last_saved_report = Some(path.display().to_string());
                self.status = format!("Report saved to {}.", path.display());
            }
            Err(e) => self.status = format!("Could not save the report: {e}"),
        }
    }

    fn open_report(&mut self) {
        let Some(path) = rfd::FileDialog::new()
            .add_filter("JSON report", &["json"])
            .pick_file()
        else {
            return;
        };
        match Document::load(&path) {
            Ok(doc) => {
                *self =
                    TriageApp::with_report(self.target.clone(), doc, &path.display().to_string());
            }
            Err(e) => self.status = e.to_string(),
        }
    }
}

impl eframe::App for TriageApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.frame_ui(ui);
    }
}

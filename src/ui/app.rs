//! The wizard's state and frame loop. State is plain data; step functions read it and emit
//! commands that `apply` (in `apply_ui_command`) carries out after drawing, starting worker jobs
//! there; every running job is polled in one place (`jobs`) at the start of each frame.

use super::prefs::Prefs;
use super::steps::dependencies::DependenciesState;
pub use super::steps::scan::ScanState;
use super::steps::{self, Shown, Step, UiCommand};
use super::theme;
use super::worker::Source;
use crate::engine::api::Report;

mod apply_step_command;
mod apply_ui_command;
mod jobs;

/// A report file dropped onto the window opens it; several, or a folder, open the fleet view.
fn dropped_file_commands(ctx: &egui::Context, commands: &mut Vec<UiCommand>) {
    let dropped = ctx.input(|i| {
        i.raw
            .dropped_files
            .iter()
            .map(|f| f.path().to_path_buf())
            .collect::<Vec<_>>()
    });
    if dropped.len() > 1 || dropped.iter().any(|p| p.is_dir()) {
        commands.push(UiCommand::OpenFleet(dropped));
    } else {
        commands.extend(dropped.into_iter().map(UiCommand::OpenDropped));
    }
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
    /// Many machines' reports side by side (shown instead of the steps while open).
    pub fleet: super::fleet_view::FleetState,
    /// How the window is drawn (set when it opens; none in tests that draw without a window).
    pub renderer: Option<crate::engine::api::WindowRenderer>,
    /// A scan of this computer asked for while an interrupted fix is still being rolled back:
    /// it starts once the rollback is done, so it sees the machine as the rollback left it.
    scan_after_recovery: bool,
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
            fleet: Default::default(),
            renderer: None,
            scan_after_recovery: false,
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

    /// A wizard showing a report reopened by [`api::report::open`](crate::engine::api::report::open),
    /// its note (why the saved findings are shown as they were) on the status line.
    pub fn with_reopened(
        target: Source,
        reopened: crate::engine::api::report::Reopened,
        path: &str,
    ) -> TriageApp {
        let mut app = TriageApp::with_report(target, reopened.document, path);
        if let Some(note) = reopened.note {
            let mut chars = note.chars();
            let first = chars.next().map(|c| c.to_uppercase().to_string());
            app.status = format!(
                "{} {}{}.",
                app.status,
                first.unwrap_or_default(),
                chars.as_str()
            );
        }
        app
    }

    /// A wizard opening the fleet view of these reports (folders and files).
    pub fn with_fleet(target: Source, inputs: Vec<std::path::PathBuf>) -> TriageApp {
        let mut app = TriageApp::new(target);
        app.fleet.open(inputs);
        app.status = "Reading the reports…".into();
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

    /// What every step may read besides its own state.
    pub fn shown(&self) -> Shown<'_> {
        Shown {
            target: &self.target,
            document: self.document.as_ref(),
        }
    }

    pub fn target_description(&self) -> String {
        self.shown().target_description()
    }

    /// Draws one frame into `ui` and applies what it asked for. Used by eframe and by tests.
    pub fn frame_ui(&mut self, ui: &mut egui::Ui) {
        if self.theme_applied != Some(self.dark_mode) {
            theme::apply(ui.ctx(), self.dark_mode);
            // This frame's root `Ui` was made before: it draws with the new theme too.
            ui.set_style(ui.ctx().global_style());
            self.theme_applied = Some(self.dark_mode);
        }
        self.poll_jobs(ui.ctx());
        let mut commands = Vec::new();
        dropped_file_commands(ui.ctx(), &mut commands);
        self.keyboard_commands(ui.ctx(), &mut commands);
        egui::Panel::bottom("status_bar").show(ui, |ui| self.status_bar_ui(ui, &mut commands));
        egui::Panel::left("step_list")
            .exact_size(theme::STEP_LIST_WIDTH)
            .show(ui, |ui| self.step_list_ui(ui, &mut commands));
        egui::CentralPanel::default_margins().show(ui, |ui| {
            if self.fleet.view.is_some() {
                // The matrix scrolls by itself (virtualised rows).
                super::fleet_view::fleet_ui(ui, &self.fleet, &mut commands);
                return;
            }
            if self.step == Step::Dependencies {
                // Its tree scrolls by itself (virtualised rows), so no outer scroll area.
                let offered = steps::dependencies::Offered {
                    scanned: self.document.is_some(),
                    pasted: self.paste.named_files(),
                    platform: self.document.as_ref().map(|d| d.machine.platform),
                };
                steps::dependencies::dependencies_ui(ui, &mut self.deps, &offered, &mut commands);
                return;
            }
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, |ui| self.step_ui(ui, &mut commands));
        });
        for command in commands {
            self.apply(command);
        }
        for text in self.clipboard.drain(..) {
            ui.ctx().copy_text(text);
        }
    }

    /// The current step (all but Dependencies, which scrolls by itself), from its own state.
    fn step_ui(&self, ui: &mut egui::Ui, commands: &mut Vec<UiCommand>) {
        let shown = self.shown();
        match self.step {
            Step::Welcome => {
                steps::welcome::welcome_ui(ui, &shown, &self.paste, &self.recent_reports, commands)
            }
            Step::Scan => steps::scan::scan_ui(ui, &shown, &self.scan, commands),
            Step::Findings => steps::findings::findings_ui(ui, &shown, &self.paste, commands),
            Step::Dependencies => {}
            Step::GpuTest => steps::gpu_test::gpu_test_ui(ui, &shown, &self.gpu, commands),
            Step::Fix => steps::fix::fix_ui(ui, &shown, &self.fix, commands),
            Step::Report => steps::report::report_ui(
                ui,
                &shown,
                &self.report,
                self.last_saved_report.as_deref(),
                commands,
            ),
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
            let status = ui.label(&self.status);
            if let Some(r) = &self.renderer {
                status.on_hover_text(format!("Window drawn with {}", r.summary()));
            }
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
    /// report, F5 scans (again), Escape cancels a running scan or tree.
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
            if self.deps.job.is_some() && input.consume_key(Modifiers::NONE, Key::Escape) {
                commands.push(UiCommand::CancelTree);
            }
            for (key, step) in digits.into_iter().zip(Step::ALL) {
                if input.consume_key(Modifiers::ALT, key) {
                    commands.push(UiCommand::GoTo(step));
                }
            }
        });
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

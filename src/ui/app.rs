//! The wizard's state and frame loop. State is plain data; step functions emit commands that
//! `apply` carries out after drawing; the scan runs on a worker thread polled each frame.

use super::prefs::Prefs;
use super::steps::dependencies::DependenciesState;
use super::steps::{self, Step, UiCommand};
use super::theme;
use super::worker::{ScanJob, ScanOutcome, Target, start_scan};
use crate::engine::report::Document;

/// Shown when a file dialog returns nothing: cancelled, or no dialog could be shown at all.
const NO_FILE_CHOSEN: &str = "No file chosen. If no dialog appeared, this desktop has no file-dialog service (xdg-desktop-portal): \
     use `cuda-triage report -o FILE` / `cuda-triage open FILE`, or drop a report onto this window.";

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
    pub target: Target,
    pub scan: ScanState,
    /// The current result: from a scan, or a reopened report.
    pub document: Option<Document>,
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
    pub fn new(target: Target) -> TriageApp {
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
    pub fn with_report(target: Target, document: Document, path: &str) -> TriageApp {
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

    /// Starts over with `next` (another target or a reopened report), keeping the preferences.
    fn replace_keeping_prefs(&mut self, mut next: TriageApp) {
        next.restore(self.prefs());
        *self = next;
    }

    fn remember_report(&mut self, path: &std::path::Path) {
        let mut prefs = self.prefs();
        prefs.remember_report(&path.display().to_string());
        self.restore(prefs);
    }

    /// Diagnoses another target from the start (Welcome's quick choices).
    fn diagnose(&mut self, target: Target) {
        self.replace_keeping_prefs(TriageApp::new(target));
        self.apply(UiCommand::StartScan);
        self.step = Step::Scan;
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

    pub fn apply(&mut self, command: UiCommand) {
        match command {
            UiCommand::GoTo(step) => self.step = step,
            UiCommand::StartScan => {
                if !self.scan_running() {
                    self.status = "Scanning…".into();
                    self.scan = ScanState::Running(start_scan(self.target.clone()));
                }
            }
            UiCommand::TryImports => {
                if !self.scan_running() && self.target.is_this_computer() {
                    self.status = "Scanning and importing each framework…".into();
                    self.scan = ScanState::Running(crate::ui::worker::start_probing_scan(
                        self.target.clone(),
                    ));
                }
            }
            UiCommand::CancelScan => {
                if let ScanState::Running(job) = &self.scan {
                    job.progress.cancel();
                    self.status = "Cancelling…".into();
                }
            }
            UiCommand::SetDarkMode(dark) => self.dark_mode = dark,
            UiCommand::SaveReport(format) => self.save_report(format),
            UiCommand::SaveReportTo(path, format) => self.save_report_to(&path, format),
            UiCommand::SetReportRedaction(redact) => {
                self.report.redact = redact;
                self.report.unredacted_note = match (&self.document, redact) {
                    (Some(doc), false) => {
                        Some(super::report_export::unredacted_note(&self.target, doc))
                    }
                    _ => None,
                };
            }
            UiCommand::CopyReportMarkdown => {
                if let Some(report) = self.report_now() {
                    let text = crate::engine::report::ReportFormat::Markdown.render(&report);
                    self.clipboard.push(text);
                    self.status = "Markdown report copied to the clipboard.".into();
                }
            }
            UiCommand::CompareReport => self.compare_report(),
            UiCommand::OpenReport => {
                match rfd::FileDialog::new()
                    .add_filter("JSON report", &["json"])
                    .pick_file()
                {
                    Some(path) => self.open_report_file(&path),
                    None => self.status = NO_FILE_CHOSEN.into(),
                }
            }
            UiCommand::OpenDropped(path) => self.open_dropped(path),
            UiCommand::OpenRecent(path) => {
                if path.is_file() {
                    self.open_report_file(&path);
                } else {
                    let mut prefs = self.prefs();
                    prefs.forget_report(&path.display().to_string());
                    self.restore(prefs);
                    self.status = format!(
                        "{} is no longer there: removed from the recent reports.",
                        path.display()
                    );
                }
            }
            UiCommand::ScanThisComputer => self.diagnose(Target::Live),
            UiCommand::PickPythonEnv => match rfd::FileDialog::new().pick_folder() {
                Some(dir) => self.apply(UiCommand::DiagnosePythonEnv(dir)),
                None => self.status = NO_FILE_CHOSEN.into(),
            },
            UiCommand::DiagnosePythonEnv(dir) => {
                let target = Target::PythonEnv(dir);
                match target.load(false) {
                    Ok(_) => self.diagnose(target),
                    Err(e) => self.status = e,
                }
            }
            UiCommand::PickProgram => {
                if self.target.is_this_computer() {
                    self.apply(UiCommand::BrowseBinary);
                } else {
                    self.step = Step::Dependencies;
                    self.status =
                        "Type the program's or library's path on the diagnosed machine.".into();
                }
            }
            UiCommand::SetPasteText(text) => self.paste.text = text,
            UiCommand::ExplainPaste => {
                self.status = "Explaining the pasted text…".into();
                self.paste.start(&self.target);
            }
            UiCommand::BrowseBinary => match rfd::FileDialog::new().pick_file() {
                Some(path) => self.analyze_host_file(path),
                None => self.status = NO_FILE_CHOSEN.into(),
            },
            UiCommand::AnalyzeBinary(path) => {
                self.step = Step::Dependencies;
                self.status = format!("Resolving the dependencies of {path}…");
                self.deps.start(&self.target, path);
            }
            UiCommand::AnalyzeSuggestion(index) => {
                self.step = Step::Dependencies;
                self.deps.start_suggestion(&self.target, index);
                self.status = format!("Resolving the dependencies of {}…", self.deps.binary_input);
            }
            UiCommand::SelectDependency(index) => self.deps.selected = Some(index),
            UiCommand::ToggleDependency(index) => {
                if !self.deps.filter.collapsed.remove(&index) {
                    self.deps.filter.collapsed.insert(index);
                }
            }
            UiCommand::CopyText(text) => {
                self.status = format!("Copied to the clipboard: {text}");
                self.clipboard.push(text);
            }
            UiCommand::OpenUrl(url) => match open::that_detached(&url) {
                Ok(()) => self.status = format!("Opened {url} in the browser."),
                Err(e) => self.status = format!("Could not open {url}: {e}"),
            },
            UiCommand::OpenFolder(path) => {
                if let Err(e) = open::that_detached(&path) {
                    self.status = format!("Could not open {}: {e}", path.display());
                }
            }
            UiCommand::Gpu(command) => steps::gpu_test::apply(self, command),
            UiCommand::Fix(command) => steps::fix_state::apply(self, command),
        }
    }

    /// The report as it would be saved now (with every tree the Dependencies step built).
    fn report_now(&self) -> Option<Document> {
        let doc = self.document.as_ref()?;
        Some(super::report_export::build_report(
            doc,
            &self.target,
            &self.deps.examined,
            self.report.redact,
        ))
    }

    fn save_report(&mut self, format: crate::engine::report::ReportFormat) {
        if self.document.is_none() {
            return;
        }
        let Some(path) = rfd::FileDialog::new()
            .add_filter(format!("{} report", format.label()), &[format.extension()])
            .set_file_name(format!("cuda-triage-report.{}", format.extension()))
            .save_file()
        else {
            self.status = NO_FILE_CHOSEN.into();
            return;
        };
        self.save_report_to(&path, format);
    }

    fn save_report_to(
        &mut self,
        path: &std::path::Path,
        format: crate::engine::report::ReportFormat,
    ) {
        let Some(report) = self.report_now() else {
            return;
        };
        match super::report_export::save(&report, path, format) {
            Ok(()) => {
                self.remember_report(path);
                self.last_saved_report = Some(path.display().to_string());
                self.status = format!("{} report saved to {}.", format.label(), path.display());
            }
            Err(e) => self.status = e,
        }
    }

    fn compare_report(&mut self) {
        let Some(report) = self.report_now() else {
            return;
        };
        let Some(path) = rfd::FileDialog::new()
            .add_filter("JSON report", &["json"])
            .pick_file()
        else {
            self.status = NO_FILE_CHOSEN.into();
            return;
        };
        match super::report_export::compare_with(&report, &path) {
            Ok(text) => self.report.comparison = Some(text),
            Err(e) => self.status = e,
        }
    }

    /// A dropped JSON file is a report; anything else is a binary to analyse.
    fn open_dropped(&mut self, path: std::path::PathBuf) {
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        {
            self.open_report_file(&path);
        } else {
            self.analyze_host_file(path);
        }
    }

    /// Analyses a file picked or dropped on this computer (only meaningful for the live target).
    fn analyze_host_file(&mut self, path: std::path::PathBuf) {
        match self.target {
            Target::Live | Target::PythonEnv(_) => {
                self.apply(UiCommand::AnalyzeBinary(path.display().to_string()))
            }
            Target::MachineFile(_) => {
                self.status = "This wizard diagnoses a machine file: type the binary's path on that machine instead.".into()
            }
        }
    }

    fn open_report_file(&mut self, path: &std::path::Path) {
        match Document::load(path) {
            Ok(doc) => {
                let reopened = crate::engine::report::reopen::rediagnose(doc);
                self.replace_keeping_prefs(TriageApp::with_report(
                    self.target.clone(),
                    reopened.document,
                    &path.display().to_string(),
                ));
                self.remember_report(path);
                if let Some(note) = reopened.note {
                    let mut chars = note.chars();
                    let first = chars.next().map(|c| c.to_uppercase().to_string());
                    self.status = format!(
                        "{} {}{}.",
                        self.status,
                        first.unwrap_or_default(),
                        chars.as_str()
                    );
                }
            }
            Err(e) => self.status = e.to_string(),
        }
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

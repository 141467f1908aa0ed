//! Carrying out what the steps asked for, after the frame is drawn: each `UiCommand` changes
//! the app's plain-data state, starts work on a worker thread (the only place jobs start), or
//! talks to the desktop (file dialogs, clipboard, browser, file manager). Errors from the engine
//! reach the status line with their chain of causes. The GPU and Fix steps' own commands are
//! in `apply_step_command`.

use super::{ScanState, TriageApp};
use crate::engine::api::{Progress, Report};
use crate::ui::steps::{Step, UiCommand};
use crate::ui::worker::{self, Machine, Source, error_text, start_scan};

/// Shown when a file dialog returns nothing: cancelled, or no dialog could be shown at all.
const NO_FILE_CHOSEN: &str = "No file chosen. If no dialog appeared, this desktop has no file-dialog service (xdg-desktop-portal): \
     use `cuda-triage report -o FILE` / `cuda-triage open FILE`, or drop a report onto this window.";

impl TriageApp {
    /// Starts over with `next` (another target or a reopened report), keeping the preferences.
    fn replace_keeping_prefs(&mut self, mut next: TriageApp) {
        next.restore(self.prefs());
        // A rollback of an interrupted fix still running goes on into the next wizard.
        next.fix.recovery_job = self.fix.recovery_job.take();
        *self = next;
    }

    fn remember_report(&mut self, path: &std::path::Path) {
        let mut prefs = self.prefs();
        prefs.remember_report(&path.display().to_string());
        self.restore(prefs);
    }

    /// Diagnoses another target from the start (Welcome's quick choices).
    fn diagnose(&mut self, target: Source) {
        self.replace_keeping_prefs(TriageApp::new(target));
        self.apply(UiCommand::StartScan);
        self.step = Step::Scan;
    }

    pub fn apply(&mut self, command: UiCommand) {
        match command {
            UiCommand::GoTo(step) => self.step = step,
            UiCommand::StartScan => {
                if !self.scan_running() && !self.scan_waits_for_recovery() {
                    self.status = "Scanning…".into();
                    self.scan = ScanState::Running(start_scan(self.target.clone()));
                }
            }
            UiCommand::TryImports => {
                if !self.scan_running() && self.target.is_this_computer() && !self.fix.recovering()
                {
                    self.status = "Scanning and importing each framework…".into();
                    self.scan = ScanState::Running(worker::start_probing_scan(self.target.clone()));
                }
            }
            UiCommand::CancelScan => {
                if let ScanState::Running(job) = &self.scan {
                    job.cancel();
                    self.status = "Cancelling…".into();
                }
            }
            UiCommand::SetDarkMode(dark) => self.dark_mode = dark,
            UiCommand::SaveReport(format) => self.save_report(format),
            UiCommand::SaveReportTo(path, format) => self.save_report_to(&path, format),
            UiCommand::SetReportRedaction(redact) => {
                self.report.redact = redact;
                self.report.unredacted_note = match (&self.document, redact) {
                    (Some(doc), false) => Some(crate::engine::api::report::unredacted_note(doc)),
                    _ => None,
                };
            }
            UiCommand::CopyReportMarkdown => {
                if let Some(report) = self.report_now() {
                    let text = crate::engine::api::ReportFormat::Markdown.render(&report);
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
            UiCommand::PickFleetFolder => match rfd::FileDialog::new().pick_folder() {
                Some(dir) => self.apply(UiCommand::OpenFleet(vec![dir])),
                None => self.status = NO_FILE_CHOSEN.into(),
            },
            UiCommand::OpenFleet(inputs) => {
                self.fleet.open(inputs);
                self.status = "Reading the reports…".into();
            }
            UiCommand::CloseFleet => {
                self.fleet.view = None;
                self.status = "Ready.".into();
            }
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
            UiCommand::ScanThisComputer => self.diagnose(self.target.with_machine(Machine::Live)),
            UiCommand::PickPythonEnv => match rfd::FileDialog::new().pick_folder() {
                Some(dir) => self.apply(UiCommand::DiagnosePythonEnv(dir)),
                None => self.status = NO_FILE_CHOSEN.into(),
            },
            UiCommand::DiagnosePythonEnv(dir) => {
                let target = self.target.with_machine(Machine::PythonEnv(dir));
                match crate::engine::api::load(&target, crate::engine::api::Driver::Skip) {
                    Ok(_) => self.diagnose(target),
                    Err(e) => self.status = error_text(&e),
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
                self.paste.error = None;
                self.paste.job = Some(worker::start_explain(
                    self.target.clone(),
                    self.paste.text.clone(),
                ));
            }
            UiCommand::BrowseBinary => match rfd::FileDialog::new().pick_file() {
                Some(path) => self.analyze_host_file(path),
                None => self.status = NO_FILE_CHOSEN.into(),
            },
            UiCommand::AnalyzeBinary(path) => {
                self.step = Step::Dependencies;
                self.status = format!("Resolving the dependencies of {path}…");
                let request = self.deps.request(path);
                self.deps.job = Some(worker::start_tree(
                    self.target.clone(),
                    request,
                    Progress::new(),
                ));
            }
            UiCommand::AnalyzeSuggestion(index) => {
                self.step = Step::Dependencies;
                if let Some(request) = self.deps.request_suggestion(index) {
                    self.deps.job = Some(worker::start_tree(
                        self.target.clone(),
                        request,
                        Progress::new(),
                    ));
                }
                self.status = format!("Resolving the dependencies of {}…", self.deps.binary_input);
            }
            UiCommand::CancelTree => {
                if let Some(job) = &self.deps.job {
                    job.cancel();
                    self.status = "Cancelling…".into();
                }
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
            UiCommand::Gpu(command) => self.apply_gpu(command),
            UiCommand::Fix(command) => self.apply_fix(command),
        }
    }

    /// The report as it would be saved now (with every tree the Dependencies step built).
    fn report_now(&self) -> Option<Report> {
        let doc = self.document.as_ref()?;
        Some(crate::ui::report_export::build_report(
            doc,
            self.paste.result.as_ref(),
            &self.target,
            &self.deps.examined,
            self.report.redact,
            self.renderer.as_ref(),
            &self.fix.history,
        ))
    }

    fn save_report(&mut self, format: crate::engine::api::ReportFormat) {
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

    fn save_report_to(&mut self, path: &std::path::Path, format: crate::engine::api::ReportFormat) {
        let Some(report) = self.report_now() else {
            return;
        };
        match crate::engine::api::report::save(&report, path, format) {
            Ok(()) => {
                self.remember_report(path);
                self.last_saved_report = Some(path.display().to_string());
                self.status = format!("{} report saved to {}.", format.label(), path.display());
            }
            Err(e) => self.status = worker::failure_text(&e),
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
        match crate::engine::api::report::compare_with(&report, &path) {
            Ok(text) => self.report.comparison = Some(text),
            Err(e) => self.status = worker::failure_text(&e),
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
        match self.target.machine {
            Machine::Live | Machine::PythonEnv(_) => {
                self.apply(UiCommand::AnalyzeBinary(path.display().to_string()))
            }
            Machine::MachineFile(_) => {
                self.status = "This wizard diagnoses a machine file: type the binary's path on that machine instead.".into()
            }
        }
    }

    fn open_report_file(&mut self, path: &std::path::Path) {
        match crate::engine::api::report::open(path) {
            Ok(reopened) => {
                self.replace_keeping_prefs(TriageApp::with_reopened(
                    self.target.clone(),
                    reopened,
                    &path.display().to_string(),
                ));
                self.remember_report(path);
            }
            Err(e) => self.status = error_text(&e),
        }
    }
}

#[cfg(test)]
mod tests;

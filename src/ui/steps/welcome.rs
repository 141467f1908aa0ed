//! Welcome step: what the tool does and where to start — quick choices (this computer, a
//! Python environment, a program or DLL, a saved report), the reports opened lately, and a box
//! to paste an error message or log, whose libraries, codes and known messages are explained
//! for the machine being diagnosed.

use super::Shown;
use super::{Step, UiCommand};
use crate::ui::paste::PasteState;
use crate::ui::theme;

pub fn welcome_ui(
    ui: &mut egui::Ui,
    shown: &Shown,
    paste: &PasteState,
    recent_reports: &[String],
    commands: &mut Vec<UiCommand>,
) {
    ui.heading("Why won't my GPU libraries load?");
    ui.add_space(6.0);
    ui.label(
        "CUDA Triage finds out why NVIDIA GPU libraries such as cublas64_11.dll, cudnn_cnn_infer64_8.dll \
         or libcudnn.so.9 will not load, explains it in plain language, and fixes it reversibly.",
    );
    ui.add_space(10.0);
    theme::card(ui, |ui| {
        ui.label(egui::RichText::new("Machine to diagnose").strong());
        ui.label(shown.target_description());
        if ui.button("Start scan").clicked() {
            commands.push(UiCommand::StartScan);
            commands.push(UiCommand::GoTo(Step::Scan));
        }
    });
    paste_ui(ui, paste, commands);
    quick_choices_ui(ui, commands);
    recent_ui(ui, recent_reports, commands);
    ui.label(
        egui::RichText::new(
            "Keyboard: Tab moves between controls, Enter or Space presses, Alt+Right / Alt+Left go to the next or previous step, Alt+1…7 jump to a step, F5 scans, Escape cancels the scan, Ctrl+O opens a report.",
        )
        .weak(),
    );
}

/// The ways in, each one click.
fn quick_choices_ui(ui: &mut egui::Ui, commands: &mut Vec<UiCommand>) {
    theme::card(ui, |ui| {
        ui.label(egui::RichText::new("Or start from").strong());
        ui.horizontal_wrapped(|ui| {
            let choices = [
                (
                    "This computer",
                    "Scan this computer: CUDA toolkits, cuDNN, the driver and GPUs, every Python environment and GPU framework it finds",
                    UiCommand::ScanThisComputer,
                ),
                (
                    "A Python environment…",
                    "Pick a venv or conda environment's folder: the scan looks at this computer as a shell with that environment activated",
                    UiCommand::PickPythonEnv,
                ),
                (
                    "A program or DLL…",
                    "Pick an executable, DLL or .so: see every library it loads, where each one resolved and what was tried",
                    UiCommand::PickProgram,
                ),
                (
                    "Open a report…",
                    "Reopen a JSON report saved here or on another machine (dropping it onto the window works too)",
                    UiCommand::OpenReport,
                ),
                (
                    "Many machines…",
                    "Pick a folder of reports from many machines (collected with assets/fleet/ through Ansible or Slurm): what differs, and where",
                    UiCommand::PickFleetFolder,
                ),
            ];
            for (label, hover, command) in choices {
                if ui.button(label).on_hover_text(hover).clicked() {
                    commands.push(command);
                }
            }
        });
    });
}

/// Reports opened or saved lately (remembered between runs).
fn recent_ui(ui: &mut egui::Ui, recent_reports: &[String], commands: &mut Vec<UiCommand>) {
    if recent_reports.is_empty() {
        return;
    }
    theme::card(ui, |ui| {
        ui.label(egui::RichText::new("Recent reports").strong());
        for path in recent_reports {
            let name = std::path::Path::new(path)
                .file_name()
                .map_or(path.clone(), |n| n.to_string_lossy().into_owned());
            ui.horizontal(|ui| {
                if ui.button(&name).on_hover_text(path).clicked() {
                    commands.push(UiCommand::OpenRecent(path.into()));
                }
                ui.add(egui::Label::new(egui::RichText::new(path).weak()).truncate());
            });
        }
    });
}

fn paste_ui(ui: &mut egui::Ui, paste: &PasteState, commands: &mut Vec<UiCommand>) {
    theme::card(ui, |ui| {
        ui.label(egui::RichText::new("Got an error message?").strong());
        ui.label("Paste it (or a whole log) here: every library name, error code and known message in it is explained.");
        let mut text = paste.text.clone();
        let edit = egui::TextEdit::multiline(&mut text)
            .hint_text("e.g. Could not load dynamic library 'cublas64_11.dll'; dlerror: cublas64_11.dll not found")
            .desired_rows(4)
            .desired_width(f32::INFINITY);
        if ui.add(edit).changed() {
            commands.push(UiCommand::SetPasteText(text));
        }
        ui.horizontal(|ui| {
            let busy = paste.job.is_some();
            let can_explain = !busy && !paste.text.trim().is_empty();
            if ui
                .add_enabled(can_explain, egui::Button::new("Explain this error"))
                .clicked()
            {
                commands.push(UiCommand::ExplainPaste);
            }
            if busy {
                ui.spinner();
                ui.label("Looking at the text and the machine…");
            }
        });
    });
}

//! Scan step: starts the scan on a worker thread, shows its stage and progress, can cancel,
//! and summarises the machine facts once done.

use super::{Step, UiCommand};
use crate::ui::app::{ScanState, TriageApp};
use crate::ui::theme;

pub fn scan_ui(ui: &mut egui::Ui, app: &TriageApp, commands: &mut Vec<UiCommand>) {
    ui.heading("Scan");
    ui.label(format!("Diagnosing {}.", app.target_description()));
    ui.add_space(8.0);
    match &app.scan {
        ScanState::NotStarted => {
            if ui.button("Start scan").clicked() {
                commands.push(UiCommand::StartScan);
            }
        }
        ScanState::Running(job) => {
            let (stage, done, total) = job.progress.snapshot();
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(if stage.is_empty() {
                    "Starting…".to_string()
                } else {
                    stage
                });
            });
            let fraction = if total > 0 {
                done as f32 / total as f32
            } else {
                0.0
            };
            ui.add(egui::ProgressBar::new(fraction).show_percentage());
            if ui.button("Cancel").clicked() {
                commands.push(UiCommand::CancelScan);
            }
        }
        ScanState::Cancelled => {
            ui.label("The scan was cancelled.");
            if ui.button("Scan again").clicked() {
                commands.push(UiCommand::StartScan);
            }
        }
        ScanState::Failed(message) => {
            ui.colored_label(
                theme::severity_colour(crate::engine::findings::Severity::Error, app.dark_mode),
                format!("The scan failed: {message}"),
            );
            if ui.button("Scan again").clicked() {
                commands.push(UiCommand::StartScan);
            }
        }
        ScanState::Done => {
            if let Some(doc) = &app.document {
                machine_cards_ui(ui, doc, app.dark_mode);
            }
            ui.horizontal(|ui| {
                if ui.button("Scan again").clicked() {
                    commands.push(UiCommand::StartScan);
                }
                if ui.button("See findings").clicked() {
                    commands.push(UiCommand::GoTo(Step::Findings));
                }
            });
        }
    }
}

/// Summary cards of what the scan knows about the machine.
fn machine_cards_ui(ui: &mut egui::Ui, doc: &crate::engine::report::Document, dark: bool) {
    let m = &doc.machine;
    theme::card(ui, |ui| {
        ui.label(egui::RichText::new("Machine").strong());
        ui.label(format!(
            "Platform: {}{}",
            m.platform.as_str(),
            if m.wsl { " (WSL)" } else { "" }
        ));
        ui.label(format!("Source: {}", m.source.describe()));
    });
    theme::card(ui, |ui| match &m.driver {
        Some(d) => {
            ui.colored_label(
                theme::ok_colour(dark),
                format!("OK  NVIDIA driver {}", d.version),
            );
            if let Some(cuda) = &d.cuda {
                ui.label(format!("Supports CUDA up to {cuda}"));
            }
        }
        None => {
            ui.colored_label(
                theme::severity_colour(crate::engine::findings::Severity::Error, dark),
                "×  No NVIDIA driver found",
            );
            if let Some(note) = &m.driver_note {
                ui.label(note);
            }
        }
    });
    theme::card(ui, |ui| {
        ui.label(egui::RichText::new(format!("GPUs ({})", m.gpus.len())).strong());
        if m.gpus.is_empty() {
            ui.label("None reported.");
        }
        for gpu in &m.gpus {
            let cc = gpu.compute_capability.as_deref().unwrap_or("?");
            let mem = gpu
                .memory_mib
                .map(|v| format!(", {v} MiB"))
                .unwrap_or_default();
            ui.label(format!("{} — compute capability {cc}{mem}", gpu.name));
        }
    });
}

//! Scan step: starts the scan on a worker thread, shows its stage and progress, can cancel,
//! and once done shows summary cards (toolkits, cuDNN, driver, GPUs, Python environments,
//! frameworks; see `scan_cards`) read from the document's inventory and findings.

use super::Shown;
use super::scan_cards::*;
use super::{Step, UiCommand};
use crate::engine::api::Inventory;
use crate::ui::theme;
use crate::ui::worker::ScanJob;

/// Where the scan stands.
pub enum ScanState {
    NotStarted,
    Running(ScanJob),
    Done,
    Cancelled,
    Failed(String),
}

pub fn scan_ui(ui: &mut egui::Ui, shown: &Shown, scan: &ScanState, commands: &mut Vec<UiCommand>) {
    ui.heading("Scan");
    ui.label(format!("Diagnosing {}.", shown.target_description()));
    ui.add_space(8.0);
    match scan {
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
                theme::severity_colour(ui, crate::engine::api::Severity::Error),
                format!("The scan failed: {message}"),
            );
            if ui.button("Scan again").clicked() {
                commands.push(UiCommand::StartScan);
            }
        }
        ScanState::Done => {
            if let Some(doc) = shown.document {
                machine_cards_ui(ui, doc, shown, commands);
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
fn machine_cards_ui(
    ui: &mut egui::Ui,
    doc: &crate::engine::api::Report,
    shown: &Shown,
    commands: &mut Vec<UiCommand>,
) {
    let live = shown.target.is_this_computer();
    let m = &doc.machine;
    theme::card(ui, |ui| {
        ui.label(egui::RichText::new("Machine").strong());
        ui.label(format!(
            "Platform: {}{}  ·  Source: {}",
            m.platform.as_str(),
            m.placement(),
            m.source.describe()
        ));
        for line in crate::engine::api::report::runs_in_lines(m) {
            ui.label(line);
        }
    });
    let inv: Inventory = doc.inventory.clone().unwrap_or_default();
    ui.columns(2, |cols| {
        toolkits_card(&mut cols[0], &inv);
        cudnn_card(&mut cols[0], &inv);
        environments_card(&mut cols[0], &inv);
        driver_card(&mut cols[1], doc, &inv);
        gpus_card(&mut cols[1], doc);
        frameworks_card(&mut cols[1], doc, &inv, live, commands);
    });
    if !inv.skipped.is_empty() {
        ui.collapsing(
            format!("Skipped during the scan ({})", inv.skipped.len()),
            |ui| {
                let lines: Vec<Line> = inv
                    .skipped
                    .iter()
                    .map(|s| (Mark::Unknown, format!("{}: {}", s.path, s.reason)))
                    .collect();
                lines_ui(ui, &lines, 20, "");
            },
        );
    }
}

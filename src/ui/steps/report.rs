//! Report step: save the result as JSON (reopens anywhere), Markdown (GitHub-ready) or HTML (one
//! self-contained page); copy the Markdown; open the saved file; compare with another report.
//! Redaction is on by default and the toggle says exactly what turning it off adds.

use super::Shown;
use super::UiCommand;
use crate::engine::api::ReportFormat;
use crate::ui::report_export::ReportState;

pub fn report_ui(
    ui: &mut egui::Ui,
    shown: &Shown,
    state: &ReportState,
    last_saved_report: Option<&str>,
    commands: &mut Vec<UiCommand>,
) {
    ui.heading("Report");
    ui.label(
        "A report holds the machine summary, the inventory, every finding with its evidence, \
         the dependency tree you built and the GPU test. Open a JSON report with \
         `cuda-triage open FILE` or the Welcome step; attach the Markdown to a GitHub issue.",
    );
    ui.add_space(8.0);
    if shown.document.is_none() {
        ui.label("Run the scan first.");
        return;
    }
    let mut redact = state.redact;
    if ui
        .checkbox(&mut redact, "Redact personal details (recommended)")
        .changed()
    {
        commands.push(UiCommand::SetReportRedaction(redact));
    }
    if redact {
        ui.label(
            egui::RichText::new(
                "User name, home folder, host name and domain become <user>, <home>, <host>, \
                 <domain>; GPU UUIDs become GPU-1, GPU-2; environment values outside the \
                 loading-related variables show as <set>.",
            )
            .weak(),
        );
    } else {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            state.unredacted_note.as_deref().unwrap_or_default(),
        );
    }
    ui.add_space(8.0);
    ui.horizontal_wrapped(|ui| {
        for format in ReportFormat::ALL {
            if ui
                .button(format!("Save {} report…", format.label()))
                .clicked()
            {
                commands.push(UiCommand::SaveReport(format));
            }
        }
    });
    ui.horizontal_wrapped(|ui| {
        if ui.button("Copy Markdown").clicked() {
            commands.push(UiCommand::CopyReportMarkdown);
        }
        if ui.button("Compare with another report…").clicked() {
            commands.push(UiCommand::CompareReport);
        }
    });
    if let Some(saved) = last_saved_report {
        ui.horizontal(|ui| {
            ui.label(format!("Saved to {saved}"));
            if ui.button("Open").clicked() {
                commands.push(UiCommand::OpenFolder(saved.into()));
            }
        });
    }
    if let Some(text) = &state.comparison {
        ui.add_space(8.0);
        ui.strong("Comparison");
        egui::ScrollArea::vertical()
            .id_salt("report-comparison")
            .max_height(300.0)
            .show(ui, |ui| {
                ui.monospace(text);
            });
    }
}

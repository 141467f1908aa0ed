//! Findings step: one card per finding, errors first, with its evidence and linked fixes.

use super::{Step, UiCommand};
use crate::engine::findings::Finding;
use crate::ui::app::TriageApp;
use crate::ui::theme;

pub fn findings_ui(ui: &mut egui::Ui, app: &TriageApp, commands: &mut Vec<UiCommand>) {
    ui.heading("Findings");
    let Some(doc) = &app.document else {
        ui.label("No scan yet. Run the scan first.");
        if ui.button("Go to scan").clicked() {
            commands.push(UiCommand::GoTo(Step::Scan));
        }
        return;
    };
    if doc.findings.is_empty() {
        ui.colored_label(theme::ok_colour(app.dark_mode), "OK  No problems found.");
        return;
    }
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for (index, finding) in doc.findings.iter().enumerate() {
                finding_card_ui(ui, index, finding, app.dark_mode);
            }
        });
}

fn finding_card_ui(ui: &mut egui::Ui, index: usize, finding: &Finding, dark: bool) {
    theme::card(ui, |ui| {
        let colour = theme::severity_colour(finding.severity, dark);
        ui.horizontal(|ui| {
            ui.colored_label(
                colour,
                format!(
                    "{} {}",
                    theme::severity_symbol(finding.severity),
                    finding.severity.as_str()
                ),
            );
            ui.label(egui::RichText::new(&finding.summary).strong());
        });
        ui.label(&finding.detail);
        if !finding.libraries.is_empty() {
            ui.label(
                egui::RichText::new(format!("Libraries: {}", finding.libraries.join(", ")))
                    .monospace(),
            );
        }
        if !finding.evidence.is_empty() {
            egui::CollapsingHeader::new(format!("Why? ({} facts)", finding.evidence.len()))
                .id_salt(("evidence", index))
                .show(ui, |ui| {
                    for e in &finding.evidence {
                        let path = e
                            .path
                            .as_ref()
                            .map(|p| format!(" — {p}"))
                            .unwrap_or_default();
                        ui.label(format!("{}: {}{path}", e.kind, e.text));
                    }
                });
        }
        for fix in &finding.fixes {
            ui.label(format!("Fix {}: {}", fix.id, fix.summary));
        }
        ui.label(egui::RichText::new(&finding.code).weak().small());
    });
}

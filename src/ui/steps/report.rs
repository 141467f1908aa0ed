//! Report step: save the scan as a JSON report that can be reopened elsewhere.

use super::UiCommand;
use crate::ui::app::TriageApp;

pub fn report_ui(ui: &mut egui::Ui, app: &TriageApp, commands: &mut Vec<UiCommand>) {
    ui.heading("Report");
    ui.label("A report holds the machine summary and every finding. Open it with `cuda-triage open FILE` or the Welcome step.");
    ui.add_space(8.0);
    let can_save = app.document.is_some();
    ui.add_enabled_ui(can_save, |ui| {
        if ui.button("Save JSON report…").clicked() {
            commands.push(UiCommand::SaveReport);
        }
    });
    if !can_save {
        ui.label("Run the scan first.");
    }
    if let Some(saved) = &app.last_saved_report {
        ui.label(format!("Saved to {saved}"));
    }
    ui.add_space(8.0);
    ui.label(egui::RichText::new("Markdown and HTML exports come with the report work.").weak());
}

//! Fix step: one-click fixes with preview, undo and re-check (lands with the fixes issue).

use super::UiCommand;
use crate::ui::app::TriageApp;

pub fn fix_ui(ui: &mut egui::Ui, _app: &TriageApp, _commands: &mut Vec<UiCommand>) {
    ui.heading("Fix");
    super::coming_ui(
        ui,
        "Here you will preview and apply fixes — PATH edits, environment variables, version pins — \
         each with a backup and an undo journal, followed by a re-check.",
    );
}

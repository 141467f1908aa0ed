//! Dependencies step: the dependency tree of a chosen binary (lands with the dependency-tree issue).

use super::UiCommand;
use crate::ui::app::TriageApp;

pub fn dependencies_ui(ui: &mut egui::Ui, _app: &TriageApp, _commands: &mut Vec<UiCommand>) {
    ui.heading("Dependencies");
    super::coming_ui(
        ui,
        "Here you will choose a DLL, .so or executable and see every library it loads: where each one \
         resolved, its version, and why the loader picked that copy — or every directory it tried when it \
         found none.",
    );
}

//! Welcome step: what the tool does and where to start.

use super::{Step, UiCommand};
use crate::ui::app::TriageApp;

pub fn welcome_ui(ui: &mut egui::Ui, app: &TriageApp, commands: &mut Vec<UiCommand>) {
    ui.heading("Why won't my GPU libraries load?");
    ui.add_space(6.0);
    ui.label(
        "CUDA Triage finds out why NVIDIA GPU libraries such as cublas64_11.dll, cudnn_cnn_infer64_8.dll \
         or libcudnn.so.9 will not load, explains it in plain language, and fixes it reversibly.",
    );
    ui.add_space(10.0);
    crate::ui::theme::card(ui, |ui| {
        ui.label(egui::RichText::new("Machine to diagnose").strong());
        ui.label(app.target_description());
    });
    ui.horizontal(|ui| {
        if ui.button("Start scan").clicked() {
            commands.push(UiCommand::StartScan);
            commands.push(UiCommand::GoTo(Step::Scan));
        }
        if ui.button("Open a saved report…").clicked() {
            commands.push(UiCommand::OpenReport);
        }
    });
    ui.add_space(10.0);
    ui.label(egui::RichText::new("Keyboard: Tab moves between controls, Enter or Space presses, Alt+Right / Alt+Left go to the next or previous step, Alt+1…7 jump to a step.").weak());
}

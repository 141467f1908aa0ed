//! Welcome step: what the tool does, where to start, and a box to paste an error message or
//! log — its libraries, codes and known messages are explained for the machine being diagnosed.

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
    crate::ui::theme::card(ui, |ui| {
        ui.label(egui::RichText::new("Got an error message?").strong());
        ui.label("Paste it (or a whole log) here: every library name, error code and known message in it is explained.");
        let mut text = app.paste.text.clone();
        let edit = egui::TextEdit::multiline(&mut text)
            .hint_text("e.g. Could not load dynamic library 'cublas64_11.dll'; dlerror: cublas64_11.dll not found")
            .desired_rows(4)
            .desired_width(f32::INFINITY);
        if ui.add(edit).changed() {
            commands.push(UiCommand::SetPasteText(text));
        }
        ui.horizontal(|ui| {
            let busy = app.paste.job.is_some();
            let can_explain = !busy && !app.paste.text.trim().is_empty();
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
    ui.add_space(10.0);
    ui.label(
        egui::RichText::new(
            "Keyboard: Tab moves between controls, Enter or Space presses, Alt+Right / Alt+Left go to the next or previous step, Alt+1…7 jump to a step.",
        )
        .weak(),
    );
}

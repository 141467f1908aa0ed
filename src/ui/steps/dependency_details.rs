//! The details panel of the Dependencies step: one library's path, version, machine, how the
//! loader found it, every place it tried, and buttons to copy the path or open its folder.

use super::UiCommand;
use super::dependencies::TreeResult;
use crate::engine::api::graph::Outcome;
use crate::ui::theme;

pub fn details_ui(
    ui: &mut egui::Ui,
    result: &TreeResult,
    index: usize,
    commands: &mut Vec<UiCommand>,
) {
    let Some(node) = result.graph.nodes.get(index) else {
        return;
    };
    ui.heading(&node.name);
    egui::Grid::new("dependency_facts")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            ui.label("Path");
            ui.add(egui::Label::new(node.path.as_deref().unwrap_or("not found")).wrap());
            ui.end_row();
            ui.label("How found");
            if node.is_resolved() {
                let how = ui.label(node.how.as_str());
                if let Some(explanation) = crate::ui::glossary::explain_how(node.how.as_str()) {
                    how.on_hover_text(explanation);
                }
            } else {
                ui.label(format!(
                    "not found (searched through: {})",
                    node.how.as_str()
                ));
            }
            ui.end_row();
            if let Some(rt) = &node.runtime {
                ui.label("Loaded at run time");
                ui.label(&rt.reason);
                ui.end_row();
            }
            ui.label("Version");
            ui.label(node.version.as_deref().unwrap_or("unknown"));
            ui.end_row();
            ui.label("Machine");
            ui.label(node.machine.as_deref().unwrap_or("unknown"));
            ui.end_row();
            ui.label("Needed by");
            ui.add(egui::Label::new(node.parent.as_str()).wrap());
            ui.end_row();
        });
    if let Some(path) = &node.path {
        ui.horizontal(|ui| {
            if ui.button("Copy path").clicked() {
                commands.push(UiCommand::CopyText(path.clone()));
            }
            if ui.button("Open containing folder").clicked()
                && let Some(dir) = result.ctx.platform.parent(path)
                && let Ok(host) = result.ctx.fs.host_path(&dir)
            {
                commands.push(UiCommand::OpenFolder(host));
            }
        });
    }
    ui.separator();
    ui.label(egui::RichText::new(format!("Places tried ({})", node.attempts.len())).strong());
    egui::ScrollArea::vertical()
        .id_salt("attempts")
        .show(ui, |ui| {
            for attempt in &node.attempts {
                let (text, problem) = match &attempt.outcome {
                    Outcome::Found => ("found".to_string(), false),
                    Outcome::NotFound => ("not there".to_string(), false),
                    Outcome::WrongMachine { found } => {
                        (format!("skipped: built for {found}"), true)
                    }
                    Outcome::Unreadable { message } => (format!("unreadable: {message}"), true),
                };
                let line = format!(
                    "{} [{}] — {text}",
                    attempt.directory,
                    attempt.source.as_str()
                );
                if problem {
                    ui.colored_label(
                        theme::severity_colour(ui, crate::engine::api::Severity::Warning),
                        line,
                    );
                } else {
                    ui.label(line);
                }
            }
        });
}

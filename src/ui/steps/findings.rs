//! Findings step: one card per finding, errors first — plain-language detail, the libraries
//! involved, a "Why?" expander with the evidence (every place searched, files seen, variables),
//! the linked fixes (each command with a Copy button), the technical terms it uses (explained on
//! hover) and links to the documentation it relies on. Findings from a pasted error text come
//! first, then the scan's.

use super::Shown;
use super::{Step, UiCommand};
use crate::engine::api::{Finding, Platform};
use crate::ui::glossary;
use crate::ui::paste::PasteState;
use crate::ui::theme;

pub fn findings_ui(
    ui: &mut egui::Ui,
    shown: &Shown,
    paste: &PasteState,
    commands: &mut Vec<UiCommand>,
) {
    ui.heading("Findings");
    if let Some(pasted) = &paste.result {
        ui.label(egui::RichText::new("From the text you pasted").strong());
        if let Some(identified) = &pasted.identified {
            let names: Vec<String> = identified
                .iter()
                .map(|i| format!("{} ({} {})", i.file, i.component, i.version))
                .collect();
            if !names.is_empty() {
                ui.label(format!("Recognised: {}", names.join(", ")));
            }
        }
        cards_ui(
            ui,
            "pasted",
            &pasted.findings,
            pasted.machine.platform,
            commands,
        );
        ui.add_space(8.0);
    }
    let Some(doc) = shown.document else {
        ui.label("No scan yet. Run the scan to check the whole machine.");
        if ui.button("Go to scan").clicked() {
            commands.push(UiCommand::GoTo(Step::Scan));
        }
        return;
    };
    if paste.result.is_some() {
        ui.label(egui::RichText::new("From the scan").strong());
    }
    if doc.findings.is_empty() {
        theme::marked(ui, theme::Mark::Ok, "No problems found.");
        return;
    }
    cards_ui(ui, "scan", &doc.findings, doc.machine.platform, commands);
}

fn cards_ui(
    ui: &mut egui::Ui,
    group: &str,
    findings: &[Finding],
    platform: Platform,
    commands: &mut Vec<UiCommand>,
) {
    let errors = findings
        .iter()
        .filter(|f| f.severity == crate::engine::api::Severity::Error)
        .count();
    ui.label(format!("{} finding(s), {errors} error(s)", findings.len()));
    // Only the cards in view are laid out; the others take the height they had when last
    // drawn (at this width), so hundreds of findings scroll smoothly.
    let width = ui.available_width().round() as i32;
    let visible = ui.clip_rect();
    for (index, finding) in findings.iter().enumerate() {
        let id = ui.scope_id().with(("finding_card", group, index, width));
        let top = ui.cursor().top();
        let known: Option<f32> = ui.data(|d| d.get_temp(id));
        if let Some(height) = known
            && (top + height < visible.top() || top > visible.bottom())
        {
            ui.add_space(height);
            continue;
        }
        finding_card_ui(ui, (group, index), finding, platform, commands);
        let height = ui.cursor().top() - top;
        ui.data_mut(|d| d.insert_temp(id, height));
    }
}

fn finding_card_ui(
    ui: &mut egui::Ui,
    id: (&str, usize),
    finding: &Finding,
    platform: Platform,
    commands: &mut Vec<UiCommand>,
) {
    theme::card(ui, |ui| {
        let colour = theme::severity_colour(ui, finding.severity);
        ui.horizontal_wrapped(|ui| {
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
                .id_salt(("evidence", id))
                .show(ui, |ui| {
                    for e in &finding.evidence {
                        let path = e
                            .path
                            .as_ref()
                            .map(|p| format!(" — {p}"))
                            .unwrap_or_default();
                        ui.horizontal_wrapped(|ui| {
                            if let Some(p) = &e.path {
                                copy_button(ui, p, commands);
                            }
                            ui.label(format!("{}: {}{path}", e.kind, e.text));
                        });
                    }
                });
        }
        for fix in &finding.fixes {
            ui.horizontal_wrapped(|ui| {
                copy_button(ui, &fix.summary, commands);
                ui.label(format!("Fix ({}): {}", fix.kind, fix.summary));
            });
        }
        glossary::terms_ui(ui, &format!("{} {}", finding.summary, finding.detail));
        docs_ui(ui, finding, platform, commands);
        ui.label(egui::RichText::new(&finding.code).weak().small());
    });
}

/// A small button that puts `text` (a path, a command) on the clipboard.
pub fn copy_button(ui: &mut egui::Ui, text: &str, commands: &mut Vec<UiCommand>) {
    if ui
        .small_button("Copy")
        .on_hover_text(format!("Copy to the clipboard: {text}"))
        .clicked()
    {
        commands.push(UiCommand::CopyText(text.to_string()));
    }
}

/// Links to the documentation the finding relies on (opened in the browser).
fn docs_ui(
    ui: &mut egui::Ui,
    finding: &Finding,
    platform: Platform,
    commands: &mut Vec<UiCommand>,
) {
    let docs = crate::engine::api::explain::docs_for(finding, platform);
    if docs.is_empty() {
        return;
    }
    ui.horizontal_wrapped(|ui| {
        ui.label(egui::RichText::new("Docs:").weak());
        for doc in docs {
            if ui.link(&doc.title).on_hover_text(&doc.url).clicked() {
                commands.push(UiCommand::OpenUrl(doc.url.clone()));
            }
        }
    });
}

//! Fix step: the fixes the findings offer as a checklist grouped by finding, the preview pane
//! (the exact diff, registry before/after or copy), the scope, Apply with its progress and log,
//! each fix's verification, and Undo with the history. A machine file or a reopened report is
//! preview only.

use super::Shown;
use super::UiCommand;
use super::fix_state::FixCommand;
use super::fix_state::FixState;
use crate::engine::api::fix::Scope;
use crate::ui::theme;

pub fn fix_ui(ui: &mut egui::Ui, shown: &Shown, state: &FixState, commands: &mut Vec<UiCommand>) {
    ui.heading("Fix");
    let Some(doc) = shown.document else {
        ui.label("Scan first: the fixes come from the findings.");
        return;
    };
    let live = shown.target.is_this_computer()
        && matches!(doc.machine.source, crate::engine::api::ContextSource::Live);
    if !live {
        ui.label("This is not this computer (a machine file or a saved report): fixes can be previewed, not applied.");
    }
    ui.horizontal(|ui| {
        ui.label("Scope:");
        for (scope, label) in [
            (Scope::User, "User"),
            (Scope::Machine, "Machine (administrator)"),
            (Scope::Env, "Environment (conda/venv)"),
        ] {
            if ui.radio(state.scope == scope, label).clicked() {
                commands.push(UiCommand::Fix(FixCommand::SetScope(scope)));
            }
        }
    });
    let mut any = false;
    for finding in doc.findings.iter().filter(|f| !f.fixes.is_empty()) {
        any = true;
        theme::card(ui, |ui| {
            ui.label(egui::RichText::new(&finding.summary).strong());
            for fix in &finding.fixes {
                ui.horizontal(|ui| {
                    let mut on = state.checked.contains(&fix.id);
                    let check = ui
                        .checkbox(&mut on, "")
                        .on_hover_text("Check to apply this fix with \"Apply checked fixes\"");
                    // No text beside the box (the summary follows), but a label for screen readers.
                    let name = format!("Apply: {}", fix.summary);
                    check.widget_info(|| {
                        egui::WidgetInfo::selected(egui::accesskit::Role::CheckBox, true, on, &name)
                    });
                    if check.changed() {
                        commands.push(UiCommand::Fix(FixCommand::Toggle(fix.id.clone())));
                    }
                    let focused = state.focused.as_deref() == Some(fix.id.as_str());
                    if ui
                        .selectable_label(focused, format!("{} ({})", fix.summary, fix.kind))
                        .on_hover_text("Show exactly what it changes in the preview")
                        .clicked()
                    {
                        commands.push(UiCommand::Fix(FixCommand::Focus(fix.id.clone())));
                    }
                });
                if let Some(r) = state.results.iter().find(|r| r.fix_id == fix.id) {
                    verification_ui(ui, r);
                }
            }
        });
    }
    if !any {
        ui.label("No finding offers a fix.");
    }
    let focused = doc
        .findings
        .iter()
        .flat_map(|f| &f.fixes)
        .find(|f| state.focused.as_deref() == Some(f.id.as_str()));
    preview_ui(ui, state, focused, commands);
    ui.horizontal(|ui| {
        let can_apply = live && !state.busy() && !state.checked.is_empty();
        if ui
            .add_enabled(can_apply, egui::Button::new("Apply checked fixes"))
            .clicked()
        {
            commands.push(UiCommand::Fix(FixCommand::ApplyChecked));
        }
        if ui
            .add_enabled(live && !state.busy(), egui::Button::new("Undo last fix"))
            .clicked()
        {
            commands.push(UiCommand::Fix(FixCommand::Undo(None)));
        }
        if ui.button("History").clicked() {
            commands.push(UiCommand::Fix(FixCommand::RefreshHistory));
        }
        // After an apply or undo the findings above are the old scan's: offer the re-check.
        if live
            && !state.log.is_empty()
            && ui
                .add_enabled(!state.busy(), egui::Button::new("Scan again"))
                .on_hover_text("Scan this computer again to see the findings as they are now")
                .clicked()
        {
            commands.push(UiCommand::StartScan);
        }
        if let Some(stage) = state.stage() {
            ui.spinner();
            ui.label(stage);
            // An apply can be stopped; the start-up rollback of an interrupted fix cannot.
            if state.apply_job.is_some() && ui.button("Cancel").clicked() {
                commands.push(UiCommand::Fix(FixCommand::Cancel));
            }
        }
    });
    for line in state.live.iter().chain(&state.log) {
        ui.monospace(line);
    }
    for j in state.history.iter().filter(|_| state.show_history) {
        ui.horizontal(|ui| {
            // What the fix did and when, in words; the journal id only on hover.
            let when = crate::engine::api::report::rfc3339_utc(j.created).replace('T', " ");
            let state_words = match j.state {
                crate::engine::api::fix::JournalState::Applied => "applied",
                crate::engine::api::fix::JournalState::Undone => "undone",
                crate::engine::api::fix::JournalState::RolledBack => "rolled back",
                crate::engine::api::fix::JournalState::Applying => "interrupted",
            };
            ui.label(format!("{} — {state_words} {when}", j.summary))
                .on_hover_text(format!("journal {} ({})", j.id, j.fix_id));
            if j.state == crate::engine::api::fix::JournalState::Applied
                && ui
                    .add_enabled(live, egui::Button::new("Undo this"))
                    .on_hover_text(format!("Undo \"{}\" (journal {})", j.summary, j.id))
                    .clicked()
            {
                commands.push(UiCommand::Fix(FixCommand::Undo(Some(j.id.clone()))));
            }
        });
    }
}

/// One applied fix's outcome and verification, under the fix in the checklist.
fn verification_ui(ui: &mut egui::Ui, r: &crate::engine::api::fix::ApplyReport) {
    let text = match &r.verification {
        Some(v) if v.verified => format!(
            "✔ {}: {} — verified, its finding is gone",
            r.fix_id, r.outcome
        ),
        Some(v) => format!(
            "✖ {}: {} — NOT verified, still found: {}",
            r.fix_id,
            r.outcome,
            v.still_found.clone().unwrap_or_default()
        ),
        None => format!("{}: {}", r.fix_id, r.outcome),
    };
    ui.label(text);
    if let Some(v) = &r.verification {
        for c in &v.checked {
            ui.small(format!("checked: {c}"));
        }
    }
}

fn preview_ui(
    ui: &mut egui::Ui,
    state: &FixState,
    focused: Option<&crate::engine::api::FixRef>,
    commands: &mut Vec<UiCommand>,
) {
    theme::card(ui, |ui| {
        ui.label(egui::RichText::new("Preview").strong());
        match (&state.focused, &state.preview) {
            (None, _) => {
                ui.label("Pick a fix to see exactly what it changes.");
            }
            (Some(_), None) => {
                ui.spinner();
            }
            (Some(_), Some(Err(e))) => {
                let text = crate::ui::worker::failure_text(e);
                match focused {
                    // A step only the user can take (install a toolkit, pick a release): say so
                    // rather than show the planner's "no plan".
                    Some(fix) if is_manual(fix, &text) => {
                        ui.label(
                            "A manual step: nothing CUDA Triage can change for you. What to do:",
                        );
                        ui.horizontal(|ui| {
                            ui.label(egui::RichText::new(&fix.summary).strong());
                            super::findings::copy_button(ui, &fix.summary, commands);
                        });
                    }
                    _ => {
                        ui.colored_label(
                            theme::severity_colour(ui, crate::engine::api::Severity::Warning),
                            format!("No preview: {text}"),
                        );
                    }
                }
            }
            (Some(_), Some(Ok(plan))) => {
                // Bytes that are not UTF-8 (a Latin-1 é in a profile) come out of the diff as
                // U+FFFD, which the monospace font cannot draw: show them as `?` (written as they are).
                let text = plan.preview().replace('\u{FFFD}', "?");
                ui.add(egui::Label::new(egui::RichText::new(text).monospace()).wrap());
            }
        }
        if let Some(fix) = focused
            && matches!(fix.kind, crate::engine::api::FixKind::CopyFile { .. })
        {
            copy_source_ui(ui, state, commands);
        }
    });
}

/// For a copy fix: the file to copy, typed or picked, and planned again on request.
fn copy_source_ui(ui: &mut egui::Ui, state: &FixState, commands: &mut Vec<UiCommand>) {
    ui.horizontal(|ui| {
        let label = ui.label("File to copy:");
        let mut text = state.copy_from.clone();
        let edit = egui::TextEdit::singleline(&mut text)
            .hint_text("the first usable file the finding names")
            .desired_width(360.0);
        let response = ui
            .add_enabled(!state.busy(), edit)
            .labelled_by(label.id)
            .on_hover_text(
                "A file you already have, of the bitness the fix names; never downloaded",
            );
        if response.changed() {
            commands.push(UiCommand::Fix(FixCommand::EditCopySource(text)));
        }
        if ui
            .add_enabled(!state.busy(), egui::Button::new("Choose file…"))
            .clicked()
        {
            commands.push(UiCommand::Fix(FixCommand::PickCopySource));
        }
        if ui
            .add_enabled(!state.busy(), egui::Button::new("Use this file"))
            .clicked()
        {
            commands.push(UiCommand::Fix(FixCommand::UseCopySource));
        }
    });
}

/// A fix with no change CUDA Triage can make: an install, a manual step, or one the planner
/// has no plan for.
fn is_manual(fix: &crate::engine::api::FixRef, error: &str) -> bool {
    fix.kind.is_manual() || error.starts_with("no plan:")
}

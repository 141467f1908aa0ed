//! Colours, spacing and text styles in one place; light and dark variants.

use crate::engine::findings::Severity;
use egui::Color32;

pub const STEP_LIST_WIDTH: f32 = 190.0;
pub const CARD_SPACING: f32 = 8.0;
pub const CARD_MARGIN: i8 = 10;

/// Applies the chosen theme to the whole context.
pub fn apply(ctx: &egui::Context, dark: bool) {
    ctx.set_theme(if dark {
        egui::Theme::Dark
    } else {
        egui::Theme::Light
    });
}

/// The colour that stands for a severity, readable on both themes.
pub fn severity_colour(severity: Severity, dark: bool) -> Color32 {
    match (severity, dark) {
        (Severity::Error, true) => Color32::from_rgb(255, 110, 100),
        (Severity::Error, false) => Color32::from_rgb(190, 30, 30),
        (Severity::Warning, true) => Color32::from_rgb(255, 200, 90),
        (Severity::Warning, false) => Color32::from_rgb(160, 100, 0),
        (Severity::Info, true) => Color32::from_rgb(120, 180, 255),
        (Severity::Info, false) => Color32::from_rgb(30, 90, 180),
    }
}

/// A symbol for a severity, so colour is never the only cue.
pub fn severity_symbol(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "×",
        Severity::Warning => "!",
        Severity::Info => "i",
    }
}

pub const OK_GREEN_DARK: Color32 = Color32::from_rgb(110, 210, 120);
pub const OK_GREEN_LIGHT: Color32 = Color32::from_rgb(20, 130, 40);

pub fn ok_colour(dark: bool) -> Color32 {
    if dark { OK_GREEN_DARK } else { OK_GREEN_LIGHT }
}

/// A framed card for a group of facts.
pub fn card(ui: &mut egui::Ui, add_contents: impl FnOnce(&mut egui::Ui)) {
    egui::Frame::group(ui.style())
        .inner_margin(egui::Margin::same(CARD_MARGIN))
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            add_contents(ui)
        });
    ui.add_space(CARD_SPACING);
}

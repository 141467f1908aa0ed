//! Colours, spacing and text styles in one place; light and dark variants. Drawing code reads the
//! theme from `ui.visuals().dark_mode`, never from a flag passed down.

use crate::engine::api::Severity;
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

/// What a line or card says about what it shows, drawn as one icon everywhere: ✔ checked and
/// fine, ℹ for information, ⚠ a warning, ✖ an error or something missing, ? not known (the
/// files do not say, or it could not be checked) — never shown as fine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mark {
    Ok,
    Info,
    Unknown,
    Warning,
    Error,
}

impl Mark {
    pub fn symbol(self) -> &'static str {
        match self {
            Mark::Ok => "✔",
            Mark::Info => "ℹ",
            Mark::Unknown => "?",
            Mark::Warning => "⚠",
            Mark::Error => "✖",
        }
    }

    /// Words for screen readers and tooltips.
    pub fn meaning(self) -> &'static str {
        match self {
            Mark::Ok => "checked and fine",
            Mark::Info => "information",
            Mark::Unknown => "not known",
            Mark::Warning => "warning",
            Mark::Error => "error or missing",
        }
    }

    /// A colour readable on both themes.
    pub fn colour(self, dark: bool) -> Color32 {
        match (self, dark) {
            (Mark::Ok, true) => Color32::from_rgb(110, 210, 120),
            (Mark::Ok, false) => Color32::from_rgb(20, 130, 40),
            (Mark::Error, true) => Color32::from_rgb(255, 110, 100),
            (Mark::Error, false) => Color32::from_rgb(190, 30, 30),
            (Mark::Warning, true) => Color32::from_rgb(255, 200, 90),
            (Mark::Warning, false) => Color32::from_rgb(160, 100, 0),
            (Mark::Info, true) => Color32::from_rgb(120, 180, 255),
            (Mark::Info, false) => Color32::from_rgb(30, 90, 180),
            (Mark::Unknown, true) => Color32::from_rgb(190, 160, 255),
            (Mark::Unknown, false) => Color32::from_rgb(100, 60, 170),
        }
    }

    /// The mark's colour on the theme `ui` draws with.
    pub fn colour_in(self, ui: &egui::Ui) -> Color32 {
        self.colour(ui.visuals().dark_mode)
    }

    /// The worst of several marks (`Ok` when there are none).
    pub fn worst(marks: impl IntoIterator<Item = Mark>) -> Mark {
        marks.into_iter().max().unwrap_or(Mark::Ok)
    }
}

impl From<Severity> for Mark {
    fn from(severity: Severity) -> Mark {
        match severity {
            Severity::Error => Mark::Error,
            Severity::Warning => Mark::Warning,
            Severity::Info => Mark::Info,
        }
    }
}

/// The colour that stands for a severity on the theme `ui` draws with.
pub fn severity_colour(ui: &egui::Ui, severity: Severity) -> Color32 {
    Mark::from(severity).colour_in(ui)
}

/// A symbol for a severity, so colour is never the only cue.
pub fn severity_symbol(severity: Severity) -> &'static str {
    Mark::from(severity).symbol()
}

/// A title `✔ text`, strong and in the mark's colour (an icon and words, never colour alone).
pub fn marked(ui: &mut egui::Ui, mark: Mark, text: impl std::fmt::Display) -> egui::Response {
    let text = egui::RichText::new(format!("{} {text}", mark.symbol())).strong();
    ui.colored_label(mark.colour_in(ui), text)
        .on_hover_text(mark.meaning())
}

/// A line `? text`: the icon in the mark's colour, the words in the text colour (one label, so
/// a screen reader reads both).
pub fn mark_line(ui: &mut egui::Ui, mark: Mark, text: &str) -> egui::Response {
    let font = egui::TextStyle::Body.resolve(ui.style());
    let mut job = egui::text::LayoutJob::default();
    let format = |colour| egui::TextFormat::simple(font.clone(), colour);
    job.append(mark.symbol(), 0.0, format(mark.colour_in(ui)));
    job.append(&format!(" {text}"), 0.0, format(ui.visuals().text_color()));
    ui.add(egui::Label::new(job)).on_hover_text(mark.meaning())
}

/// A framed card for a group of facts.
pub fn card(ui: &mut egui::Ui, add_contents: impl FnOnce(&mut egui::Ui)) {
    egui::Frame::group(ui.style())
        .inner_margin(egui::Margin::same(CARD_MARGIN))
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            // Left-aligned, never justified: a wrapped line inside `ui.columns` (a justified
            // layout) would otherwise be stretched letter by letter.
            ui.with_layout(egui::Layout::top_down(egui::Align::Min), add_contents)
        });
    ui.add_space(CARD_SPACING);
}

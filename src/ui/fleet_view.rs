//! The fleet view: many machines' reports (a folder, or several reports dropped or picked) as
//! the engine's fleet matrix. The findings with the machines that have them, then machines ×
//! facts, one row per group of identical machines, the columns where machines differ first and
//! each minority value shaded and marked `≠`. Rows are virtualised (only those in view are laid
//! out) so a thousand machines scroll smoothly; the reports are read on a worker thread.

use super::steps::UiCommand;
use super::theme;
use crate::engine::api::report::fleet::{self, FindingSpread, Fleet, Row};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, TryRecvError};

const ROW_HEIGHT: f32 = 22.0;
const MEMBERS_WIDTH: f32 = 220.0;
const COLUMN_WIDTH: f32 = 150.0;

/// The fleet view's state: the view shown, and the reading in progress.
#[derive(Default)]
pub struct FleetState {
    pub view: Option<Fleet>,
    /// What was opened ("3 reports", a folder's path).
    pub source: String,
    pub job: Option<Receiver<Fleet>>,
}

impl FleetState {
    /// Starts reading `inputs` (folders and report files) on a worker thread.
    pub fn open(&mut self, inputs: Vec<PathBuf>) {
        self.source = match inputs.as_slice() {
            [one] => one.display().to_string(),
            many => format!("{} reports", many.len()),
        };
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            send.send(fleet::fleet_of(&inputs, Default::default())).ok();
        });
        self.job = Some(receive);
    }

    /// Takes in a finished reading; returns the status line it calls for.
    pub fn poll(&mut self) -> Option<String> {
        let job = self.job.as_ref()?;
        match job.try_recv() {
            Ok(view) => {
                self.job = None;
                let status = format!(
                    "Opened {} machine(s) from {}: {} group(s){}.",
                    view.machines,
                    self.source,
                    view.rows.len(),
                    match view.unreadable.len() {
                        0 => String::new(),
                        n => format!(", {n} report(s) not read"),
                    }
                );
                self.view = Some(view);
                Some(status)
            }
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => {
                self.job = None;
                Some("Reading the reports failed.".into())
            }
        }
    }
}

/// The whole fleet view (it scrolls by itself).
pub fn fleet_ui(ui: &mut egui::Ui, state: &FleetState, commands: &mut Vec<UiCommand>) {
    let Some(view) = &state.view else { return };
    ui.horizontal(|ui| {
        ui.heading("Many machines");
        if ui
            .button("Close")
            .on_hover_text("Back to the wizard")
            .clicked()
        {
            commands.push(UiCommand::CloseFleet);
        }
    });
    ui.label(format!(
        "{} machine(s) from {} in {} group(s); they differ in {} of {} column(s).",
        view.machines,
        state.source,
        view.rows.len(),
        view.differing().count(),
        view.columns.len()
    ));
    ui.add_space(theme::CARD_SPACING);
    findings_ui(ui, &view.findings);
    for u in &view.unreadable {
        theme::mark_line(
            ui,
            theme::Mark::Error,
            &format!("Not read: {}: {}", u.path, u.error),
        );
    }
    ui.add_space(theme::CARD_SPACING);
    matrix_ui(ui, view);
}

/// "✖ library-missing on 1 of 3 machine(s): broken", each with its summary on hover.
fn findings_ui(ui: &mut egui::Ui, findings: &[FindingSpread]) {
    if findings.is_empty() {
        return;
    }
    egui::ScrollArea::vertical()
        .id_salt("fleet_findings")
        .max_height(140.0)
        .auto_shrink([false, true])
        .show(ui, |ui| {
            for s in findings {
                let mark = theme::Mark::from(s.severity);
                theme::mark_line(ui, mark, &fleet::spread_line(s)).on_hover_text(&s.summary);
            }
        });
}

/// A fixed-size cell, its text left-aligned and cut to fit; a minority value is shaded (and
/// marked in its text, so colour is never the only cue).
fn cell_ui(ui: &mut egui::Ui, width: f32, text: &str, minority: bool, hover: &str) {
    let size = egui::vec2(width, ROW_HEIGHT);
    let layout = egui::Layout::left_to_right(egui::Align::Center);
    ui.allocate_ui_with_layout(size, layout, |ui| {
        ui.set_min_size(size);
        ui.set_max_width(width);
        if minority {
            let colour = theme::Mark::Warning.colour_in(ui).gamma_multiply(0.3);
            ui.painter()
                .rect_filled(ui.max_rect().shrink(1.0), 2.0, colour);
        }
        ui.add_space(4.0);
        ui.add(egui::Label::new(text).truncate())
            .on_hover_text(hover);
    });
}

fn row_ui(ui: &mut egui::Ui, view: &Fleet, row: &Row) {
    ui.horizontal(|ui| {
        ui.spacing_mut().item_spacing.x = 0.0;
        let members = format!(
            "{} {} ({})",
            if row.has_error {
                theme::Mark::Error.symbol()
            } else {
                theme::Mark::Ok.symbol()
            },
            fleet::names(&row.members),
            row.members.len()
        );
        cell_ui(ui, MEMBERS_WIDTH, &members, false, &members);
        for (cell, column) in row.cells.iter().zip(&view.columns) {
            let text = fleet::cell_text(cell);
            let hover = format!("{}: {text}", column.title);
            cell_ui(ui, COLUMN_WIDTH, &text, cell.minority, &hover);
        }
    });
}

/// The matrix: a header row, then the rows in view only.
fn matrix_ui(ui: &mut egui::Ui, view: &Fleet) {
    egui::ScrollArea::horizontal()
        .id_salt("fleet_matrix")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.spacing_mut().item_spacing.x = 0.0;
                cell_ui(
                    ui,
                    MEMBERS_WIDTH,
                    "Machines",
                    false,
                    "Identical machines share a row",
                );
                for column in &view.columns {
                    let title = if column.differs {
                        column.title.clone()
                    } else {
                        format!("{} (same)", column.title)
                    };
                    let hover = match (&column.majority, column.differs) {
                        (Some(v), true) => format!("{}: most machines have {v}", column.title),
                        (None, true) => format!("{}: most machines lack it", column.title),
                        _ => format!("{}: the same on every machine", column.title),
                    };
                    cell_ui(ui, COLUMN_WIDTH, &title, false, &hover);
                }
            });
            ui.separator();
            egui::ScrollArea::vertical()
                .id_salt("fleet_rows")
                .auto_shrink([false, false])
                .show_rows(ui, ROW_HEIGHT, view.rows.len(), |ui, range| {
                    for row in &view.rows[range] {
                        row_ui(ui, view, row);
                    }
                });
        });
}

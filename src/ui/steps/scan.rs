//! Scan step: starts the scan on a worker thread, shows its stage and progress, can cancel,
//! and once done shows summary cards (toolkits, cuDNN, driver, GPUs, Python environments,
//! frameworks), each marked OK / ! (warning) / × (missing), read from the document's inventory.

use super::{Step, UiCommand};
use crate::engine::scan::{Inventory, PythonKind};
use crate::ui::app::{ScanState, TriageApp};
use crate::ui::theme;

pub fn scan_ui(ui: &mut egui::Ui, app: &TriageApp, commands: &mut Vec<UiCommand>) {
    ui.heading("Scan");
    ui.label(format!("Diagnosing {}.", app.target_description()));
    ui.add_space(8.0);
    match &app.scan {
        ScanState::NotStarted => {
            if ui.button("Start scan").clicked() {
                commands.push(UiCommand::StartScan);
            }
        }
        ScanState::Running(job) => {
            let (stage, done, total) = job.progress.snapshot();
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(if stage.is_empty() {
                    "Starting…".to_string()
                } else {
                    stage
                });
            });
            let fraction = if total > 0 {
                done as f32 / total as f32
            } else {
                0.0
            };
            ui.add(egui::ProgressBar::new(fraction).show_percentage());
            if ui.button("Cancel").clicked() {
                commands.push(UiCommand::CancelScan);
            }
        }
        ScanState::Cancelled => {
            ui.label("The scan was cancelled.");
            if ui.button("Scan again").clicked() {
                commands.push(UiCommand::StartScan);
            }
        }
        ScanState::Failed(message) => {
            ui.colored_label(
                theme::severity_colour(crate::engine::findings::Severity::Error, app.dark_mode),
                format!("The scan failed: {message}"),
            );
            if ui.button("Scan again").clicked() {
                commands.push(UiCommand::StartScan);
            }
        }
        ScanState::Done => {
            if let Some(doc) = &app.document {
                machine_cards_ui(ui, doc, app, commands);
            }
            ui.horizontal(|ui| {
                if ui.button("Scan again").clicked() {
                    commands.push(UiCommand::StartScan);
                }
                if ui.button("See findings").clicked() {
                    commands.push(UiCommand::GoTo(Step::Findings));
                }
            });
        }
    }
}

/// How a summary card rates what it shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    Ok,
    Warning,
    Missing,
}

fn mark_label(ui: &mut egui::Ui, mark: Mark, title: &str, dark: bool) {
    use crate::engine::findings::Severity;
    let (symbol, colour) = match mark {
        Mark::Ok => ("OK", theme::ok_colour(dark)),
        Mark::Warning => ("!", theme::severity_colour(Severity::Warning, dark)),
        Mark::Missing => ("×", theme::severity_colour(Severity::Error, dark)),
    };
    ui.colored_label(
        colour,
        egui::RichText::new(format!("{symbol}  {title}")).strong(),
    );
}

/// Up to `max` lines, then "… and N more".
fn lines_ui(ui: &mut egui::Ui, lines: &[String], max: usize, empty: &str) {
    if lines.is_empty() {
        ui.label(empty);
    }
    for l in lines.iter().take(max) {
        ui.label(l);
    }
    if lines.len() > max {
        ui.label(format!("… and {} more", lines.len() - max));
    }
}

/// Summary cards of what the scan knows about the machine.
fn machine_cards_ui(
    ui: &mut egui::Ui,
    doc: &crate::engine::report::Document,
    app: &TriageApp,
    commands: &mut Vec<UiCommand>,
) {
    let dark = app.dark_mode;
    let live = app.target == crate::ui::worker::Target::Live;
    let m = &doc.machine;
    theme::card(ui, |ui| {
        ui.label(egui::RichText::new("Machine").strong());
        ui.label(format!(
            "Platform: {}{}  ·  Source: {}",
            m.platform.as_str(),
            if m.wsl { " (WSL)" } else { "" },
            m.source.describe()
        ));
    });
    let inv: Inventory = doc
        .extra
        .get("inventory")
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default();
    ui.columns(2, |cols| {
        toolkits_card(&mut cols[0], &inv, dark);
        cudnn_card(&mut cols[0], &inv, dark);
        environments_card(&mut cols[0], &inv, dark);
        driver_card(&mut cols[1], doc, &inv, dark);
        gpus_card(&mut cols[1], doc, dark);
        frameworks_card(&mut cols[1], &inv, dark, live, commands);
    });
    if !inv.skipped.is_empty() {
        ui.collapsing(
            format!("Skipped during the scan ({})", inv.skipped.len()),
            |ui| {
                let lines: Vec<String> = inv
                    .skipped
                    .iter()
                    .map(|s| format!("{}: {}", s.path, s.reason))
                    .collect();
                lines_ui(ui, &lines, 20, "");
            },
        );
    }
}

fn toolkits_card(ui: &mut egui::Ui, inv: &Inventory, dark: bool) {
    theme::card(ui, |ui| {
        let mark = match inv.toolkits.len() {
            0 => Mark::Missing,
            _ if inv.toolkits.iter().any(|t| t.version.is_none()) => Mark::Warning,
            _ => Mark::Ok,
        };
        mark_label(
            ui,
            mark,
            &format!("CUDA toolkits ({})", inv.toolkits.len()),
            dark,
        );
        let lines: Vec<String> = inv
            .toolkits
            .iter()
            .map(|t| {
                let ptxas = t.ptxas.as_ref().map_or(String::new(), |p| {
                    format!(", ptxas {}", p.version.as_deref().unwrap_or("?"))
                });
                format!(
                    "{} — {}{ptxas}",
                    t.version.as_deref().unwrap_or("version unknown"),
                    t.root
                )
            })
            .collect();
        lines_ui(ui, &lines, 4, "No CUDA toolkit found.");
    });
}

fn cudnn_card(ui: &mut egui::Ui, inv: &Inventory, dark: bool) {
    theme::card(ui, |ui| {
        let bad_zlib = inv.zlibwapi.iter().any(|z| z.bits == Some(32));
        let mark = match inv.cudnn.len() {
            0 => Mark::Missing,
            _ if bad_zlib => Mark::Warning,
            _ => Mark::Ok,
        };
        mark_label(ui, mark, &format!("cuDNN ({})", inv.cudnn.len()), dark);
        let mut lines: Vec<String> = inv
            .cudnn
            .iter()
            .map(|c| {
                format!(
                    "{} — {}",
                    c.version.as_deref().unwrap_or("version unknown"),
                    c.library_dirs.first().unwrap_or(&c.root)
                )
            })
            .collect();
        for z in &inv.zlibwapi {
            lines.push(format!(
                "zlibwapi.dll ({}) — {}",
                z.bits.map_or("?".to_string(), |b| format!("{b}-bit")),
                z.path
            ));
        }
        lines_ui(ui, &lines, 5, "No cuDNN found.");
    });
}

fn driver_card(
    ui: &mut egui::Ui,
    doc: &crate::engine::report::Document,
    inv: &Inventory,
    dark: bool,
) {
    theme::card(ui, |ui| match &doc.machine.driver {
        Some(d) => {
            mark_label(ui, Mark::Ok, &format!("NVIDIA driver {}", d.version), dark);
            if let Some(cuda) = &d.cuda {
                ui.label(format!("Supports CUDA up to {cuda}"));
            }
        }
        None if inv.driver.present() => {
            let v = inv.driver.version.as_deref().unwrap_or("version unknown");
            mark_label(
                ui,
                Mark::Warning,
                &format!("NVIDIA driver {v} (files only; NVML gave no facts)"),
                dark,
            );
            lines_ui(ui, &inv.driver.libraries, 3, "");
        }
        None => {
            mark_label(ui, Mark::Missing, "No NVIDIA driver found", dark);
            if let Some(note) = &doc.machine.driver_note {
                ui.label(note);
            }
        }
    });
}

fn gpus_card(ui: &mut egui::Ui, doc: &crate::engine::report::Document, dark: bool) {
    let gpus = &doc.machine.gpus;
    theme::card(ui, |ui| {
        let mark = if gpus.is_empty() {
            Mark::Missing
        } else {
            Mark::Ok
        };
        mark_label(ui, mark, &format!("GPUs ({})", gpus.len()), dark);
        let lines: Vec<String> = gpus
            .iter()
            .map(|gpu| {
                let cc = gpu.compute_capability.as_deref().unwrap_or("?");
                let mem = gpu
                    .memory_mib
                    .map(|v| format!(", {v} MiB"))
                    .unwrap_or_default();
                format!("{} — compute capability {cc}{mem}", gpu.name)
            })
            .collect();
        lines_ui(ui, &lines, 4, "None reported.");
    });
}

fn environments_card(ui: &mut egui::Ui, inv: &Inventory, dark: bool) {
    theme::card(ui, |ui| {
        let store = inv
            .python_envs
            .iter()
            .any(|e| e.kind == PythonKind::MicrosoftStore);
        let mark = match inv.python_envs.len() {
            0 => Mark::Missing,
            _ if store => Mark::Warning,
            _ => Mark::Ok,
        };
        mark_label(
            ui,
            mark,
            &format!("Python environments ({})", inv.python_envs.len()),
            dark,
        );
        let lines: Vec<String> = inv
            .python_envs
            .iter()
            .map(|e| {
                let kind = serde_json::to_value(e.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(String::from))
                    .unwrap_or_default();
                let flag = if e.kind == PythonKind::MicrosoftStore {
                    "  (!) Microsoft Store"
                } else {
                    ""
                };
                format!(
                    "Python {} ({kind}) — {}{flag}",
                    e.python_version.as_deref().unwrap_or("?"),
                    e.root
                )
            })
            .collect();
        lines_ui(ui, &lines, 5, "No Python environment found.");
    });
}

fn frameworks_card(
    ui: &mut egui::Ui,
    inv: &Inventory,
    dark: bool,
    live: bool,
    commands: &mut Vec<UiCommand>,
) {
    theme::card(ui, |ui| {
        let all: Vec<_> = inv.frameworks().collect();
        let gpu = all
            .iter()
            .filter(|(_, f)| f.cuda_build != Some(false))
            .count();
        // A CUDA build whose expectations could not be read, or were inferred, is not "OK".
        let unsure = all.iter().any(|(_, f)| {
            f.cuda_build != Some(false)
                && (f.expects.cuda.is_none() || f.expects.inferred_from.is_some())
        });
        let mark = match (all.len(), gpu) {
            (0, _) => Mark::Missing,
            (_, 0) => Mark::Warning,
            _ if gpu < all.len() || unsure => Mark::Warning,
            _ => Mark::Ok,
        };
        mark_label(ui, mark, &format!("GPU frameworks ({})", all.len()), dark);
        let lines: Vec<String> = all
            .iter()
            .map(|(_, f)| {
                let cuda = match (f.cuda_build, &f.expects.cuda) {
                    (Some(false), _) => "CPU-only build".to_string(),
                    (_, Some(_)) if f.expects.inferred_from.is_some() => {
                        format!("(!) CUDA {}", f.expects.cuda_label())
                    }
                    (_, Some(c)) => format!("CUDA {c}"),
                    _ if f.expects.unread.is_empty() => {
                        "(?) CUDA unknown: its files do not say".to_string()
                    }
                    _ => format!("(?) CUDA unknown: {}", f.expects.unread.join("; ")),
                };
                format!(
                    "{} {} — {cuda}{}",
                    f.kind.display_name(),
                    f.version.as_deref().unwrap_or("?"),
                    import_outcome(inv, f)
                )
            })
            .collect();
        lines_ui(ui, &lines, 5, "No GPU framework found.");
        if !all.is_empty() {
            let button = ui
                .add_enabled(live, egui::Button::new("Try importing them"))
                .on_hover_text(if live {
                    "Imports each framework in a child process of its own Python (with a time limit) \
                     and lays the files the real loader mapped beside what the scan predicted"
                } else {
                    "Only on this computer: a machine file or report cannot run its Python"
                });
            if button.clicked() {
                commands.push(UiCommand::TryImports);
            }
        }
    });
}

/// ` — import works` / ` — import failed: <last line>` once the import probe ran for `f`.
fn import_outcome(inv: &Inventory, f: &crate::engine::scan::inventory::Framework) -> String {
    let probe = inv
        .python_envs
        .iter()
        .find(|e| e.frameworks.iter().any(|g| g.location == f.location))
        .and_then(|e| e.import_probes.iter().find(|p| p.module == f.kind.module()));
    match probe {
        None => String::new(),
        Some(p) if p.outcome == "ok" => " — ✓ import works".to_string(),
        Some(p) => format!(
            " — ✗ import {}: {}",
            p.outcome,
            p.stderr_tail.lines().last().unwrap_or_default()
        ),
    }
}

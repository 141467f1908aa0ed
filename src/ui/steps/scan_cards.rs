//! The Scan step's summary cards. Every line carries its own mark (✔ checked and fine, ⚠ a
//! warning, ✖ missing or failing, ? not known) and a card takes the worst of its lines, so a
//! card never says ✔ about something the scan could not read: a toolkit without a version, a
//! framework whose CUDA build is unknown, a GPU without a compute capability. A framework that
//! findings name (its package folder in their evidence) carries their worst severity.

use super::UiCommand;
use crate::engine::api::{Framework, Inventory, ProbeOutcome, PythonKind, Report, Severity};
pub use crate::ui::theme::Mark;
use crate::ui::theme::{self, mark_line, marked};

/// One line of a card: its mark and its words.
pub type Line = (Mark, String);

/// The card's title with the worst mark of its lines (`empty` when it has none).
fn title_ui(ui: &mut egui::Ui, lines: &[Line], empty: Mark, title: &str) {
    let mark = if lines.is_empty() {
        empty
    } else {
        Mark::worst(lines.iter().map(|(m, _)| *m))
    };
    marked(ui, mark, title);
}

/// Up to `max` lines, then "… and N more".
pub fn lines_ui(ui: &mut egui::Ui, lines: &[Line], max: usize, empty: &str) {
    if lines.is_empty() && !empty.is_empty() {
        ui.label(empty);
    }
    for (mark, text) in lines.iter().take(max) {
        mark_line(ui, *mark, text);
    }
    if lines.len() > max {
        ui.label(format!("… and {} more", lines.len() - max));
    }
}

/// A card; `none` is its mark when it has no line: information where nothing of the kind is
/// needed by itself (a pip-installed torch needs no toolkit, and a finding says so when something
/// does), an error where nothing can work without it.
fn card_ui(
    ui: &mut egui::Ui,
    title: &str,
    lines: &[Line],
    max: usize,
    (none, empty): (Mark, &str),
) {
    theme::card(ui, |ui| {
        title_ui(ui, lines, none, title);
        lines_ui(ui, lines, max, empty);
        let words: Vec<&str> = lines.iter().map(|(_, t)| t.as_str()).collect();
        crate::ui::glossary::terms_ui(ui, &words.join("\n"));
    });
}

fn known(value: Option<&str>) -> Mark {
    if value.is_some() {
        Mark::Ok
    } else {
        Mark::Unknown
    }
}

pub fn toolkits_card(ui: &mut egui::Ui, inv: &Inventory) {
    let lines: Vec<Line> = inv
        .toolkits
        .iter()
        .map(|t| {
            let ptxas = t.ptxas.as_ref().map_or(String::new(), |p| {
                format!(", ptxas {}", p.version.as_deref().unwrap_or("?"))
            });
            let text = format!(
                "{} — {}{ptxas}",
                t.version.as_deref().unwrap_or("version unknown"),
                t.root
            );
            (known(t.version.as_deref()), text)
        })
        .collect();
    let title = format!("CUDA toolkits ({})", inv.toolkits.len());
    card_ui(
        ui,
        &title,
        &lines,
        4,
        (Mark::Info, "No CUDA toolkit found."),
    );
}

pub fn cudnn_card(ui: &mut egui::Ui, inv: &Inventory) {
    let mut lines: Vec<Line> = inv
        .cudnn
        .iter()
        .map(|c| {
            let text = format!(
                "{} — {}",
                c.version.as_deref().unwrap_or("version unknown"),
                c.library_dirs.first().unwrap_or(&c.root)
            );
            (known(c.version.as_deref()), text)
        })
        .collect();
    for z in &inv.zlibwapi {
        let mark = match z.bits {
            Some(64) => Mark::Ok,
            Some(_) => Mark::Warning,
            None => Mark::Unknown,
        };
        let bits = z.bits.map_or("?".to_string(), |b| format!("{b}-bit"));
        lines.push((mark, format!("zlibwapi.dll ({bits}) — {}", z.path)));
    }
    let title = format!("cuDNN ({})", inv.cudnn.len());
    card_ui(ui, &title, &lines, 5, (Mark::Info, "No cuDNN found."));
}

pub fn driver_card(ui: &mut egui::Ui, doc: &Report, inv: &Inventory) {
    theme::card(ui, |ui| match &doc.machine.driver {
        Some(d) => {
            marked(ui, Mark::Ok, format!("NVIDIA driver {}", d.version));
            if let Some(cuda) = &d.cuda {
                ui.label(format!("Supports CUDA up to {cuda}"));
            }
        }
        None if inv.driver.present() => {
            let v = inv.driver.version.as_deref().unwrap_or("version unknown");
            marked(
                ui,
                Mark::Warning,
                format!("NVIDIA driver {v} (files only; NVML gave no facts)"),
            );
            for lib in inv.driver.libraries.iter().take(3) {
                ui.label(lib);
            }
        }
        None => {
            marked(ui, Mark::Error, "No NVIDIA driver found");
            if let Some(note) = &doc.machine.driver_note {
                ui.label(note);
            }
        }
    });
}

pub fn gpus_card(ui: &mut egui::Ui, doc: &Report) {
    let gpus = &doc.machine.gpus;
    let lines: Vec<Line> = gpus
        .iter()
        .map(|gpu| {
            let cc = gpu.compute_capability.as_deref();
            let mem = gpu
                .memory_mib
                .map(|v| format!(", {v} MiB"))
                .unwrap_or_default();
            let text = format!(
                "{} — compute capability {}{mem}",
                gpu.name,
                cc.unwrap_or("?")
            );
            (known(cc), text)
        })
        .collect();
    let title = format!("GPUs ({})", gpus.len());
    card_ui(ui, &title, &lines, 4, (Mark::Error, "None reported."));
}

pub fn environments_card(ui: &mut egui::Ui, inv: &Inventory) {
    let lines: Vec<Line> = inv
        .python_envs
        .iter()
        .map(|e| {
            let kind = serde_json::to_value(e.kind)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default();
            let store = e.kind == PythonKind::MicrosoftStore;
            let mark = match (store, e.python_version.is_some()) {
                (true, _) => Mark::Warning,
                (false, true) => Mark::Ok,
                (false, false) => Mark::Unknown,
            };
            let flag = if store { " (Microsoft Store)" } else { "" };
            let text = format!(
                "Python {} ({kind}) — {}{flag}",
                e.python_version.as_deref().unwrap_or("?"),
                e.root
            );
            (mark, text)
        })
        .collect();
    let title = format!("Python environments ({})", inv.python_envs.len());
    card_ui(
        ui,
        &title,
        &lines,
        5,
        (Mark::Info, "No Python environment found."),
    );
}

pub fn frameworks_card(
    ui: &mut egui::Ui,
    doc: &Report,
    inv: &Inventory,
    live: bool,
    commands: &mut Vec<UiCommand>,
) {
    let lines: Vec<Line> = inv
        .frameworks()
        .map(|(_, f)| framework_line(doc, inv, f))
        .collect();
    theme::card(ui, |ui| {
        let title = format!("GPU frameworks ({})", lines.len());
        title_ui(ui, &lines, Mark::Error, &title);
        lines_ui(ui, &lines, 5, "No GPU framework found.");
        if lines.is_empty() {
            return;
        }
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
    });
}

/// "✔ PyTorch 2.1.2 — CUDA 12.1", "? TensorFlow 2.10.1 — CUDA unknown: ...", "⚠ ... — 1
/// warning in Findings".
fn framework_line(doc: &Report, inv: &Inventory, f: &Framework) -> Line {
    let (mut mark, cuda) = match (f.cuda_build, &f.expects.cuda) {
        (Some(false), _) => (Mark::Warning, "CPU-only build".to_string()),
        (_, Some(_)) if f.expects.inferred_from.is_some() => {
            (Mark::Warning, format!("CUDA {}", f.expects.cuda_label()))
        }
        (_, Some(c)) => (Mark::Ok, format!("CUDA {c}")),
        _ if f.expects.unread.is_empty() => (
            Mark::Unknown,
            "CUDA unknown: its files do not say".to_string(),
        ),
        _ => (
            Mark::Unknown,
            format!("CUDA unknown: {}", f.expects.unread.join("; ")),
        ),
    };
    let mut text = format!(
        "{} {} — {cuda}",
        f.kind.display_name(),
        f.version.as_deref().unwrap_or("?")
    );
    let named: Vec<Severity> = doc
        .findings
        .iter()
        .filter(|x| x.severity >= Severity::Warning && names_framework(x, f))
        .map(|x| x.severity)
        .collect();
    if let Some(worst) = named.iter().max() {
        mark = mark.max(Mark::from(*worst));
        let errors = named.iter().filter(|s| **s == Severity::Error).count();
        text.push_str(&match errors {
            0 => format!(" — {} warning(s) in Findings", named.len()),
            e => format!(" — {e} error(s) in Findings"),
        });
    }
    if let Some((ok, outcome)) = import_outcome(inv, f) {
        mark = mark.max(if ok { Mark::Ok } else { Mark::Error });
        text.push_str(&outcome);
    }
    (mark, text)
}

/// Whether a finding is about this framework: it names it and points into its package folder.
fn names_framework(finding: &crate::engine::api::Finding, f: &Framework) -> bool {
    finding.summary.contains(f.kind.display_name())
        && finding.evidence.iter().any(|e| {
            e.text.contains(&f.location)
                || e.path.as_deref().is_some_and(|p| p.contains(&f.location))
        })
}

/// ` — import works` / ` — import failed: <last line>` once the import probe ran for `f`.
fn import_outcome(inv: &Inventory, f: &Framework) -> Option<(bool, String)> {
    let probe = inv
        .python_envs
        .iter()
        .find(|e| e.frameworks.iter().any(|g| g.location == f.location))
        .and_then(|e| e.import_probes.iter().find(|p| p.module == f.kind.module()))?;
    Some(if probe.outcome == ProbeOutcome::Ok {
        (true, " — import works".to_string())
    } else {
        (
            false,
            format!(
                " — import {}: {}",
                probe.outcome,
                probe.stderr_tail.lines().last().unwrap_or_default()
            ),
        )
    })
}

//! GPU test step: the device card, the libraries to test (chosen files or a folder, then the
//! paths the OS mapped and the versions they report), Run/Cancel with live progress and
//! temperature/power, a results table and bar charts. The test runs in a child process started
//! from a worker thread that the app starts (see `gpu_state` and `worker`); results and findings
//! are carried into the document.

use super::gpu_results::{chart_ui, results_table_ui};
use super::gpu_state::role_index;
pub use super::gpu_state::{GpuCommand, GpuJob, GpuTestState, report_in};
use super::{Shown, UiCommand};
use crate::engine::api::gpu::{self, GpuReport, Role};
use crate::engine::api::{ContextSource, Finding};
use crate::ui::theme;

/// The live test measures this computer: not while the wizard shows a machine file or a report.
pub fn can_run(shown: &Shown) -> bool {
    let report_open = shown
        .document
        .is_some_and(|d| matches!(d.machine.source, ContextSource::Report(_)));
    shown.target.is_this_computer() && !report_open
}

pub fn gpu_test_ui(
    ui: &mut egui::Ui,
    shown: &Shown,
    state: &GpuTestState,
    commands: &mut Vec<UiCommand>,
) {
    ui.heading("GPU test");
    ui.label(
        "Proves that the libraries work, not just that they exist: a cuBLAS matrix multiply, a cuDNN \
         convolution and copy bandwidth, each checked against a CPU reference and measured against the \
         GPU's peak. The test runs in a separate process, so a crash cannot close this window.",
    );
    ui.add_space(theme::CARD_SPACING);
    let from_report = shown.document.and_then(report_in);
    let report = state.result.as_ref().or(from_report.as_ref());
    let live = can_run(shown);
    device_card_ui(ui, shown, report);
    if live {
        libraries_ui(ui, state, report, commands);
        run_ui(ui, state, commands);
    } else {
        not_here_ui(ui, shown, report);
    }
    if let Some(r) = report {
        results_ui(ui, shown, r);
    }
}

fn device_card_ui(ui: &mut egui::Ui, shown: &Shown, report: Option<&GpuReport>) {
    theme::card(ui, |ui| {
        ui.label(egui::RichText::new("Device").strong());
        if let Some(d) = report.and_then(|r| r.device.as_ref()) {
            ui.label(format!(
                "{}: compute capability {}, {} SMs, {} MiB",
                d.name,
                d.compute_capability.as_deref().unwrap_or("?"),
                d.sm_count.map_or("?".into(), |v| v.to_string()),
                d.memory_total_mib.map_or("?".into(), |v| v.to_string())
            ));
            ui.label(format!(
                "Driver {} (CUDA {}); max clocks SM {} MHz, memory {} MHz",
                d.driver_version.as_deref().unwrap_or("?"),
                d.cuda_driver_version.as_deref().unwrap_or("?"),
                d.sm_clock_max_mhz.map_or("?".into(), |v| v.to_string()),
                d.memory_clock_max_mhz.map_or("?".into(), |v| v.to_string()),
            ));
            let p = &d.pcie;
            ui.label(format!(
                "PCIe gen {} x{} (max gen {} x{}); {} C, {} W of {} W",
                opt(p.generation),
                opt(p.width),
                opt(p.max_generation),
                opt(p.max_width),
                opt(d.temperature_c),
                d.power_w.map_or("?".into(), |w| format!("{w:.0}")),
                d.power_limit_w.map_or("?".into(), |w| format!("{w:.0}")),
            ));
            return;
        }
        let Some(doc) = shown.document else {
            ui.label("No device known yet: run the scan, or run the test.");
            return;
        };
        if doc.machine.gpus.is_empty() {
            ui.label("The scan found no NVIDIA GPU.");
        }
        for gpu in &doc.machine.gpus {
            ui.label(format!(
                "{} (compute capability {}, {} MiB), from the scan",
                gpu.name,
                gpu.compute_capability.as_deref().unwrap_or("?"),
                gpu.memory_mib.map_or("?".into(), |v| v.to_string())
            ));
        }
        if let Some(d) = &doc.machine.driver {
            ui.label(format!("Driver {}", d.version));
        }
    });
}

/// The sets the scan offers: "what PyTorch in this venv loads", "CUDA Toolkit 12.4", ...
fn sets_ui(ui: &mut egui::Ui, state: &GpuTestState, commands: &mut Vec<UiCommand>) {
    if state.sets.is_empty() {
        return;
    }
    ui.horizontal(|ui| {
        let label = ui.label("Test what this loads:");
        let selected = state
            .chosen_set
            .and_then(|i| state.sets.get(i))
            .map_or("(files chosen below)", |s| s.label.as_str());
        ui.add_enabled_ui(!state.running(), |ui| {
            egui::ComboBox::from_id_salt("gpu_sets")
                .selected_text(selected)
                .width(460.0)
                .show_ui(ui, |ui| {
                    for (i, set) in state.sets.iter().enumerate() {
                        if ui
                            .selectable_label(state.chosen_set == Some(i), &set.label)
                            .clicked()
                        {
                            commands.push(UiCommand::Gpu(GpuCommand::ChooseSet(i)));
                        }
                    }
                })
                .response
                .labelled_by(label.id);
        });
    });
}

fn opt(v: Option<u32>) -> String {
    v.map_or("?".into(), |v| v.to_string())
}

/// A machine file or a report: its files are not this computer's, so no library is picked and
/// nothing runs; the card says why and where to run the test instead.
fn not_here_ui(ui: &mut egui::Ui, shown: &Shown, report: Option<&GpuReport>) {
    theme::card(ui, |ui| {
        ui.label(egui::RichText::new("Libraries to test").strong());
        ui.label(format!(
            "No GPU test here: the test loads the libraries into a process on this computer and \
             runs them on its GPU, and the wizard shows {}, whose files are not this computer's. \
             Run `cuda-triage gpu-test` (or this wizard) on that machine; `cuda-triage gpu-test \
             --sets --machine FILE` lists what each framework there would load.",
            shown.target_description()
        ));
        if let Some(r) = report {
            loaded_ui(ui, r);
        }
    });
}

fn libraries_ui(
    ui: &mut egui::Ui,
    state: &GpuTestState,
    report: Option<&GpuReport>,
    commands: &mut Vec<UiCommand>,
) {
    let windows = cfg!(windows);
    theme::card(ui, |ui| {
        ui.label(egui::RichText::new("Libraries to test").strong());
        sets_ui(ui, state, commands);
        ui.label("Leave a field empty to let the system loader choose by the usual names.");
        egui::Grid::new("gpu_libs").num_columns(2).show(ui, |ui| {
            for role in Role::ALL {
                ui.label(role.title());
                let mut text = state.paths[role_index(role)].clone();
                let hint = gpu::default_names(role, windows).join(", ");
                let edit = egui::TextEdit::singleline(&mut text)
                    .hint_text(hint)
                    .desired_width(420.0);
                let response = ui.add_enabled(!state.running(), edit);
                if response.changed() {
                    commands.push(UiCommand::Gpu(GpuCommand::SetPath(role, text)));
                }
                ui.end_row();
            }
            ui.label("Or from folder");
            ui.horizontal(|ui| {
                let mut dir = state.dir.clone();
                let edit = egui::TextEdit::singleline(&mut dir)
                    .hint_text("toolkit bin, site-packages/nvidia, torch/lib")
                    .desired_width(320.0);
                if ui.add_enabled(!state.running(), edit).changed() {
                    commands.push(UiCommand::Gpu(GpuCommand::SetDir(dir)));
                }
                if ui
                    .add_enabled(!state.running(), egui::Button::new("Choose folder…"))
                    .clicked()
                {
                    commands.push(UiCommand::Gpu(GpuCommand::PickDir));
                }
            });
            ui.end_row();
        });
        if let Some(r) = report {
            loaded_ui(ui, r);
        }
    });
}

/// The files the last test's process mapped, with the version each reported.
fn loaded_ui(ui: &mut egui::Ui, r: &GpuReport) {
    if r.libraries.is_empty() {
        return;
    }
    ui.add_space(4.0);
    ui.label(egui::RichText::new("Loaded by the last test").strong());
    egui::Grid::new("gpu_loaded")
        .num_columns(3)
        .striped(true)
        .show(ui, |ui| {
            for lib in &r.libraries {
                ui.label(lib.role.title());
                let version = ui.label(lib.version_label());
                if let Some(e) = &lib.error {
                    version.on_hover_text(e);
                }
                ui.label(lib.mapped.as_deref().unwrap_or(&lib.requested));
                ui.end_row();
            }
        });
}

fn run_ui(ui: &mut egui::Ui, state: &GpuTestState, commands: &mut Vec<UiCommand>) {
    theme::card(ui, |ui| {
        ui.horizontal(|ui| {
            let mut quick = state.quick;
            if ui
                .add_enabled(
                    !state.running(),
                    egui::Checkbox::new(&mut quick, "Quick (small sizes)"),
                )
                .changed()
            {
                commands.push(UiCommand::Gpu(GpuCommand::SetQuick(quick)));
            }
            if state.running() {
                if ui.button("Cancel test").clicked() {
                    commands.push(UiCommand::Gpu(GpuCommand::Cancel));
                }
            } else if ui.add(egui::Button::new("Run GPU test")).clicked() {
                commands.push(UiCommand::Gpu(GpuCommand::Start));
            }
        });
        if let Some((stage, done, total)) = state.progress() {
            let fraction = if total > 0 {
                done as f32 / total as f32
            } else {
                0.0
            };
            ui.add(egui::ProgressBar::new(fraction).text(stage));
            if let Some(s) = &state.latest_sensors {
                ui.label(format!(
                    "Now: {} C, {} W, SM clock {} MHz",
                    opt(s.temperature_c),
                    s.power_w.map_or("?".into(), |w| format!("{w:.0}")),
                    opt(s.sm_clock_mhz)
                ));
            }
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(100));
        }
    });
}

fn results_ui(ui: &mut egui::Ui, shown: &Shown, report: &GpuReport) {
    theme::card(ui, |ui| {
        let verdict = format!("Verdict: {} - {}", report.verdict.as_str(), report.summary);
        ui.label(egui::RichText::new(verdict).strong());
        ui.label(format!("Total wall time {:.1} s", report.wall_s));
        let findings: Vec<&Finding> = shown
            .document
            .map(|d| {
                d.findings
                    .iter()
                    .filter(|f| f.code.starts_with(crate::engine::api::GPU_TEST_PREFIX))
                    .collect()
            })
            .unwrap_or_default();
        for f in findings {
            let colour = theme::severity_colour(ui, f.severity);
            ui.colored_label(
                colour,
                format!("{} {}", theme::severity_symbol(f.severity), f.summary),
            );
        }
        if !report.workloads.is_empty() {
            results_table_ui(ui, report);
            chart_ui(ui, report);
        }
    });
}

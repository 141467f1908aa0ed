//! The GPU step's results: a table of workloads (median time, rate, fraction of peak,
//! correctness) and bar charts of TFLOPS and GB/s drawn with egui_plot.

use crate::engine::api::gpu::{GpuReport, WorkloadKind, WorkloadResult};
use egui_plot::{Bar, BarChart, Plot};

pub fn results_table_ui(ui: &mut egui::Ui, report: &GpuReport) {
    ui.add_space(6.0);
    egui::Grid::new("gpu_results")
        .num_columns(6)
        .striped(true)
        .show(ui, |ui| {
            for h in ["Workload", "Size", "Median", "Rate", "Of peak", "Correct"] {
                ui.label(egui::RichText::new(h).strong());
            }
            ui.end_row();
            for w in &report.workloads {
                ui.label(&w.name);
                ui.label(&w.size);
                ui.label(format!("{:.3} ms", w.median_ms));
                ui.label(rate(w));
                ui.label(
                    w.fraction_of_peak
                        .map_or("-".into(), |f| format!("{:.0} %", f * 100.0)),
                );
                let c = &w.correctness;
                ui.label(if c.passed {
                    format!("yes ({:.1e})", c.max_relative_error)
                } else {
                    format!("NO ({:.1e} > {:.1e})", c.max_relative_error, c.bound)
                });
                ui.end_row();
            }
        });
}

/// "12.34 TFLOPS" or "25.1 GB/s".
pub fn rate(w: &WorkloadResult) -> String {
    match (w.tflops, w.gbps) {
        (Some(t), _) => format!("{t:.2} TFLOPS"),
        (None, Some(g)) => format!("{g:.1} GB/s"),
        _ => "-".into(),
    }
}

/// Bars for the workloads of some kinds, valued by `value`.
fn bars(
    report: &GpuReport,
    kinds: &[WorkloadKind],
    value: impl Fn(&WorkloadResult) -> Option<f64>,
) -> Vec<(String, f64)> {
    report
        .workloads
        .iter()
        .filter(|w| kinds.contains(&w.kind))
        .filter_map(|w| value(w).map(|v| (w.name.clone(), v)))
        .collect()
}

pub fn chart_ui(ui: &mut egui::Ui, report: &GpuReport) {
    let compute = bars(report, &[WorkloadKind::Gemm, WorkloadKind::Conv], |w| {
        w.tflops
    });
    let copies = bars(report, &[WorkloadKind::Copy], |w| w.gbps);
    ui.add_space(6.0);
    ui.columns(2, |cols| {
        plot_ui(&mut cols[0], "gpu_tflops", "TFLOPS", &compute);
        plot_ui(&mut cols[1], "gpu_gbps", "GB/s", &copies);
    });
}

fn plot_ui(ui: &mut egui::Ui, id: &str, unit: &str, data: &[(String, f64)]) {
    ui.label(egui::RichText::new(unit).strong());
    if data.is_empty() {
        ui.label("nothing measured");
        return;
    }
    let chart_bars: Vec<Bar> = data
        .iter()
        .enumerate()
        .map(|(i, (name, v))| Bar::new(i as f64, *v).name(name).width(0.7))
        .collect();
    let names: Vec<String> = data.iter().map(|(n, _)| n.clone()).collect();
    Plot::new(id)
        .height(220.0)
        .allow_zoom(false)
        .allow_drag(false)
        .allow_scroll(false)
        .include_y(0.0)
        .y_axis_label(unit)
        .x_axis_formatter(move |mark, _| {
            let i = mark.value.round();
            if (mark.value - i).abs() < 1e-6 && i >= 0.0 {
                names.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .show(ui, |plot| plot.bar_chart(BarChart::new(unit, chart_bars)));
}

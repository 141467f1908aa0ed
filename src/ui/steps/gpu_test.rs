//! GPU test step: the device card, the libraries to test (chosen files or a folder, then the
//! paths the OS mapped and the versions they report), Run/Cancel with live progress and
//! temperature/power, a results table and bar charts. The test runs in a child process started
//! from a worker thread ([`GpuJob`]); results and findings are carried into the document.

use super::UiCommand;
use super::gpu_results::{chart_ui, results_table_ui};
use crate::engine::findings::{Finding, sort_by_severity};
use crate::engine::report::Document;
use crate::gpu::report::{GpuReport, Role, SensorSample};
use crate::gpu::runner::{self, Options, Outcome, Update};
use crate::gpu::select::{self, Selection};
use crate::ui::app::TriageApp;
use crate::ui::theme;
use crate::ui::worker::Target;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};

/// What the GPU step asks the app to do.
#[derive(Debug, Clone, PartialEq)]
pub enum GpuCommand {
    Start,
    Cancel,
    SetQuick(bool),
    SetPath(Role, String),
    SetDir(String),
    PickDir,
}

/// Messages from the worker thread.
enum Message {
    Update(Update),
    /// The outcome, and a document of this computer for when the wizard has none yet.
    Done(Box<(Outcome, Document)>),
}

/// A test running in a child process, driven from a worker thread.
pub struct GpuJob {
    cancel: Arc<AtomicBool>,
    receiver: Receiver<Message>,
}

impl GpuJob {
    pub fn start(opts: Options) -> GpuJob {
        let cancel = Arc::new(AtomicBool::new(false));
        let (tx, rx) = channel();
        let flag = cancel.clone();
        let spawned = std::thread::Builder::new()
            .name("gpu-test".into())
            .spawn(move || {
                let updates = tx.clone();
                let outcome = runner::run(&opts, &flag, |u| {
                    let _ = updates.send(Message::Update(u));
                });
                let base = Document::new(&crate::engine::context::live::load(), Vec::new());
                let _ = tx.send(Message::Done(Box::new((outcome, base))));
            });
        if spawned.is_err() {
            // The receiver reports a disconnected worker; poll() then ends the job.
            let (_, rx) = channel();
            return GpuJob {
                cancel,
                receiver: rx,
            };
        }
        GpuJob {
            cancel,
            receiver: rx,
        }
    }

    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// The step's state: the selection, a running job and what it has said so far.
#[derive(Default)]
pub struct GpuTestState {
    pub quick: bool,
    pub paths: [String; 4],
    pub dir: String,
    pub job: Option<GpuJob>,
    pub stage: String,
    pub done: usize,
    pub total: usize,
    pub latest_sensors: Option<SensorSample>,
    pub log: Vec<String>,
    /// The last finished test of this session.
    pub result: Option<GpuReport>,
    /// The executable started as the child (tests point it at the built binary).
    pub exe: Option<PathBuf>,
}

impl GpuTestState {
    pub fn running(&self) -> bool {
        self.job.is_some()
    }

    /// The options for a run from the current fields.
    pub fn options(&self) -> Options {
        let path = |i: usize| {
            let t = self.paths[i].trim();
            (!t.is_empty()).then(|| PathBuf::from(t))
        };
        let mut selection = Selection {
            driver: path(0),
            cudart: path(1),
            cublas: path(2),
            cudnn: path(3),
        };
        let dir = self.dir.trim();
        if !dir.is_empty() {
            selection.fill_from(
                &select::list_files(std::path::Path::new(dir)),
                cfg!(windows),
            );
        }
        Options {
            selection,
            quick: self.quick,
            timeout: if self.quick {
                runner::QUICK_TIMEOUT
            } else {
                runner::FULL_TIMEOUT
            },
            exe: self.exe.clone(),
            ..Options::default()
        }
    }

    /// Drains the worker's messages; the outcome (and a base document) once the test finished.
    pub fn poll(&mut self) -> Option<(Outcome, Document)> {
        let job = self.job.as_ref()?;
        loop {
            match job.receiver.try_recv() {
                Ok(Message::Update(Update::Progress { stage, done, total })) => {
                    self.stage = stage;
                    self.done = done;
                    self.total = total;
                }
                Ok(Message::Update(Update::Sensors(s))) => self.latest_sensors = Some(s),
                Ok(Message::Update(Update::Log(line))) => {
                    self.log.push(line);
                    if self.log.len() > 200 {
                        self.log.remove(0);
                    }
                }
                Ok(Message::Done(done)) => {
                    self.job = None;
                    self.result = Some(done.0.report.clone());
                    return Some(*done);
                }
                Err(TryRecvError::Empty) => return None,
                Err(TryRecvError::Disconnected) => {
                    self.job = None;
                    return None;
                }
            }
        }
    }
}

fn role_index(role: Role) -> usize {
    Role::ALL.iter().position(|r| *r == role).unwrap_or(0)
}

/// Puts a finished test into a document: replaces earlier GPU-test findings and the `"gpu"` key.
pub fn merge(mut doc: Document, outcome: &Outcome) -> Document {
    doc.findings.retain(|f| !f.code.starts_with("gpu-test-"));
    doc.findings.extend(outcome.findings.iter().cloned());
    sort_by_severity(&mut doc.findings);
    doc.with("gpu", &outcome.report)
}

/// The live test measures this computer: not while the wizard shows a machine file or a report.
pub fn can_run(app: &TriageApp) -> bool {
    let report_open = app.document.as_ref().is_some_and(|d| {
        matches!(
            d.machine.source,
            crate::engine::context::ContextSource::Report(_)
        )
    });
    app.target == Target::Live && !report_open
}

/// The GPU report a document carries, if any.
pub fn report_in(doc: &Document) -> Option<GpuReport> {
    serde_json::from_value(doc.extra.get("gpu")?.clone()).ok()
}

pub fn gpu_test_ui(ui: &mut egui::Ui, app: &TriageApp, commands: &mut Vec<UiCommand>) {
    let state = &app.gpu;
    ui.heading("GPU test");
    ui.label(
        "Proves that the libraries work, not just that they exist: a cuBLAS matrix multiply, a cuDNN \
         convolution and copy bandwidth, each checked against a CPU reference and measured against the \
         GPU's peak. The test runs in a separate process, so a crash cannot close this window.",
    );
    ui.add_space(theme::CARD_SPACING);
    let from_report = app.document.as_ref().and_then(report_in);
    let report = state.result.as_ref().or(from_report.as_ref());
    let live = can_run(app);
    device_card_ui(ui, app, report);
    libraries_ui(ui, state, report, live, commands);
    run_ui(ui, state, live, commands);
    if let Some(r) = report {
        results_ui(ui, app, r);
    }
}

fn device_card_ui(ui: &mut egui::Ui, app: &TriageApp, report: Option<&GpuReport>) {
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
        let Some(doc) = &app.document else {
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

fn opt(v: Option<u32>) -> String {
    v.map_or("?".into(), |v| v.to_string())
}

fn libraries_ui(
    ui: &mut egui::Ui,
    state: &GpuTestState,
    report: Option<&GpuReport>,
    live: bool,
    commands: &mut Vec<UiCommand>,
) {
    let windows = cfg!(windows);
    theme::card(ui, |ui| {
        ui.label(egui::RichText::new("Libraries to test").strong());
        ui.label("Leave a field empty to let the system loader choose by the usual names.");
        egui::Grid::new("gpu_libs").num_columns(2).show(ui, |ui| {
            for role in Role::ALL {
                ui.label(role.title());
                let mut text = state.paths[role_index(role)].clone();
                let hint = select::default_names(role, windows).join(", ");
                let edit = egui::TextEdit::singleline(&mut text)
                    .hint_text(hint)
                    .desired_width(420.0);
                let response = ui.add_enabled(live && !state.running(), edit);
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
                if ui.add_enabled(live && !state.running(), edit).changed() {
                    commands.push(UiCommand::Gpu(GpuCommand::SetDir(dir)));
                }
                if ui
                    .add_enabled(
                        live && !state.running(),
                        egui::Button::new("Choose folder..."),
                    )
                    .clicked()
                {
                    commands.push(UiCommand::Gpu(GpuCommand::PickDir));
                }
            });
            ui.end_row();
        });
        if let Some(r) = report.filter(|r| !r.libraries.is_empty()) {
            ui.add_space(4.0);
            ui.label(egui::RichText::new("Loaded by the last test").strong());
            egui::Grid::new("gpu_loaded")
                .num_columns(3)
                .striped(true)
                .show(ui, |ui| {
                    for lib in &r.libraries {
                        ui.label(lib.role.title());
                        ui.label(lib.version.as_deref().unwrap_or("version unknown"));
                        ui.label(lib.mapped.as_deref().unwrap_or(&lib.requested));
                        ui.end_row();
                    }
                });
        }
    });
}

fn run_ui(ui: &mut egui::Ui, state: &GpuTestState, live: bool, commands: &mut Vec<UiCommand>) {
    theme::card(ui, |ui| {
        if !live {
            ui.label(
                "The live test runs on this computer's GPU, so it is not available while the wizard \
                 shows a machine file or a saved report.",
            );
        }
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
            } else if ui
                .add_enabled(live, egui::Button::new("Run GPU test"))
                .clicked()
            {
                commands.push(UiCommand::Gpu(GpuCommand::Start));
            }
        });
        if state.running() {
            let fraction = if state.total > 0 {
                state.done as f32 / state.total as f32
            } else {
                0.0
            };
            ui.add(egui::ProgressBar::new(fraction).text(state.stage.clone()));
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

fn results_ui(ui: &mut egui::Ui, app: &TriageApp, report: &GpuReport) {
    theme::card(ui, |ui| {
        let verdict = format!("Verdict: {} - {}", report.verdict.as_str(), report.summary);
        ui.label(egui::RichText::new(verdict).strong());
        ui.label(format!("Total wall time {:.1} s", report.wall_s));
        let findings: Vec<&Finding> = app
            .document
            .as_ref()
            .map(|d| {
                d.findings
                    .iter()
                    .filter(|f| f.code.starts_with("gpu-test-"))
                    .collect()
            })
            .unwrap_or_default();
        for f in findings {
            let colour = theme::severity_colour(f.severity, app.dark_mode);
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

/// Applies a GPU command to the app's state (called from `TriageApp::apply`).
pub fn apply(app: &mut TriageApp, command: GpuCommand) {
    let runnable = can_run(app);
    let state = &mut app.gpu;
    match command {
        GpuCommand::Start => {
            if !state.running() && runnable {
                state.stage = "Starting the test process".into();
                state.done = 0;
                state.total = 0;
                state.log.clear();
                state.latest_sensors = None;
                state.job = Some(GpuJob::start(state.options()));
                app.status = "GPU test running...".into();
            }
        }
        GpuCommand::Cancel => {
            if let Some(job) = &state.job {
                job.cancel();
                app.status = "Cancelling the GPU test...".into();
            }
        }
        GpuCommand::SetQuick(q) => state.quick = q,
        GpuCommand::SetPath(role, text) => state.paths[role_index(role)] = text,
        GpuCommand::SetDir(dir) => state.dir = dir,
        GpuCommand::PickDir => {
            if let Some(dir) = rfd::FileDialog::new().pick_folder() {
                state.dir = dir.display().to_string();
            }
        }
    }
}

//! The real wizard driven through egui_kittest by accessibility labels: every step is reached
//! by mouse and keyboard, a scan runs on its worker thread, and each step is snapshotted into
//! screenshots/ (rendered on the CPU through wgpu + lavapipe).

use crate::support::fixture;
use cuda_triage::engine::api::Source;
use cuda_triage::ui::TriageApp;
use cuda_triage::ui::steps::Step;
use egui_kittest::kittest::{NodeT, Queryable};
use egui_kittest::{Harness, SnapshotOptions};
use std::time::{Duration, Instant};

/// Snapshot images of each step live in screenshots/ (README shows them).
pub(crate) fn snapshot_options() -> SnapshotOptions {
    SnapshotOptions::new()
        .output_path(concat!(env!("CARGO_MANIFEST_DIR"), "/screenshots"))
        .threshold(2.0)
        .max_failed_pixels(200)
}

pub(crate) fn relative_machine(name: &str) -> Source {
    // A path relative to the crate root keeps the rendered text the same on every machine.
    let path = fixture(&format!("machines/{name}/machine.toml"));
    let rel = path
        .strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap()
        .to_path_buf();
    Source::machine_file(rel)
}

pub fn harness(app: TriageApp) -> Harness<'static, TriageApp> {
    harness_sized(app, [1000.0, 640.0])
}

/// [`harness`] in a window of another size (a machine with many findings needs a taller one to
/// show a step's buttons without scrolling).
pub fn harness_sized(app: TriageApp, size: [f32; 2]) -> Harness<'static, TriageApp> {
    let builder = Harness::builder().with_size(size);
    // The Windows build walks inside Wine (`gui_walk_wine`), where no GPU adapter is reachable
    // without a display: it reads the accessibility tree, which needs no rendering.
    #[cfg(not(windows))]
    let builder = builder.wgpu();
    builder.build_ui_state(|ui, app: &mut TriageApp| app.frame_ui(ui), app)
}

/// Steps the UI while `busy` holds (a background job runs); bounded, never a timing assertion.
pub fn step_while(h: &mut Harness<'_, TriageApp>, what: &str, busy: impl Fn(&TriageApp) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while busy(h.state()) {
        assert!(Instant::now() < deadline, "{what} did not finish");
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
}

/// Steps the UI until the background scan finishes (bounded, never a timing assertion).
pub fn wait_for_scan(h: &mut Harness<'_, TriageApp>) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while h.state().scan_running() {
        assert!(Instant::now() < deadline, "scan did not finish");
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
    h.run_steps(3);
}

/// A wizard on a seed machine whose scan has run (started by its button, as a user would).
pub fn scanned(machine: &str) -> Harness<'static, TriageApp> {
    let mut h = harness(TriageApp::new(relative_machine(machine)));
    h.run_steps(2);
    h.get_by_label("Start scan").click();
    h.step();
    wait_for_scan(&mut h);
    h
}

#[test]
fn wizard_walks_every_step_and_snapshots_it() {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    let mut app = TriageApp::new(relative_machine("win-cuda-tf-torch"));
    // As remembered from earlier runs (the snapshot shows the list).
    app.recent_reports = vec![
        "reports/gpu-node-07.json".into(),
        "reports/ana-laptop.json".into(),
    ];
    let mut h = harness(app);
    h.run_steps(2);
    assert!(h.query_by_label("Start scan").is_some());
    assert!(h.query_by_label("gpu-node-07.json").is_some());
    let mut results = egui_kittest::SnapshotResults::new();
    h.remove_cursor();
    results.add(h.try_snapshot_options("1-welcome", &snapshot_options()));

    h.get_by_label("Start scan").click();
    h.step();
    assert_eq!(h.state().step, Step::Scan);
    wait_for_scan(&mut h);
    assert!(h.query_by_label_contains("NVIDIA driver 546.33").is_some());
    assert!(
        h.query_by_label_contains("NVIDIA GeForce RTX 3080")
            .is_some()
    );
    h.remove_cursor();
    h.run_steps(1);
    results.add(h.try_snapshot_options("2-scan", &snapshot_options()));

    let names = [
        "3-findings",
        "4-dependencies",
        "5-gpu-test",
        "6-fix",
        "7-report",
    ];
    for (expected, name) in Step::ALL[2..].iter().zip(names) {
        h.get_by_label("Next").click();
        h.run_steps(2);
        assert_eq!(h.state().step, *expected);
        if *expected == Step::Findings {
            assert!(
                h.query_by_label_contains("PATH holds 2 CUDA toolkits")
                    .is_some()
            );
            assert!(h.query_all_by_label_contains("Why? (").count() >= 3);
        }
        if *expected == Step::Dependencies {
            continue; // gui_dependencies snapshots this step with a real tree in it
        }
        h.remove_cursor();
        h.run_steps(1);
        results.add(h.try_snapshot_options(name, &snapshot_options()));
    }
    assert!(h.query_by_label("Save JSON report…").is_some());
    // Next is disabled on the last step; Back walks back.
    h.get_by_label("Back").click();
    h.run_steps(2);
    assert_eq!(h.state().step, Step::Fix);
    // The step list jumps anywhere.
    h.get_by_label("3. Findings").click();
    h.run_steps(2);
    assert_eq!(h.state().step, Step::Findings);
    results.unwrap();
}

#[test]
fn every_step_is_reachable_by_keyboard() {
    let mut h = harness(TriageApp::new(relative_machine("win-basic")));
    h.run_steps(2);
    for expected in &Step::ALL[1..] {
        h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::ArrowRight);
        h.run_steps(2);
        assert_eq!(h.state().step, *expected);
    }
    h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::Num2);
    h.run_steps(2);
    assert_eq!(h.state().step, Step::Scan);
    h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::ArrowLeft);
    h.run_steps(2);
    assert_eq!(h.state().step, Step::Welcome);
    // Tab focus + Enter presses the focused button: start the scan without a mouse.
    let mut pressed = false;
    for _ in 0..12 {
        h.key_press(egui::Key::Tab);
        h.run_steps(1);
        if h.get_by_label("Start scan").is_focused() {
            h.key_press(egui::Key::Enter);
            h.run_steps(2);
            pressed = true;
            break;
        }
    }
    assert!(pressed, "Start scan never took keyboard focus");
    assert_eq!(h.state().step, Step::Scan);
    wait_for_scan(&mut h);
}

#[test]
fn findings_step_shows_error_cards_and_scan_can_be_cancelled() {
    let mut h = harness(TriageApp::new(relative_machine("linux-basic")));
    h.run_steps(2);
    h.get_by_label("Start scan").click();
    h.step();
    wait_for_scan(&mut h);
    h.get_by_label("See findings").click();
    h.run_steps(2);
    assert!(
        h.query_by_label_contains("No NVIDIA driver found")
            .is_some()
    );
    assert!(h.query_all_by_label_contains("Why? (").count() >= 1);

    // Cancel takes effect: a scan whose progress is cancelled stops and the step says so.
    let progress = cuda_triage::engine::progress::Progress::new();
    progress.cancel();
    let mut app = TriageApp::new(relative_machine("linux-basic"));
    app.step = Step::Scan;
    app.scan = cuda_triage::ui::app::ScanState::Running(
        cuda_triage::ui::worker::start_scan_with_progress(
            relative_machine("linux-basic"),
            progress,
        ),
    );
    let mut h = harness(app);
    wait_for_scan(&mut h);
    assert!(h.query_by_label("The scan was cancelled.").is_some());
    assert!(h.state().document.is_none());
    assert!(h.query_by_label("Scan again").is_some());
}

#[test]
fn theme_toggles_between_dark_and_light() {
    let mut h = harness(TriageApp::new(relative_machine("win-basic")));
    h.run_steps(2);
    assert!(h.state().dark_mode);
    h.get_by_label("Light theme").click();
    h.run_steps(2);
    assert!(!h.state().dark_mode);
    assert_eq!(h.ctx.theme(), egui::Theme::Light);
    assert!(!h.ctx.global_style().visuals.dark_mode);
    h.get_by_label("Dark theme").click();
    h.run_steps(2);
    assert_eq!(h.ctx.theme(), egui::Theme::Dark);
}

#[test]
fn a_saved_report_opens_on_its_findings() {
    let ctx = cuda_triage::engine::context::machine_file::load(&fixture(
        "machines/linux-basic/machine.toml",
    ))
    .unwrap();
    let doc = cuda_triage::engine::api::scan(&ctx, &Default::default(), &Default::default())
        .expect("not cancelled");
    let json = doc.to_json_pretty();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    std::fs::write(&path, json).unwrap();
    let loaded = cuda_triage::engine::report::Report::load(&path).unwrap();
    let mut h = harness(TriageApp::with_report(Source::live(), loaded, "r.json"));
    h.run_steps(2);
    assert_eq!(h.state().step, Step::Findings);
    assert!(
        h.query_by_label_contains("No NVIDIA driver found")
            .is_some()
    );
}

/// A file dropped onto the window, as the windowing integration would hand it over.
#[derive(Debug)]
struct DroppedPath(std::path::PathBuf);

impl egui::DroppedFile for DroppedPath {
    fn path(&self) -> &std::path::Path {
        &self.0
    }

    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

pub(crate) fn drop_file(h: &mut Harness<'_, TriageApp>, path: std::path::PathBuf) {
    h.input_mut()
        .dropped_files
        .push(std::sync::Arc::new(DroppedPath(path)));
}

#[test]
fn a_report_dropped_onto_the_window_opens() {
    let dir = tempfile::tempdir().unwrap();
    let path = crate::support::saved_scan_report("linux-basic", dir.path(), "dropped.json");
    let mut h = harness(TriageApp::new(relative_machine("win-basic")));
    h.run_steps(1);
    drop_file(&mut h, path.clone());
    h.run_steps(2);
    assert_eq!(h.state().step, Step::Findings);
    assert!(
        h.query_by_label_contains("No NVIDIA driver found")
            .is_some()
    );
    assert!(h.state().status.contains("dropped.json"));

    // A file that is not a report leaves the wizard as it was and says why.
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, "not json").unwrap();
    let mut h = harness(TriageApp::new(relative_machine("win-basic")));
    h.run_steps(1);
    drop_file(&mut h, junk);
    h.run_steps(2);
    assert_eq!(h.state().step, Step::Welcome);
    assert!(
        h.state().status.contains("not a CUDA Triage report"),
        "{}",
        h.state().status
    );
}

/// Steps the UI until the GPU test's child process has finished (bounded, not a timing check).
fn wait_for_gpu_test(h: &mut Harness<'_, TriageApp>) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while h.state().gpu.running() {
        assert!(Instant::now() < deadline, "GPU test did not finish");
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
    h.run_steps(3);
}

#[test]
fn gpu_step_runs_the_test_in_a_child_process_and_keeps_the_result() {
    // A fake driver that loads but sees no GPU: the same answer on every machine.
    let dir = tempfile::tempdir().unwrap();
    let lib = crate::support::build_shared_library(
        dir.path(),
        "libcuda.so.1",
        "int cuDriverGetVersion(int *v) { *v = 12040; return 0; }\nint cuInit(unsigned f) { return 100; }",
    );
    let mut app = TriageApp::new(Source::live());
    app.gpu.exe = Some(env!("CARGO_BIN_EXE_cuda-triage").into());
    app.gpu.quick = true;
    app.gpu.paths[0] = lib.display().to_string();
    app.step = Step::GpuTest;
    let mut h = harness(app);
    h.run_steps(2);
    assert!(h.query_by_label_contains("Libraries to test").is_some());
    h.get_by_label("Run GPU test").click();
    h.run_steps(1);
    wait_for_gpu_test(&mut h);
    assert!(h.query_by_label_contains("Verdict: failed").is_some());
    assert!(
        h.query_all_by_label_contains("CUDA_ERROR_NO_DEVICE (100)")
            .next()
            .is_some()
    );
    // The loaded-library table shows the version the fake reports and the mapped file.
    assert!(h.query_by_label("12.4").is_some());
    let doc = h
        .state()
        .document
        .clone()
        .expect("the result is carried into a document");
    assert!(doc.gpu.is_some());
    assert!(doc.findings.iter().any(|f| f.code == "gpu-test-cuda-error"));
}

#[test]
fn gpu_step_shows_a_results_table_and_bar_charts() {
    use cuda_triage::engine::gpu::maths::{Correctness, Dtype};
    use cuda_triage::engine::gpu::results::*;
    let correct = Correctness {
        samples: 64,
        max_relative_error: 1e-4,
        bound: 4.0e-3,
        non_finite: 0,
        magnitude_ratio: Some(1.0),
        passed: true,
    };
    let workload = |name: &str, kind, tflops, gbps| WorkloadResult {
        name: name.into(),
        kind,
        dtype: (kind != WorkloadKind::Copy).then_some(Dtype::Fp16),
        size: "test".into(),
        median_ms: 1.0,
        repeats: 5,
        tflops,
        gbps,
        fraction_of_peak: Some(0.5),
        algorithm: None,
        correctness: correct.clone(),
    };
    // Made-up numbers: this checks the drawing code, it is not a measurement.
    let report = GpuReport {
        verdict: Verdict::Passed,
        summary: "All 2 workloads ran and gave correct results.".into(),
        quick: true,
        wall_s: 1.0,
        child: ChildExit::Finished { code: 0 },
        device: None,
        libraries: Vec::new(),
        workloads: vec![
            workload("GEMM fp16 1024^3", WorkloadKind::Gemm, Some(1.0), None),
            workload("D2D", WorkloadKind::Copy, None, Some(2.0)),
        ],
        sensors: Vec::new(),
        log_tail: Vec::new(),
    };
    let mut app = TriageApp::new(relative_machine("win-basic"));
    app.gpu.result = Some(report);
    app.step = Step::GpuTest;
    let mut h = harness(app);
    h.run_steps(3);
    assert!(h.query_by_label("GEMM fp16 1024^3").is_some());
    assert!(h.query_by_label("1.00 TFLOPS").is_some());
    assert!(h.query_by_label("2.0 GB/s").is_some());
    assert!(h.query_by_label_contains("Verdict: passed").is_some());
    assert!(
        h.query_by_label("GB/s").is_some(),
        "the bandwidth chart's title"
    );
}

#[test]
fn pasted_error_text_is_explained_on_the_findings_step() {
    let mut h = harness(TriageApp::new(relative_machine("win-cuda-tf-torch")));
    h.run_steps(1);
    assert!(!h.get_by_label("Explain this error").is_focused());
    h.state_mut().paste.text =
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cublas64_11.dll'; dlerror: cublas64_11.dll not found".into();
    h.run_steps(1);
    h.get_by_label("Explain this error").click();
    h.run_steps(1);
    let deadline = Instant::now() + Duration::from_secs(60);
    while h.state().paste.job.is_some() {
        assert!(Instant::now() < deadline, "triage did not finish");
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
    h.run_steps(3);
    assert_eq!(h.state().step, Step::Findings);
    assert!(h.query_by_label("From the text you pasted").is_some());
    assert!(
        h.query_by_label_contains("cublas64_11.dll (cuBLAS 11.x)")
            .is_some()
    );
    let doc = h.state().paste.result.clone().expect("a triage document");
    assert!(
        doc.findings
            .iter()
            .any(|f| f.severity == cuda_triage::engine::findings::Severity::Error)
    );
}

#[test]
fn gpu_step_offers_the_scanned_frameworks_libraries_and_fills_the_fields() {
    use cuda_triage::engine::progress::Progress;
    // The sets of the Windows fixture (a real scan of it), offered as a live scan would offer them.
    // Loaded by a path relative to the crate root, so the snapshot's text is the same everywhere.
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    let cuda_triage::engine::api::Machine::MachineFile(machine) =
        relative_machine("win-cuda-tf-torch").machine
    else {
        unreachable!()
    };
    let ctx = cuda_triage::engine::context::machine_file::load(&machine).unwrap();
    let inventory = cuda_triage::engine::diagnosis::run(&ctx, &Progress::new()).inventory;
    let sets = cuda_triage::engine::gpu::sets::from_inventory(&ctx, &inventory);
    let torch = sets
        .iter()
        .position(|s| s.label.starts_with("PyTorch"))
        .expect("a PyTorch set");
    let torch_cublas = sets[torch].selection.cublas.clone().unwrap();

    let mut app = TriageApp::new(Source::live());
    app.gpu.offer_sets(sets.clone());
    app.step = Step::GpuTest;
    let mut h = harness(app);
    h.run_steps(2);
    // The first set fills the fields by default.
    assert_eq!(h.state().gpu.chosen_set, Some(0));
    let first_cudart = sets[0]
        .selection
        .cudart
        .as_ref()
        .unwrap()
        .display()
        .to_string();
    assert_eq!(h.state().gpu.paths[1], first_cudart);

    h.get_by_label("Test what this loads:").click();
    h.run_steps(2);
    h.get_by_label(&sets[torch].label).click();
    h.run_steps(2);
    assert_eq!(h.state().gpu.chosen_set, Some(torch));
    let cublas_field = &h.state().gpu.paths[2];
    assert_eq!(cublas_field, &torch_cublas.display().to_string());
    let options = h.state().gpu.options(&h.state().target.session);
    assert_eq!(
        options.selection.cublas.as_deref(),
        Some(torch_cublas.as_path())
    );
    h.remove_cursor();
    h.run_steps(1);
    h.snapshot_options("5b-gpu-test-sets", &snapshot_options());
}

#[test]
fn scan_step_offers_to_try_the_imports_only_on_this_computer() {
    let mut h = harness(TriageApp::new(relative_machine("win-cuda-tf-torch")));
    h.run_steps(2);
    h.get_by_label("Start scan").click();
    h.run_steps(2);
    wait_for_scan(&mut h);
    h.get_by_label("2. Scan").click();
    h.run_steps(2);
    let button = h.get_by_label("Try importing them");
    // A machine file cannot run its Python: the button is there, and disabled.
    assert!(button.accesskit_node().is_disabled());
    button.click();
    h.run_steps(2);
    assert!(
        !h.state().scan_running(),
        "no probing scan of a machine file"
    );
}

/// The GPU step with the results of a real run: `gpu-test --framework torch --json` on an NVIDIA
/// H200 (driver 580.159.04) with the libraries torch 2.11.0+cu130 loads (cuBLAS 13.1, cuDNN 9.19),
/// saved as it came back from that machine. The step shows the verdict, the device, the files
/// the child mapped and the measured rates.
#[test]
fn gpu_step_shows_a_real_h200_run() {
    let text = std::fs::read_to_string(crate::support::fixture("gpu/h200-torch-2.11.0-cu130.json"))
        .expect("the saved H200 run");
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let report: cuda_triage::engine::gpu::results::GpuReport =
        serde_json::from_value(doc["gpu"].clone()).expect("the run's gpu section reads back");
    assert_eq!(report.workloads.len(), 23);
    let mut app = TriageApp::new(Source::live());
    app.gpu.result = Some(report);
    app.step = Step::GpuTest;
    let mut h = harness(app);
    h.run_steps(3);
    assert!(h.query_by_label_contains("Verdict: passed").is_some());
    assert!(h.query_by_label("GEMM bf16 8192^3").is_some());
    assert!(
        h.query_all_by_label_contains("NVIDIA H200")
            .next()
            .is_some()
    );
    assert!(h.query_all_by_label_contains("9.19.0").next().is_some());
    // Scrolled to the results table (the rates and the fraction of peak).
    h.get_by_label("Conv fp32 NHWC 3x3").scroll_to_me();
    h.run_steps(3);
    h.remove_cursor();
    h.run_steps(1);
    h.snapshot_options("5c-gpu-test-h200", &snapshot_options());
}

/// A Linux machine has one loader: the Dependencies step names ld.so's order, offers no Windows
/// loading context, and the Scan step's empty toolkit card is information, not an error.
#[test]
fn a_linux_machine_gets_ld_so_and_no_windows_context() {
    let mut h = harness(TriageApp::new(relative_machine("linux-basic")));
    h.run_steps(2);
    h.get_by_label("Start scan").click();
    h.step();
    wait_for_scan(&mut h);
    h.run_steps(2);
    let doc = h.state().document.clone().unwrap();
    assert!(
        doc.inventory.unwrap().toolkits.is_empty(),
        "linux-basic has no toolkit"
    );
    assert!(h.query_by_label_contains("ℹ CUDA toolkits (0)").is_some());
    assert!(h.query_by_label_contains("✖ CUDA toolkits").is_none());
    h.state_mut().step = Step::Dependencies;
    h.run_steps(2);
    assert!(h.query_by_label_contains("Linux: ld.so").is_some());
    assert!(h.query_by_label_contains("Windows: Application").is_none());
}

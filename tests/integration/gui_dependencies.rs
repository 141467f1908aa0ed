//! The Dependencies step driven through egui_kittest on a fake Windows machine whose DLLs are
//! built with mingw at test time: analyse, filter, select, read the attempts; snapshot it.

use crate::fixtures_build::{DllSpec, tool_available};
use cuda_triage::engine::api::Source;
use cuda_triage::engine::context::Platform;
use cuda_triage::engine::context::fake::FakeMachine;
use cuda_triage::ui::TriageApp;
use cuda_triage::ui::steps::{Step, UiCommand};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::time::{Duration, Instant};

fn built(spec: DllSpec, dir: &std::path::Path) -> std::path::PathBuf {
    spec.build(dir)
        .unwrap_or_else(|e| panic!("mingw build failed: {e}"))
}

/// Types `binary` into the step, clicks Analyze and steps the UI until the tree is built
/// (bounded, never a timing assertion).
fn analyze(h: &mut Harness<'_, TriageApp>, binary: &str) {
    h.state_mut().deps.binary_input = binary.into();
    h.get_by_label("Analyze").click();
    wait_for_tree(h);
}

/// Steps the UI until the tree being built is there (bounded, never a timing assertion).
pub(crate) fn wait_for_tree(h: &mut Harness<'_, TriageApp>) {
    h.run_steps(1);
    let deadline = Instant::now() + Duration::from_secs(60);
    while h.state().deps.job.is_some() {
        assert!(Instant::now() < deadline, "tree did not finish");
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
    h.run_steps(3);
}

#[test]
fn dependencies_step_resolves_filters_and_explains() {
    assert!(
        tool_available("x86_64-w64-mingw32-gcc"),
        "x86_64-w64-mingw32-gcc is needed (.ci/run installs it)"
    );
    let work = tempfile::tempdir().unwrap();
    let cudart = built(
        DllSpec::new("cudart64_12.dll").export("cudaMalloc", None),
        work.path(),
    );
    // cudart opens the driver (nvcuda.dll) at run time: give the machine one.
    let nvcuda = built(
        DllSpec::new("nvcuda.dll").export("cuInit", None),
        work.path(),
    );
    let app_dll = built(
        DllSpec::new("torch_cuda.dll")
            .import("cudart64_12.dll", &["cudaMalloc"])
            .import("cublas64_11.dll", &["cublasCreate_v2"])
            .export("torch_entry", None),
        work.path(),
    );
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    m.dir(r"C:\Tools\bin")
        .copy(r"C:\Windows\System32\nvcuda.dll", &nvcuda);
    m.copy(r"C:\app\lib\torch_cuda.dll", &app_dll)
        .copy(r"C:\app\lib\cudart64_12.dll", &cudart);
    m.env("PATH", r"C:\Windows\system32;C:\Tools\bin")
        .env("SystemRoot", r"C:\Windows");
    let machine = m.write_machine_file().unwrap();

    let mut h = Harness::builder()
        .with_size([1000.0, 640.0])
        .wgpu()
        .build_ui_state(
            |ui, app: &mut TriageApp| app.frame_ui(ui),
            TriageApp::new(Source::machine_file(machine)),
        );
    h.run_steps(1);
    h.get_by_label("4. Dependencies").click();
    h.run_steps(2);
    assert_eq!(h.state().step, Step::Dependencies);
    analyze(&mut h, r"C:\app\lib\torch_cuda.dll");
    assert!(h.state().deps.error.is_none(), "{:?}", h.state().deps.error);
    assert!(h.query_by_label("cudart64_12.dll").is_some());
    assert!(h.query_by_label("cublas64_11.dll").is_some());
    assert!(h.query_by_label_contains("with problems").is_some());

    // "Only problems" hides what resolved.
    h.get_by_label("Only problems").click();
    h.run_steps(2);
    assert!(h.query_by_label("cudart64_12.dll").is_none());
    assert!(h.query_by_label("cublas64_11.dll").is_some());

    // Selecting the miss shows every place the loader tried, the app folder first.
    h.get_by_label("cublas64_11.dll").click();
    h.run_steps(2);
    assert!(h.query_by_label_contains("Places tried (").is_some());
    assert!(h.query_by_label_contains(r"C:\app\lib [app_dir]").is_some());
    assert!(h.query_by_label_contains(r"C:\Tools\bin [path]").is_some());

    // Search narrows to matching names.
    h.get_by_label("Only problems").click();
    h.state_mut().deps.selected = None; // the details panel would show the name too
    h.state_mut().deps.filter.search = "cudart".into();
    h.run_steps(2);
    assert!(h.query_by_label("cudart64_12.dll").is_some());
    assert!(h.query_by_label("cublas64_11.dll").is_none());
    h.state_mut().deps.filter.search.clear();
    h.state_mut().deps.selected = h.state().deps.result.as_ref().and_then(|r| {
        r.graph
            .nodes
            .iter()
            .position(|n| n.name == "cublas64_11.dll")
    });
    h.run_steps(2);
    h.remove_cursor();
    h.run_steps(1);
    let options = egui_kittest::SnapshotOptions::new()
        .output_path(concat!(env!("CARGO_MANIFEST_DIR"), "/screenshots"))
        .threshold(2.0)
        .max_failed_pixels(200);
    h.snapshot_options("4b-dependencies-search", &options);
}

#[test]
fn dependencies_step_takes_a_bare_name_and_searches_for_it_as_the_process_would() {
    let work = tempfile::tempdir().unwrap();
    let cudart = built(
        DllSpec::new("cudart64_12.dll").export("cudaMalloc", None),
        work.path(),
    );
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    m.dir(r"C:\Windows\System32")
        .copy(r"C:\cuda\bin\cudart64_12.dll", &cudart);
    m.env("PATH", r"C:\Windows\system32;C:\cuda\bin")
        .env("SystemRoot", r"C:\Windows");
    let machine = m.write_machine_file().unwrap();
    let mut h = Harness::builder()
        .with_size([1000.0, 640.0])
        .build_ui_state(
            |ui, app: &mut TriageApp| app.frame_ui(ui),
            TriageApp::new(Source::machine_file(machine)),
        );
    h.run_steps(1);
    h.get_by_label("4. Dependencies").click();
    h.run_steps(2);
    for (name, found) in [("cudart64_12.dll", true), ("cudnn64_8.dll", false)] {
        analyze(&mut h, name);
        if found {
            assert!(h.state().deps.error.is_none(), "{:?}", h.state().deps.error);
            let root = &h.state().deps.result.as_ref().unwrap().graph.root;
            assert_eq!(root, r"C:\cuda\bin\cudart64_12.dll");
        } else {
            let error = h.state().deps.error.clone().unwrap_or_default();
            assert!(
                error.contains("not found") && error.contains(r"C:\cuda\bin"),
                "{error}"
            );
            assert!(
                h.query_all_by_label_contains("cudnn64_8.dll is not found")
                    .count()
                    >= 1
            );
        }
    }
    // The tree the user examined goes into the report saved afterwards.
    h.state_mut().apply(UiCommand::StartScan);
    let deadline = Instant::now() + Duration::from_secs(60);
    while h.state().scan_running() {
        assert!(Instant::now() < deadline, "scan did not finish");
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("r.md");
    h.state_mut().apply(UiCommand::SaveReportTo(
        md.clone(),
        cuda_triage::engine::report::ReportFormat::Markdown,
    ));
    let text = std::fs::read_to_string(&md).expect("the report is written");
    assert!(
        text.contains(r"Dependency tree of C:\cuda\bin\cudart64_12.dll"),
        "{text}"
    );
}

/// A copy of the Windows seed machine whose torch\lib holds real (mingw-built) DLLs: torch_cuda.dll
/// imports cudart64_12.dll and cublas64_12.dll, which lie beside it in torch\lib.
pub(crate) fn windows_seed_with_real_torch_dlls(work: &std::path::Path) -> std::path::PathBuf {
    let seed = crate::support::fixture("machines/win-cuda-tf-torch");
    let copy = work.join("win-cuda-tf-torch");
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(&seed)
        .arg(&copy)
        .status()
        .expect("cp runs");
    assert!(status.success());
    let lib = copy.join("fs/C/Users/ana/projects/vision/.venv/Lib/site-packages/torch/lib");
    let dlls = work.join("dlls");
    std::fs::create_dir_all(&dlls).unwrap();
    for spec in [
        DllSpec::new("cudart64_12.dll").export("cudaMalloc", None),
        DllSpec::new("cublas64_12.dll").export("cublasCreate_v2", None),
        DllSpec::new("torch_cuda.dll")
            .import("cudart64_12.dll", &["cudaMalloc"])
            .import("cublas64_12.dll", &["cublasCreate_v2"])
            .export("torch_entry", None),
    ] {
        let built = built(spec, &dlls);
        let dest = lib.join(built.file_name().unwrap());
        // The copy's placeholder is replaced, never written through (the seed stays as it is).
        std::fs::remove_file(&dest).unwrap();
        std::fs::copy(&built, &dest).unwrap();
    }
    copy.join("machine.toml")
}

#[test]
fn after_a_scan_the_step_suggests_torch_cuda_in_torchs_process_and_one_click_builds_it() {
    let work = tempfile::tempdir().unwrap();
    let machine = windows_seed_with_real_torch_dlls(work.path());
    let mut h = crate::gui::harness(TriageApp::new(Source::machine_file(machine)));
    h.run_steps(1);
    h.get_by_label("4. Dependencies").click();
    h.run_steps(2);
    assert!(
        h.query_by_label_contains("After a scan, the libraries that matter")
            .is_some()
    );
    h.state_mut().apply(UiCommand::StartScan);
    crate::gui::wait_for_scan(&mut h);
    // What the user sees: the scan's suggestions, frameworks first, toolkits' cuBLAS/cuDNN after.
    assert!(
        h.query_by_label_contains("Suggested by the scan (")
            .is_some()
    );
    for label in [
        "torch_cuda.dll — PyTorch 2.1.2+cu121",
        "onnxruntime_providers_cuda.dll — ONNX Runtime 1.16.3",
        "cublas64_12.dll — CUDA 12.1.1 toolkit",
        "cublas64_11.dll — CUDA 11.8.0 toolkit",
        "cudnn64_8.dll — cuDNN 8.9.7",
    ] {
        assert!(h.query_by_label(label).is_some(), "no suggestion {label}");
    }
    // One click builds the tree in PyTorch's process: torch\lib is a DLL directory there.
    h.get_by_label("torch_cuda.dll — PyTorch 2.1.2+cu121")
        .click();
    wait_for_tree(&mut h);
    assert!(h.state().deps.error.is_none(), "{:?}", h.state().deps.error);
    let result = h.state().deps.result.as_ref().unwrap();
    assert!(result.graph.root.ends_with(r"torch\lib\torch_cuda.dll"));
    let cublas = result
        .graph
        .nodes
        .iter()
        .find(|n| n.name == "cublas64_12.dll");
    let path = cublas.and_then(|n| n.path.as_deref()).unwrap_or_default();
    assert!(path.ends_with(r"torch\lib\cublas64_12.dll"), "{cublas:?}");
    assert!(
        h.query_by_label_contains("importing torch (PyTorch (LoadLibraryExW 0x1100))")
            .is_some(),
        "the loading context shows the framework's process"
    );
    assert!(h.query_by_label("cudart64_12.dll").is_some());
    h.get_by_label("cublas64_12.dll").click();
    h.run_steps(2);
    assert!(h.query_by_label_contains("Places tried (").is_some());
    h.remove_cursor();
    h.run_steps(1);
    h.snapshot_options("4-dependencies", &crate::gui::snapshot_options());
}

#[test]
fn building_a_tree_can_be_cancelled_and_the_status_says_so() {
    use cuda_triage::engine::api::TreeRequest;
    use cuda_triage::engine::progress::Progress;
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    m.env("PATH", r"C:\Windows\system32")
        .env("SystemRoot", r"C:\Windows");
    let machine = Source::machine_file(m.write_machine_file().unwrap());
    let mut app = TriageApp::new(machine.clone());
    app.step = Step::Dependencies;
    // Cancelled before the walk starts, so the outcome does not depend on timing.
    let progress = Progress::new();
    progress.cancel();
    let request = TreeRequest {
        binary: "cudnn64_8.dll".into(),
        ..TreeRequest::default()
    };
    app.deps.job = Some(cuda_triage::ui::worker::start_tree(
        machine, request, progress,
    ));
    let mut h = Harness::builder()
        .with_size([1000.0, 640.0])
        .build_ui_state(|ui, app: &mut TriageApp| app.frame_ui(ui), app);
    wait_for_tree(&mut h);
    assert_eq!(h.state().status, "Dependency tree cancelled.");
    assert!(h.state().deps.result.is_none() && h.state().deps.error.is_none());
    assert!(h.query_by_label("Analyze").is_some());
}

#[test]
fn a_running_tree_offers_cancel() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    m.env("SystemRoot", r"C:\Windows");
    let machine = Source::machine_file(m.write_machine_file().unwrap());
    let mut app = TriageApp::new(machine);
    app.step = Step::Dependencies;
    // A job that waits for its cancel: the step shows Cancel until it is pressed.
    app.deps.job = Some(cuda_triage::ui::worker::Job::start(
        Default::default(),
        |progress| {
            while !progress.is_cancelled() {
                std::thread::sleep(Duration::from_millis(5));
            }
            Ok(None)
        },
    ));
    let mut h = Harness::builder()
        .with_size([1000.0, 640.0])
        .build_ui_state(|ui, app: &mut TriageApp| app.frame_ui(ui), app);
    h.run_steps(2);
    h.get_by_label("Cancel").click();
    wait_for_tree(&mut h);
    assert_eq!(h.state().status, "Dependency tree cancelled.");
}

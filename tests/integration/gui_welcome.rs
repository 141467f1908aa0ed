//! The Welcome step as a new user meets it: the paste box, the quick choices (this computer, a
//! Python environment, a program or DLL, a report) and the recent reports, remembered between
//! runs through eframe's storage with the theme.

use crate::gui::{harness, relative_machine, wait_for_scan};
use cuda_triage::engine::api::Source;
use cuda_triage::ui::TriageApp;
use cuda_triage::ui::prefs::Prefs;
use cuda_triage::ui::steps::{Step, UiCommand};
use egui_kittest::kittest::Queryable;
use std::collections::HashMap;

/// eframe's storage, in memory (what eframe writes to disk between runs).
#[derive(Default)]
struct MemoryStorage(HashMap<String, String>);

impl eframe::Storage for MemoryStorage {
    fn get_string(&self, key: &str) -> Option<String> {
        self.0.get(key).cloned()
    }
    fn set_string(&mut self, key: &str, value: String) {
        self.0.insert(key.into(), value);
    }
    fn remove_string(&mut self, key: &str) {
        self.0.remove(key);
    }
    fn flush(&mut self) {}
}

fn report_file(dir: &std::path::Path, name: &str) -> std::path::PathBuf {
    crate::support::saved_scan_report("linux-basic", dir, name)
}

#[test]
fn welcome_offers_every_way_in_and_remembers_recent_reports_and_theme() {
    let mut h = harness(TriageApp::new(relative_machine("win-cuda-tf-torch")));
    h.run_steps(2);
    for label in [
        "Start scan",
        "Explain this error",
        "This computer",
        "A Python environment…",
        "A program or DLL…",
        "Open a report…",
    ] {
        assert!(h.query_by_label(label).is_some(), "no {label}");
    }
    assert!(h.query_by_label("Recent reports").is_none());

    // A report opened once is listed on the Welcome step and reopens with one click.
    let dir = tempfile::tempdir().unwrap();
    let report = report_file(dir.path(), "node7.json");
    h.state_mut().apply(UiCommand::OpenDropped(report.clone()));
    h.run_steps(2);
    assert_eq!(h.state().step, Step::Findings);
    h.get_by_label("Light theme").click();
    h.get_by_label("1. Welcome").click();
    h.run_steps(2);
    assert!(h.query_by_label("Recent reports").is_some());
    h.get_by_label("node7.json").click();
    h.run_steps(2);
    assert_eq!(h.state().step, Step::Findings);
    assert!(
        h.query_by_label_contains("No NVIDIA driver found")
            .is_some()
    );
    assert!(!h.state().dark_mode, "reopening keeps the theme");

    // Closing saves through eframe's storage; the next run starts with the list and the theme.
    let mut storage = MemoryStorage::default();
    eframe::App::save(h.state_mut(), &mut storage);
    let mut next = TriageApp::new(relative_machine("win-basic"));
    next.restore(Prefs::load(Some(&storage)));
    let mut h = harness(next);
    h.run_steps(2);
    assert!(!h.state().dark_mode);
    assert_eq!(h.ctx.theme(), egui::Theme::Light);
    assert!(h.query_by_label("node7.json").is_some());

    // A report that is gone says so and leaves the list.
    std::fs::remove_file(&report).unwrap();
    h.get_by_label("node7.json").click();
    h.run_steps(2);
    assert_eq!(h.state().step, Step::Welcome);
    assert!(
        h.state().status.contains("no longer there"),
        "{}",
        h.state().status
    );
    assert!(h.query_by_label("node7.json").is_none());
    assert!(h.query_by_label("Recent reports").is_none());
}

#[test]
fn this_computer_and_a_program_start_from_welcome() {
    let mut h = harness(TriageApp::new(relative_machine("win-basic")));
    h.run_steps(2);
    // A program on a machine file: its path is typed on the Dependencies step.
    h.get_by_label("A program or DLL…").click();
    h.run_steps(2);
    assert_eq!(h.state().step, Step::Dependencies);
    assert!(h.state().status.contains("Type the program's"));
    h.get_by_label("1. Welcome").click();
    h.run_steps(2);
    h.get_by_label("This computer").click();
    h.run_steps(2);
    assert_eq!(h.state().target, Source::live());
    assert_eq!(h.state().step, Step::Scan);
    assert!(h.query_by_label("Diagnosing this computer.").is_some());
    wait_for_scan(&mut h);
    assert!(h.state().document.is_some());
}

#[test]
fn a_python_environment_is_scanned_as_if_activated() {
    let venv = crate::closure_installs::cupy_venv();
    let mut h = harness(TriageApp::new(relative_machine("win-basic")));
    h.run_steps(2);
    // A folder that is no environment is refused with the reason.
    let empty = tempfile::tempdir().unwrap();
    h.state_mut()
        .apply(UiCommand::DiagnosePythonEnv(empty.path().to_path_buf()));
    h.run_steps(2);
    assert_eq!(h.state().step, Step::Welcome);
    assert!(h.state().status.contains("is not a Python environment"));

    h.state_mut()
        .apply(UiCommand::DiagnosePythonEnv(venv.to_path_buf()));
    h.run_steps(1);
    assert_eq!(h.state().step, Step::Scan);
    assert!(
        h.query_by_label_contains("with the Python environment")
            .is_some()
    );
    wait_for_scan(&mut h);
    assert!(
        h.query_by_label_contains("PyTorch 2.5.1+cu124 — CUDA 12.4")
            .is_some()
    );
    assert!(h.query_by_label_contains("CuPy 13.3.0").is_some());
    // The Dependencies step suggests the real libtorch_cuda.so.
    h.get_by_label("4. Dependencies").click();
    h.run_steps(2);
    assert!(
        h.query_by_label("libtorch_cuda.so — PyTorch 2.5.1+cu124")
            .is_some()
    );
}

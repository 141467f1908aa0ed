//! The wizard's fleet view, driven by label: reports of seven machines (variants of the Linux
//! seed: one with an older driver, one whose XLA_FLAGS names the right folder) dropped onto the
//! window open the matrix, where the odd machines stand in their own rows with their values
//! marked and each finding names its machines; snapshotted into screenshots/; Close goes back.

use crate::gui::{harness_sized, relative_machine, snapshot_options};
use crate::support::{fixture, save_report};
use cuda_triage::ui::TriageApp;
use egui_kittest::kittest::Queryable;
use std::path::{Path, PathBuf};

/// A variant of the Linux seed with NVML facts (driver, one A100) and optionally its XLA_FLAGS
/// typo fixed, saved as a report labelled `label` in `dir`.
fn node_report(dir: &Path, label: &str, driver: (&str, &str), xla_fixed: bool) -> PathBuf {
    let seed = fixture("machines/linux-cuda124-jax/machine.toml");
    let mut text = std::fs::read_to_string(&seed).unwrap().replace(
        "root = \"fs\"",
        &format!("root = {:?}", seed.parent().unwrap().join("fs")),
    );
    if xla_fixed {
        text = text.replace("/usr/local/cudda", "/usr/local/cuda");
    }
    text.push_str(&format!(
        "[driver]\nversion = \"{}\"\ncuda = \"{}\"\n[[gpu]]\nname = \"NVIDIA A100-SXM4-80GB\"\n\
         compute_capability = \"8.0\"\nmemory_mib = 81920\n",
        driver.0, driver.1
    ));
    let machine = dir.join(format!("{label}.toml"));
    std::fs::write(&machine, text).unwrap();
    save_report(
        &machine,
        &dir.join(format!("{label}.json")),
        &["--label", label],
    )
}

#[test]
fn reports_dropped_together_open_the_fleet_view() {
    let dir = tempfile::tempdir().unwrap();
    let mut reports = Vec::new();
    for n in 1..=7 {
        let label = format!("node{n:02}");
        let driver = if n == 6 {
            ("535.104.05", "12.2")
        } else {
            ("550.54.15", "12.4")
        };
        reports.push(node_report(dir.path(), &label, driver, n == 3));
    }
    let mut h = harness_sized(
        TriageApp::new(relative_machine("linux-cuda124-jax")),
        [1200.0, 640.0],
    );
    h.run_steps(2);
    assert!(h.query_by_label("Many machines…").is_some());
    for report in reports {
        crate::gui::drop_file(&mut h, report);
    }
    h.run_steps(1);
    crate::gui::step_while(&mut h, "reading the reports", |app| app.fleet.job.is_some());
    h.run_steps(2);
    let view = h
        .state()
        .fleet
        .view
        .clone()
        .expect("the fleet view is open");
    assert_eq!(view.machines, 7);
    assert_eq!(view.rows.len(), 3, "{:#?}", view.rows);
    assert!(
        h.state()
            .status
            .contains("Opened 7 machine(s) from 7 reports"),
        "{}",
        h.state().status
    );
    // The odd machines' rows, their marked values, and the findings with their machines.
    assert!(
        h.query_by_label_contains("node01, node02, node04, node05, node07 (5)")
            .is_some()
    );
    assert!(h.query_by_label_contains("node06 (1)").is_some());
    assert!(h.query_by_label("≠ 535.104.05").is_some());
    let xla = view
        .findings
        .iter()
        .find(|s| s.machines.len() == 6)
        .expect("XLA_FLAGS' typo on six machines");
    assert!(!xla.machines.contains(&"node03".to_string()));
    assert!(
        h.query_by_label_contains(&format!("{} on 6 of 7 machine(s)", xla.code))
            .is_some()
    );
    h.remove_cursor();
    h.run_steps(1);
    h.snapshot_options("9-fleet", &snapshot_options());

    h.get_by_label("Close").click();
    h.run_steps(2);
    assert!(h.state().fleet.view.is_none());
    assert!(
        h.query_by_label("Start scan").is_some(),
        "back on the Welcome step"
    );
}

//! `cuda-triage fleet` through the built CLI on reports of the seed machines: identical
//! machines share a row, the odd one's differing columns and findings are named with its label
//! (`report --label`), a damaged report is listed rather than dropped, Markdown and HTML are
//! written, and a folder without reports is a failure (exit 2).

use crate::support::{fixture, json, run_cli, save_report, stderr, stdout};
use std::path::{Path, PathBuf};

/// Saves the report of a seed machine as `dir/<file>.json`, labelled `label`.
fn labelled(seed: &str, dir: &Path, file: &str, label: &str) -> PathBuf {
    let machine = fixture(&format!("machines/{seed}/machine.toml"));
    save_report(
        &machine,
        &dir.join(format!("{file}.json")),
        &["--label", label],
    )
}

#[test]
fn the_odd_machine_is_named_with_what_differs() {
    let dir = tempfile::tempdir().unwrap();
    for n in 1..=3 {
        labelled(
            "linux-cuda124-jax",
            dir.path(),
            &format!("r{n}"),
            &format!("node0{n}"),
        );
    }
    let alone = labelled("win-cuda-tf-torch", dir.path(), "r4", "node04");
    assert_eq!(
        json(&run_cli(&["open", alone.to_str().unwrap(), "--json"]))["label"],
        "node04",
        "the label survives a reopen"
    );
    std::fs::write(dir.path().join("r5.json"), "{ not json").unwrap();

    let o = run_cli(&["fleet", dir.path().to_str().unwrap(), "--json"]);
    let v = json(&o);
    let fleet = &v["fleet"];
    assert_eq!(v["schema"], "cuda-triage/1");
    assert_eq!(fleet["machines"], 4, "{fleet:#}");
    let rows = fleet["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{rows:#?}");
    assert_eq!(
        rows[0]["members"],
        serde_json::json!(["node01", "node02", "node03"])
    );
    assert_eq!(rows[1]["members"], serde_json::json!(["node04"]));
    // Differing columns come first; the odd machine holds the minority value in each.
    let columns = fleet["columns"].as_array().unwrap();
    let differing = columns.iter().take_while(|c| c["differs"] == true).count();
    assert!(differing > 0 && columns[differing..].iter().all(|c| c["differs"] == false));
    let platform = columns.iter().position(|c| c["key"] == "platform").unwrap();
    assert!(platform < differing, "Linux against Windows differs");
    assert_eq!(rows[1]["cells"][platform]["minority"], true);
    assert_eq!(rows[1]["cells"][platform]["value"], "windows");
    assert_eq!(rows[0]["cells"][platform]["minority"], false);
    // Every finding names its machines; the Windows one's are on node04 only.
    let windows_codes: Vec<String> =
        json(&run_cli(&["open", alone.to_str().unwrap(), "--json"]))["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap().to_string())
            .collect();
    for spread in fleet["findings"].as_array().unwrap() {
        let on_node04 = spread["machines"].to_string().contains("node04");
        assert_eq!(
            on_node04,
            windows_codes.contains(&spread["code"].as_str().unwrap().to_string()),
            "{spread}"
        );
    }
    // The damaged report is listed, and makes the exit 1 even without an error finding.
    let unreadable = fleet["unreadable"].as_array().unwrap();
    assert_eq!(unreadable.len(), 1);
    assert!(unreadable[0]["path"].as_str().unwrap().ends_with("r5.json"));
    assert!(
        unreadable[0]["error"]
            .as_str()
            .unwrap()
            .contains("not a CUDA Triage report")
    );
    assert_eq!(o.status.code(), Some(1));

    let text = stdout(&run_cli(&["fleet", dir.path().to_str().unwrap()]));
    assert!(text.contains("4 machine(s) in 2 group(s)"), "{text}");
    assert!(text.contains("Group 2 (1 machine(s)): node04"), "{text}");
    assert!(text.contains("Platform: ≠ windows"), "{text}");
    assert!(text.contains("Reports not read:\n  "), "{text}");
    // Without a display, `open DIR` prints the same view.
    assert_eq!(
        stdout(&run_cli(&["open", dir.path().to_str().unwrap()])),
        text
    );

    // This build wrote them: run again by its rules, they give the same view.
    let again = json(&run_cli(&[
        "fleet",
        dir.path().to_str().unwrap(),
        "--json",
        "--rediagnose",
    ]));
    assert_eq!(again, v);

    let md = dir.path().join("fleet.md");
    let html = dir.path().join("fleet.html");
    for out in [&md, &html] {
        let o = run_cli(&[
            "fleet",
            dir.path().join("r1.json").to_str().unwrap(),
            dir.path().join("r4.json").to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(out.exists(), "{}", stderr(&o));
    }
    let md = std::fs::read_to_string(md).unwrap();
    assert!(md.contains("## What differs, and where"), "{md}");
    assert!(md.contains("| node04 (1) |"), "{md}");
    let html = std::fs::read_to_string(html).unwrap();
    assert!(
        html.starts_with("<!DOCTYPE html>") && !html.contains("<script"),
        "{html}"
    );
    assert!(html.contains("class=\"odd\""), "{html}");
}

#[test]
fn a_folder_without_reports_is_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let o = run_cli(&["fleet", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no report found"), "{}", stderr(&o));
}

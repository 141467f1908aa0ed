//! The built binary: subcommands, `--json`, exit codes and machine-file errors.

use crate::support::{fixture, json, run_cli, stderr, stdout};

fn machine(name: &str) -> String {
    fixture(&format!("machines/{name}/machine.toml"))
        .display()
        .to_string()
}

#[test]
fn help_lists_every_subcommand() {
    let out = run_cli(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    for cmd in [
        "scan", "why", "tree", "gpu-test", "fix", "report", "fleet", "open",
    ] {
        assert!(text.contains(cmd), "--help lacks {cmd}:\n{text}");
    }
    let out = run_cli(&["fix", "--help"]);
    for action in ["list", "show", "apply", "undo"] {
        assert!(stdout(&out).contains(action));
    }
}

#[test]
fn scan_json_follows_the_contract() {
    let out = run_cli(&["scan", "--machine", &machine("win-basic"), "--json"]);
    let doc = json(&out);
    assert_eq!(doc["schema"], "cuda-triage/1");
    assert_eq!(doc["machine"]["platform"], "windows");
    assert_eq!(doc["machine"]["driver"]["version"], "531.14");
    assert_eq!(doc["machine"]["gpus"][0]["compute_capability"], "8.6");
    assert!(
        doc["machine"]["env"]["PATH"]
            .as_str()
            .unwrap()
            .contains("v12.1")
    );
    assert!(doc["findings"].is_array());
    assert_eq!(
        out.status.code(),
        Some(0),
        "no error finding on a machine with a driver"
    );
}

#[test]
fn machine_without_driver_exits_1_with_the_finding() {
    let out = run_cli(&["--json", "scan", "--machine", &machine("linux-basic")]);
    assert_eq!(out.status.code(), Some(1));
    let doc = json(&out);
    let finding = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "no-nvidia-driver")
        .expect("finding");
    assert_eq!(finding["severity"], "error");
    assert!(
        finding["libraries"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l == "libcuda.so.1")
    );
    for key in ["summary", "detail", "evidence", "fixes"] {
        assert!(!finding[key].is_null(), "finding lacks {key}");
    }
    let text = run_cli(&["scan", "--machine", &machine("linux-basic")]);
    assert!(
        stdout(&text).contains("error: No NVIDIA driver found [no-nvidia-driver]"),
        "{}",
        stdout(&text)
    );
}

#[test]
fn bad_machine_file_exits_2_with_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("fs")).unwrap();
    let file = dir.path().join("m.toml");
    std::fs::write(
        &file,
        "platform = \"linux\"\nroot = \"fs\"\n[[gpu]]\nname = \"x\"\nmemory_mib = \"lots\"\n",
    )
    .unwrap();
    let out = run_cli(&["scan", "--machine", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("m.toml:5:") && err.contains("key `memory_mib`"),
        "{err}"
    );
    let out = run_cli(&["scan", "--json", "--machine", "/nonexistent/m.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        json(&out)["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/m.toml")
    );
}

#[test]
fn bad_arguments_exit_2() {
    assert_eq!(run_cli(&["scna"]).status.code(), Some(2));
    assert_eq!(
        run_cli(&["report", "--format", "pdf"]).status.code(),
        Some(2)
    );
}

#[test]
fn report_round_trips_through_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    let out = run_cli(&[
        "report",
        "--machine",
        &machine("linux-basic"),
        "-o",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(saved["schema"], "cuda-triage/1");
    let reopened = run_cli(&["open", path.to_str().unwrap(), "--json"]);
    assert_eq!(reopened.status.code(), Some(1));
    assert_eq!(json(&reopened)["findings"], saved["findings"]);
    let text = run_cli(&["open", path.to_str().unwrap()]);
    assert!(stdout(&text).contains("No NVIDIA driver found"));

    std::fs::write(&path, "{\"schema\": \"other/9\"}").unwrap();
    let bad = run_cli(&["open", path.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("other/9"));
}

#[test]
fn no_arguments_without_display_prints_a_text_scan() {
    let out = run_cli(&["--machine", &machine("win-basic")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("Machine: windows") && text.contains("Driver:  531.14"),
        "{text}"
    );
    assert!(text.contains("NVIDIA GeForce RTX 3070"));
}

#[test]
fn output_piped_into_a_reader_that_stops_early_ends_quietly() {
    // `cuda-triage scan --json | head -c 1`: the reader closes the pipe after one byte.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cuda-triage"))
        .args(["scan", "--machine", &machine("win-cuda-tf-torch"), "--json"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "{err}");
    assert!(!err.contains("Broken pipe"), "{err}");
}

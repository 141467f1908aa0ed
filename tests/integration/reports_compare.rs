//! `report --compare` through the built CLI: a toolkit installed in another folder is not a
//! match, versions that differ but stay compatible say so, two captures of one machine file do
//! not differ, and `-o`/`--format` write the comparison as JSON or Markdown (HTML is refused).

use crate::support::{fixture, json, run_cli, save_report, stderr, stdout};
use std::path::{Path, PathBuf};

/// Copies a seed machine to `dir/NAME` (links kept) and returns its machine file.
fn copy_seed(dir: &Path, seed: &str, name: &str) -> PathBuf {
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(fixture(&format!("machines/{seed}")))
        .arg(dir.join(name))
        .status()
        .expect("cp runs");
    assert!(status.success());
    dir.join(name).join("machine.toml")
}

/// Writes the JSON report of a machine file to `dir/NAME.json`.
fn saved(machine: &Path, dir: &Path, name: &str) -> PathBuf {
    save_report(machine, &dir.join(format!("{name}.json")), &[])
}

fn compare(paths: &[&Path], extra: &[&str]) -> std::process::Output {
    let mut args = vec!["report", "--compare"];
    args.extend(paths.iter().map(|p| p.to_str().unwrap()));
    args.extend_from_slice(extra);
    run_cli(&args)
}

/// The component of a `--compare --json` result with this kind.
fn component<'a>(v: &'a serde_json::Value, kind: &str) -> &'a serde_json::Value {
    v["comparison"]["result"]["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} in {v}"))
}

/// A copy of the Linux seed whose CUDA 12.4 lives in `/usr/local/cuda-12.4.1` (the
/// `/usr/local/cuda` link follows it); nothing else changes.
fn toolkit_moved(dir: &Path) -> PathBuf {
    let machine = copy_seed(dir, "linux-cuda124-jax", "moved");
    let local = dir.join("moved/fs/usr/local");
    std::fs::rename(local.join("cuda-12.4"), local.join("cuda-12.4.1")).unwrap();
    std::fs::remove_file(local.join("cuda")).unwrap();
    std::os::unix::fs::symlink("cuda-12.4.1", local.join("cuda")).unwrap();
    machine
}

#[test]
fn a_toolkit_in_another_folder_is_relocated_not_a_match() {
    let dir = tempfile::tempdir().unwrap();
    let a = saved(
        &copy_seed(dir.path(), "linux-cuda124-jax", "seed"),
        dir.path(),
        "a",
    );
    let b = saved(&toolkit_moved(dir.path()), dir.path(), "b");
    let o = compare(&[&a, &b], &["--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let v = json(&o);
    let toolkit = component(&v, "cuda-toolkit");
    assert_eq!(toolkit["status"], "relocated", "{toolkit}");
    assert_eq!(toolkit["a"], toolkit["b"], "the same version");
    assert_eq!(toolkit["a_path"], "/usr/local/cuda-12.4");
    assert_eq!(toolkit["b_path"], "/usr/local/cuda-12.4.1");
    assert_eq!(toolkit["note"], "same version, different path");

    let text = stdout(&compare(&[&a, &b], &[]));
    assert!(
        text.contains(
            "relocated  CUDA toolkit: A 12.4.1 / B 12.4.1 (same version, different path)"
        ),
        "{text}"
    );
    assert!(text.contains("A at /usr/local/cuda-12.4\n"), "{text}");
    assert!(text.contains("B at /usr/local/cuda-12.4.1\n"), "{text}");
    assert!(!text.contains("No difference"), "{text}");

    let md = stdout(&compare(&[&a, &b], &["--format", "md"]));
    assert!(
        md.contains("| CUDA toolkit | 12.4.1 at `/usr/local/cuda-12.4` | 12.4.1 at `/usr/local/cuda-12.4.1` |"),
        "{md}"
    );
    assert!(
        md.contains("**relocated** (same version, different path)"),
        "{md}"
    );

    // Grouped with others, the moved machine stands apart.
    let a2 = saved(
        &fixture("machines/linux-cuda124-jax/machine.toml"),
        dir.path(),
        "a2",
    );
    let groups = json(&compare(&[&a, &a2, &b], &["--json"]));
    let groups = groups["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 2, "{groups:?}");
    assert_eq!(groups[0]["members"].as_array().unwrap().len(), 2);
}

#[test]
fn versions_that_differ_but_stay_compatible_are_compatible() {
    let dir = tempfile::tempdir().unwrap();
    // The same driver branch (531): compatible, and nothing else differs.
    let newer = copy_seed(dir.path(), "win-basic", "newer-driver");
    let text = std::fs::read_to_string(&newer).unwrap();
    assert!(text.contains("version = \"531.14\""));
    std::fs::write(&newer, text.replace("\"531.14\"", "\"531.79\"")).unwrap();
    let a = saved(&fixture("machines/win-basic/machine.toml"), dir.path(), "a");
    let b = saved(&newer, dir.path(), "b");
    let o = compare(&[&a, &b], &["--json"]);
    let v = json(&o);
    let driver = component(&v, "driver");
    assert_eq!(driver["status"], "compatible", "{driver}");
    assert_eq!(
        (&driver["a"], &driver["b"]),
        (&"531.14".into(), &"531.79".into())
    );
    assert!(driver.get("note").is_none(), "{driver}");
    assert_eq!(o.status.code(), Some(0), "compatible is no difference: {v}");
    let text = stdout(&compare(&[&a, &b], &[]));
    assert!(
        text.contains("compatible NVIDIA driver: A 531.14 / B 531.79\n"),
        "{text}"
    );
    assert!(text.contains("No difference"), "{text}");

    // The same CUDA major.minor (12.4.1 against 12.4.0) in the same folder: compatible.
    let older = copy_seed(dir.path(), "linux-cuda124-jax", "older-toolkit");
    let version_json = dir
        .path()
        .join("older-toolkit/fs/usr/local/cuda-12.4/version.json");
    let text = std::fs::read_to_string(&version_json).unwrap();
    std::fs::write(&version_json, text.replace("\"12.4.1\"", "\"12.4.0\"")).unwrap();
    let c = saved(
        &fixture("machines/linux-cuda124-jax/machine.toml"),
        dir.path(),
        "c",
    );
    let d = saved(&older, dir.path(), "d");
    let v = json(&compare(&[&c, &d], &["--json"]));
    let toolkit = component(&v, "cuda-toolkit");
    assert_eq!(toolkit["status"], "compatible", "{toolkit}");
    assert_eq!(toolkit["b"], "12.4.0");
    assert_eq!(toolkit["a_path"], toolkit["b_path"]);
}

#[test]
fn two_captures_of_one_machine_file_do_not_differ() {
    let dir = tempfile::tempdir().unwrap();
    let machine = fixture("machines/win-cuda-tf-torch/machine.toml");
    let a = saved(&machine, dir.path(), "first");
    let b = saved(&machine, dir.path(), "second");
    // The second capture was taken at another time, by another build.
    let mut later: serde_json::Value = serde_json::from_slice(&std::fs::read(&b).unwrap()).unwrap();
    let first: serde_json::Value = serde_json::from_slice(&std::fs::read(&a).unwrap()).unwrap();
    later["captured_at"] = "2031-05-06T07:08:09Z".into();
    later["tool"]["version"] = "9.9.9".into();
    assert_ne!(later["captured_at"], first["captured_at"]);
    std::fs::write(&b, serde_json::to_string_pretty(&later).unwrap()).unwrap();

    let o = compare(&[&a, &b], &["--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let result = &json(&o)["comparison"]["result"];
    let components = result["components"].as_array().unwrap();
    assert!(components.len() > 3, "{result}");
    for c in components {
        assert_eq!(c["status"], "match", "{c}");
    }
    for key in ["env", "only_a", "only_b"] {
        assert_eq!(result[key], serde_json::json!([]), "{key}");
    }
    assert!(stdout(&compare(&[&a, &b], &[])).contains("No difference"));
}

#[test]
fn compare_writes_json_or_markdown_to_the_output_file_and_refuses_html() {
    let dir = tempfile::tempdir().unwrap();
    let a = saved(&fixture("machines/win-basic/machine.toml"), dir.path(), "a");
    let b = saved(
        &fixture("machines/win-cuda-tf-torch/machine.toml"),
        dir.path(),
        "b",
    );
    let out = |name: &str| dir.path().join(name);
    let printed = stdout(&compare(&[&a, &b], &["--json"]));

    let o = compare(&[&a, &b], &["-o", out("cmp.json").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).is_empty(), "written to the file, not printed");
    assert_eq!(std::fs::read_to_string(out("cmp.json")).unwrap(), printed);

    // The extension picks Markdown; --format wins over the extension.
    for (file, format) in [("cmp.md", None), ("cmp.txt", Some("md"))] {
        let path = out(file);
        let mut args = vec!["-o", path.to_str().unwrap()];
        if let Some(format) = format {
            args.extend(["--format", format]);
        }
        let o = compare(&[&a, &b], &args);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let md = std::fs::read_to_string(out(file)).unwrap();
        assert!(md.starts_with("# CUDA Triage comparison\n"), "{file}: {md}");
        assert!(
            md.contains("| Status | Component | A | B |"),
            "{file}: {md}"
        );
    }
    let o = compare(
        &[&a, &b],
        &["--format", "json", "-o", out("cmp2.md").to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out("cmp2.md")).unwrap()).unwrap();
    assert!(v["comparison"]["result"]["components"].is_array());

    // Many reports: the groups as Markdown.
    let o = compare(&[&a, &a, &b], &["-o", out("groups.md").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let md = std::fs::read_to_string(out("groups.md")).unwrap();
    assert!(md.contains("3 report(s) in 2 group(s)"), "{md}");
    assert!(md.contains("## Group 2 (1 machine(s))"), "{md}");

    // HTML, and options that only a report takes, are refused with exit 2; nothing is written.
    let html = out("cmp.html");
    for extra in [
        vec!["-o", html.to_str().unwrap()],
        vec!["--format", "html"],
        vec!["--tree", "libcudnn.so.9"],
        vec!["--no-redact"],
    ] {
        let o = compare(&[&a, &b], &extra);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stdout(&o));
        let said = stderr(&o);
        assert!(said.contains("--compare"), "{extra:?}: {said}");
        assert!(stdout(&o).is_empty(), "{extra:?}");
    }
    assert!(stderr(&compare(&[&a, &b], &["--format", "html"])).contains("not HTML"));
    assert!(!html.exists());
}

//! Golden files guard the JSON contract: the JSON, Markdown and HTML reports of two seed machines
//! and every command's `--json` output on the seed machines, written by the CLI in a controlled
//! environment, must match `tests/fixtures/golden/` byte for byte once the volatile fields
//! (capture time, tool version, where the machine file lies) are pinned.
//! `UPDATE_GOLDEN=1 cargo test golden` rewrites them; review the diff.

use crate::support::fixture;
use std::process::Command;

/// Runs `report` on a seed machine with a fixed identity, so the writer's own user and home
/// (which redaction replaces) are the same on every machine that runs the test.
fn report(seed: &str, ext: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join(format!("r.{ext}"));
    let machine = fixture(&format!("machines/{seed}/machine.toml"));
    let args = [
        "report".to_string(),
        "-o".to_string(),
        out.display().to_string(),
    ];
    pinned_run(seed, &args);
    let text = std::fs::read_to_string(&out).unwrap();
    normalise(&text, &machine.display().to_string(), ext == "html")
}

/// The binary under test; `GOLDEN_BIN` names another build (say, the one before a refactor, to
/// write the golden files it gives and prove the refactor byte-identical).
fn binary() -> std::path::PathBuf {
    std::env::var_os("GOLDEN_BIN")
        .map(Into::into)
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_cuda-triage").into())
}

/// Runs the CLI with `--machine <seed>` and `args` in the pinned environment; returns stdout,
/// normalised. Exit codes 0 and 1 (findings) are both fine; 2 (the tool failed) is not.
fn pinned_run(seed: &str, args: &[String]) -> String {
    let machine = fixture(&format!("machines/{seed}/machine.toml"));
    let o = Command::new(binary())
        .arg("--machine")
        .arg(&machine)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", "/nonexistent/golden-home")
        .env("USER", "golden-writer")
        .env("NO_COLOR", "1")
        .output()
        .expect("the built binary runs");
    assert!(
        o.status.code().is_some_and(|c| c < 2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    normalise(
        &String::from_utf8_lossy(&o.stdout),
        &machine.display().to_string(),
        false,
    )
}

/// Pins what changes from run to run: the capture time, this tool's version, the machine path
/// and the checkout's folder (host paths of a machine file's files: the GPU test's library sets,
/// a file that cannot be read) as `<captured-at>`, `<version>`, `<machine-file>`, `<repo>`
/// (escaped in HTML, so the page stays valid).
fn normalise(text: &str, machine_path: &str, html: bool) -> String {
    let pin = |name: &str| match html {
        true => format!("&lt;{name}&gt;"),
        false => format!("<{name}>"),
    };
    let time = regex::Regex::new(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z").unwrap();
    let text = time.replace_all(text, pin("captured-at").as_str());
    let escaped_path = machine_path.replace('\\', "\\\\");
    text.replace(&escaped_path, &pin("machine-file"))
        .replace(machine_path, &pin("machine-file"))
        .replace(env!("CARGO_MANIFEST_DIR"), &pin("repo"))
        .replace(env!("CARGO_PKG_VERSION"), &pin("version"))
}

fn check(seed: &str, ext: &str) {
    check_golden(&format!("report-{seed}.{ext}"), report(seed, ext));
}

/// Compares `got` with the golden file `name` (or writes it under UPDATE_GOLDEN).
fn check_golden(name: &str, got: String) {
    let golden = fixture(&format!("golden/{name}"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
        std::fs::write(&golden, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&golden)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_GOLDEN=1 writes it)", golden.display()));
    if got != want {
        let diff = similar::TextDiff::from_lines(&want, &got)
            .unified_diff()
            .header("golden", "now")
            .to_string();
        panic!("{name} differs from its golden file:\n{diff}");
    }
}

#[test]
fn windows_seed_report_matches_its_golden_files() {
    check("win-cuda-tf-torch", "json");
    check("win-cuda-tf-torch", "md");
    check("win-cuda-tf-torch", "html");
}

#[test]
fn linux_seed_report_matches_its_golden_files() {
    check("linux-cuda124-jax", "json");
    check("linux-cuda124-jax", "md");
    check("linux-cuda124-jax", "html");
}

/// Each command's `--json` output on a seed machine, pinned as above.
fn check_command(seed: &str, name: &str, args: &[&str]) {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    check_golden(&format!("cli-{seed}-{name}.json"), pinned_run(seed, &args));
}

/// The commands whose `--json` output is held, with the error text `why` explains and the bare
/// name `tree` searches for on each platform.
fn check_commands(seed: &str, error_text: &str, bare_name: &str) {
    check_command(seed, "scan", &["scan", "--json"]);
    check_command(seed, "fix-list", &["fix", "list", "--json"]);
    check_command(seed, "gpu-sets", &["gpu-test", "--sets", "--json"]);
    check_command(seed, "why", &["why", "--json", error_text]);
    check_command(seed, "tree-bare", &["tree", "--json", bare_name]);
}

#[test]
fn windows_seed_command_json_matches_its_golden_files() {
    check_commands(
        "win-cuda-tf-torch",
        "Could not load dynamic library 'cudnn64_8.dll'; dlerror: cudnn64_8.dll not found",
        "cublas64_11.dll",
    );
}

#[test]
fn linux_seed_command_json_matches_its_golden_files() {
    for seed in ["linux-cuda124-jax", "linux-basic"] {
        check_commands(
            seed,
            "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory",
            "libcudnn.so.9",
        );
    }
}

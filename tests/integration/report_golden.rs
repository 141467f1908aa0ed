//! Golden files guard the report contract: the JSON, Markdown and HTML reports of two seed machines,
//! written by the CLI in a controlled environment, must match `tests/fixtures/golden/` byte for
//! byte once the volatile fields (capture time, tool version, where the machine file lies) are
//! pinned. `UPDATE_GOLDEN=1 cargo test report_golden` rewrites them; review the diff.

use crate::support::fixture;
use std::process::Command;

/// Runs `report` on a seed machine with a fixed identity, so the writer's own user and home
/// (which redaction replaces) are the same on every machine that runs the test.
fn report(seed: &str, ext: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join(format!("r.{ext}"));
    let machine = fixture(&format!("machines/{seed}/machine.toml"));
    let o = Command::new(env!("CARGO_BIN_EXE_cuda-triage"))
        .args(["report", "--machine"])
        .arg(&machine)
        .arg("-o")
        .arg(&out)
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
    let text = std::fs::read_to_string(&out).unwrap();
    normalise(&text, &machine.display().to_string(), ext == "html")
}

/// Pins what changes from run to run: the capture time, this tool's version, the machine path
/// (as `<captured-at>`, `<version>`, `<machine-file>`; escaped in HTML, so the page stays valid).
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
        .replace(env!("CARGO_PKG_VERSION"), &pin("version"))
}

fn check(seed: &str, ext: &str) {
    let got = report(seed, ext);
    let golden = fixture(&format!("golden/report-{seed}.{ext}"));
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
        panic!("{seed}.{ext} differs from its golden file:\n{diff}");
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

//! Shared helpers: running the built binary and locating fixtures.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

/// Scans a seed machine (`tests/fixtures/machines/<seed>`) through the engine's entry points and
/// saves its report as `dir/name`, as the wizard and `cuda-triage scan --json` would.
pub fn saved_scan_report(seed: &str, dir: &std::path::Path, name: &str) -> PathBuf {
    use cuda_triage::engine::api;
    let source = api::Source::machine_file(fixture(&format!("machines/{seed}/machine.toml")));
    let ctx = api::load(&source, api::Driver::Skip).expect("the seed machine loads");
    let report = api::scan(&ctx, &Default::default(), &Default::default()).expect("not cancelled");
    let path = dir.join(name);
    std::fs::write(&path, report.to_json_pretty()).expect("the report is written");
    path
}

/// Runs `report --machine MACHINE -o OUT` through the built CLI, with `extra` arguments.
pub fn report_of(machine: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "report",
        "--machine",
        machine.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run_cli(&args)
}

/// [`report_of`], which must write the report (else it panics with the CLI's error output).
pub fn save_report(machine: &Path, out: &Path, extra: &[&str]) -> PathBuf {
    let o = report_of(machine, out, extra);
    assert!(out.exists(), "{}", stderr(&o));
    out.to_path_buf()
}

/// Runs the built `cuda-triage` with arguments, with no display so it never opens a window.
pub fn run_cli(args: &[&str]) -> Output {
    run_cli_stdin(args, "")
}

pub fn run_cli_stdin(args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cuda-triage"))
        .args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the built binary starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .ok();
    child.wait_with_output().expect("the binary finishes")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}):\n{}\nstderr: {}",
            stdout(o),
            stderr(o)
        )
    })
}

/// Builds a shared library from C source with gcc at test time (fake driver libraries for the
/// GPU test); returns its path inside `dir`.
pub fn build_shared_library(dir: &std::path::Path, name: &str, c_source: &str) -> PathBuf {
    let src = dir.join(format!("{name}.c"));
    let out = dir.join(name);
    std::fs::write(&src, c_source).expect("write C source");
    let status = std::process::Command::new("gcc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&out)
        .arg(&src)
        .status()
        .expect("gcc runs (install gcc to run these tests)");
    assert!(status.success(), "gcc failed to build {name}");
    out
}

/// The finding's fix with this id; panics listing the fixes it has.
pub fn fix<'a>(
    f: &'a cuda_triage::engine::findings::Finding,
    id: &str,
) -> &'a cuda_triage::engine::findings::FixRef {
    f.fixes
        .iter()
        .find(|x| x.id == id)
        .unwrap_or_else(|| panic!("no fix {id} in {:?}", f.fixes))
}

/// Where the release builds the tests make go: its own folder, since the outer `cargo test`
/// holds the lock of the usual one.
const WINE_EXE_DIR: &str = "target/wine-exe";

/// Cargo in this crate's root, building into `WINE_EXE_DIR`.
fn cargo_in_wine_exe() -> Command {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo
        .current_dir(root)
        .env("CARGO_TARGET_DIR", root.join(WINE_EXE_DIR));
    cargo
}

/// This integration-test binary built for `target` (release, in `target/wine-exe` beside the
/// release .exe, whose dependencies it mostly shares); returns the executable cargo names.
#[cfg(unix)]
pub fn test_binary_for(target: &str) -> PathBuf {
    let out = cargo_in_wine_exe()
        .args(["test", "--release", "--locked", "--no-run"])
        .args(["--test", "integration", "--target", target])
        .args(["--message-format", "json"])
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "building the tests for {target} failed (it needs `rustup target add {target}` and \
         Debian's gcc-mingw-w64-x86-64):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "integration")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("cargo names the test executable")
}

/// This project's release binary (for `target`, else this host), built on first use into
/// `target/wine-exe` (its own folder: the outer `cargo test` holds the lock of the usual one).
pub fn release_binary(target: Option<&str>) -> PathBuf {
    let target_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(WINE_EXE_DIR);
    let mut build = cargo_in_wine_exe();
    build.args(["build", "--release", "--locked", "--bin", "cuda-triage"]);
    if let Some(t) = target {
        build.args(["--target", t]);
    }
    let out = build.output().expect("cargo runs");
    assert!(
        out.status.success(),
        "building the release binary failed (for Windows it needs `rustup target add {}` and \
         Debian's gcc-mingw-w64-x86-64):\n{}",
        target.unwrap_or("-"),
        String::from_utf8_lossy(&out.stderr)
    );
    let exe = match target {
        Some(t) => target_dir.join(t).join("release/cuda-triage.exe"),
        None => target_dir.join("release/cuda-triage"),
    };
    assert!(exe.is_file(), "no {}", exe.display());
    exe
}

/// The findings of a JSON document that carry evidence of `kind` ("log": read from a pasted
/// text; "entry library": a closure's).
pub fn findings_with_evidence<'a>(
    doc: &'a serde_json::Value,
    kind: &str,
) -> Vec<&'a serde_json::Value> {
    doc["findings"]
        .as_array()
        .map(|all| {
            all.iter()
                .filter(|f| {
                    f["evidence"]
                        .as_array()
                        .is_some_and(|e| e.iter().any(|e| e["kind"] == kind))
                })
                .collect()
        })
        .unwrap_or_default()
}

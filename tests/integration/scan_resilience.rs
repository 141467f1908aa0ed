//! The scan survives hostile machines and says what it skipped: symbolic-link loops,
//! unreadable folders, a 100,000-entry folder, names that are not UTF-8, a `python` that hangs,
//! a spent time budget and a cancel. Trees are built in temporary folders at test time.
//!
//! Unreadable folders: CI runs as root, where `chmod 000` does not stop reads. The tests
//! therefore provoke read failures that bind root too — a folder path that is a symbolic link
//! to a regular file (`read_dir` fails with ENOTDIR) and a FIFO where a file is expected (the
//! scan must refuse to open it, or the read would block forever) — and add the `chmod 000`
//! case only when it really is unreadable (not root).

use cuda_triage::engine::context::{ContextSource, SystemContext, machine_file};
use cuda_triage::engine::progress::Progress;
use cuda_triage::engine::scan::{self, ScanOptions, tools};
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::time::Duration;

fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn linux_machine(dir: &Path, env: &str) -> SystemContext {
    std::fs::create_dir_all(dir.join("fs")).unwrap();
    let toml = format!("platform = \"linux\"\nroot = \"fs\"\n[env]\n{env}\n");
    std::fs::write(dir.join("machine.toml"), toml).unwrap();
    machine_file::load(&dir.join("machine.toml")).unwrap()
}

fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo failed");
}

fn reasons(inv: &scan::Inventory) -> String {
    inv.skipped
        .iter()
        .map(|s| format!("{} :: {}\n", s.path, s.reason))
        .collect()
}

#[test]
fn symlink_loops_and_unreadable_folders_are_skipped_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let fs = dir.path().join("fs");
    put(
        &fs,
        "usr/local/cuda-12.4/version.json",
        r#"{"cuda": {"version": "12.4.1"}}"#,
    );
    put(&fs, "usr/local/cuda-12.4/bin/ptxas", "");
    // A link that points at itself, and a pair pointing at each other.
    symlink("cuda-self", fs.join("usr/local/cuda-self")).unwrap();
    symlink("/usr/local/cuda-b", fs.join("usr/local/cuda-a")).unwrap();
    symlink("/usr/local/cuda-a", fs.join("usr/local/cuda-b")).unwrap();
    // A link back to its own parent inside a venv (an endless tree for a naive walker).
    put(&fs, "home/dev/proj/.venv/pyvenv.cfg", "version = 3.11.4\n");
    put(
        &fs,
        "home/dev/proj/.venv/lib/python3.11/site-packages/nvidia/cublas/lib/libcublas.so.12",
        "",
    );
    symlink(
        "..",
        fs.join("home/dev/proj/.venv/lib/python3.11/site-packages/nvidia/up"),
    )
    .unwrap();
    // Unreadable: conda's envs folder is a link to a regular file; a FIFO stands for a file.
    put(&fs, "opt/conda/conda-meta/python-3.11.5-h_0.json", "{}");
    put(&fs, "opt/conda/not-a-folder", "x");
    symlink("/opt/conda/not-a-folder", fs.join("opt/conda/envs")).unwrap();
    mkfifo(&fs.join("root/.conda/environments.txt"));
    mkfifo(&fs.join("usr/local/cuda-12.4/version.txt"));
    // chmod 000 only binds a non-root user; checked below only when it does.
    put(&fs, "home/dev/private/x", "");
    std::fs::set_permissions(
        fs.join("home/dev/private"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    let really_unreadable = std::fs::read_dir(fs.join("home/dev/private")).is_err();

    let ctx = linux_machine(dir.path(), "PATH = \"/usr/local/cuda-self/bin:/usr/bin\"");
    let r = cuda_triage::engine::diagnosis::run(&ctx, &Progress::new());
    std::fs::set_permissions(
        fs.join("home/dev/private"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    assert!(!r.cancelled);
    let inv = &r.inventory;
    let why = reasons(inv);
    assert_eq!(inv.toolkits.len(), 1, "{:#?}", inv.toolkits);
    assert_eq!(inv.toolkits[0].version.as_deref(), Some("12.4.1"));
    assert!(
        why.contains("/usr/local/cuda-self") && why.contains("symbolic link"),
        "{why}"
    );
    assert!(
        why.contains("/opt/conda/envs :: cannot read folder"),
        "{why}"
    );
    assert!(
        why.contains("/root/.conda/environments.txt :: not a regular file"),
        "{why}"
    );
    assert!(why.contains("version.txt :: not a regular file"), "{why}");
    if really_unreadable {
        assert!(why.contains("/home/dev/private"), "{why}");
    }
    let venv = inv
        .python_envs
        .iter()
        .find(|e| e.root == "/home/dev/proj/.venv")
        .expect("venv found");
    assert!(venv.nvidia_lib_dirs.iter().any(|d| d.component == "cublas"));
}

#[test]
fn huge_folder_and_non_utf8_names_are_bounded_and_reported() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let fs = dir.path().join("fs");
    put(
        &fs,
        "usr/local/cuda-12.4/version.json",
        r#"{"cuda": {"version": "12.4.1"}}"#,
    );
    let lib = fs.join("usr/local/cuda-12.4/lib64");
    std::fs::create_dir_all(&lib).unwrap();
    for i in 0..100_000 {
        std::fs::File::create(lib.join(format!("libcublas.so.12.{i}"))).unwrap();
    }
    let bad = std::ffi::OsStr::from_bytes(b"libcu\xffdnn.so.8");
    std::fs::File::create(fs.join("usr/local").join(bad)).unwrap();
    std::fs::create_dir_all(fs.join("home").join(std::ffi::OsStr::from_bytes(b"d\xe9v"))).unwrap();

    let ctx = linux_machine(dir.path(), "PATH = \"/usr/bin\"");
    let r = cuda_triage::engine::diagnosis::run(&ctx, &Progress::new());
    assert!(!r.cancelled);
    let why = reasons(&r.inventory);
    let t = &r.inventory.toolkits[0];
    assert_eq!(t.version.as_deref(), Some("12.4.1"));
    assert_eq!(t.libraries.len(), scan::walker::MAX_ENTRIES);
    assert!(
        why.contains("/usr/local/cuda-12.4/lib64 :: folder has more than"),
        "{why}"
    );
    assert!(why.contains("not valid UTF-8"), "{why}");
    assert!(why.contains("/home/d"), "{why}");
}

/// A `python` that never answers: a shell script that sleeps.
fn hanging_python(path: &Path) {
    put(
        path.parent().unwrap(),
        path.file_name().unwrap().to_str().unwrap(),
        "#!/bin/sh\nsleep 30\n",
    );
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_hanging_python_is_killed_at_the_probe_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("python");
    hanging_python(&exe);
    let probe = tools::probe_import(
        &cuda_triage::engine::context::SessionEnvironment::this_process(),
        &exe,
        "tensorflow",
        Duration::from_millis(500),
    );
    assert_eq!(probe.outcome.as_str(), "timed-out", "{probe:?}");
    assert!(probe.stderr_tail.contains("killed"));

    // The same through a whole scan of a "live" machine whose venv holds that python.
    let fs = dir.path().join("fs");
    put(&fs, "home/dev/venv/pyvenv.cfg", "version = 3.11.4\n");
    put(
        &fs,
        "home/dev/venv/lib/python3.11/site-packages/torch/version.py",
        "__version__ = '2.3.0'\ncuda = '12.1'\n",
    );
    hanging_python(&fs.join("home/dev/venv/bin/python3"));
    let mut ctx = linux_machine(dir.path(), "PATH = \"/usr/bin\"");
    ctx.source = ContextSource::Live;
    let opts = ScanOptions {
        probe_imports: true,
        probe_timeout: Duration::from_millis(500),
        ..Default::default()
    };
    let r = cuda_triage::engine::diagnosis::run_with(&ctx, &Progress::new(), &opts);
    let venv = r
        .inventory
        .python_envs
        .iter()
        .find(|e| e.root == "/home/dev/venv")
        .unwrap();
    assert_eq!(venv.import_probes.len(), 1);
    assert_eq!(venv.import_probes[0].module, "torch");
    assert_eq!(venv.import_probes[0].outcome.as_str(), "timed-out");
    // Machine files never run anything.
    ctx.source = ContextSource::MachineFile("m".into());
    let r = cuda_triage::engine::diagnosis::run_with(&ctx, &Progress::new(), &opts);
    assert!(
        r.inventory
            .python_envs
            .iter()
            .all(|e| e.import_probes.is_empty())
    );
}

#[test]
fn generated_big_machine_scans_completely() {
    let dir = tempfile::tempdir().unwrap();
    let (machine, libs) = scan::generated::generate(dir.path()).unwrap();
    assert!(libs >= 5_000, "{libs}");
    let ctx = machine_file::load(&machine).unwrap();
    let r = cuda_triage::engine::diagnosis::run(&ctx, &Progress::new());
    let inv = &r.inventory;
    assert_eq!(inv.toolkits.len(), 3, "{}", reasons(inv));
    assert!(inv.python_envs.len() >= 20, "{}", inv.python_envs.len());
    assert_eq!(inv.frameworks().count(), 20);
    assert!(inv.skipped.is_empty(), "{}", reasons(inv));
}

#[test]
fn a_spent_budget_and_a_cancel_end_the_scan_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let (machine, _) = scan::generated::generate(dir.path()).unwrap();
    let ctx = machine_file::load(&machine).unwrap();
    let opts = ScanOptions {
        step_budget: Duration::ZERO,
        ..Default::default()
    };
    let r = cuda_triage::engine::diagnosis::run_with(&ctx, &Progress::new(), &opts);
    assert!(!r.cancelled);
    assert!(
        reasons(&r.inventory).contains("time budget"),
        "{}",
        reasons(&r.inventory)
    );

    let progress = Progress::new();
    progress.cancel();
    let r = cuda_triage::engine::diagnosis::run(&ctx, &progress);
    assert!(r.cancelled);
    assert!(r.findings.is_empty());
}

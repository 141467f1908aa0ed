//! Tests of the parent side of the GPU test, with shell scripts standing in for the child.

use super::*;

#[test]
fn child_arguments_carry_the_selection() {
    let opts = Options {
        selection: Selection {
            cublas: Some("/a/libcublas.so.12".into()),
            ..Default::default()
        },
        quick: true,
        device: 1,
        ..Default::default()
    };
    assert_eq!(
        child_args(&opts),
        [
            "gpu-test",
            "--child",
            "--cublas",
            "/a/libcublas.so.12",
            "--quick",
            "--device",
            "1"
        ]
    );
}

#[test]
fn a_missing_executable_is_a_finding_not_a_panic() {
    let opts = Options {
        exe: Some("/no/such/cuda-triage".into()),
        ..Default::default()
    };
    let out = run(&opts, &Progress::new(), |_| {});
    assert_eq!(out.report.verdict, Verdict::Failed);
    assert!(matches!(out.report.child, ChildExit::NotStarted { .. }));
    assert_eq!(out.findings[0].code, "gpu-test-not-started");
}

/// A shell script standing in for the child (it ignores the child arguments).
#[cfg(unix)]
fn script(text: &str) -> (Options, tempfile::TempDir) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("child.sh");
    std::fs::write(&path, format!("#!/bin/sh\n{text}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let opts = Options {
        exe: Some(path),
        ..Default::default()
    };
    (opts, dir)
}

#[cfg(unix)]
#[test]
fn a_child_that_prints_garbage_or_dies_is_reported() {
    let never = Progress::new();
    let (opts, _dir) = script("echo not-json; exit 0");
    let out = run(&opts, &never, |_| {});
    assert_eq!(out.findings[0].code, "gpu-test-bad-output");

    let progress = r#"@cuda-triage {"event":"progress","stage":"x","done":0,"total":1}"#;
    let (opts, _dir) = script(&format!(
        "echo '{progress}' >&2; echo 'about to fail' >&2; kill -SEGV $$"
    ));
    let mut updates = Vec::new();
    let out = run(&opts, &never, |u| updates.push(u));
    assert!(
        matches!(&out.report.child, ChildExit::Crashed { description } if description.contains("SIGSEGV"))
    );
    assert_eq!(out.findings[0].code, "gpu-test-crashed");
    assert_eq!(out.report.log_tail, ["about to fail"]);
    assert!(updates.contains(&Update::Progress {
        stage: "x".into(),
        done: 0,
        total: 1
    }));

    let (opts, _dir) = script("exit 3");
    let out = run(&opts, &never, |_| {});
    assert!(
        matches!(&out.report.child, ChildExit::Crashed { description } if description.contains("code 3"))
    );
}

#[cfg(unix)]
#[test]
fn cancel_stops_the_child() {
    let (opts, _dir) = script("exec sleep 600");
    let cancelled = Progress::new();
    cancelled.cancel();
    let out = run(&opts, &cancelled, |_| {});
    assert_eq!(out.report.child, ChildExit::Cancelled);
    assert_eq!(out.report.summary, "The GPU test was cancelled.");
}

#[test]
fn names_of_abnormal_ends() {
    assert_eq!(signal_name(6), "SIGABRT");
    assert_eq!(windows_exception_name(0xC000_0005), "access violation");
}

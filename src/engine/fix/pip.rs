//! Version pins run with the chosen environment's own interpreter (`<env>/bin/python -m pip`,
//! never the first `pip` on PATH): the package set is recorded with `pip freeze --all` before,
//! the preview is `pip install --dry-run --report -`, the install streams its output line by
//! line, and undo puts the recorded set back (removes what was added, reinstalls the recorded
//! versions without dependencies). Index options come from pip's own configuration and
//! environment (`PIP_INDEX_URL`, `PIP_FIND_LINKS`, `PIP_NO_INDEX`), so an offline wheel folder works.

use super::FixError;
use super::plan::{Change, Operation, Scope};
use crate::engine::context::{ContextSource, SystemContext};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::channel;

fn pip(python: &str) -> Command {
    let mut c = Command::new(python);
    c.args(["-m", "pip", "--disable-pip-version-check", "--no-input"]);
    c
}

fn failed(python: &str, what: &str, stderr: &[u8]) -> FixError {
    FixError::Refused(format!(
        "{python} -m pip {what} failed: {}",
        String::from_utf8_lossy(stderr).trim()
    ))
}

/// `pip freeze --all`: the exact package set, as bytes for the journal.
pub fn freeze(python: &str) -> Result<Vec<u8>, FixError> {
    output(python, &["freeze", "--all"], "freeze")
}

/// Runs `python -m pip ARGS` to completion; its standard output, or the error it printed.
fn output(python: &str, args: &[&str], what: &str) -> Result<Vec<u8>, FixError> {
    let out = pip(python).args(args).output().map_err(|e| FixError::Io {
        path: python.into(),
        source: e,
    })?;
    if !out.status.success() {
        return Err(failed(python, what, &out.stderr));
    }
    Ok(out.stdout)
}

/// What `pip install --dry-run --report -` would install, as `name==version`.
pub fn dry_run(
    python: &str,
    pip_args: &[String],
    requirements: &[String],
) -> Result<Vec<String>, FixError> {
    let mut args = vec!["install", "--dry-run", "--quiet", "--report", "-"];
    args.extend(pip_args.iter().chain(requirements).map(String::as_str));
    let stdout = output(python, &args, "install --dry-run")?;
    let report: serde_json::Value = serde_json::from_slice(&stdout)
        .map_err(|e| FixError::Refused(format!("pip's --report is not JSON: {e}")))?;
    let mut install: Vec<String> = report["install"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|i| {
                    let m = &i["metadata"];
                    format!(
                        "{}=={}",
                        m["name"].as_str().unwrap_or("?"),
                        m["version"].as_str().unwrap_or("?")
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    install.sort();
    Ok(install)
}

/// Runs `python -m pip ARGS`, handing each output line to `on_line` as it comes; setting
/// `cancel` stops it (the child is killed and the run counts as failed, so apply rolls back).
pub fn run(
    python: &str,
    args: &[String],
    on_line: &mut dyn FnMut(&str),
    cancel: &AtomicBool,
) -> Result<(), FixError> {
    let io = |e| FixError::Io {
        path: python.into(),
        source: e,
    };
    let mut child = pip(python)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(io)?;
    let stderr = child
        .stderr
        .take()
        .map(|e| std::thread::spawn(move || std::io::read_to_string(e).unwrap_or_default()));
    let (tx, rx) = channel();
    let reader = child.stdout.take().map(|out| {
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        })
    });
    let status = loop {
        while let Ok(line) = rx.try_recv() {
            on_line(&line);
        }
        if cancel.load(Ordering::Relaxed) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(FixError::Refused(format!(
                "{python} -m pip {} was cancelled",
                args.join(" ")
            )));
        }
        match child.try_wait().map_err(io)? {
            Some(status) => break status,
            None => std::thread::sleep(std::time::Duration::from_millis(50)),
        }
    };
    if let Some(r) = reader {
        let _ = r.join();
    }
    rx.try_iter().for_each(|line| on_line(&line));
    let err = stderr.and_then(|h| h.join().ok()).unwrap_or_default();
    err.lines().for_each(&mut *on_line);
    if !status.success() {
        return Err(failed(python, &args.join(" "), err.as_bytes()));
    }
    Ok(())
}

/// The pin as a plan operation: on this computer with the package set recorded and pip's dry
/// run as the preview; for a machine file, the command alone.
pub fn operation(
    ctx: &SystemContext,
    python: &str,
    requirements: &[String],
    pip_args: &[String],
) -> Result<Operation, FixError> {
    let live = ctx.source == ContextSource::Live;
    let (before, would_install) = if live {
        (
            Some(freeze(python)?),
            Some(dry_run(python, pip_args, requirements)?),
        )
    } else {
        (None, None)
    };
    Ok(Operation {
        scope: Scope::Env,
        what: format!("Install {} with {python}", requirements.join(" ")),
        change: Change::Packages {
            python: python.to_string(),
            requirements: requirements.to_vec(),
            pip_args: pip_args.to_vec(),
            before,
            would_install,
        },
    })
}

/// `name` (normalized) → (version, the freeze line), for lines that pin a version.
fn pins(freeze: &[u8]) -> BTreeMap<String, (String, String)> {
    String::from_utf8_lossy(freeze)
        .lines()
        .filter_map(|l| {
            let (name, version) = l.split_once("==")?;
            let key = name.trim().to_lowercase().replace(['_', '.'], "-");
            Some((key, (version.trim().to_string(), l.trim().to_string())))
        })
        .collect()
}

/// The pip commands that turn the `now` package set back into `before`.
pub fn restore_commands(before: &[u8], now: &[u8]) -> Vec<Vec<String>> {
    let (old, new) = (pins(before), pins(now));
    let added: Vec<String> = new
        .keys()
        .filter(|k| !old.contains_key(*k))
        .cloned()
        .collect();
    let changed: Vec<String> = old
        .iter()
        .filter(|(k, (version, _))| new.get(*k).map(|(v, _)| v) != Some(version))
        .map(|(_, (_, line))| line.clone())
        .collect();
    let mut out = Vec::new();
    if !added.is_empty() {
        out.push([vec!["uninstall".to_string(), "-y".into()], added].concat());
    }
    if !changed.is_empty() {
        out.push([vec!["install".to_string(), "--no-deps".into()], changed].concat());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restore_removes_what_was_added_and_reinstalls_the_recorded_versions() {
        let before = b"pip==24.0\nalpha==1.0\nBeta_Pkg==2.0\n";
        let now = b"pip==24.0\nalpha==2.0\nbeta-pkg==2.0\ngamma==0.1\n";
        assert_eq!(
            restore_commands(before, now),
            vec![
                vec!["uninstall".to_string(), "-y".into(), "gamma".into()],
                vec![
                    "install".to_string(),
                    "--no-deps".into(),
                    "alpha==1.0".into()
                ],
            ]
        );
        assert!(restore_commands(before, before).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn a_run_streams_lines_and_cancelling_kills_it() {
        let dir = tempfile::tempdir().unwrap();
        // A stand-in interpreter: prints a line, then would take 10 minutes.
        let fake = dir.path().join("python");
        std::fs::write(&fake, "#!/bin/sh\necho Collecting demo-pkg\nsleep 600\n").unwrap();
        let mut perms = std::fs::metadata(&fake).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        std::fs::set_permissions(&fake, perms).unwrap();
        let cancel = AtomicBool::new(false);
        let mut lines = Vec::new();
        let err = run(
            &fake.display().to_string(),
            &["install".into(), "demo".into()],
            &mut |l| {
                lines.push(l.to_string());
                cancel.store(true, Ordering::Relaxed);
            },
            &cancel,
        )
        .unwrap_err();
        assert_eq!(lines, ["Collecting demo-pkg"]);
        assert!(
            err.to_string()
                .ends_with("-m pip install demo was cancelled"),
            "{err}"
        );
    }
}

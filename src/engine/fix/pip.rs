//! pip as a pin's installer, run with the chosen environment's own interpreter
//! (`<env>/bin/python -m pip`, never the first `pip` on PATH): the package set is `pip freeze
//! --all`, the preview is `pip install --dry-run --report -`. Index options come from pip's own
//! configuration and environment (`PIP_INDEX_URL`, `PIP_FIND_LINKS`, `PIP_NO_INDEX`) or the
//! plan's arguments, so an offline wheel folder works. What pip and conda share is in
//! [`super::packages`].

use super::FixError;
use super::installer_process::output;
use std::process::Command;

/// `python -m pip` with no version check and no prompts.
pub fn pip_process(python: &str) -> Command {
    let mut c = Command::new(python);
    c.args(["-m", "pip", "--disable-pip-version-check", "--no-input"]);
    c
}

fn label(python: &str) -> String {
    format!("{python} -m pip")
}

/// `pip freeze --all`: the exact package set, as bytes for the journal.
pub fn freeze(python: &str) -> Result<Vec<u8>, FixError> {
    let mut cmd = pip_process(python);
    cmd.args(["freeze", "--all"]);
    output(cmd, &label(python), "freeze")
}

/// What `pip install --dry-run --report -` would install, as `name==version`.
pub fn dry_run(
    python: &str,
    pip_args: &[String],
    requirements: &[String],
) -> Result<Vec<String>, FixError> {
    let mut cmd = pip_process(python);
    cmd.args(["install", "--dry-run", "--quiet", "--report", "-"])
        .args(pip_args)
        .args(requirements);
    let stdout = output(cmd, &label(python), "install --dry-run")?;
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

#[cfg(test)]
mod tests {
    use super::super::packages::Installer;
    use std::sync::atomic::{AtomicBool, Ordering};

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
        let python = fake.display().to_string();
        let err = Installer::Pip { python: &python }
            .run(
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

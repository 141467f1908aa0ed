//! Runs one installer command (pip or conda) to completion: its standard output to the caller,
//! or, streamed, each output line handed over as it arrives, with a cancel flag that kills the
//! child. Shared by [`super::pip`] and [`super::conda`] so both stream and cancel the same way.

use super::FixError;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::channel;

/// `label` names the command in errors (`/env/bin/python -m pip`, `/opt/conda/bin/conda`).
fn failed(label: &str, what: &str, stderr: &[u8]) -> FixError {
    FixError::Refused(format!(
        "{label} {what} failed: {}",
        String::from_utf8_lossy(stderr).trim()
    ))
}

/// Runs `cmd` to completion; its standard output, or the error it printed.
pub fn output(mut cmd: Command, label: &str, what: &str) -> Result<Vec<u8>, FixError> {
    let out = cmd.output().map_err(|e| FixError::Io {
        path: label.into(),
        source: e,
    })?;
    if !out.status.success() {
        // conda --json reports its errors on standard output.
        let said = if out.stderr.is_empty() {
            &out.stdout
        } else {
            &out.stderr
        };
        return Err(failed(label, what, said));
    }
    Ok(out.stdout)
}

/// Runs `cmd`, handing each output line to `on_line` as it comes; setting `cancel` stops it
/// (the child is killed and the run counts as failed, so apply rolls back).
pub fn stream(
    mut cmd: Command,
    label: &str,
    what: &str,
    on_line: &mut dyn FnMut(&str),
    cancel: &AtomicBool,
) -> Result<(), FixError> {
    let io = |e| FixError::Io {
        path: label.into(),
        source: e,
    };
    let mut child = cmd
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
            return Err(FixError::Refused(format!("{label} {what} was cancelled")));
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
        return Err(failed(label, what, err.as_bytes()));
    }
    Ok(())
}

//! Executables the scan may look into or (on the live machine only, opt-in) run: the
//! version string embedded in ptxas/nvcc, `ptxas --version`, and the import probe
//! `python -c "import X"`. Every child process runs with a timeout; a hung one is killed
//! (with its whole process group on Unix, so a `sleep` it started cannot hold the pipes open).

use super::version_clues;
use super::walker::Walker;
use crate::engine::binfmt::cache::FileCache;
use crate::engine::context::SessionEnvironment;
use crate::engine::inventory::{ImportProbe, ProbeOutcome, ToolInfo, ToolVersionSource};
use std::io::Read;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How much of a binary is searched for its version string (ptxas is ~30-50 MiB).
const MAX_BINARY_SCAN: u64 = 256 << 20;
/// Timeout for `ptxas --version`.
pub const TOOL_TIMEOUT: Duration = Duration::from_secs(5);
/// Bytes of error output kept from a probe.
const TAIL: usize = 4000;

/// Facts about a ptxas/nvcc: its version from the binary, or (live, opt-in) from `--version`.
pub fn tool_info(w: &mut Walker, path: &str, run_live: bool) -> ToolInfo {
    let mut info = ToolInfo {
        path: path.to_string(),
        version: None,
        version_source: None,
    };
    if let Some(host) = w.host(path) {
        match scan_binary(w.ctx.fs.binaries(), &host) {
            Ok(Some(v)) => {
                info.version = Some(v);
                info.version_source = Some(ToolVersionSource::Binary);
            }
            Ok(None) => {}
            Err(e) => w.skip(path, format!("cannot read the binary for its version: {e}")),
        }
        let live = matches!(w.ctx.source, crate::engine::context::ContextSource::Live);
        if info.version.is_none() && run_live && live {
            let out = run_with_timeout(w.ctx.session.command(&host).arg("--version"), TOOL_TIMEOUT);
            if let Some(v) = version_clues::from_tool_output(out.stdout.as_bytes()) {
                info.version = Some(v);
                info.version_source = Some(ToolVersionSource::VersionFlag);
            } else if out.timed_out {
                w.skip(
                    path,
                    format!(
                        "`--version` did not answer within {}s; killed",
                        TOOL_TIMEOUT.as_secs()
                    ),
                );
            }
        }
    }
    info
}

/// Finds "Cuda compilation tools, release X.Y, VX.Y.Z" in a binary: in an ELF's `.rodata` first
/// (5 of ptxas 12.4's 30 MB, where the banner is), else in the first `MAX_BINARY_SCAN` bytes.
/// The file is the scan's one mapping of it (only the pages searched are touched), and each file
/// is searched once a scan: a toolkit's ptxas on PATH is also what every environment's XLA runs.
fn scan_binary(files: &FileCache, host: &Path) -> Result<Option<String>, String> {
    files.find_in(host, banner_in).map_err(|e| match e {
        crate::engine::binfmt::BinaryError::Open { message, .. } => message,
        other => other.to_string(),
    })
}

/// The nvcc banner in a mapped binary (see [`scan_binary`]).
fn banner_in(bytes: &[u8]) -> Option<String> {
    if let Some(found) = crate::engine::binfmt::elf_rodata(bytes)
        .unwrap_or_default()
        .into_iter()
        .find_map(version_clues::from_tool_output)
    {
        return Some(found);
    }
    let searched = bytes.len().min(MAX_BINARY_SCAN as usize);
    version_clues::from_tool_output(&bytes[..searched])
}

/// What a child process did.
#[derive(Debug, Clone, Default)]
pub struct ChildOutcome {
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    /// The process could not be started (the error text).
    pub spawn_error: Option<String>,
}

/// Runs a command, killing it (and its process group on Unix) at `timeout`. Output readers
/// are detached threads, so a grandchild holding the pipes cannot block the caller.
pub fn run_with_timeout(cmd: &mut std::process::Command, timeout: Duration) -> ChildOutcome {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return ChildOutcome {
                spawn_error: Some(e.to_string()),
                ..Default::default()
            };
        }
    };
    let out = Arc::new(Mutex::new(Vec::new()));
    let err = Arc::new(Mutex::new(Vec::new()));
    let readers = [
        child.stdout.take().map(|s| drain(Box::new(s), out.clone())),
        child.stderr.take().map(|s| drain(Box::new(s), err.clone())),
    ];
    let deadline = Instant::now() + timeout;
    let mut outcome = ChildOutcome::default();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                outcome.exit_code = status.code();
                break;
            }
            Ok(None) if Instant::now() >= deadline => {
                outcome.timed_out = true;
                kill_group(&mut child);
                let _ = child.wait();
                break;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(_) => {
                kill_group(&mut child);
                let _ = child.wait();
                break;
            }
        }
    }
    // Give the readers a moment to collect what was written; never wait on them unboundedly.
    let grace = Instant::now() + Duration::from_millis(200);
    for r in readers.into_iter().flatten() {
        while !r.is_finished() && Instant::now() < grace {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    let text = |b: &Arc<Mutex<Vec<u8>>>| {
        b.lock()
            .map(|v| String::from_utf8_lossy(&v).into_owned())
            .unwrap_or_default()
    };
    outcome.stdout = text(&out);
    outcome.stderr = text(&err);
    outcome
}

fn drain(mut src: Box<dyn Read + Send>, into: Arc<Mutex<Vec<u8>>>) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        while let Ok(n) = src.read(&mut chunk) {
            if n == 0 {
                break;
            }
            if let Ok(mut v) = into.lock()
                && v.len() < (1 << 20)
            {
                v.extend_from_slice(&chunk[..n]);
            }
        }
    })
}

fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        if let Ok(pid) = i32::try_from(child.id()) {
            // SAFETY: kill(2) with a negative pid signals the process group we created with
            // process_group(0); it has no memory-safety preconditions.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }
    let _ = child.kill();
}

/// The optional import probe: runs `python -c "import <module>"` with a timeout and keeps the
/// real error text. Only meaningful on the live machine; the caller checks that.
pub fn probe_import(
    session: &SessionEnvironment,
    python_exe: &Path,
    module: &str,
    timeout: Duration,
) -> ImportProbe {
    let code = format!("import {module}\n{MAPPED_FILES}");
    let out = run_with_timeout(session.command(python_exe).arg("-c").arg(code), timeout);
    let outcome = if let Some(e) = &out.spawn_error {
        return ImportProbe {
            module: module.to_string(),
            outcome: ProbeOutcome::NotRun,
            exit_code: None,
            stderr_tail: e.clone(),
            mapped: Vec::new(),
        };
    } else if out.timed_out {
        ProbeOutcome::TimedOut
    } else if out.exit_code == Some(0) {
        ProbeOutcome::Ok
    } else {
        ProbeOutcome::Failed
    };
    let mut tail = out.stderr.clone();
    if tail.len() > TAIL {
        let mut cut = tail.len() - TAIL;
        while !tail.is_char_boundary(cut) {
            cut += 1;
        }
        tail = tail[cut..].to_string();
    }
    if out.timed_out {
        tail.push_str(&format!(
            "\n(killed after {} s without finishing)",
            timeout.as_secs_f32()
        ));
    }
    let mapped = out
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix(MAPPED_PREFIX))
        .map(str::to_string)
        .collect();
    ImportProbe {
        module: module.to_string(),
        outcome,
        exit_code: out.exit_code,
        stderr_tail: tail.trim().to_string(),
        mapped,
    }
}

/// Marks the lines that name a mapped file in the probe's output.
const MAPPED_PREFIX: &str = "cuda-triage-mapped: ";

/// After a successful import, prints every shared object the process has mapped (Linux; the
/// file is absent elsewhere and the probe prints nothing).
const MAPPED_FILES: &str = r#"
try:
    with open("/proc/self/maps") as _m:
        _seen = sorted({l.split(None, 5)[5].strip() for l in _m if l.count(" ") >= 5 and ".so" in l})
    print(chr(10).join("cuda-triage-mapped: " + p for p in _seen if p.startswith("/")))
except OSError:
    pass
"#;

#[cfg(test)]
mod tests {
    use super::scan_binary;
    use crate::engine::binfmt::cache::FileCache;

    #[test]
    fn the_banner_is_found_in_an_elf_s_rodata_and_in_any_other_file() {
        let dir = tempfile::tempdir().unwrap();
        let files = FileCache::default();
        let scan_binary = |p: &std::path::Path| scan_binary(&files, p);
        // This test binary is an ELF whose .rodata holds the banner below (a literal of this test).
        let me = std::env::current_exe().unwrap();
        assert_eq!(scan_binary(&me).unwrap().as_deref(), Some("12.4.99"));
        // Not an ELF: the whole file is searched.
        let blob = dir.path().join("ptxas.exe");
        let mut bytes = b"MZ".to_vec();
        bytes.extend(std::iter::repeat_n(0u8, 1 << 20));
        bytes.extend_from_slice(b"Cuda compilation tools, release 12.4, V12.4.99\0");
        std::fs::write(&blob, &bytes).unwrap();
        assert_eq!(scan_binary(&blob).unwrap().as_deref(), Some("12.4.99"));
        // Empty and missing files answer without a panic.
        let empty = dir.path().join("empty");
        std::fs::write(&empty, b"").unwrap();
        assert_eq!(scan_binary(&empty).unwrap(), None);
        assert!(scan_binary(&dir.path().join("missing")).is_err());
    }
}

//! Helpers for the collection tests (`fleet_ansible`, `fleet_slurm`): the Debian program a test
//! needs (a missing one fails naming its package, never skips), free loopback ports, daemons
//! started in the foreground and stopped when the test ends, and commands with a deadline.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The path of `program` (on PATH or in /usr/sbin); panics naming the Debian package to install.
pub fn require(program: &str, package: &str) -> PathBuf {
    let found = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|dir| dir.join(program))
        .find(|p| p.is_file());
    found.unwrap_or_else(|| {
        panic!("{program} is missing: install Debian's {package} (apt-get install {package}; .ci/run does)")
    })
}

/// A TCP port nobody listens on at this moment, on 127.0.0.1.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a loopback port")
}

/// A daemon this test started; stopped (SIGTERM, then killed) when dropped. Its standard output
/// and error go to `log`.
pub struct Daemon {
    name: String,
    child: Child,
    pub log: PathBuf,
}

impl Daemon {
    pub fn start(name: &str, command: &mut Command, log: &Path) -> Daemon {
        let out = std::fs::File::create(log).expect("the daemon's log file");
        let err = out.try_clone().expect("the log file twice");
        let child = command
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| panic!("{name} does not start: {e}"));
        Daemon {
            name: name.to_string(),
            child,
            log: log.to_path_buf(),
        }
    }

    /// Panics with the daemon's log when it has exited already.
    pub fn assert_running(&mut self) {
        if let Ok(Some(status)) = self.child.try_wait() {
            panic!(
                "{} exited ({status}):\n{}",
                self.name,
                std::fs::read_to_string(&self.log).unwrap_or_default()
            );
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits until `ready` holds (checking `daemons` are still up), or panics after `limit`.
pub fn wait_until(
    what: &str,
    limit: Duration,
    daemons: &mut [&mut Daemon],
    mut ready: impl FnMut() -> bool,
) {
    let deadline = Instant::now() + limit;
    while !ready() {
        for d in daemons.iter_mut() {
            d.assert_running();
        }
        assert!(
            Instant::now() < deadline,
            "{what}: not ready after {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Runs a command to its end, killing it after `limit` (the output so far is then returned with
/// a failed status).
pub fn run_with_deadline(command: &mut Command, limit: Duration) -> Output {
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command starts");
    let pid = child.id();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = {
        let done = done.clone();
        std::thread::spawn(move || {
            let deadline = Instant::now() + limit;
            while Instant::now() < deadline {
                if done.load(std::sync::atomic::Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(200));
            }
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        })
    };
    let out = child.wait_with_output().expect("the command finishes");
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = watchdog.join();
    out
}

/// The name this test runs as (sshd and Slurm log in or run jobs as this user).
pub fn user_name() -> String {
    let out = Command::new("id").arg("-un").output().expect("id runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Checks a redacted report does not hold this machine's host name (when the name is long enough
/// not to occur by chance, as a container's twelve hex digits are).
pub fn assert_no_host_name(report_text: &str) {
    let host = gethostname::gethostname().to_string_lossy().into_owned();
    if host.len() >= 6 && host != "localhost" {
        assert!(
            !report_text.contains(&host),
            "the host name {host} is redacted"
        );
    }
}

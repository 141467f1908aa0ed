//! The one interface every write of the fix engine goes through. `SystemHost` reads and writes
//! this computer (files atomically, the Windows registry through `winreg`); with `dry_run` set
//! it runs the same code and records what it would have written instead. A machine file gets no
//! writing host at all: its fixes can be planned and previewed, never applied.

use super::FixError;
use super::atomic;
use super::packages::Installer;
use super::plan::RegValue;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Reads and writes of the persistent store (files, registry).
pub trait Host {
    /// The file's bytes, `None` when it does not exist.
    fn read_file(&self, path: &Path) -> Result<Option<Vec<u8>>, FixError>;
    /// Replaces the file atomically (`None` removes it).
    fn write_file(&mut self, path: &Path, bytes: Option<&[u8]>) -> Result<(), FixError>;
    /// Refuses early when the file could not be written.
    fn check_writable(&self, path: &Path) -> Result<(), FixError>;
    fn read_registry(&self, key: &str, name: &str) -> Result<Option<RegValue>, FixError>;
    fn write_registry(
        &mut self,
        key: &str,
        name: &str,
        value: Option<&RegValue>,
    ) -> Result<(), FixError>;
    /// Tells running programs the environment changed (Windows `WM_SETTINGCHANGE`), once.
    fn announce_environment_change(&mut self);
    /// What a dry run would have done, in order.
    fn log(&self) -> &[String];
    /// The package set of an environment (`pip freeze --all`, `conda list`).
    fn package_set(&self, installer: &Installer) -> Result<Vec<u8>, FixError>;
    /// Runs the installer (`python -m pip ARGS`, `conda ARGS`), streaming its output lines.
    fn run_installer(&mut self, installer: &Installer, args: &[String]) -> Result<(), FixError>;
    /// Clears a cancel request, so the roll-back that follows it can run.
    fn clear_cancel(&mut self) {}
    /// Whether writes are off (the same code runs, nothing changes).
    fn dry_run(&self) -> bool;
}

/// Receives command output lines as they arrive.
pub type LineSink = Box<dyn FnMut(&str) + Send>;

/// What a front end gives a running fix: where command output goes, and a flag that cancels.
#[derive(Default)]
pub struct Feedback {
    pub on_line: Option<LineSink>,
    pub cancel: Arc<AtomicBool>,
}

/// This computer. With `dry_run`, writes are recorded in `log` and nothing changes.
#[derive(Default)]
pub struct SystemHost {
    pub dry_run: bool,
    log: Vec<String>,
    /// Where command output lines go as they arrive (the CLI prints them, the wizard logs them).
    pub on_line: Option<LineSink>,
    /// Set to stop a running command (pip, conda); the fix then rolls back.
    pub cancel: Arc<AtomicBool>,
}

impl SystemHost {
    pub fn new(dry_run: bool) -> SystemHost {
        SystemHost {
            dry_run,
            log: Vec::new(),
            on_line: None,
            cancel: Arc::default(),
        }
    }
}

impl Host for SystemHost {
    fn read_file(&self, path: &Path) -> Result<Option<Vec<u8>>, FixError> {
        match std::fs::read(path) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(FixError::Io {
                path: path.display().to_string(),
                source: e,
            }),
        }
    }

    fn write_file(&mut self, path: &Path, bytes: Option<&[u8]>) -> Result<(), FixError> {
        if self.dry_run {
            self.check_writable(path)?;
            self.log.push(match bytes {
                Some(b) => format!("would write {} ({} bytes)", path.display(), b.len()),
                None => format!("would remove {}", path.display()),
            });
            return Ok(());
        }
        match bytes {
            Some(b) => atomic::write(path, b),
            None => atomic::remove(path),
        }
    }

    fn check_writable(&self, path: &Path) -> Result<(), FixError> {
        atomic::check_writable(path)
    }

    fn read_registry(&self, key: &str, name: &str) -> Result<Option<RegValue>, FixError> {
        super::registry::read(key, name)
    }

    fn write_registry(
        &mut self,
        key: &str,
        name: &str,
        value: Option<&RegValue>,
    ) -> Result<(), FixError> {
        if self.dry_run {
            self.log.push(match value {
                Some(v) => format!("would set {key}\\{name} = {} {}", v.kind, v.data),
                None => format!("would delete {key}\\{name}"),
            });
            return Ok(());
        }
        super::registry::write(key, name, value)
    }

    fn announce_environment_change(&mut self) {
        if self.dry_run {
            self.log
                .push("would broadcast WM_SETTINGCHANGE \"Environment\"".into());
        } else {
            super::registry::broadcast_environment_change();
        }
    }

    fn log(&self) -> &[String] {
        &self.log
    }

    fn dry_run(&self) -> bool {
        self.dry_run
    }

    fn clear_cancel(&mut self) {
        self.cancel
            .store(false, std::sync::atomic::Ordering::Relaxed);
    }

    fn package_set(&self, installer: &Installer) -> Result<Vec<u8>, FixError> {
        installer.snapshot()
    }

    fn run_installer(&mut self, installer: &Installer, args: &[String]) -> Result<(), FixError> {
        if self.dry_run {
            self.log.push(format!(
                "would run {} {}",
                installer.label(),
                args.join(" ")
            ));
            return Ok(());
        }
        let mut sink = self.on_line.take();
        let result = installer.run(
            args,
            &mut |line| {
                if let Some(f) = sink.as_mut() {
                    f(line)
                }
            },
            &self.cancel,
        );
        self.on_line = sink;
        result
    }
}

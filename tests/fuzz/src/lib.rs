//! The diagnosis engine of cuda-triage, compiled on its own for fuzzing: `src/engine` is
//! included by path, so the fuzz build needs the engine's dependencies (pelite, goblin, regex,
//! serde, toml, roxmltree, ...) but not the GUI (eframe/egui/wgpu) or the command line (clap).
//! The engine refers to itself as `crate::engine::...`, which is why the module keeps its name.
//! Below it, the helpers the targets share: cutting one input into several files, and a machine
//! whose disk is a scratch folder those files are written into.
#![allow(dead_code, unused_imports, clippy::all)]

#[path = "../../../src/engine/mod.rs"]
pub mod engine;

pub use engine::binfmt;

use engine::context::{ContextSource, EnvVars, FsView, Platform, RegistryView, SystemContext};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The scan the targets run: no child processes (imports, tools), one thread, and a step
/// budget, so one input is one bounded, in-process scan.
pub fn scan_options() -> engine::scan::ScanOptions {
    engine::scan::ScanOptions {
        step_budget: std::time::Duration::from_secs(5),
        probe_imports: false,
        run_tools: false,
        parallelism: 1,
        ..engine::scan::ScanOptions::default()
    }
}

/// The line that separates the files of one input (`seed.sh` joins seed files with it).
pub const SEPARATOR: &[u8] = b"\n--8<--\n";

/// Cuts `data` at each [`SEPARATOR`] into at most `n` pieces (the last one keeps the rest).
pub fn pieces(data: &[u8], n: usize) -> Vec<&[u8]> {
    let mut out = Vec::with_capacity(n);
    let mut rest = data;
    while out.len() + 1 < n {
        match rest.windows(SEPARATOR.len()).position(|w| w == SEPARATOR) {
            Some(at) => {
                out.push(&rest[..at]);
                rest = &rest[at + SEPARATOR.len()..];
            }
            None => break,
        }
    }
    out.push(rest);
    out.resize(n, &[][..]);
    out
}

/// A machine without files: what `why` sees when given only pasted text.
pub fn bare_context(platform: Platform) -> SystemContext {
    SystemContext {
        platform,
        wsl: false,
        fs: FsView::empty(platform),
        env: EnvVars::new(platform, Vec::new()),
        registry: RegistryView::new(BTreeMap::new()),
        driver: None,
        gpus: Vec::new(),
        driver_note: None,
        source: ContextSource::MachineFile("fuzz.toml".into()),
        session: engine::context::SessionEnvironment::default(),
    }
}

/// A scratch folder standing for a Linux machine's `/`, made once per fuzzing process.
pub struct Scratch {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
}

impl Scratch {
    pub fn new() -> Scratch {
        let dir = tempfile::Builder::new()
            .prefix("cuda-triage-fuzz")
            .tempdir()
            .expect("scratch folder");
        let root = dir.path().to_path_buf();
        Scratch { _dir: dir, root }
    }

    /// Writes `content` at `machine_path` (`/etc/ld.so.conf`), creating the folders.
    pub fn write(&self, machine_path: &str, content: &[u8]) {
        let host = self.host(machine_path);
        if let Some(parent) = host.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        let _ = std::fs::write(host, content);
    }

    pub fn host(&self, machine_path: &str) -> PathBuf {
        self.root.join(machine_path.trim_start_matches('/'))
    }

    /// A Linux machine rooted here, with this environment.
    pub fn linux(&self, wsl: bool, env: &[(&str, &str)]) -> SystemContext {
        let mut ctx = bare_context(Platform::Linux);
        ctx.wsl = wsl;
        ctx.fs = FsView::rooted(self.root.clone());
        ctx.env = EnvVars::new(
            Platform::Linux,
            env.iter().map(|(k, v)| (k.to_string(), v.to_string())),
        );
        ctx
    }
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch::new()
    }
}

/// Lossy text of fuzz bytes (the readers take `&str`; the files they come from may not be UTF-8).
pub fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

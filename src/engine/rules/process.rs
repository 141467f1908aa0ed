//! The processes that load CUDA libraries, as loader strategies the rules resolve names in:
//! a Python ≥ 3.8 interpreter importing an extension (PATH ignored), a framework's own
//! `LoadLibrary` of its CUDA DLLs (standard order, PATH searched), conda's Python, and a host
//! application (a .NET program through Python.NET, or any `.exe`). Every answer is a loader
//! [`Resolution`] with the directories tried, so findings can say *where* they looked.
//!
//! Linux is resolved with a plain directory search (LD_LIBRARY_PATH, then the library folders
//! the inventory knows). FALLBACK: this is not `loader::linux::LinuxSearch` (which needs the
//! loading object's RPATH/RUNPATH); findings on Linux say so in their evidence.

use crate::engine::binfmt::{BinaryInfo, Format, Machine};
use crate::engine::context::{Platform, SystemContext};
use crate::engine::findings::Evidence;
use crate::engine::graph::probe::FsProbe;
use crate::engine::loader::windows::{Preset, WindowsOptions, WindowsSearch};
use crate::engine::loader::{Attempt, FileProbe, How, Outcome, Probe, Resolution};
use crate::engine::scan::inventory::{Inventory, PythonEnv, PythonKind};
use std::sync::Arc;

/// A probe over the machine's files that treats a file it cannot parse as a usable 64-bit
/// library: machine files and reports often hold placeholders, and a rule about *presence*
/// must not call them missing. Real binaries keep their real machine (32/64-bit checks).
pub struct PresenceProbe<'a> {
    inner: FsProbe<'a>,
}

impl<'a> PresenceProbe<'a> {
    pub fn new(ctx: &'a SystemContext) -> PresenceProbe<'a> {
        PresenceProbe {
            inner: FsProbe::new(&ctx.fs, crate::engine::binfmt::read_binary),
        }
    }

    /// The parsed binary at a path, when it is a real one.
    pub fn info(&self, path: &str) -> Option<Arc<BinaryInfo>> {
        self.inner.info(path)
    }
}

fn placeholder(format: Format) -> Arc<BinaryInfo> {
    Arc::new(BinaryInfo::empty(format, x64()))
}

impl FileProbe for PresenceProbe<'_> {
    fn probe(&self, machine_path: &str) -> Probe {
        match self.inner.probe(machine_path) {
            Probe::Unreadable(_) => {
                let format = if machine_path.contains('\\') {
                    Format::Pe
                } else {
                    Format::Elf
                };
                Probe::Binary(placeholder(format))
            }
            other => other,
        }
    }
}

/// The 64-bit x86 machine every CUDA release since 9 ships for.
pub fn x64() -> Machine {
    Machine {
        arch: "x86_64".into(),
        bits: 64,
    }
}

/// One process that loads libraries, and how it searches.
pub struct Process {
    /// Words for findings: "python.exe of C:\...\envs\tf (Python 3.9, PATH ignored)".
    pub label: String,
    /// Whether PATH takes part in this process's search.
    pub uses_path: bool,
    search: Search,
}

enum Search {
    Windows(Box<WindowsSearch>),
    /// FALLBACK for Linux: a plain ordered directory list.
    Dirs(Vec<(How, String)>),
}

impl Process {
    /// Resolves a library name for a 64-bit process.
    pub fn resolve(&self, ctx: &SystemContext, name: &str, probe: &dyn FileProbe) -> Resolution {
        match &self.search {
            Search::Windows(w) => w.resolve(name, &x64(), probe),
            Search::Dirs(dirs) => {
                let mut attempts = Vec::new();
                for (how, dir) in dirs {
                    let candidate = ctx.platform.join(dir, name);
                    let outcome = match probe.probe(&candidate) {
                        Probe::Missing => Outcome::NotFound,
                        _ => Outcome::Found,
                    };
                    let found = outcome == Outcome::Found;
                    attempts.push(Attempt {
                        directory: dir.clone(),
                        source: *how,
                        outcome,
                    });
                    if found {
                        return Resolution {
                            path: Some(candidate),
                            how: *how,
                            attempts,
                        };
                    }
                }
                Resolution::missing(How::Default, attempts)
            }
        }
    }

    /// The directories this process searches, in order.
    pub fn searched_dirs(&self) -> Vec<String> {
        match &self.search {
            Search::Windows(w) => w.steps().into_iter().map(|(_, d)| d).collect(),
            Search::Dirs(d) => d.iter().map(|(_, d)| d.clone()).collect(),
        }
    }
}

/// Whether a Python version string is 3.8 or newer (`None` when unknown).
pub fn python_ignores_path(env: &PythonEnv) -> Option<bool> {
    let v = env.python_version.as_deref()?;
    let mut parts = v.split('.').map(|p| p.parse::<u32>().ok());
    let (major, minor) = (parts.next()??, parts.next().flatten().unwrap_or(0));
    Some(major > 3 || (major == 3 && minor >= 8))
}

/// The folder python.exe lives in.
fn python_dir(ctx: &SystemContext, env: &PythonEnv) -> String {
    env.python_exe
        .as_deref()
        .and_then(|exe| ctx.platform.parent(exe))
        .unwrap_or_else(|| env.root.clone())
}

/// A framework's own `LoadLibrary` of its CUDA DLLs inside this Python (TensorFlow's DSO
/// loader, CuPy, ONNX Runtime): the standard order, so PATH *is* searched.
pub fn framework_loader(ctx: &SystemContext, inv: &Inventory, env: &PythonEnv) -> Process {
    let dir = python_dir(ctx, env);
    match ctx.platform {
        Platform::Windows => {
            let opts = WindowsOptions {
                preset: Some(Preset::App),
                app_dir: Some(dir.clone()),
                ..WindowsOptions::default()
            };
            let root = ctx.platform.join(&dir, "python.exe");
            Process {
                label: format!(
                    "the Python process of {} (LoadLibrary: application folder, system folders, PATH)",
                    env.root
                ),
                uses_path: true,
                search: Search::Windows(Box::new(WindowsSearch::from_context(
                    ctx,
                    &opts,
                    &root,
                    &x64(),
                ))),
            }
        }
        Platform::Linux => linux_process(ctx, inv, Some(env)),
    }
}

/// Python ≥ 3.8 resolving an extension module's imports (`LOAD_LIBRARY_SEARCH_DEFAULT_DIRS`):
/// the extension's folder, the application folder, `os.add_dll_directory` folders, System32.
pub fn python_extension_loader(ctx: &SystemContext, env: &PythonEnv, ext_dir: &str) -> Process {
    let preset = if matches!(env.kind, PythonKind::CondaBase | PythonKind::CondaEnv) {
        Preset::CondaPython
    } else {
        Preset::Python
    };
    let opts = WindowsOptions {
        preset: Some(preset),
        app_dir: Some(python_dir(ctx, env)),
        ..WindowsOptions::default()
    };
    let root = ctx.platform.join(ext_dir, "_extension.pyd");
    Process {
        label: format!(
            "Python {} importing an extension in {ext_dir} (PATH ignored)",
            env.python_version.as_deref().unwrap_or("3.8+")
        ),
        uses_path: false,
        search: Search::Windows(Box::new(WindowsSearch::from_context(
            ctx,
            &opts,
            &root,
            &x64(),
        ))),
    }
}

/// A host application (Python.NET inside a .NET program, or any `.exe`) with the machine's PATH.
pub fn host_app(ctx: &SystemContext, inv: &Inventory, app_dir: Option<&str>) -> Process {
    match ctx.platform {
        Platform::Windows => {
            let dir = app_dir.unwrap_or(r"C:\Program Files\HostApp");
            let opts = WindowsOptions {
                preset: Some(Preset::App),
                app_dir: Some(dir.to_string()),
                ..WindowsOptions::default()
            };
            let root = ctx.platform.join(dir, "host.exe");
            Process {
                label: "an application process (application folder, system folders, PATH)".into(),
                uses_path: true,
                search: Search::Windows(Box::new(WindowsSearch::from_context(
                    ctx,
                    &opts,
                    &root,
                    &x64(),
                ))),
            }
        }
        Platform::Linux => linux_process(ctx, inv, None),
    }
}

/// FALLBACK Linux search: LD_LIBRARY_PATH, then the framework's wheel folders, then the
/// distribution's library folders.
fn linux_process(ctx: &SystemContext, _inv: &Inventory, env: Option<&PythonEnv>) -> Process {
    let mut dirs: Vec<(How, String)> = ctx
        .env
        .get("LD_LIBRARY_PATH")
        .map(|v| ctx.platform.split_list(v))
        .unwrap_or_default()
        .into_iter()
        .filter(|d| !d.is_empty())
        .map(|d| (How::LdLibraryPath, d))
        .collect();
    if let Some(env) = env {
        for f in &env.frameworks {
            if let Some(b) = &f.bundled_dir {
                dirs.push((How::Rpath, b.clone()));
            }
        }
    }
    for d in [
        "/lib/x86_64-linux-gnu",
        "/usr/lib/x86_64-linux-gnu",
        "/lib64",
        "/usr/lib64",
        "/lib",
        "/usr/lib",
    ] {
        dirs.push((How::Default, d.to_string()));
    }
    Process {
        label: "a Linux process (LD_LIBRARY_PATH, the framework's RPATH, default folders; simplified search)".into(),
        uses_path: false,
        search: Search::Dirs(dirs),
    }
}

/// Evidence lines for a resolution: each directory tried and what was there.
pub fn attempts_evidence(process: &Process, r: &Resolution) -> Vec<Evidence> {
    let mut out = vec![Evidence::new("context", process.label.clone())];
    for a in &r.attempts {
        let what = match &a.outcome {
            Outcome::Found => "found".to_string(),
            Outcome::NotFound => "not there".to_string(),
            Outcome::WrongMachine { found } => format!("skipped: built for {found}"),
            Outcome::Unreadable { message } => format!("unreadable: {message}"),
        };
        out.push(Evidence::at(
            "searched",
            format!("{} ({}): {what}", a.directory, a.source.as_str()),
            a.directory.clone(),
        ));
    }
    out
}

/// `dir` joined with `name` in the machine's syntax.
pub fn join(ctx: &SystemContext, dir: &str, name: &str) -> String {
    ctx.platform.join(dir, name)
}

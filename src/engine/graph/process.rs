//! The processes that load CUDA libraries, as loader strategies the rules resolve names in:
//! a Python ≥ 3.8 interpreter importing an extension (PATH ignored), a framework's own
//! `LoadLibrary` of its CUDA DLLs (standard order, PATH searched), conda's Python, and a host
//! application (a .NET program through Python.NET, or any `.exe`). Every answer is a loader
//! [`Resolution`] with the directories tried, so findings can say *where* they looked.
//!
//! On Linux the process is `loader::linux::LinuxSearch` (RPATH chain, LD_LIBRARY_PATH, RUNPATH,
//! ld.so.cache, default folders, nodeflib) over a two-object chain: the framework's library,
//! standing at its bundled-library folder with `$ORIGIN` as its RPATH (how PyTorch, ONNX Runtime
//! and CuPy find their own copies), loaded by the environment's real `python` executable, whose
//! own RPATH counts too (conda's `$ORIGIN/../lib`).
//! CuPy 14 with cuda-pathfinder searches the `nvidia-*` wheels first (see [`pathfinder_wheel_dirs`]).

use crate::engine::binfmt::{BinaryInfo, Format, Machine};
use crate::engine::context::{Platform, SystemContext};
use crate::engine::findings::Evidence;
use crate::engine::graph::probe::FsProbe;
use crate::engine::inventory::{Framework, FrameworkKind, PythonEnv, PythonKind};
use crate::engine::loader::linux::{LinuxObject, LinuxSearch};
use crate::engine::loader::windows::{
    LOAD_WITH_ALTERED_SEARCH_PATH, Preset, WindowsOptions, WindowsSearch,
};
use crate::engine::loader::{FileProbe, Outcome, Probe, Resolution};
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
            // Headers and tables are all a search needs (machine, RPATH/RUNPATH); the full read
            // lists every symbol and scans read-only data, hundreds of MB in a cuBLAS.
            inner: FsProbe::new(&ctx.fs, crate::engine::graph::Reader::HEADERS),
        }
    }

    /// The parsed binary at a path (headers and tables only), when it is a real one.
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
    /// What else findings should say about this process (a Python.NET host's PATH).
    pub note: Option<String>,
    search: Search,
}

enum Search {
    Windows(Box<WindowsSearch>),
    Linux(Box<LinuxProcess>),
}

/// A Linux process: the loader's strategy and the objects of the chain that does the loading,
/// the loading object first, then its loaders, then the main program.
struct LinuxProcess {
    search: LinuxSearch,
    loaders: Vec<(String, BinaryInfo)>,
    main: (String, BinaryInfo),
}

impl LinuxProcess {
    /// The whole chain: the loaders, then the main program.
    fn objects(&self) -> Vec<LinuxObject<'_>> {
        self.loaders
            .iter()
            .chain(std::iter::once(&self.main))
            .map(|(path, info)| LinuxObject { path, info })
            .collect()
    }

    fn main_object(&self) -> LinuxObject<'_> {
        LinuxObject {
            path: &self.main.0,
            info: &self.main.1,
        }
    }
}

impl Process {
    /// Resolves a library name for a 64-bit process.
    pub fn resolve(&self, name: &str, probe: &dyn FileProbe) -> Resolution {
        match &self.search {
            Search::Windows(w) => w.resolve(name, &x64(), probe),
            Search::Linux(l) => {
                let chain = l.objects();
                l.search
                    .resolve(name, &chain, l.main_object(), &x64(), probe)
            }
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

/// A framework's own `LoadLibrary`/`dlopen` of its CUDA libraries inside this Python
/// (TensorFlow's DSO loader, CuPy, ONNX Runtime): on Windows the standard order, so PATH *is*
/// searched; on Linux ld.so's order from the framework's library (`framework`, or each framework
/// of the environment when `None`) loaded by the environment's python.
pub fn framework_loader(
    ctx: &SystemContext,
    env: &PythonEnv,
    framework: Option<&Framework>,
) -> Process {
    let dir = python_dir(ctx, env);
    match ctx.platform {
        Platform::Windows => windows_app(ctx, &dir, "python.exe", || {
            format!(
                "the Python process of {} (LoadLibrary: application folder, system folders, PATH)",
                env.root
            )
        }),
        Platform::Linux => linux_process(ctx, Some((env, framework))),
    }
}

/// Python ≥ 3.8 resolving an extension module's imports (`LOAD_LIBRARY_SEARCH_DEFAULT_DIRS`):
/// the extension's folder, the application folder, `os.add_dll_directory` folders, System32.
/// An older Python (not conda's) searches the extension's folder, the system folders and PATH.
pub fn python_extension_loader(ctx: &SystemContext, env: &PythonEnv, ext_dir: &str) -> Process {
    python_extension_loader_with(ctx, env, ext_dir, &[])
}

/// [`python_extension_loader`] after the framework's import added `dll_dirs` with
/// `os.add_dll_directory` (CuPy's `<CUDA path>\bin`: `Framework::dll_directories`).
pub fn python_extension_loader_with(
    ctx: &SystemContext,
    env: &PythonEnv,
    ext_dir: &str,
    dll_dirs: &[String],
) -> Process {
    let conda = matches!(env.kind, PythonKind::CondaBase | PythonKind::CondaEnv);
    let preset = if conda {
        Preset::CondaPython
    } else {
        Preset::Python
    };
    // Before 3.8 (CPython's Python/dynload_win.c at v3.7.9): LoadLibraryExW(path, NULL,
    // LOAD_WITH_ALTERED_SEARCH_PATH), the standard order from the extension's folder, PATH
    // included; there is no os.add_dll_directory yet.
    let before_38 = !conda && python_ignores_path(env) == Some(false);
    let opts = WindowsOptions {
        preset: Some(preset),
        app_dir: Some(python_dir(ctx, env)),
        dll_dirs: dll_dirs.to_vec(),
        load_flags: before_38.then_some(LOAD_WITH_ALTERED_SEARCH_PATH),
        ..WindowsOptions::default()
    };
    let root = ctx.platform.join(ext_dir, "_extension.pyd");
    let version = env.python_version.as_deref().unwrap_or("3.8+");
    Process {
        label: if before_38 {
            format!(
                "Python {version} importing an extension in {ext_dir} (the extension's folder, system folders, PATH)"
            )
        } else {
            format!("Python {version} importing an extension in {ext_dir} (PATH ignored)")
        },
        uses_path: before_38,
        note: None,
        search: windows_search(ctx, &opts, &root),
    }
}

/// A host application (Python.NET inside a .NET program, or any `.exe`) with the machine's PATH.
pub fn host_app(ctx: &SystemContext, app_dir: Option<&str>) -> Process {
    match ctx.platform {
        Platform::Windows => {
            let dir = app_dir.unwrap_or(r"C:\Program Files\HostApp");
            windows_app(ctx, dir, "host.exe", || {
                "an application process (application folder, system folders, PATH)".into()
            })
        }
        Platform::Linux => linux_process(ctx, None),
    }
}

/// A 64-bit Windows program `exe` in `dir` loading by name with the standard order (application
/// folder, system folders, PATH); under Python.NET the .NET host is that program.
fn windows_app(
    ctx: &SystemContext,
    dir: &str,
    exe: &str,
    label: impl FnOnce() -> String,
) -> Process {
    let opts = WindowsOptions {
        preset: Some(Preset::App),
        app_dir: Some(dir.to_string()),
        ..WindowsOptions::default()
    };
    Process {
        label: pythonnet_host(ctx).unwrap_or_else(label),
        uses_path: true,
        note: pythonnet_note(ctx),
        search: windows_search(ctx, &opts, &ctx.platform.join(dir, exe)),
    }
}

/// The emulated Windows search of a 64-bit process whose main module is `root`.
fn windows_search(ctx: &SystemContext, opts: &WindowsOptions, root: &str) -> Search {
    Search::Windows(Box::new(WindowsSearch::from_context(
        ctx,
        opts,
        root,
        &x64(),
    )))
}

/// With Python.NET (`PYTHONNET_PYDLL` set, the variable pythonnet 3 reads), Python runs inside
/// a .NET program: that program is the process whose PATH counts.
fn pythonnet_host(ctx: &SystemContext) -> Option<String> {
    let dll = ctx.env.get("PYTHONNET_PYDLL")?;
    Some(format!(
        "the .NET application hosting Python through Python.NET (PYTHONNET_PYDLL = {dll}; LoadLibrary: application folder, system folders, the PATH the host process has)"
    ))
}

/// Why a Python.NET host's PATH differs from the user's: pythonnet/pythonnet#1444 (TensorFlow
/// could not load cublas64_11.dll under Python.NET; the wiki's virtual-environment code had
/// replaced the process PATH with the environment folder instead of appending to it).
fn pythonnet_note(ctx: &SystemContext) -> Option<String> {
    ctx.env.get("PYTHONNET_PYDLL")?;
    Some("Under Python.NET the .NET program's own PATH is searched, as the program left it. Code that sets PATH to the Python environment's folder (Environment.SetEnvironmentVariable(\"PATH\", pathToVirtualEnv, ...)) drops every CUDA folder; append instead: path + \";\" + pathToVirtualEnv (pythonnet/pythonnet#1444).".to_string())
}

/// A Linux process: with an environment, its python executable (read from the machine when it is
/// a real ELF file) loading the framework's library; without one, a plain program.
fn linux_process(ctx: &SystemContext, env: Option<(&PythonEnv, Option<&Framework>)>) -> Process {
    let probe = FsProbe::new(&ctx.fs, crate::engine::graph::Reader::HEADERS);
    let elf = || BinaryInfo::empty(Format::Elf, x64());
    let mut loaders = Vec::new();
    let mut label =
        "a Linux program (ld.so: LD_LIBRARY_PATH, ld.so.cache, default folders)".to_string();
    let main = if let Some((env, framework)) = env {
        let frameworks: Vec<&Framework> = match framework {
            Some(f) => vec![f],
            None => env.frameworks.iter().collect(),
        };
        for f in frameworks {
            // The framework's own library (found by the scan): its RPATH/RUNPATH lead the search.
            if let Some(path) = &f.search_library
                && let Some(info) = probe.info(path)
            {
                loaders.push((path.clone(), (*info).clone()));
            }
            if let Some(dir) = &f.bundled_dir {
                let mut lib = elf();
                lib.rpath = vec!["$ORIGIN".to_string()];
                loaders.push((Platform::Linux.join(dir, "(framework library)"), lib));
            }
            if let Some(wheel_dirs) = pathfinder_wheel_dirs(ctx, env, f) {
                let mut lib = elf();
                lib.rpath = wheel_dirs;
                loaders.push((Platform::Linux.join(&f.location, "(cuda-pathfinder)"), lib));
            }
        }
        let python = python_exe_real(ctx, env);
        let info = probe.info(&python).map_or_else(elf, |i| (*i).clone());
        label = format!(
            "the Python process of {} (ld.so from {python}: RPATH, LD_LIBRARY_PATH, ld.so.cache, default folders)",
            env.root
        );
        (python, info)
    } else {
        ("/usr/bin/program".to_string(), elf())
    };
    Process {
        label,
        uses_path: false,
        note: None,
        search: Search::Linux(Box::new(LinuxProcess {
            search: LinuxSearch::from_context(ctx, &x64()),
            loaders,
            main,
        })),
    }
}

/// CuPy 14 finds its libraries through NVIDIA's cuda-pathfinder (`load_nvidia_dynamic_lib`:
/// the `nvidia-*` wheels of its own site-packages first, then conda, the system, `CUDA_PATH`;
/// cupy/_environment.py of cupy-cuda13x 14.2.0), loading them by full path: on a real venv
/// beside /usr/local/cuda it maps only the wheels' files. The wheels' folders lead its search
/// wherever cuda-pathfinder is installed beside CuPy.
fn pathfinder_wheel_dirs(
    ctx: &SystemContext,
    env: &PythonEnv,
    f: &Framework,
) -> Option<Vec<String>> {
    if f.kind != FrameworkKind::CuPy || env.nvidia_lib_dirs.is_empty() {
        return None;
    }
    let site = Platform::Linux.parent(&f.location)?;
    ctx.fs
        .is_dir(&Platform::Linux.join(&site, "cuda/pathfinder"))
        .then(|| env.nvidia_lib_dirs.iter().map(|d| d.dir.clone()).collect())
}

/// A Linux library at `library` (already loaded in the environment's python) opening a name
/// with dlopen: its RPATH/RUNPATH and the python's lead the search, as ld.so gives the caller's.
pub fn linux_dlopen_from(ctx: &SystemContext, env: &PythonEnv, library: &str) -> Process {
    let probe = FsProbe::new(&ctx.fs, crate::engine::graph::Reader::HEADERS);
    let elf = || BinaryInfo::empty(Format::Elf, x64());
    let info = probe.info(library).map_or_else(elf, |i| (*i).clone());
    let python = python_exe_real(ctx, env);
    let main = probe.info(&python).map_or_else(elf, |i| (*i).clone());
    Process {
        label: format!(
            "{library} calling dlopen in the Python process of {}",
            env.root
        ),
        uses_path: false,
        note: None,
        search: Search::Linux(Box::new(LinuxProcess {
            search: LinuxSearch::from_context(ctx, &x64()),
            loaders: vec![(library.to_string(), info)],
            main: (python, main),
        })),
    }
}

/// The environment's python with one level of symbolic link resolved: ld.so takes the main
/// program's `$ORIGIN` from the real file (a venv's `bin/python` points at the base install).
fn python_exe_real(ctx: &SystemContext, env: &PythonEnv) -> String {
    let exe = env
        .python_exe
        .clone()
        .unwrap_or_else(|| Platform::Linux.join(&env.root, "bin/python"));
    ctx.fs.read_link(&exe).unwrap_or(exe)
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

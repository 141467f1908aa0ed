//! The root of a tree given as a bare name (`cublas64_11.dll`, `libcudnn.so.8`) or a relative
//! path, resolved exactly as the chosen process would resolve `LoadLibraryExW(name, flags)` /
//! `dlopen(name)`: TensorFlow, CuPy and cudart open their libraries this way.
//!
//! Windows: the loading context (`--context`, `--app-dir`, `--dll-dir`, `--set-dll-dir`,
//! `--load-flags`, `--cwd`); `LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR` with a bare name is
//! `ERROR_INVALID_PARAMETER` (87), as `LoadLibraryExW` documents. Linux: the calling library's
//! RPATH/RUNPATH (`--from LIB`), LD_LIBRARY_PATH, ld.so.cache, the default folders; a name with a
//! slash is a path relative to the current folder.

use super::probe::FsProbe;
use super::{GraphError, GraphOptions, Reader};
use crate::engine::binfmt::{BinaryInfo, Format, Machine};
use crate::engine::context::{Platform, SystemContext};
use crate::engine::loader::linux::{LinuxObject, LinuxSearch};
use crate::engine::loader::windows::{Preset, WindowsOptions, WindowsSearch};
use crate::engine::loader::{FileProbe, Resolution};

/// `LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR`.
const DLL_LOAD_DIR: u32 = 0x100;

/// Stands for the application folder when none was given (the attempts show it was not).
pub const NO_APP_DIR: &str = r"C:\(application folder not given)";

/// Whether a tree argument is a bare name (no folder part): the loader searches for it.
pub fn is_bare_name(platform: Platform, arg: &str) -> bool {
    match platform {
        Platform::Windows => !arg.contains(['\\', '/']),
        Platform::Linux => !arg.contains('/'),
    }
}

/// Resolves a bare name as the process described by `opts` (and, on Linux, the library `from`
/// that opens it) would. `reader` reads candidate binaries (normally `binfmt::read_binary_headers`).
pub fn resolve_name(
    ctx: &SystemContext,
    name: &str,
    opts: &GraphOptions,
    from: Option<&str>,
    reader: Reader,
) -> Result<Resolution, GraphError> {
    let probe = FsProbe::new(&ctx.fs, reader);
    match ctx.platform {
        Platform::Windows => {
            let flags = opts.windows.load_flags.unwrap_or(0);
            if flags & DLL_LOAD_DIR != 0 {
                return Err(GraphError::InvalidParameter {
                    message: format!(
                        "LoadLibraryExW(\"{name}\", 0x{flags:x}) fails with ERROR_INVALID_PARAMETER \
                         (87): LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR needs a full path, not a bare name"
                    ),
                });
            }
            let want = x64();
            let app_dir = opts.windows.app_dir.as_deref().unwrap_or(NO_APP_DIR);
            let windows = bare_name_options(&opts.windows);
            if is_bare_name(Platform::Windows, name) {
                let root = Platform::Windows.join(app_dir, name);
                let search = WindowsSearch::from_context(ctx, &windows, &root, &want);
                return Ok(search.resolve(name, &want, &probe));
            }
            resolve_relative_windows(ctx, name, opts, &windows, &want, &probe)
        }
        Platform::Linux => {
            let caller = match from {
                Some(path) => Some(read_caller(ctx, path, reader)?),
                None => None,
            };
            let want = caller
                .as_ref()
                .map_or_else(x64, |(_, info)| info.machine.clone());
            let search = LinuxSearch::from_context(ctx, &want);
            let program = BinaryInfo::empty(Format::Elf, want.clone());
            let main = LinuxObject {
                path: "/usr/bin/python3",
                info: &program,
            };
            let chain: Vec<LinuxObject> = caller
                .iter()
                .map(|(path, info)| LinuxObject { path, info })
                .collect();
            Ok(search.resolve(name, &chain, main, &want, &probe as &dyn FileProbe))
        }
    }
}

/// A relative Windows path: Python (ctypes) makes it absolute against the current folder and
/// loads it with DLL_LOAD_DIR; any other process searches the standard order with the relative
/// path appended to each folder.
fn resolve_relative_windows(
    ctx: &SystemContext,
    rel: &str,
    opts: &GraphOptions,
    windows: &WindowsOptions,
    want: &Machine,
    probe: &FsProbe<'_>,
) -> Result<Resolution, GraphError> {
    let w = Platform::Windows;
    let python = opts.windows.load_flags.is_none()
        && matches!(
            opts.windows.preset,
            Some(Preset::Python | Preset::CondaPython | Preset::Torch)
        );
    if python {
        let cwd = opts.windows.cwd.as_deref().ok_or_else(|| GraphError::InvalidParameter {
            message: format!(
                "{rel} is relative: Python's ctypes makes it absolute against the current folder, so give it with --cwd"
            ),
        })?;
        let path = w.normalize(&w.join(cwd, rel));
        let dir = w.parent(&path).unwrap_or_default();
        let mut attempts = Vec::new();
        return Ok(crate::engine::loader::try_dir(
            probe,
            want,
            &path,
            &dir,
            crate::engine::loader::How::Direct,
            &mut attempts,
        )
        .unwrap_or_else(|| Resolution::missing(crate::engine::loader::How::Direct, attempts)));
    }
    let app_dir = opts.windows.app_dir.as_deref().unwrap_or(NO_APP_DIR);
    let root = w.join(app_dir, w.file_name(rel));
    let search = WindowsSearch::from_context(ctx, windows, &root, want);
    Ok(search.resolve_relative(rel, want, probe))
}

/// How Python opens a bare name: CPython's `ctypes.CDLL` (3.8+) calls `LoadLibraryExW(name,
/// NULL, LOAD_LIBRARY_SEARCH_DEFAULT_DIRS)` and adds `LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR` only when
/// the name has a folder part (Lib/ctypes/__init__.py); torch opens its DLLs by full path, so a
/// bare name in torch's process is a ctypes load too. Explicit `--load-flags` win.
fn bare_name_options(opts: &WindowsOptions) -> WindowsOptions {
    let mut out = opts.clone();
    if out.load_flags.is_none()
        && matches!(
            out.preset,
            Some(Preset::Python | Preset::CondaPython | Preset::Torch)
        )
    {
        if out.preset == Some(Preset::Torch) {
            out.preset = Some(Preset::Python);
        }
        out.load_flags = Some(LOAD_LIBRARY_SEARCH_DEFAULT_DIRS);
    }
    out
}

/// `LOAD_LIBRARY_SEARCH_DEFAULT_DIRS`: application folder, added DLL folders, System32.
const LOAD_LIBRARY_SEARCH_DEFAULT_DIRS: u32 = 0x1000;

fn x64() -> Machine {
    Machine {
        arch: "x86_64".into(),
        bits: 64,
    }
}

fn read_caller(
    ctx: &SystemContext,
    path: &str,
    reader: Reader,
) -> Result<(String, BinaryInfo), GraphError> {
    let path = ctx.platform.normalize(path);
    let fail = |message: String| GraphError::Root {
        path: path.clone(),
        message,
    };
    let host = ctx.fs.file(&path).map_err(|e| fail(e.to_string()))?;
    let info = ctx
        .fs
        .binaries()
        .binary(&host, reader)
        .map(|i| (*i).clone())
        .map_err(|e| fail(e.to_string().replace(&host.display().to_string(), &path)))?;
    Ok((path, info))
}

/// A tree asked for by bare name or absolute path.
pub enum Rooted {
    /// The tree; for a bare name, how the name resolved.
    Built {
        graph: super::DependencyGraph,
        resolution: Option<Resolution>,
    },
    /// The bare name was not found; every place tried.
    NotFound(Resolution),
}

/// Builds the tree of `arg`: an absolute machine path, or a bare name first resolved as the
/// process of `opts` (Linux: opened from `from`) would. The one entry point the CLI and the
/// wizard share.
pub fn build_for(
    ctx: &SystemContext,
    arg: &str,
    opts: &GraphOptions,
    from: Option<&str>,
) -> Result<Rooted, GraphError> {
    let relative_windows = ctx.platform == Platform::Windows && !ctx.platform.is_absolute(arg);
    if !is_bare_name(ctx.platform, arg) && !relative_windows {
        let graph = super::build(ctx, arg, opts)?;
        return Ok(Rooted::Built {
            graph,
            resolution: None,
        });
    }
    let found = resolve_name(ctx, arg, opts, from, Reader::HEADERS)?;
    let Some(path) = found.path.clone() else {
        return Ok(Rooted::NotFound(found));
    };
    // The tree's process is the one that searched: its application folder stays.
    let mut opts = opts.clone();
    opts.windows.app_dir = opts
        .windows
        .app_dir
        .or_else(|| Some(NO_APP_DIR.to_string()));
    let graph = super::build(ctx, &path, &opts)?;
    Ok(Rooted::Built {
        graph,
        resolution: Some(found),
    })
}

//! A framework's process as a graph walk: its native entry libraries (knowledge
//! `framework_closure.toml`, globs below the framework's package folder) and the loading context
//! its `python` gives them — the real interpreter as the main program (its RPATH) on Linux,
//! Python's extension search (0x1100, conda's folders, torch's `torch\lib`; before Python 3.8
//! LOAD_WITH_ALTERED_SEARCH_PATH, PATH included) on Windows. The
//! closure rule walks every entry library this way; the Dependencies suggestions preset it.

use super::GraphOptions;
use crate::engine::context::{Platform, SystemContext};
use crate::engine::graph::process::python_ignores_path;
use crate::engine::inventory::{Framework, PythonEnv, PythonKind};
use crate::engine::knowledge;
use crate::engine::loader::glob_match;
use crate::engine::loader::windows::{LOAD_WITH_ALTERED_SEARCH_PATH, Preset, WindowsOptions};
use crate::engine::scan::frameworks::WindowsLoading;

/// The framework's entry libraries that exist, as machine paths.
pub fn entry_libraries(ctx: &SystemContext, fw: &Framework) -> Vec<String> {
    let tables = &knowledge::knowledge().closure;
    matching(ctx, fw, &tables.entries_of(fw.kind.module(), ctx.platform))
}

/// The one or two entry libraries whose tree tells the most about the framework's CUDA
/// loading (`libtorch_cuda.so`, `_pywrap_tensorflow_internal.pyd`, ...) that exist.
pub fn key_libraries(ctx: &SystemContext, fw: &Framework) -> Vec<String> {
    let tables = &knowledge::knowledge().closure;
    matching(
        ctx,
        fw,
        &tables.key_entries_of(fw.kind.module(), ctx.platform),
    )
}

/// Files below the framework's package folder matching any of `patterns` (`../` goes up).
pub fn package_files(ctx: &SystemContext, fw: &Framework, patterns: &[&str]) -> Vec<String> {
    matching(ctx, fw, patterns)
}

fn matching(ctx: &SystemContext, fw: &Framework, patterns: &[&str]) -> Vec<String> {
    let p = ctx.platform;
    let mut out = Vec::new();
    for pattern in patterns {
        let (mut dir, mut rest) = (fw.location.clone(), *pattern);
        while let Some(r) = rest.strip_prefix("../") {
            dir = p.parent(&dir).unwrap_or(dir);
            rest = r;
        }
        expand(ctx, &dir, rest, &mut out);
    }
    out.dedup();
    out
}

/// Globs one path pattern (`*` within a component) below `dir`.
fn expand(ctx: &SystemContext, dir: &str, pattern: &str, out: &mut Vec<String>) {
    let p = ctx.platform;
    let (head, tail) = match pattern.split_once('/') {
        Some((h, t)) => (h, Some(t)),
        None => (pattern, None),
    };
    let matches: Vec<String> = if head.contains(['*', '?']) {
        let mut names: Vec<String> = ctx
            .fs
            .read_dir(dir)
            .unwrap_or_default()
            .into_iter()
            .map(|e| e.name)
            .filter(|n| glob_match(head, n, p == Platform::Windows))
            .collect();
        names.sort();
        names
    } else {
        vec![head.to_string()]
    };
    for name in matches {
        let path = p.join(dir, &name);
        match tail {
            Some(t) => expand(ctx, &path, t, out),
            None if ctx.fs.is_file(&path) => out.push(path),
            None => {}
        }
    }
}

/// The framework's process as graph options.
pub fn process_options(ctx: &SystemContext, env: &PythonEnv, fw: &Framework) -> GraphOptions {
    let p = ctx.platform;
    match p {
        Platform::Linux => GraphOptions {
            runtime: true,
            // ld.so takes the main program's $ORIGIN from the real file (a venv's python is a
            // link to the base interpreter).
            main_program: Some({
                let exe = python(ctx, env);
                ctx.fs.read_link(&exe).unwrap_or(exe)
            }),
            ..GraphOptions::default()
        },
        Platform::Windows => GraphOptions {
            runtime: false,
            windows: WindowsOptions {
                preset: Some(windows_preset(env, fw)),
                app_dir: Some(windows_app_dir(ctx, env, fw)),
                dll_dirs: windows_dll_dirs(ctx, fw),
                load_flags: before_38_extension(env, fw).then_some(LOAD_WITH_ALTERED_SEARCH_PATH),
                ..WindowsOptions::default()
            },
            ..GraphOptions::default()
        },
    }
}

/// The folders the framework's import adds with `os.add_dll_directory`: what the scan read
/// (CuPy's), and for a package that loads its DLLs itself ([`WindowsLoading::PackageDllLoader`])
/// its folder — torch's `torch\lib`, which `_load_dll_libraries` adds before it loads anything
/// (torch/__init__.py at v2.5.1), so `_C`'s imports (torch_python.dll, ...) are found there —
/// the folder the `Torch` preset's "root folder" stands for when the root is in it.
fn windows_dll_dirs(ctx: &SystemContext, fw: &Framework) -> Vec<String> {
    let mut dirs = fw.dll_directories.clone();
    if let WindowsLoading::PackageDllLoader { dir } = fw.kind.spec().windows_loading {
        let lib = ctx.platform.join(&fw.location, dir);
        if ctx.fs.is_dir(&lib) && !dirs.contains(&lib) {
            dirs.push(lib);
        }
    }
    dirs
}

/// The process in words: "python.exe of C:\...\.venv (PyTorch: LoadLibraryExW 0x1100)".
pub fn process_label(ctx: &SystemContext, env: &PythonEnv, fw: &Framework) -> String {
    match ctx.platform {
        Platform::Linux => format!(
            "{} importing {} (its RPATH, each library's RUNPATH, LD_LIBRARY_PATH, ld.so.cache)",
            python(ctx, env),
            fw.kind.module()
        ),
        Platform::Windows => match fw.kind.spec().windows_loading {
            WindowsLoading::Provider { what, .. } => format!(
                "{} loading {what} (LoadLibraryExW with LOAD_WITH_ALTERED_SEARCH_PATH: the provider's folder, system folders, PATH)",
                python(ctx, env)
            ),
            _ if before_38_extension(env, fw) => format!(
                "{} importing {} (Python {} before 3.8: LoadLibraryExW with LOAD_WITH_ALTERED_SEARCH_PATH: the extension's folder, system folders, PATH)",
                python(ctx, env),
                fw.kind.module(),
                env.python_version.as_deref().unwrap_or_default()
            ),
            _ => format!(
                "{} importing {} ({})",
                python(ctx, env),
                fw.kind.module(),
                preset_label(Some(windows_preset(env, fw)))
            ),
        },
    }
}

/// Whether the framework's entry libraries are extension modules imported by a Python older than
/// 3.8 (not conda's, whose patched Python changes the search; not torch, which sets PATH
/// itself): `LoadLibraryExW(path, NULL, LOAD_WITH_ALTERED_SEARCH_PATH)`
/// (https://github.com/python/cpython/blob/v3.7.9/Python/dynload_win.c, `_PyImport_FindSharedFuncptrWindows`),
/// the standard search with the extension's folder in the application folder's place — PATH
/// included. Python 3.8 changed it to `LOAD_LIBRARY_SEARCH_DEFAULT_DIRS |
/// LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR`, which ignores PATH.
fn before_38_extension(env: &PythonEnv, fw: &Framework) -> bool {
    windows_preset(env, fw) == Preset::Python && python_ignores_path(env) == Some(false)
}

/// Words for a Windows loading context.
pub fn preset_label(preset: Option<Preset>) -> &'static str {
    match preset {
        None | Some(Preset::App) => "Application (standard search order)",
        Some(Preset::Python) => "Python 3.8+ (PATH ignored)",
        Some(Preset::CondaPython) => "conda Python",
        Some(Preset::Torch) => "PyTorch (LoadLibraryExW 0x1100)",
    }
}

/// The loading context of the framework's entry libraries, from its descriptor's
/// [`WindowsLoading`]: a provider the package opens itself gets the standard search (`App`, with
/// the provider's folder as the application folder: see [`windows_app_dir`]); a package that loads
/// its DLLs itself, the `Torch` context; extension modules, the Python's (Python ≥ 3.8: PATH
/// ignored; conda's; older Pythons: see [`before_38_extension`]).
fn windows_preset(env: &PythonEnv, fw: &Framework) -> Preset {
    match (fw.kind.spec().windows_loading, env.kind) {
        (WindowsLoading::Provider { .. }, _) => Preset::App,
        (WindowsLoading::PackageDllLoader { .. }, _) => Preset::Torch,
        (_, PythonKind::CondaBase | PythonKind::CondaEnv) => Preset::CondaPython,
        _ => Preset::Python,
    }
}

/// The folder standing for the application folder: the provider's folder for a package that
/// opens a provider itself (ONNX Runtime's `capi`), python.exe's folder otherwise.
fn windows_app_dir(ctx: &SystemContext, env: &PythonEnv, fw: &Framework) -> String {
    match fw.kind.spec().windows_loading {
        WindowsLoading::Provider { dir, .. } => ctx.platform.join(&fw.location, dir),
        _ => python_dir(ctx, env),
    }
}

fn python(ctx: &SystemContext, env: &PythonEnv) -> String {
    let fallback = match ctx.platform {
        Platform::Linux => "bin/python",
        Platform::Windows => "python.exe",
    };
    env.python_exe
        .clone()
        .unwrap_or_else(|| ctx.platform.join(&env.root, fallback))
}

fn python_dir(ctx: &SystemContext, env: &PythonEnv) -> String {
    env.python_exe
        .as_deref()
        .and_then(|exe| ctx.platform.parent(exe))
        .unwrap_or_else(|| env.root.clone())
}

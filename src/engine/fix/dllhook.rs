//! The Python ≥ 3.8 DLL-directory hook, the fix a PATH edit cannot give on Windows: in the
//! environment's site-packages, `cuda_triage_dlls.pth` (one `import` line, run at every start),
//! the matching `cuda_triage_dlls.start` entry point (PEP 829) and a small module that calls
//! `os.add_dll_directory` for each folder that exists, keeps the handles and never raises. Each
//! fix is one section of the module's marked block; undo restores (or removes) all three files.

use super::FixError;
use super::plan::{Change, Operation, Scope};
use super::planner::read_machine_file;
use super::rcblock;
use crate::engine::context::SystemContext;

pub const MODULE: &str = "cuda_triage_dlls";

const PRELUDE: &str = r#""""Written by cuda-triage: adds CUDA DLL folders to this Python's DLL search path.

Python 3.8 and newer on Windows do not search PATH for an extension module's DLLs; this module
calls os.add_dll_directory for the folders below that exist. It never raises. `cuda-triage fix
undo` removes it together with cuda_triage_dlls.pth and cuda_triage_dlls.start.
"""
import os

_handles = []


def _add(folder):
    try:
        if hasattr(os, "add_dll_directory") and os.path.isdir(folder):
            _handles.append(os.add_dll_directory(folder))
    except Exception:
        pass


def add():
    """Entry point for cuda_triage_dlls.start; the folders were added when this module loaded."""
"#;

fn py_literal(dir: &str) -> String {
    // A raw string cannot end in a backslash or hold the quote; escape instead.
    format!("\"{}\"", dir.replace('\\', "\\\\").replace('"', "\\\""))
}

fn file_op(
    ctx: &SystemContext,
    path: String,
    after: Vec<u8>,
    what: &str,
) -> Result<Operation, FixError> {
    let before = read_machine_file(ctx, &path)?;
    Ok(Operation {
        scope: Scope::Env,
        what: what.to_string(),
        change: Change::File {
            path,
            before,
            after: Some(after),
            copied_from: None,
        },
    })
}

/// The three files' operations for fix `id` adding `dirs`.
pub fn operations(
    ctx: &SystemContext,
    id: &str,
    dirs: &[String],
    site_packages: &str,
) -> Result<Vec<Operation>, FixError> {
    let p = ctx.platform;
    let module = p.join(site_packages, &format!("{MODULE}.py"));
    let before = read_machine_file(ctx, &module)?.unwrap_or_else(|| PRELUDE.as_bytes().to_vec());
    let lines: Vec<String> = dirs
        .iter()
        .map(|d| format!("_add({})", py_literal(d)))
        .collect();
    let after = rcblock::with_section(&before, id, Some(&lines));
    Ok(vec![
        file_op(ctx, module, after, "Add the DLL folders to the hook module")?,
        file_op(
            ctx,
            p.join(site_packages, &format!("{MODULE}.pth")),
            format!("import {MODULE}\n").into_bytes(),
            "Load the hook at every start (.pth)",
        )?,
        file_op(
            ctx,
            p.join(site_packages, &format!("{MODULE}.start")),
            format!("{MODULE}:add\n").into_bytes(),
            "Load the hook at every start (PEP 829 .start)",
        )?,
    ])
}

/// Run in a fresh interpreter: is the hook loaded, and (Windows) do the libraries load the way
/// torch loads them (`LoadLibraryExW` with 0x1100) — each printed with the path it resolved to.
const CHECK: &str = r#"
import os, sys
m = sys.modules.get("cuda_triage_dlls")
print("hook-loaded" if m is not None else "hook-missing", len(getattr(m, "_handles", [])))
if os.name == "nt":
    import ctypes
    from ctypes import wintypes
    k = ctypes.WinDLL("kernel32", use_last_error=True)
    k.GetModuleFileNameW.argtypes = [wintypes.HMODULE, wintypes.LPWSTR, wintypes.DWORD]
    for name in sys.argv[1:]:
        try:
            handle = ctypes.WinDLL(name, winmode=0x1100)._handle
            buf = ctypes.create_unicode_buffer(32768)
            k.GetModuleFileNameW(handle, buf, 32768)
            print("dll-loaded", name, buf.value)
        except OSError as e:
            print("dll-failed", name, e)
"#;

/// Starts `python` fresh (no activation) and reports what [`CHECK`] printed; `Ok(false)` when
/// the hook is missing or a library failed to load.
pub fn check_fresh(
    python: &str,
    libraries: &[String],
    checked: &mut Vec<String>,
) -> Result<bool, FixError> {
    let out = std::process::Command::new(python)
        .arg("-c")
        .arg(CHECK)
        .args(libraries)
        .output()
        .map_err(|e| FixError::Io {
            path: python.to_string(),
            source: e,
        })?;
    let text = String::from_utf8_lossy(&out.stdout);
    checked.push(format!(
        "started {python} fresh: {}",
        text.trim().replace('\n', "; ")
    ));
    Ok(out.status.success() && text.starts_with("hook-loaded") && !text.contains("dll-failed"))
}

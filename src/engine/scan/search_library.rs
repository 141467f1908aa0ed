//! The library a Linux framework's CUDA loads search from: among the ELF files in its folders
//! (the bundled folder, the package, `lib`, `python`), the one whose RPATH/RUNPATH names the
//! most folders that exist on this machine. pip builds point it at the `nvidia/*/lib` wheels
//! (`$ORIGIN/../../nvidia/cublas/lib` in torch/lib/libtorch_cuda.so), so ld.so's search for a
//! dlopen from it starts there. Counting only existing folders matters: torch 2.11's `_C` module
//! carries torch/lib's RPATH list one folder higher, where `$ORIGIN/../../nvidia` leads nowhere
//! (ld.so's own trace on a real torch 2.11.0+cu130 install tries, and misses, each of them).
//! Found once per framework by the scan and kept in the inventory for the rules' loader emulation.

use crate::engine::binfmt::cache::Reader;
use crate::engine::context::{Platform, SystemContext};
use crate::engine::inventory::{Framework, FrameworkKind};

/// At most this many shared objects are read per folder.
const MAX_FILES: usize = 256;

/// The machine path of the framework's search library; `None` when no file there carries a
/// search path (or none is a real ELF: machine files often hold placeholders).
pub fn find(ctx: &SystemContext, f: &Framework) -> Option<String> {
    let p = Platform::Linux;
    let mut dirs: Vec<String> = f.bundled_dir.iter().cloned().collect();
    for sub in ["", "lib", "python"] {
        let dir = if sub.is_empty() {
            f.location.clone()
        } else {
            p.join(&f.location, sub)
        };
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    if f.kind == FrameworkKind::Jax {
        dirs.extend(jax_plugin_dirs(ctx, f));
    }
    let mut best: Option<(usize, String)> = None;
    for dir in dirs {
        let Ok(entries) = ctx.fs.read_dir(&dir) else {
            continue;
        };
        let shared = entries
            .into_iter()
            .filter(|e| e.is_file && (e.name.ends_with(".so") || e.name.contains(".so.")))
            .take(MAX_FILES);
        for e in shared {
            let Ok(info) = ctx.fs.binaries().binary(&e.host, Reader::HEADERS) else {
                continue;
            };
            let dir = p.parent(&e.path).unwrap_or_default();
            let entries = info
                .rpath
                .iter()
                .chain(&info.runpath)
                .filter(|entry| ctx.fs.is_dir(&expand_origin(entry, &dir)))
                .count();
            if entries > 0 && best.as_ref().is_none_or(|(n, _)| entries > *n) {
                best = Some((entries, e.path));
            }
        }
    }
    best.map(|(_, path)| path)
}

/// One search-path entry with `$ORIGIN` (either spelling) replaced by the library's folder.
fn expand_origin(entry: &str, dir: &str) -> String {
    let expanded = entry.replace("${ORIGIN}", dir).replace("$ORIGIN", dir);
    Platform::Linux.normalize(&expanded)
}

/// JAX's CUDA libraries are opened from its plugin, not from `jax/`: the PJRT plugin's
/// `jax_plugins/xla_cuda<N>/xla_cuda_plugin.so` (RPATH `$ORIGIN/../../nvidia/cu13/lib`, … in
/// jax-cuda13-pjrt 0.11.2) and the kernels of `jax_cuda<N>_plugin/` beside `jax/`.
fn jax_plugin_dirs(ctx: &SystemContext, f: &Framework) -> Vec<String> {
    let p = Platform::Linux;
    let Some(site) = p.parent(&f.location) else {
        return Vec::new();
    };
    let mut dirs = Vec::new();
    let plugins = p.join(&site, "jax_plugins");
    if let Ok(entries) = ctx.fs.read_dir(&plugins) {
        dirs.extend(entries.into_iter().filter(|e| e.is_dir).map(|e| e.path));
    }
    if let Ok(entries) = ctx.fs.read_dir(&site) {
        dirs.extend(
            entries
                .into_iter()
                .filter(|e| {
                    e.is_dir && e.name.starts_with("jax_cuda") && e.name.ends_with("_plugin")
                })
                .map(|e| e.path),
        );
    }
    dirs
}

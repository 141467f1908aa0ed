//! The library a Linux framework's CUDA loads search from: among the ELF files in its folders
//! (the bundled folder, the package, `lib`, `python`), the one with the longest RPATH/RUNPATH.
//! pip builds point it at the `nvidia/*/lib` wheels (`$ORIGIN/../../nvidia/cublas/lib` in
//! torch/lib/libtorch_cuda.so), so ld.so's search for a dlopen from it starts there. Found once
//! per framework by the scan and kept in the inventory for the rules' loader emulation.

use crate::engine::binfmt::read_binary_headers;
use crate::engine::context::{Platform, SystemContext};
use crate::engine::inventory::Framework;

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
            let Ok(info) = ctx.fs.binaries().binary(&e.host, read_binary_headers) else {
                continue;
            };
            let entries = info.rpath.len() + info.runpath.len();
            if entries > 0 && best.as_ref().is_none_or(|(n, _)| entries > *n) {
                best = Some((entries, e.path));
            }
        }
    }
    best.map(|(_, path)| path)
}

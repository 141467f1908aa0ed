//! The binaries worth a dependency tree after a scan, computed from its inventory: each CUDA
//! framework's key entry library (`torch_cuda.dll` / `libtorch_cuda.so`,
//! `_pywrap_tensorflow_internal`, ONNX Runtime's CUDA provider, CuPy's cuBLAS extension, the JAX
//! PJRT plugin — knowledge `framework_closure.toml`), then each toolkit's, pip wheel folder's and
//! cuDNN copy's main cuBLAS and cuDNN library. Each comes with the process that loads it: a
//! framework's `python` (and, for a library inside an environment, that environment's framework
//! process), else an application's standard search.

use crate::engine::context::{Platform, SystemContext};
use crate::engine::graph::{GraphOptions, framework};
use crate::engine::inventory::{Framework, Inventory, PythonEnv};
use crate::engine::loader::glob_match;

/// One binary to offer, and how to walk it.
#[derive(Debug, Clone)]
pub struct BinarySuggestion {
    /// The machine path.
    pub path: String,
    /// Short words for a button: "torch_cuda.dll — PyTorch 2.1.2".
    pub label: String,
    /// Why it matters: "PyTorch's CUDA library, loaded by `import torch` in C:\...\.venv".
    pub why: String,
    /// The loading context in words ("python.exe of ... importing torch (PyTorch ...)").
    pub process: String,
    /// The same context as graph options.
    pub options: GraphOptions,
}

/// Main-library globs: cuBLAS and cuDNN (not their sub-libraries).
const CUBLAS: [&str; 2] = ["cublas64_*.dll", "libcublas.so*"];
const CUDNN: [&str; 2] = ["cudnn64_*.dll", "libcudnn.so*"];

/// Every suggestion for this inventory, frameworks first, without repeats.
pub fn binaries(ctx: &SystemContext, inventory: &Inventory) -> Vec<BinarySuggestion> {
    let mut out: Vec<BinarySuggestion> = Vec::new();
    let mut push = |s: BinarySuggestion| {
        if !out.iter().any(|o| ctx.platform.same_path(&o.path, &s.path)) {
            out.push(s);
        }
    };
    for (env, fw) in inventory.frameworks() {
        if fw.cuda_build == Some(false) {
            continue;
        }
        let name = versioned(fw);
        for path in framework::key_libraries(ctx, fw) {
            push(BinarySuggestion {
                label: format!("{} — {name}", ctx.platform.file_name(&path)),
                why: format!(
                    "{name}'s CUDA entry library, loaded by `import {}` in {}",
                    fw.kind.module(),
                    env.root
                ),
                process: framework::process_label(ctx, env, fw),
                options: framework::process_options(ctx, env, fw),
                path,
            });
        }
    }
    for t in &inventory.toolkits {
        let what = format!(
            "CUDA {} toolkit",
            t.version.as_deref().unwrap_or("(version unknown)")
        );
        let found = main_library(ctx, &t.library_dirs, &t.libraries, &CUBLAS)
            .into_iter()
            .chain(main_library(ctx, &t.library_dirs, &t.libraries, &CUDNN));
        for path in found {
            push(library(ctx, inventory, path, &what, &t.root));
        }
    }
    for env in &inventory.python_envs {
        for dir in &env.nvidia_lib_dirs {
            let dirs = std::slice::from_ref(&dir.dir);
            let found = main_library(ctx, dirs, &dir.libraries, &CUBLAS)
                .into_iter()
                .chain(main_library(ctx, dirs, &dir.libraries, &CUDNN));
            for path in found {
                let what = format!("pip nvidia-{} wheel", dir.component);
                push(library(ctx, inventory, path, &what, &env.root));
            }
        }
    }
    for c in &inventory.cudnn {
        let what = format!(
            "cuDNN {}",
            c.version.as_deref().unwrap_or("(version unknown)")
        );
        if let Some(path) = main_library(ctx, &c.library_dirs, &c.libraries, &CUDNN) {
            push(library(ctx, inventory, path, &what, &c.root));
        }
    }
    out
}

/// A toolkit's or wheel's library: loaded by the framework of the environment it lies in, else
/// by an application searching the standard way.
fn library(
    ctx: &SystemContext,
    inventory: &Inventory,
    path: String,
    what: &str,
    root: &str,
) -> BinarySuggestion {
    let label = format!("{} — {what}", ctx.platform.file_name(&path));
    match owning_framework(ctx, inventory, &path) {
        Some((env, fw)) => BinarySuggestion {
            label,
            why: format!(
                "the {what} in {root}, as {} in {} loads it",
                versioned(fw),
                env.root
            ),
            process: framework::process_label(ctx, env, fw),
            options: framework::process_options(ctx, env, fw),
            path,
        },
        None => BinarySuggestion {
            label,
            why: format!("the {what} in {root}, as a program loads it"),
            process: match ctx.platform {
                Platform::Windows => framework::preset_label(None).to_string(),
                Platform::Linux => {
                    "a program (LD_LIBRARY_PATH, ld.so.cache, the default folders)".to_string()
                }
            },
            options: GraphOptions::default(),
            path,
        },
    }
}

/// The first CUDA framework of the environment whose folder holds `path` (the innermost one).
fn owning_framework<'a>(
    ctx: &SystemContext,
    inventory: &'a Inventory,
    path: &str,
) -> Option<(&'a PythonEnv, &'a Framework)> {
    let p = ctx.platform;
    let inside = |root: &str| {
        let prefix = format!("{}{}", root.trim_end_matches(['\\', '/']), p.separator());
        path.len() > prefix.len()
            && path.is_char_boundary(prefix.len())
            && p.same_name(&path[..prefix.len()], &prefix)
    };
    inventory
        .python_envs
        .iter()
        .filter(|e| inside(&e.root))
        .max_by_key(|e| e.root.len())
        .and_then(|e| {
            e.frameworks
                .iter()
                .find(|f| f.cuda_build != Some(false))
                .map(|f| (e, f))
        })
}

/// The main library among `names` (the shortest matching name, `libcublas.so.12` before
/// `libcublas.so.12.4.5.8`) in the first of `dirs` that holds it.
fn main_library(
    ctx: &SystemContext,
    dirs: &[String],
    names: &[String],
    globs: &[&str],
) -> Option<String> {
    let p = ctx.platform;
    let windows = p == Platform::Windows;
    let name = names
        .iter()
        .filter(|n| globs.iter().any(|g| glob_match(g, n, windows)))
        .min_by_key(|n| (n.len(), n.as_str()))?;
    dirs.iter()
        .map(|d| p.join(d, name))
        .find(|path| ctx.fs.is_file(path))
}

fn versioned(fw: &Framework) -> String {
    match &fw.version {
        Some(v) => format!("{} {v}", fw.kind.display_name()),
        None => fw.kind.display_name().to_string(),
    }
}

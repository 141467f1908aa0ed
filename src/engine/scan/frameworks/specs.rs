//! One descriptor row per framework ([`FrameworkSpec`]): its name for people, the module its
//! users import (the import probe's module, the key of its rows in
//! `assets/knowledge/framework_loads.toml` and `framework_closure.toml`, and the value of
//! `gpu-test --framework`), how its process opens its CUDA libraries on Windows
//! ([`WindowsLoading`], which `graph::framework` turns into a loading context), and the reader of
//! its files in a site-packages folder (the file beside this one). [`FrameworkKind::ALL`] is the
//! order the readers run in (and so the order of an environment's frameworks in a report) and the
//! order the CLI lists them.

use super::{Site, cupy, jax, onnxruntime, tensorflow, torch};
use crate::engine::inventory::{CudnnInstall, Framework, FrameworkKind};
use crate::engine::scan::walker::Walker;

/// Reads one framework from a site-packages folder (`None`: not installed there); a reader that
/// finds a cuDNN copy (torch's `torch/lib`) adds it to the list.
pub(super) type Reader = fn(&mut Walker, &Site, &mut Vec<CudnnInstall>) -> Option<Framework>;

/// How a framework's process opens its CUDA libraries on Windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowsLoading {
    /// Its entry libraries are extension modules Python imports: Python ≥ 3.8 ignores PATH,
    /// conda's Python searches its own folders, an older Python uses the extension's folder.
    ExtensionModules,
    /// Extension modules whose package first adds `<package>\<dir>` with `os.add_dll_directory`
    /// and loads its DLLs from there with `LoadLibraryExW(…, 0x1100)` (torch's
    /// `_load_dll_libraries`, torch/__init__.py at v2.5.1: the `Torch` loading context).
    PackageDllLoader { dir: &'static str },
    /// The package opens a provider library itself with `LoadLibraryExW(<package>\<dir>\…,
    /// NULL, LOAD_WITH_ALTERED_SEARCH_PATH)` (ONNX Runtime's CUDA provider,
    /// onnxruntime/core/platform/windows/env.cc at v1.20.2 `LoadDynamicLibrary`): the standard
    /// search with that folder in the application folder's place. `what` names the provider.
    Provider {
        dir: &'static str,
        what: &'static str,
    },
}

/// What the engine needs to know of one framework.
pub struct FrameworkSpec {
    pub display_name: &'static str,
    /// The module `import` names (see the file's header for what else it keys).
    pub module: &'static str,
    pub windows_loading: WindowsLoading,
    pub(super) read: Reader,
}

impl FrameworkKind {
    /// Every framework, in the order the readers run and the CLI lists them.
    pub const ALL: [FrameworkKind; 5] = [
        FrameworkKind::TensorFlow,
        FrameworkKind::PyTorch,
        FrameworkKind::Jax,
        FrameworkKind::CuPy,
        FrameworkKind::OnnxRuntime,
    ];

    /// The framework's descriptor row.
    pub fn spec(self) -> &'static FrameworkSpec {
        match self {
            FrameworkKind::TensorFlow => &FrameworkSpec {
                display_name: "TensorFlow",
                module: "tensorflow",
                windows_loading: WindowsLoading::ExtensionModules,
                read: |w, site, _| tensorflow::read(w, site),
            },
            FrameworkKind::PyTorch => &FrameworkSpec {
                display_name: "PyTorch",
                module: "torch",
                windows_loading: WindowsLoading::PackageDllLoader { dir: "lib" },
                read: torch::read,
            },
            FrameworkKind::Jax => &FrameworkSpec {
                display_name: "JAX",
                module: "jax",
                windows_loading: WindowsLoading::ExtensionModules,
                read: |w, site, _| jax::read(w, site),
            },
            FrameworkKind::CuPy => &FrameworkSpec {
                display_name: "CuPy",
                module: "cupy",
                windows_loading: WindowsLoading::ExtensionModules,
                read: |w, site, _| cupy::read(w, site),
            },
            FrameworkKind::OnnxRuntime => &FrameworkSpec {
                display_name: "ONNX Runtime",
                module: "onnxruntime",
                windows_loading: WindowsLoading::Provider {
                    dir: "capi",
                    what: "onnxruntime's CUDA provider",
                },
                read: |w, site, _| onnxruntime::read(w, site),
            },
        }
    }

    pub fn display_name(self) -> &'static str {
        self.spec().display_name
    }

    /// The module `import` would name (for the import probe).
    pub fn module(self) -> &'static str {
        self.spec().module
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_framework_is_in_all_once_with_its_own_module() {
        use FrameworkKind::*;
        let named = [TensorFlow, PyTorch, Jax, CuPy, OnnxRuntime];
        for kind in named {
            // A new variant stops this match compiling: name it above, and list it in ALL.
            match kind {
                TensorFlow | PyTorch | Jax | CuPy | OnnxRuntime => {}
            }
            let listed = FrameworkKind::ALL.iter().filter(|k| **k == kind).count();
            assert_eq!(listed, 1, "{kind:?} in FrameworkKind::ALL");
            let same_module = named.iter().filter(|k| k.module() == kind.module()).count();
            assert_eq!(same_module, 1, "{kind:?}: module {}", kind.module());
        }
        assert_eq!(FrameworkKind::ALL.len(), named.len());
    }
}

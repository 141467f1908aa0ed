//! `framework_closure.toml`: each framework's native entry libraries (what its process loads
//! first, whose whole dependency closure must load) and which package provides each CUDA
//! library a closure can miss (the pip wheel's folder and name, the conda package).

use crate::engine::context::Platform;
use crate::engine::loader::glob_match;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntryRow {
    /// `tensorflow`, `torch`, `jax`, `cupy`, `onnxruntime`.
    pub framework: String,
    pub platform: String,
    /// Globs relative to the framework's package folder (`../` reaches sibling packages).
    pub paths: Vec<String>,
    /// The entry libraries worth a dependency tree of their own (globs like `paths`): the ones
    /// that import the CUDA libraries (`lib/libtorch_cuda.so`); `paths` when absent.
    #[serde(default)]
    pub key: Vec<String>,
    pub source: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderRow {
    /// The wheel's folder under `site-packages/nvidia/`.
    pub folder: String,
    /// The PyPI distribution, `{cu}` standing for `cu11`/`cu12`.
    pub dist: String,
    /// File-name globs of the libraries it ships.
    pub names: Vec<String>,
    pub conda: String,
    pub source: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClosureTables {
    #[serde(default, rename = "entry")]
    pub entries: Vec<EntryRow>,
    #[serde(default, rename = "provider")]
    pub providers: Vec<ProviderRow>,
}

impl ClosureTables {
    /// The entry globs of a framework (its `FrameworkKind` slug) on a platform.
    pub fn entries_of(&self, framework: &str, platform: Platform) -> Vec<&str> {
        self.entries
            .iter()
            .filter(|e| e.framework == framework && e.platform == platform.as_str())
            .flat_map(|e| e.paths.iter().map(String::as_str))
            .collect()
    }

    /// The key entry globs of a framework on a platform (its `key`, else its `paths`).
    pub fn key_entries_of(&self, framework: &str, platform: Platform) -> Vec<&str> {
        self.entries
            .iter()
            .filter(|e| e.framework == framework && e.platform == platform.as_str())
            .flat_map(|e| if e.key.is_empty() { &e.paths } else { &e.key })
            .map(String::as_str)
            .collect()
    }

    /// The package that ships a library file name (case-insensitive on Windows names).
    pub fn provider_of(&self, file_name: &str) -> Option<&ProviderRow> {
        self.providers
            .iter()
            .find(|p| p.names.iter().any(|g| glob_match(g, file_name, true)))
    }
}

impl ProviderRow {
    /// The distribution for a CUDA major (`nvidia-cudnn-cu12`).
    pub fn dist_for(&self, cuda_major: &str) -> String {
        self.dist.replace("{cu}", &format!("cu{cuda_major}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn providers_name_the_wheel_of_each_cuda_library() {
        let t = &crate::engine::knowledge::knowledge().closure;
        let cudnn = t
            .provider_of("libcudnn.so.9")
            .expect("cuDNN has a provider");
        assert_eq!(cudnn.dist_for("12"), "nvidia-cudnn-cu12");
        assert_eq!(cudnn.folder, "cudnn");
        let lt = t.provider_of("libcublasLt.so.12").unwrap();
        assert_eq!(lt.dist_for("12"), "nvidia-cublas-cu12");
        let jit = t.provider_of("libnvJitLink.so.12").unwrap();
        assert_eq!(jit.folder, "nvjitlink");
        assert!(t.provider_of("cudnn_ops_infer64_8.dll").is_some());
        assert!(t.provider_of("libc.so.6").is_none());
        assert!(t.provider_of("libtorch_cuda.so").is_none());
    }

    #[test]
    fn every_framework_has_entries_on_linux() {
        let t = &crate::engine::knowledge::knowledge().closure;
        for f in ["torch", "tensorflow", "jax", "cupy", "onnxruntime"] {
            assert!(!t.entries_of(f, Platform::Linux).is_empty(), "{f}");
        }
        assert!(t.entries.iter().all(|e| !e.source.is_empty()));
        assert!(glob_match(
            "_C.*.so",
            "_C.cpython-311-x86_64-linux-gnu.so",
            false
        ));
        assert!(!glob_match(
            "_C.*.so",
            "_C_flatbuffer.cpython-311-x86_64-linux-gnu.so",
            false
        ));
    }
}

//! Every finding code the engine emits, in one place — one row of `finding_codes!` each, which
//! makes both its constant and its entry in [`ALL`]: the stable kebab-case identifiers of the
//! JSON contract (`"code"`), which front ends, tests and the documentation table
//! (`assets/knowledge/finding_docs.toml`) match on. Codes made at run time belong to a family
//! named by its prefix here: `log-<id>` (a line of the error catalog, `triage::classify`) and
//! the GPU test's `gpu-test-*`.

/// One `NAME = "code",` row per code: the constant, and its entry in [`ALL`] (so no second list
/// can fall out of step with the constants).
macro_rules! finding_codes {
    ($($name:ident = $code:literal,)*) => {
        $(pub const $name: &str = $code;)*

        /// Every fixed code above, for checks over the registry.
        pub const ALL: &[&str] = &[$($name),*];
    };
}

finding_codes! {
    ASSEMBLY_NOT_FOUND = "assembly-not-found",
    BUILD_LIBRARY_NOT_FOUND = "build-library-not-found",
    BUILD_LIBRARY_UNKNOWN_RELEASE = "build-library-unknown-release",
    CONTAINER_CUDA_TOO_NEW = "container-cuda-too-new",
    CUDA_API_CHANGED = "cuda-api-changed",
    CONTAINER_DRIVER_NOT_MOUNTED = "container-driver-not-mounted",
    CUDA_COMPAT_SHADOWS_DRIVER = "cuda-compat-shadows-driver",
    CUDA_ENV_VAR_MISSING_DIR = "cuda-env-var-missing-dir",
    CUDA_PATH_MISMATCH = "cuda-path-mismatch",
    CUDNN8_ZLIBWAPI_MISSING = "cudnn8-zlibwapi-missing",
    CUPTI_NOT_SEARCHED = "cupti-not-searched",
    CUPY_NVCC_MISMATCH = "cupy-nvcc-mismatch",
    DRIVER_ENTRY_POINT_MISSING = "driver-entry-point-missing",
    DRIVER_KERNEL_MISMATCH = "driver-kernel-mismatch",
    DRIVER_LIBRARY_NOT_LOADED = "driver-library-not-loaded",
    DRIVER_TOO_OLD = "driver-too-old",
    DUPLICATE_LIBRARY = "duplicate-library",
    EXTENSION_MODULE_MISSING = "extension-module-missing",
    FRAMEWORK_CPU_BUILD = "framework-cpu-build",
    FRAMEWORK_CUPTI_MISSING = "framework-cupti-missing",
    FRAMEWORK_EXPECTATIONS_INFERRED = "framework-expectations-inferred",
    FRAMEWORK_EXPECTATIONS_UNKNOWN = "framework-expectations-unknown",
    FRAMEWORK_IMPORT_FAILS = "framework-import-fails",
    GPU_ARCH_MISSING = "gpu-arch-missing",
    GPU_ARCH_REFUSED = "gpu-arch-refused",
    GPU_TEST_BAD_OUTPUT = "gpu-test-bad-output",
    GPU_TEST_CRASHED = "gpu-test-crashed",
    GPU_TEST_CUDA_ERROR = "gpu-test-cuda-error",
    GPU_TEST_INTERNAL_ERROR = "gpu-test-internal-error",
    GPU_TEST_LIBRARY_NOT_LOADED = "gpu-test-library-not-loaded",
    GPU_TEST_MISSING_SYMBOL = "gpu-test-missing-symbol",
    GPU_TEST_NO_DRIVER = "gpu-test-no-driver",
    GPU_TEST_NO_NVML = "gpu-test-no-nvml",
    GPU_TEST_NOT_STARTED = "gpu-test-not-started",
    GPU_TEST_SKIPPED = "gpu-test-skipped",
    GPU_TEST_TIMEOUT = "gpu-test-timeout",
    GPU_TEST_WORKLOAD_FAILED = "gpu-test-workload-failed",
    GPU_TEST_WRONG_RESULTS = "gpu-test-wrong-results",
    IMPORT_FAILED_UNPREDICTED = "import-failed-unpredicted",
    JAX_PLUGIN_MISMATCH = "jax-plugin-mismatch",
    LIBDEVICE_MISSING = "libdevice-missing",
    LIBRARY_DEPENDENCY_MISSING = "library-dependency-missing",
    LIBRARY_FROM_TRACEBACK = "library-from-traceback",
    LIBRARY_PRELOADED_DEPENDENCY_MISSING = "library-preloaded-dependency-missing",
    LIBRARY_IDENTIFIED = "library-identified",
    LIBRARY_MISSING = "library-missing",
    LIBRARY_NOT_FOUND = "library-not-found",
    LIBRARY_NOT_SEARCHED = "library-not-searched",
    LIBRARY_ON_MACHINE = "library-on-machine",
    LIBRARY_UNREADABLE = "library-unreadable",
    LIBRARY_VERSION_REFUSED = "library-version-refused",
    LIBRARY_WRONG_MACHINE = "library-wrong-machine",
    TENSOR_PAST_32BIT_LIMIT = "tensor-past-32bit-limit",
    LIBRARY_WRONG_MAJOR = "library-wrong-major",
    LOADER_DISAGREES = "loader-disagrees",
    MISSING_EXPORT = "missing-export",
    MISSING_SYMBOL = "missing-symbol",
    MISSING_SYMBOL_VERSION = "missing-symbol-version",
    MIXED_CUDA_FAMILIES = "mixed-cuda-families",
    MULTIPLE_TOOLKITS_ON_PATH = "multiple-toolkits-on-path",
    NO_NVIDIA_DRIVER = "no-nvidia-driver",
    PATH_ENTRIES_MISSING = "path-entries-missing",
    PATH_ENTRY_TYPO = "path-entry-typo",
    PIP_CUDA_WHEELS_NOT_SEARCHED = "pip-cuda-wheels-not-searched",
    PROCESS_BITNESS_MISMATCH = "process-bitness-mismatch",
    PTXAS_LACKS_GPU_ARCH = "ptxas-lacks-gpu-arch",
    PTXAS_NOT_FOUND = "ptxas-not-found",
    PTXAS_TOO_OLD = "ptxas-too-old",
    PYTHON_IGNORES_PATH = "python-ignores-path",
    REPORT_REDACTION_FAILED = "report-redaction-failed",
    RUNTIME_LIBRARY_NOT_FOUND = "runtime-library-not-found",
    TENSORFLOW_WINDOWS_NO_GPU = "tensorflow-windows-no-gpu",
    TORCH_EXTENSION_OTHER_TORCH = "torch-extension-other-torch",
    VERSION_MISMATCH_REPORTED = "version-mismatch-reported",
    VERSION_NUMBERS_DECODED = "version-numbers-decoded",
    WSL_LIB_NOT_SEARCHED = "wsl-lib-not-searched",
    WSL_LIBCUDA_SHADOWED = "wsl-libcuda-shadowed",
    XLA_CUDA_DATA_DIR_INCOMPLETE = "xla-cuda-data-dir-incomplete",
    XLA_CUDA_DATA_DIR_MISSING = "xla-cuda-data-dir-missing",
    ZLIBWAPI_WRONG_BITNESS = "zlibwapi-wrong-bitness",
}

/// The prefix of the codes the error catalog's entries give (`log-<id>`).
pub const LOG_PREFIX: &str = "log-";
/// The prefix of the GPU test's codes: they come from running the GPU, not from rules.
pub const GPU_TEST_PREFIX: &str = "gpu-test-";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_documented_code_pattern_names_a_code_the_engine_emits() {
        let docs = &crate::engine::knowledge::knowledge().docs;
        for row in &docs.docs {
            for pattern in &row.codes {
                let hit = ALL
                    .iter()
                    .any(|code| crate::engine::loader::glob_match(pattern, code, false))
                    || pattern.starts_with(LOG_PREFIX);
                assert!(
                    hit,
                    "finding_docs.toml: {pattern} ({}) matches no finding code",
                    row.title
                );
            }
        }
    }

    #[test]
    fn codes_are_unique_kebab_case() {
        let mut seen = std::collections::HashSet::new();
        for code in ALL {
            assert!(seen.insert(code), "{code} is listed twice");
            assert!(
                code.split('-').all(|w| !w.is_empty()
                    && w.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())),
                "{code} is not kebab-case"
            );
        }
    }
}

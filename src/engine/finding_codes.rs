//! Every finding code the engine emits, in one place: the stable kebab-case identifiers of the
//! JSON contract (`"code"`), which front ends, tests and the documentation table
//! (`assets/knowledge/finding_docs.toml`) match on. Codes made at run time belong to a family
//! named by its prefix here: `log-<id>` (a line of the error catalog, `triage::classify`) and
//! the GPU test's `gpu-test-*`.

pub const ASSEMBLY_NOT_FOUND: &str = "assembly-not-found";
pub const CUDA_ENV_VAR_MISSING_DIR: &str = "cuda-env-var-missing-dir";
pub const CUDA_PATH_MISMATCH: &str = "cuda-path-mismatch";
pub const CUDNN8_ZLIBWAPI_MISSING: &str = "cudnn8-zlibwapi-missing";
pub const CUPTI_NOT_SEARCHED: &str = "cupti-not-searched";
pub const DRIVER_TOO_OLD: &str = "driver-too-old";
pub const DUPLICATE_LIBRARY: &str = "duplicate-library";
pub const FRAMEWORK_CPU_BUILD: &str = "framework-cpu-build";
pub const FRAMEWORK_CUPTI_MISSING: &str = "framework-cupti-missing";
pub const FRAMEWORK_EXPECTATIONS_INFERRED: &str = "framework-expectations-inferred";
pub const FRAMEWORK_EXPECTATIONS_UNKNOWN: &str = "framework-expectations-unknown";
pub const FRAMEWORK_IMPORT_FAILS: &str = "framework-import-fails";
pub const GPU_ARCH_MISSING: &str = "gpu-arch-missing";
pub const GPU_TEST_BAD_OUTPUT: &str = "gpu-test-bad-output";
pub const GPU_TEST_CRASHED: &str = "gpu-test-crashed";
pub const GPU_TEST_CUDA_ERROR: &str = "gpu-test-cuda-error";
pub const GPU_TEST_INTERNAL_ERROR: &str = "gpu-test-internal-error";
pub const GPU_TEST_LIBRARY_NOT_LOADED: &str = "gpu-test-library-not-loaded";
pub const GPU_TEST_MISSING_SYMBOL: &str = "gpu-test-missing-symbol";
pub const GPU_TEST_NO_DRIVER: &str = "gpu-test-no-driver";
pub const GPU_TEST_NO_NVML: &str = "gpu-test-no-nvml";
pub const GPU_TEST_NOT_STARTED: &str = "gpu-test-not-started";
pub const GPU_TEST_SKIPPED: &str = "gpu-test-skipped";
pub const GPU_TEST_TIMEOUT: &str = "gpu-test-timeout";
pub const GPU_TEST_WORKLOAD_FAILED: &str = "gpu-test-workload-failed";
pub const GPU_TEST_WRONG_RESULTS: &str = "gpu-test-wrong-results";
pub const IMPORT_FAILED_UNPREDICTED: &str = "import-failed-unpredicted";
pub const JAX_PLUGIN_MISMATCH: &str = "jax-plugin-mismatch";
pub const LIBDEVICE_MISSING: &str = "libdevice-missing";
pub const LIBRARY_IDENTIFIED: &str = "library-identified";
pub const LIBRARY_MISSING: &str = "library-missing";
pub const LIBRARY_NOT_FOUND: &str = "library-not-found";
pub const LIBRARY_NOT_SEARCHED: &str = "library-not-searched";
pub const LIBRARY_ON_MACHINE: &str = "library-on-machine";
pub const LIBRARY_UNREADABLE: &str = "library-unreadable";
pub const LIBRARY_VERSION_REFUSED: &str = "library-version-refused";
pub const LIBRARY_WRONG_MACHINE: &str = "library-wrong-machine";
pub const LIBRARY_WRONG_MAJOR: &str = "library-wrong-major";
pub const LOADER_DISAGREES: &str = "loader-disagrees";
pub const MISSING_EXPORT: &str = "missing-export";
pub const MISSING_SYMBOL: &str = "missing-symbol";
pub const MISSING_SYMBOL_VERSION: &str = "missing-symbol-version";
pub const MIXED_CUDA_FAMILIES: &str = "mixed-cuda-families";
pub const MULTIPLE_TOOLKITS_ON_PATH: &str = "multiple-toolkits-on-path";
pub const NO_NVIDIA_DRIVER: &str = "no-nvidia-driver";
pub const PATH_ENTRIES_MISSING: &str = "path-entries-missing";
pub const PATH_ENTRY_TYPO: &str = "path-entry-typo";
pub const PIP_CUDA_WHEELS_NOT_SEARCHED: &str = "pip-cuda-wheels-not-searched";
pub const PROCESS_BITNESS_MISMATCH: &str = "process-bitness-mismatch";
pub const PTXAS_NOT_FOUND: &str = "ptxas-not-found";
pub const PTXAS_TOO_OLD: &str = "ptxas-too-old";
pub const CUPY_NVCC_MISMATCH: &str = "cupy-nvcc-mismatch";
pub const PTXAS_LACKS_GPU_ARCH: &str = "ptxas-lacks-gpu-arch";
pub const PYTHON_IGNORES_PATH: &str = "python-ignores-path";
pub const REPORT_REDACTION_FAILED: &str = "report-redaction-failed";
pub const RUNTIME_LIBRARY_NOT_FOUND: &str = "runtime-library-not-found";
pub const TENSORFLOW_WINDOWS_NO_GPU: &str = "tensorflow-windows-no-gpu";
pub const XLA_CUDA_DATA_DIR_INCOMPLETE: &str = "xla-cuda-data-dir-incomplete";
pub const XLA_CUDA_DATA_DIR_MISSING: &str = "xla-cuda-data-dir-missing";
pub const ZLIBWAPI_WRONG_BITNESS: &str = "zlibwapi-wrong-bitness";
pub const VERSION_MISMATCH_REPORTED: &str = "version-mismatch-reported";
pub const VERSION_NUMBERS_DECODED: &str = "version-numbers-decoded";
pub const LIBRARY_DEPENDENCY_MISSING: &str = "library-dependency-missing";
pub const GPU_ARCH_REFUSED: &str = "gpu-arch-refused";
pub const DRIVER_ENTRY_POINT_MISSING: &str = "driver-entry-point-missing";
pub const DRIVER_LIBRARY_NOT_LOADED: &str = "driver-library-not-loaded";
pub const CONTAINER_DRIVER_NOT_MOUNTED: &str = "container-driver-not-mounted";
pub const CONTAINER_CUDA_TOO_NEW: &str = "container-cuda-too-new";
pub const CUDA_COMPAT_SHADOWS_DRIVER: &str = "cuda-compat-shadows-driver";
pub const DRIVER_KERNEL_MISMATCH: &str = "driver-kernel-mismatch";
pub const WSL_LIBCUDA_SHADOWED: &str = "wsl-libcuda-shadowed";
pub const WSL_LIB_NOT_SEARCHED: &str = "wsl-lib-not-searched";

/// The prefix of the codes the error catalog's entries give (`log-<id>`).
pub const LOG_PREFIX: &str = "log-";
/// The prefix of the GPU test's codes: they come from running the GPU, not from rules.
pub const GPU_TEST_PREFIX: &str = "gpu-test-";

/// Every fixed code above, for checks over the registry.
pub const ALL: &[&str] = &[
    ASSEMBLY_NOT_FOUND,
    CUDA_ENV_VAR_MISSING_DIR,
    CUDA_PATH_MISMATCH,
    CUDNN8_ZLIBWAPI_MISSING,
    CUPTI_NOT_SEARCHED,
    DRIVER_TOO_OLD,
    DUPLICATE_LIBRARY,
    FRAMEWORK_CPU_BUILD,
    FRAMEWORK_CUPTI_MISSING,
    FRAMEWORK_EXPECTATIONS_INFERRED,
    FRAMEWORK_EXPECTATIONS_UNKNOWN,
    FRAMEWORK_IMPORT_FAILS,
    GPU_ARCH_MISSING,
    GPU_TEST_BAD_OUTPUT,
    GPU_TEST_CRASHED,
    GPU_TEST_CUDA_ERROR,
    GPU_TEST_INTERNAL_ERROR,
    GPU_TEST_LIBRARY_NOT_LOADED,
    GPU_TEST_MISSING_SYMBOL,
    GPU_TEST_NO_DRIVER,
    GPU_TEST_NO_NVML,
    GPU_TEST_NOT_STARTED,
    GPU_TEST_SKIPPED,
    GPU_TEST_TIMEOUT,
    GPU_TEST_WORKLOAD_FAILED,
    GPU_TEST_WRONG_RESULTS,
    IMPORT_FAILED_UNPREDICTED,
    JAX_PLUGIN_MISMATCH,
    LIBDEVICE_MISSING,
    LIBRARY_IDENTIFIED,
    LIBRARY_MISSING,
    LIBRARY_NOT_FOUND,
    LIBRARY_NOT_SEARCHED,
    LIBRARY_ON_MACHINE,
    LIBRARY_UNREADABLE,
    LIBRARY_VERSION_REFUSED,
    LIBRARY_WRONG_MACHINE,
    LIBRARY_WRONG_MAJOR,
    LOADER_DISAGREES,
    MISSING_EXPORT,
    MISSING_SYMBOL,
    MISSING_SYMBOL_VERSION,
    MIXED_CUDA_FAMILIES,
    MULTIPLE_TOOLKITS_ON_PATH,
    NO_NVIDIA_DRIVER,
    DRIVER_LIBRARY_NOT_LOADED,
    PATH_ENTRIES_MISSING,
    PATH_ENTRY_TYPO,
    PIP_CUDA_WHEELS_NOT_SEARCHED,
    PROCESS_BITNESS_MISMATCH,
    PTXAS_NOT_FOUND,
    PTXAS_TOO_OLD,
    CUPY_NVCC_MISMATCH,
    PTXAS_LACKS_GPU_ARCH,
    PYTHON_IGNORES_PATH,
    REPORT_REDACTION_FAILED,
    RUNTIME_LIBRARY_NOT_FOUND,
    TENSORFLOW_WINDOWS_NO_GPU,
    XLA_CUDA_DATA_DIR_INCOMPLETE,
    XLA_CUDA_DATA_DIR_MISSING,
    ZLIBWAPI_WRONG_BITNESS,
    VERSION_MISMATCH_REPORTED,
    DRIVER_ENTRY_POINT_MISSING,
    CONTAINER_DRIVER_NOT_MOUNTED,
    CONTAINER_CUDA_TOO_NEW,
    CUDA_COMPAT_SHADOWS_DRIVER,
    DRIVER_KERNEL_MISMATCH,
    WSL_LIBCUDA_SHADOWED,
    WSL_LIB_NOT_SEARCHED,
];

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

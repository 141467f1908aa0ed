//! Findings of the live GPU test, in plain language with evidence. The child builds those it
//! can diagnose itself (no driver, a CUDA error, a missing symbol, wrong results); the parent
//! builds those about the child (it crashed, hung, or printed nothing usable).

use super::ffi::errors::{CallError, cuda_error_hint};
use super::results::Role;
use super::select::{default_names, nvml_name};
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, Severity};

/// The driver library could not be loaded; names it and NVML, with the loader's words.
pub fn no_driver(
    requested: &str,
    loader_error: &str,
    nvml_error: Option<&str>,
    windows: bool,
) -> Finding {
    let driver = default_names(Role::Driver, windows)[0];
    let nvml = nvml_name(windows);
    let mut f = Finding::new(
        codes::GPU_TEST_NO_DRIVER,
        Severity::Error,
        format!("GPU test not possible: the NVIDIA driver library {driver} could not be loaded"),
        format!(
            "The live GPU test needs the CUDA driver ({driver}) and NVML ({nvml}), which come with the \
             NVIDIA display driver. {requested} could not be loaded, so no CUDA program can run on this \
             machine. Install the NVIDIA driver for your GPU (or, in a container, start it with GPU access)."
        ),
    )
    .with_libraries([driver.to_string(), nvml.to_string()])
    .with_evidence(Evidence::new("attempt", format!("loading {requested}: {loader_error}")));
    if let Some(e) = nvml_error {
        f = f.with_evidence(Evidence::new("attempt", format!("loading {nvml}: {e}")));
    }
    f
}

/// NVML is missing while the driver loaded: the test runs, the device card is thinner.
pub fn no_nvml(error: &str, windows: bool) -> Finding {
    let nvml = nvml_name(windows);
    Finding::new(
        codes::GPU_TEST_NO_NVML,
        Severity::Warning,
        format!("NVML ({nvml}) is not available: no temperature, power, clocks or PCIe facts"),
        "The CUDA driver loaded, but NVML, which normally ships with the same driver, did not. \
         This points to a partial driver install or a container without the NVIDIA utilities.",
    )
    .with_libraries([nvml])
    .with_evidence(Evidence::new("attempt", error.to_string()))
}

/// A CUDA driver call failed (cuInit returning CUDA_ERROR_NO_DEVICE, ...).
pub fn cuda_error(error: &CallError, library: &str) -> Finding {
    Finding::new(
        codes::GPU_TEST_CUDA_ERROR,
        Severity::Error,
        format!("{} failed: {} ({})", error.call, error.name, error.code),
        format!(
            "The CUDA driver {library} loaded, but {} returned {}. {}",
            error.call,
            error.name,
            cuda_error_hint(error.code)
        ),
    )
    .with_libraries([library.to_string()])
    .with_evidence(Evidence::new("driver", error.to_string()))
}

/// A library loaded but lacks a function the test calls.
pub fn missing_symbol(role: Role, library: &str, error: &str) -> Finding {
    Finding::new(
        codes::GPU_TEST_MISSING_SYMBOL,
        Severity::Error,
        format!("{} ({library}) lacks a function the test needs", role.title()),
        format!(
            "{library} loaded, but a function every {} of CUDA 11 to 13 exports is missing. The file is \
             probably not what its name says (a stub, a truncated download, or a different library).",
            role.title()
        ),
    )
    .with_libraries([library.to_string()])
    .with_evidence(Evidence::at("attempt", error.to_string(), library.to_string()))
}

/// A library could not be loaded. An explicitly chosen file is an error; a library the OS
/// loader did not find by its usual names only means those workloads are skipped.
pub fn library_not_loaded(role: Role, tried: &[(String, String)], explicit: bool) -> Finding {
    let names: Vec<String> = tried.iter().map(|(n, _)| n.clone()).collect();
    let skipped = match role {
        Role::Cublas => " The GEMM workloads were skipped.",
        Role::Cudnn => " The convolution workloads were skipped.",
        _ => "",
    };
    let (severity, summary) = if explicit {
        (
            Severity::Error,
            format!("The chosen {} could not be loaded", role.title()),
        )
    } else {
        (
            Severity::Warning,
            format!("No {} found by the system loader", role.title()),
        )
    };
    let detail = if explicit {
        format!(
            "The file chosen for {} did not load; the loader's message below says why (a missing \
             dependency, a wrong architecture, or a file that is not a library).{skipped}",
            role.title()
        )
    } else {
        format!(
            "None of {} could be loaded by name. Choose the files to test with --{} or --dir.{skipped}",
            names.join(", "),
            role.as_str()
        )
    };
    let mut f = Finding::new(
        codes::GPU_TEST_LIBRARY_NOT_LOADED,
        severity,
        summary,
        detail,
    )
    .with_libraries(names);
    for (name, error) in tried {
        f = f.with_evidence(Evidence::new("attempt", format!("loading {name}: {error}")));
    }
    f
}

/// A workload stopped with an error. A status NVIDIA's headers declare carries NVIDIA's own
/// comment, and where the error catalog has a row for it, its meaning replaces the generic
/// guess: on an H100, cuDNN 9.14's `libcudnn_graph.so.9` among 9.19's other files stopped
/// every convolution with `CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH`, which says exactly that.
pub fn workload_failed(workload: &str, error: &CallError) -> Finding {
    let catalog = &crate::engine::knowledge::knowledge().catalog;
    let row = catalog.code_named(&error.name);
    let why = match row {
        Some(r) => format!("{}.", r.meaning.trim_end_matches('.')),
        None => "The libraries loaded, but this operation does not work with them on this GPU (an \
                 unsupported GPU architecture for this library version, too little memory, or a \
                 broken install)."
            .to_string(),
    };
    let mut f = Finding::new(
        codes::GPU_TEST_WORKLOAD_FAILED,
        Severity::Error,
        format!("{workload} failed: {}", error.name),
        format!("The workload {workload} stopped because {error}. {why}"),
    )
    .with_evidence(Evidence::new("attempt", error.to_string()));
    if let Some(nv) = crate::engine::triage::status::rows_named(&error.name)
        .into_iter()
        .find(|r| !r.comment.is_empty())
    {
        f = f.with_evidence(Evidence::new(
            "status",
            format!(
                "{} ({}): \"{}\" ({})",
                nv.name, nv.number, nv.comment, nv.source
            ),
        ));
    }
    if let Some(r) = row {
        f = f.with_evidence(Evidence::new("source", r.source.clone()));
    }
    f
}

/// Results outside the error bound (or outputs never written).
pub fn wrong_results(workload: &str, max_err: f64, bound: f64, non_finite: usize) -> Finding {
    Finding::new(
        codes::GPU_TEST_WRONG_RESULTS,
        Severity::Error,
        format!("{workload} produced wrong results"),
        format!(
            "Sampled outputs of {workload} differ from a float64 CPU reference: largest relative error \
             {max_err:.3e} (bound {bound:.1e}), {non_finite} output(s) not written or not finite. \
             Wrong results with no error point to faulty hardware, overclocking, or a broken library."
        ),
    )
}

/// The child was killed by a signal or ended abnormally.
pub fn crashed(description: &str, last_stage: Option<&str>, log_tail: &[String]) -> Finding {
    let at = last_stage
        .map(|s| format!(" during \"{s}\""))
        .unwrap_or_default();
    let mut f = Finding::new(
        codes::GPU_TEST_CRASHED,
        Severity::Error,
        format!("The GPU test process crashed ({description}){at}"),
        "The test runs in a separate process, so this window survived, but loading or using the chosen \
         libraries brought that process down. A library that crashes while loading is usually built \
         for another CUDA version, corrupt, or clashing with another copy already loaded.",
    );
    for line in log_tail.iter().rev().take(5).rev() {
        f = f.with_evidence(Evidence::new("log", line.clone()));
    }
    f
}

/// The child did not finish in time and was killed.
pub fn timed_out(after_s: u64, last_stage: Option<&str>) -> Finding {
    let at = last_stage
        .map(|s| format!(" during \"{s}\""))
        .unwrap_or_default();
    Finding::new(
        codes::GPU_TEST_TIMEOUT,
        Severity::Error,
        format!("The GPU test did not finish within {after_s} s and was stopped{at}"),
        "A hang in driver initialisation or in a library call usually means a driver that does not \
         match the kernel module, a GPU in a bad state (check nvidia-smi and the system log), or \
         another process holding the GPU.",
    )
}

/// The child ran but its output was not a result.
pub fn bad_output(message: &str, log_tail: &[String]) -> Finding {
    let mut f = Finding::new(
        codes::GPU_TEST_BAD_OUTPUT,
        Severity::Error,
        "The GPU test process ended without a usable result",
        format!("The test process printed no result the parent could read: {message}."),
    );
    for line in log_tail.iter().rev().take(5).rev() {
        f = f.with_evidence(Evidence::new("log", line.clone()));
    }
    f
}

/// The child could not be started.
pub fn not_started(message: &str) -> Finding {
    Finding::new(
        codes::GPU_TEST_NOT_STARTED,
        Severity::Error,
        "The GPU test process could not be started",
        format!("Starting the test process failed: {message}."),
    )
}

/// A panic inside the child, caught before it could escape.
pub fn panicked(message: &str) -> Finding {
    Finding::new(
        codes::GPU_TEST_INTERNAL_ERROR,
        Severity::Error,
        "The GPU test stopped on an internal error",
        format!("The test process hit an internal error and stopped cleanly: {message}."),
    )
}

/// Workloads left out (not enough memory), as information.
pub fn skipped(reasons: &[String]) -> Finding {
    let mut f = Finding::new(
        codes::GPU_TEST_SKIPPED,
        Severity::Info,
        format!("{} workload(s) skipped", reasons.len()),
        "Some workloads were left out; see below.",
    );
    for r in reasons {
        f = f.with_evidence(Evidence::new("log", r.clone()));
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error an H100 run gave with cuDNN 9.14's libcudnn_graph.so.9 among 9.19's other files
    /// (tests/fixtures/gpu/h100-fault-mixed-cudnn-graph.json): the finding says what the status
    /// means, with NVIDIA's header comment, instead of guessing at the GPU or memory.
    #[test]
    fn a_cudnn_status_is_explained_by_the_catalog_and_the_header() {
        let error = CallError {
            call: "cudnnCreateTensorDescriptor".into(),
            code: 1002,
            name: "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH".into(),
        };
        let f = workload_failed("Conv fp32 NCHW 3x3", &error);
        assert!(
            f.detail.contains("different cuDNN releases"),
            "{}",
            f.detail
        );
        assert!(
            !f.detail.contains("unsupported GPU architecture"),
            "{}",
            f.detail
        );
        assert!(
            f.evidence
                .iter()
                .any(|e| e.kind == "status" && e.text.contains("Sub-library version mismatch")),
            "{:?}",
            f.evidence
        );
        // A status no catalog row explains keeps the general advice.
        let other = CallError {
            call: "cublasGemmEx".into(),
            code: 13,
            name: "CUBLAS_STATUS_EXECUTION_FAILED_SOMEHOW".into(),
        };
        assert!(
            workload_failed("GEMM", &other)
                .detail
                .contains("unsupported GPU architecture")
        );
    }

    #[test]
    fn no_driver_names_both_libraries_per_platform() {
        let f = no_driver(
            "libcuda.so.1",
            "cannot open shared object file",
            Some("NVML: not found"),
            false,
        );
        assert_eq!(f.code, "gpu-test-no-driver");
        assert_eq!(f.libraries, ["libcuda.so.1", "libnvidia-ml.so.1"]);
        assert_eq!(f.evidence.len(), 2);
        let w = no_driver("nvcuda.dll", "module not found", None, true);
        assert_eq!(w.libraries, ["nvcuda.dll", "nvml.dll"]);
    }

    #[test]
    fn cuda_errors_are_decoded() {
        let f = cuda_error(&CallError::cuda("cuInit", 100), "/x/libcuda.so.1");
        assert!(f.summary.contains("CUDA_ERROR_NO_DEVICE (100)"));
        assert!(f.detail.contains("no CUDA-capable GPU"));
    }

    #[test]
    fn chosen_versus_default_library_severity() {
        let tried = vec![("libcublas.so.13".to_string(), "not found".to_string())];
        assert_eq!(
            library_not_loaded(Role::Cublas, &tried, true).severity,
            Severity::Error
        );
        let w = library_not_loaded(Role::Cublas, &tried, false);
        assert_eq!(w.severity, Severity::Warning);
        assert!(w.detail.contains("--cublas"));
    }

    #[test]
    fn crash_and_timeout_findings_carry_context() {
        let log: Vec<String> = (0..9).map(|i| format!("line {i}")).collect();
        let f = crashed("killed by signal 6 (SIGABRT)", Some("Loading cuDNN"), &log);
        assert_eq!(f.evidence.len(), 5);
        assert_eq!(f.evidence[4].text, "line 8");
        assert!(
            f.summary.contains("during \"Loading cuDNN\""),
            "{}",
            f.summary
        );
        let t = timed_out(2, Some("Initialising the CUDA driver"));
        assert!(t.summary.contains("2 s") && t.summary.contains("Initialising"));
    }
}

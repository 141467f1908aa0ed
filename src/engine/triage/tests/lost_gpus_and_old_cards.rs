//! Readings that turn on what the GPU or its driver library is: a GPU lost under a call (a
//! TDR reset reported as "device not ready"), a Kepler card under a library's first call, a
//! cuSPARSELt older than the GPU, and the driver's own library missing (its reading before the
//! loader's generic one; nvidia-smi's own message). Each input is a real line from the public thread cited above it.

use super::*;

#[test]
fn device_not_ready_raised_as_an_error_is_a_lost_gpu() {
    // https://github.com/noonghunna/club-3090/issues/50 (a TDR reset under WSL 2)
    let t = triage(
        "RuntimeError: CUDA driver error: device not ready\nRuntimeError: !handles_.at(i) INTERNAL ASSERT FAILED at \"CUDACachingAllocator.cpp\":427",
    );
    let f = finding(&t, "cuda-error-600").expect("not ready");
    assert!(f.detail.contains("TDR"), "{}", f.detail);
}

#[test]
fn a_library_status_on_a_kepler_card_is_the_card() {
    // https://github.com/ollama/ollama/pull/1834 (a GTX 765M, compute capability 3.0)
    let t = triage(
        "ggml_init_cublas: found 1 CUDA devices:\n  Device 0: NVIDIA GeForce GTX 765M, compute capability 3.0\n\ncuBLAS error 3 at /go/src/github.com/jmorganca/ollama/llm/llama.cpp/gguf/ggml-cuda.cu:5552",
    );
    let f = finding(&t, "cublas-status-cublas-status-alloc-failed").expect("status 3");
    assert!(f.detail.starts_with("Here"), "{}", f.detail);
    assert!(f.detail.contains("below 5.0"), "{}", f.detail);
}

#[test]
fn cusparselt_names_the_architectures_of_the_release_loaded() {
    // https://github.com/NVIDIA/CUDALibrarySamples/issues/223 (an older release loaded on SM90)
    let t = triage(
        "CUSPARSELT API failed at line 78 with error: architecture mismatch (4)\n[2024-10-10 19:53:11][CUSPARSELT][46965][Error][cusparseLtInit] cusparseLt currently supports only SM80, SM86, SM89 (current: SM90)",
    );
    let f = message(&t, "cusparselt-supports-only");
    assert!(f.summary.contains("SM 90"), "{}", f.summary);
    assert_eq!(first_error(&t), Some("log-cusparselt-supports-only"));
}

#[test]
fn the_driver_librarys_reading_comes_before_the_loaders() {
    // https://github.com/nightrome/matconvnet-calvin/issues/8 (MATLAB on a machine without a driver)
    let t = triage(
        "Caused by:\n    The CUDA driver could not be loaded. The library name used was 'libcuda.so.1'. The error was:\n    libcuda.so.1: cannot open shared object file: No such file or directory",
    );
    assert!(
        codes(&t).contains(&"log-dlopen-cannot-open"),
        "{:?}",
        codes(&t)
    );
    assert_eq!(first_error(&t), Some("driver-library-not-loaded"));
}

#[test]
fn nvidia_smi_without_its_library_is_the_library_off_the_path() {
    // https://github.com/EESSI/software-layer/issues/231 (Singularity --nv with LD_LIBRARY_PATH reset)
    let t = triage(
        "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the NVIDIA Display Driver is properly installed and present in your system.\nPlease also try adding directory that contains libnvidia-ml.so to your system PATH.",
    );
    let f = finding(&t, "driver-library-not-loaded").expect("the driver's library");
    assert!(f.summary.starts_with("nvidia-smi runs"), "{}", f.summary);
    assert!(f.detail.contains("/.singularity.d/libs"), "{}", f.detail);
}

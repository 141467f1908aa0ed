//! Statuses and libraries in a host's own spelling: Numba's "[222] Call to cuX results in",
//! NVENC's "invalid param (8)", NVML's name without `ERROR_`, glibc's version node naming the
//! library a symbol should come from, a library named in words. Real lines from the public
//! threads cited above each assertion.

use super::*;
use crate::engine::finding_codes as codes;

#[test]
fn numbas_bracketed_number_is_the_driver_status() {
    // https://github.com/Kaggle/docker-python/issues/1281 (a toolkit newer than the driver)
    let t = triage("[222] Call to cuLinkAddData results in UNKNOWN_CUDA_ERROR");
    assert!(
        t.codes
            .iter()
            .any(|c| c.kind == "cuda" && c.number == Some(222)),
        "{:?}",
        t.codes
    );
    assert!(all_text(&t).contains("driver"), "{}", all_text(&t));
}

#[test]
fn nvencs_bracketed_number_is_read_only_on_a_line_about_nvenc() {
    // https://github.com/obsproject/obs-studio/issues/10395 (a 550-series driver bug)
    let t = triage("NVENC: Failed locking bitstream buffer: invalid param (8)");
    assert!(
        t.codes
            .iter()
            .any(|c| c.kind == "nvenc" && c.number == Some(8)),
        "{:?}",
        t.codes
    );
    let t = triage("Loader: failed reading header: invalid param (8)");
    assert!(!t.codes.iter().any(|c| c.kind == "nvenc"), "{:?}", t.codes);
}

#[test]
fn nvmls_name_without_error_is_its_status() {
    // https://github.com/modular/modular/pull/5107 (WSL 2: the wrong libnvidia-ml was loaded)
    let t = triage("ABORT: CUDA NVML library initialization failed: NVML_DRIVER_NOT_LOADED");
    assert!(
        t.codes
            .iter()
            .any(|c| c.name.as_deref() == Some("NVML_ERROR_DRIVER_NOT_LOADED")),
        "{:?}",
        t.codes
    );
}

#[test]
fn the_version_node_names_the_library_a_symbol_is_missing_from() {
    // https://github.com/OvenMediaLabs/OvenMediaEngine/pull/2026 (no CUDA 12 installed)
    let t = triage(
        "./OvenMediaEngine: symbol lookup error: ./OvenMediaEngine: undefined symbol: __cudaInitModule, version libcudart.so.12",
    );
    let f = finding(&t, codes::MISSING_SYMBOL).expect("the symbol is read");
    assert!(f.summary.contains("libcudart.so.12"), "{}", f.summary);
}

#[test]
fn nvml_named_in_words_is_the_drivers_library() {
    // https://github.com/JeremyMain/ngputop/issues/16 (only libnvidia-ml.so.1 was installed)
    let t = triage("NVML library is not installed or not found at the default path.");
    let f = finding(&t, codes::DRIVER_LIBRARY_NOT_LOADED).expect("a driver library");
    assert!(
        f.fixes.iter().any(|x| x.summary.contains("ldconfig")),
        "{f:?}"
    );
}

#[test]
fn a_status_name_glued_to_the_next_word_and_an_empty_batch() {
    // https://github.com/Theano/Theano/issues/3715 (a batch of size 0 to GpuDnnConv)
    let t = triage(
        "RuntimeError: Could not set tensorNd descriptor: CUDNN_STATUS_BAD_PARAMdim=4\n\
         Inputs shapes: [(0, 5, 6, 8), (3, 5, 5, 6), (0, 3, 2, 3), 'No shapes', (), ()]",
    );
    let f = finding(&t, "cudnn-status-bad-param").expect("the glued name is read");
    assert!(f.detail.contains("dimension of size 0"), "{}", f.detail);
}

#[test]
fn a_status_name_a_paste_broke_at_a_space() {
    // https://github.com/LuxCoreRender/BlendLuxCore/issues/568 (a driver older than LuxCore's NVRTC)
    let t = triage(
        "Cuda driver api error CUDA_ERROR_INVALID _PTX CODE 128, FILE D:\\a\\1\\luxcore\\src\\luxrays\\utils\\cuda.cpp, line 190: a ptx jit compilation failed",
    );
    assert!(finding(&t, "cuda-error-218").is_some(), "{}", all_text(&t));
    assert!(
        t.findings
            .iter()
            .all(|f| !f.summary.contains("Unrecognised")),
        "{}",
        all_text(&t)
    );
}

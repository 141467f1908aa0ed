//! The math libraries' statuses in words (`cuSolver internal error`, `(cublas) Library not
//! initialized`), read from the enumerators of the generated tables on lines that name the
//! library, the driver API's in cuew's words (Blender's Cycles), and cuDNN's version mismatch
//! from a second cuDNN; on real lines from public issues (each cited), and the lines that must
//! not be read so.

use super::*;

#[test]
fn a_librarys_status_in_words_is_its_enumerator() {
    // https://github.com/google-deepmind/alphafold/issues/306 (a CUDA 10.1 image; 11.1 fixed it)
    let t = triage(
        "RuntimeError: jaxlib/cusolver_kernels.cc:44: operation cusolverDnCreate(&handle) failed: cuSolver internal error",
    );
    let f = finding(&t, "cusolver-status-cusolver-status-internal-error")
        .expect("CUSOLVER_STATUS_INTERNAL_ERROR");
    assert!(
        f.detail.contains("creating the library's handle"),
        "{}",
        f.detail
    );
    // https://github.com/Theano/libgpuarray/issues/560 (driver 384.90 too old for CUDA 9.1)
    let t = triage("GpuArrayException: ('cublasCreate: (cublas) Library not initialized.', 11)");
    let f = finding(&t, "cublas-status-cublas-status-not-initialized")
        .expect("CUBLAS_STATUS_NOT_INITIALIZED");
    assert!(f.detail.contains("driver"), "{}", f.detail);
}

#[test]
fn words_without_a_failure_or_without_the_library_are_not_a_status() {
    // The words alone, on a line naming no library, or a library line that reports nothing.
    let t = triage("RuntimeError: internal error in the data loader");
    assert!(
        !codes(&t).iter().any(|c| c.contains("-status-")),
        "{:?}",
        codes(&t)
    );
    let t = triage("Loaded cuBLAS; the handle is not initialized until the first call");
    assert!(
        !codes(&t).iter().any(|c| c.starts_with("cublas-status")),
        "{:?}",
        codes(&t)
    );
}

#[test]
fn a_cudnn_version_mismatch_names_a_second_cudnn_package() {
    // https://github.com/MahmoudAshraf97/whisper-diarization/issues/120 (an extra pip cuDNN)
    let t = triage("RuntimeError: cuDNN error: CUDNN_STATUS_VERSION_MISMATCH");
    let text = all_text(&t);
    assert!(text.contains("pip uninstall nvidia-cudnn-cu11"), "{text}");
}

#[test]
fn a_driver_enumerator_in_cuews_words_is_its_status() {
    // Cycles prints cuewErrorString's words before the driver call that failed.
    // https://github.com/boberfly/GafferCycles/issues/50
    let t = triage("CUDA error: Illegal address in cuCtxSynchronize(), line 1862");
    assert!(finding(&t, "cuda-error-700").is_some(), "{:?}", codes(&t));
    // The older table's bare enumerator. https://github.com/jesterKing/CCSycles/issues/44
    let t = triage(" ILLEGAL_ADDRESS in cuMemAlloc(&device_pointer, size)");
    assert!(finding(&t, "cuda-error-700").is_some(), "{:?}", codes(&t));
    // Cycles 3.x names its queue. https://github.com/KillzXGaming/Switch-Toolbox/issues/657
    let t = triage(
        "Illegal address in CUDA queue copy_from_device (integrator_shade_surface integrator_sorted_paths_array prefix_sum)",
    );
    assert!(finding(&t, "cuda-error-700").is_some(), "{:?}", codes(&t));
}

#[test]
fn short_enumerator_words_elsewhere_are_not_a_status() {
    for line in [
        "CUDA not found",
        "Launch failed: the game could not start",
        "The file was not found in cudnn folder",
        "Invalid value in config.yaml",
    ] {
        let t = triage(line);
        assert!(
            !codes(&t).iter().any(|c| c.starts_with("cuda-error-")),
            "{line}: {:?}",
            codes(&t)
        );
    }
}

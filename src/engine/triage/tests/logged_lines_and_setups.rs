//! Lines as loggers and host programs print them, and readings that depend on the setup the
//! text shows: a message continued under journald's prefix, Ollama's driver-library init
//! failure (the library loaded), a TensorRT plan whose header reads 0.0.0, cuSOLVER inside
//! JAX's pip wheels, a miner's DAG, and a WSL 2 path beside "no device". Each input is a real
//! line from the public thread cited above it.

use super::*;

#[test]
fn a_message_continued_under_a_log_prefix_is_read_whole() {
    // https://github.com/unslothai/unsloth/issues/8580 (xFormers built for another torch)
    let t = triage(
        "Aug 12 10:38:34 fileserver unsloth[4073658]: [xformers|WARNING]WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n\
         Aug 12 10:38:34 fileserver unsloth[4073658]:     PyTorch 2.10.0+cu128 with CUDA 1208 (you have 2.11.0+cu130)\n\
         Aug 12 10:38:34 fileserver unsloth[4073658]:     Python  3.10.19 (you have 3.13.9)\n\
         Aug 12 10:38:34 fileserver unsloth[4073658]:   Please reinstall xformers (see https://github.com/facebookresearch/xformers#installing-xformers)",
    );
    let f = message(&t, "xformers-built-for-other-torch");
    assert!(f.summary.contains("2.11.0+cu130"), "{}", f.summary);
}

#[test]
fn a_driver_library_that_loaded_and_failed_to_initialise_is_no_missing_driver() {
    // https://github.com/ollama/ollama/issues/11593 (cuInit returned 3: an nvidia_uvm HMM bug)
    let t = triage(
        r#"time=2025-08-02T22:42:20.643Z level=INFO source=gpu.go:612 msg="Unable to load cudart library /usr/lib/x86_64-linux-gnu/libcuda.so.575.57.08: cuda driver library init failure: 3""#,
    );
    assert!(
        finding(&t, "driver-library-not-loaded").is_none(),
        "{:?}",
        codes(&t)
    );
    assert_eq!(first_error(&t), Some("cuda-error-3"));
    assert!(all_text(&t).contains("uvm_disable_hmm"), "{}", all_text(&t));
}

#[test]
fn a_plan_whose_version_reads_zero_is_not_an_engine_as_written() {
    // https://github.com/NVIDIA/TensorRT/issues/574 (the plan written and read in text mode)
    let t = triage(
        "Loading TRT Engine...\nERROR: The engine plan file is not compatible with this version of TensorRT, expecting library version 5.1.5 got 0.0.0, please rebuild.\nLoading Complete!",
    );
    assert_eq!(message_ids(&t), ["tensorrt-engine-version-unreadable"]);
    assert!(
        all_text(&t).contains("std::ios::binary"),
        "{}",
        all_text(&t)
    );
}

#[test]
fn cusolver_inside_jax_points_at_its_nvidia_wheels() {
    // https://github.com/jax-ml/jax/issues/29065 (a newer pip cuSOLVER with an older cuBLAS)
    let t = triage("jaxlib._jax.XlaRuntimeError: INTERNAL: cuSolver internal error");
    let f = finding(&t, "cusolver-status-cusolver-status-internal-error")
        .expect("CUSOLVER_STATUS_INTERNAL_ERROR");
    assert!(f.detail.contains("nvidia-cublas-cu12"), "{}", f.detail);
}

#[test]
fn a_miner_out_of_memory_is_its_dag_outgrowing_the_gpu() {
    // https://github.com/Genoil/cpp-ethereum/issues/120 (a 2 GB GTX 760)
    let t = triage(
        "Found suitable CUDA device [GeForce GTX 760] with 2147483648 bytes of GPU memory\n  i  16:28:12|cudaminer0  Initialising miner...\nUsing device: GeForce GTX 760 (Compute 3.0)\nCUDA error in func 'ethash_cuda_miner::init' at line 243 : out of memory.",
    );
    let f = finding(&t, "cuda-error-2").expect("out of memory");
    assert!(
        f.detail.contains("larger than the GPU's memory"),
        "{}",
        f.detail
    );
}

#[test]
fn no_device_from_a_wsl_path_points_at_the_wsl_driver_library() {
    // https://github.com/NVIDIA/cuml/issues/6218 (a Linux driver installed inside WSL 2)
    let t = triage(
        "  File \"/mnt/c/Users/Hongb/Documents/Git/hongbomiao.com/machine-learning/hm-cuml/.venv/lib/python3.12/site-packages/numba_cuda/numba/cuda/cudadrv/driver.py\", line 258, in ensure_initialized\n    raise CudaSupportError(f\"Error at driver init: {description}\")\nnumba.cuda.cudadrv.error.CudaSupportError: Error at driver init: Call to cuInit results in CUDA_ERROR_NO_DEVICE (100)",
    );
    let f = finding(&t, "cuda-error-100").expect("no device");
    assert!(f.detail.starts_with("Here"), "{}", f.detail);
    assert!(f.detail.contains("/usr/lib/wsl/lib"), "{}", f.detail);
}

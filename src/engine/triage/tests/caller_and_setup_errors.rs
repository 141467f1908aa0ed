//! Errors whose cause is the caller's arguments or the set-up around a working library: a BLAS
//! argument check naming its parameter, a workspace query refusing a huge matrix, NCCL told to
//! import a graph for other GPUs, Paddle's and cuDNN's Windows DLL loads, a TensorRT engine from
//! another GPU (which number is which), the driver's library asked for by its link name, a driver
//! upgrade not yet followed by a reboot, and cuDNN's batch norm refusing a huge batch. Each line is
//! from the public thread cited.

use super::*;
use crate::engine::finding_codes as codes;

#[test]
fn a_blas_argument_check_names_the_parameter_not_a_version_mismatch() {
    // https://github.com/NVIDIA/AMGX/issues/194: the vectors were never uploaded.
    let t = triage(
        "On entry to cusparseCreateDnVec() parameter number 3 (values) had an illegal value: NULL pointer\n\
         Caught amgx exception: CUSPARSE_STATUS_INVALID_VALUE",
    );
    let f = message(&t, "blas-parameter-illegal-value");
    assert!(
        f.summary
            .contains("cusparseCreateDnVec refused its parameter number 3 (values)"),
        "{}",
        f.summary
    );
    assert!(
        f.detail.contains("NULL pointer means a buffer"),
        "{}",
        f.detail
    );
    // OpenMathLib/OpenBLAS#1014: no parameter name in brackets.
    let t = triage("** On entry to SGEMM  parameter number 13 had an illegal value");
    let f = message(&t, "blas-parameter-illegal-value");
    assert!(
        f.summary
            .starts_with("SGEMM refused its parameter number 13:"),
        "{}",
        f.summary
    );
}

#[test]
fn a_workspace_query_on_a_huge_matrix_is_told_to_ask_for_less() {
    // https://github.com/jiaweizzhao/GaLore/issues/7: full_matrices=False fixed it.
    let t = triage(
        "RuntimeError: cusolver error: CUSOLVER_STATUS_INVALID_VALUE, when calling `cusolverDnSgesvdj_bufferSize(handle, jobz, econ, m, n, A, lda, S, U, ldu, V, ldv, lwork, params)`",
    );
    assert!(
        all_text(&t).contains("full_matrices=False"),
        "{}",
        all_text(&t)
    );
}

#[test]
fn nccl_importing_a_graph_for_other_gpus_points_at_nccl_graph_file() {
    // https://github.com/NVIDIA/nccl/issues/1240 (an Azure image set NCCL_GRAPH_FILE).
    let t = triage(
        "Spotllm:73025:73112 [0] NCCL INFO NCCL_GRAPH_FILE set by environment to /opt/microsoft/ncv4/graph.xml\n\
         Spotllm:73025:73112 [0] graph/search.cc:719 NCCL WARN XML Import Channel : dev 1 not found.\n\
         Spotllm:73025:73112 [0] NCCL INFO graph/search.cc:749 -> 2",
    );
    let f = message(&t, "nccl-graph-file-other-topology");
    assert!(f.summary.contains("device 1"), "{}", f.summary);
    assert!(
        f.fixes.iter().any(|x| x.summary.contains("/etc/nccl.conf")),
        "{:?}",
        f.fixes
    );
}

#[test]
fn paddles_dll_loader_is_not_read_as_pytorch() {
    // https://github.com/PaddlePaddle/Paddle/issues/75939: two cuDNN 9 sets mixed.
    let t = triage(
        r#"OSError: [WinError 127] The specified procedure could not be found. Error loading "...\.venv\lib\site-packages\paddle\..\nvidia\cudnn\bin\cudnn_cnn64_9.dll" or one of its dependencies."#,
    );
    let f = message(&t, "paddle-winerror-loading-dll");
    assert!(
        f.summary.starts_with("PaddlePaddle could not load"),
        "{}",
        f.summary
    );
    assert!(
        !all_text(&t).contains("PyTorch could not load"),
        "{}",
        all_text(&t)
    );
    // The same loader in torch keeps its own row.
    let t = triage(
        r#"OSError: [WinError 126] The specified module could not be found. Error loading "C:\Python310\lib\site-packages\torch\lib\cudnn_cnn_infer64_8.dll" or one of its dependencies."#,
    );
    assert!(
        message_ids(&t).contains(&"torch-winerror-loading-dll"),
        "{:?}",
        message_ids(&t)
    );
}

#[test]
fn a_cudnn_126_does_not_claim_the_file_was_found() {
    // https://github.com/savbell/whisper-writer/issues/29: no cuDNN installed at all.
    let t = triage(
        "Could not load library cudnn_ops_infer64_8.dll. Error code 126\n\
         Please make sure cudnn_ops_infer64_8.dll is in your library path!",
    );
    let f = message(&t, "cudnn-sublibrary-126");
    assert!(!f.summary.contains("was found"), "{}", f.summary);
    assert!(
        f.fixes.iter().any(|x| x.summary.contains("install cuDNN")),
        "{:?}",
        f.fixes
    );
}

#[test]
fn tensorrt_names_this_gpu_first_and_the_engines_second() {
    // https://github.com/NVIDIA/TensorRT/issues/564: an engine from a 7.5 GPU on a GTX 1060 (6.1).
    let t = triage(
        "[TensorRT] ERROR: INVALID_CONFIG: The engine plan file is generated on an incompatible device, expecting compute 6.1 got compute 7.5, please rebuild.",
    );
    let f = message(&t, "tensorrt-engine-other-device");
    assert!(
        f.summary
            .contains("built on a GPU of compute capability 7.5, but runs on one of 6.1"),
        "{}",
        f.summary
    );
}

#[test]
fn a_ptx_file_name_alone_is_not_a_dotnet_program() {
    // https://github.com/wilicc/gpu-burn/issues/101: gpu-burn's own compare.ptx.
    let t = triage(
        "Using compare file: compare.ptx\n\
         Couldn't init a GPU test: Error in load module (gpu_burn-drv.cpp:238): a PTX JIT compilation failed",
    );
    assert!(codes(&t).contains(&"cuda-error-218"), "{:?}", codes(&t));
    assert!(!all_text(&t).contains("ManagedCuda"), "{}", all_text(&t));
}

#[test]
fn the_drivers_library_by_its_link_name_says_both_causes() {
    // https://github.com/NVIDIA/cuda-python/issues/17 (WSL 2).
    let t = triage("RuntimeError: Failed to dlopen libcuda.so");
    let f = finding(&t, codes::DRIVER_LIBRARY_NOT_LOADED).expect("libcuda.so did not load");
    assert!(f.summary.contains("unversioned name"), "{}", f.summary);
    assert!(f.detail.contains("/usr/lib/wsl/lib"), "{}", f.detail);
    // The soname keeps the driver's own reading.
    let t = triage(
        "ImportError: libcuda.so.1: cannot open shared object file: No such file or directory",
    );
    let f = finding(&t, codes::DRIVER_LIBRARY_NOT_LOADED).expect("libcuda.so.1 did not load");
    assert!(!f.summary.contains("unversioned"), "{}", f.summary);
}

#[test]
fn error_804_alone_mentions_a_driver_upgrade_without_a_reboot() {
    // https://github.com/lammps/lammps/issues/4849 (the code alone, in LAMMPS' words).
    let t =
        triage("Cuda driver error 804 in call at file 'lib/gpu/geryon/nvd_device.h' in line 333.");
    let f = finding(&t, "cuda-error-804").expect("804 is read");
    assert!(f.detail.contains("until a reboot"), "{}", f.detail);
}

#[test]
fn cudnns_batch_norm_refusing_a_huge_batch_is_named() {
    // https://github.com/pytorch/pytorch/issues/3038: a contiguous [200704, 32] input.
    let t = triage(
        "  File \"/home/zxy/.local/lib/python3.5/site-packages/torch/nn/functional.py\", line 639, in batch_norm\n\
         RuntimeError: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in a non-contiguous input.",
    );
    assert!(all_text(&t).contains("131,070"), "{}", all_text(&t));
}

//! Readings added for lines whose cause is the program, its data or a harmless log, not the
//! install (device-side asserts, bf16 GEMMs, TensorFlow's duplicate plugin registration), and for
//! forms the line reader missed: Rust and .NET bindings' status variants, NVRTC's missing headers,
//! NCCL's /dev/shm, a message a paste broke over two lines, HIP's errors, collective timeouts.
//! Each input is a real line from the public thread cited above it.

use super::*;
use crate::engine::findings::Severity;

#[test]
fn a_rust_binding_variant_is_the_driver_status_it_wraps() {
    // https://github.com/DelphinusLab/zkWasm/issues/200 (fixed by building for the GPU's sm_75)
    let t = triage(
        "thread 'main' panicked at 'called `Result::unwrap()` on an `Err` value: GpuTools(Cuda(NoBinaryForGpu))', /root/.cargo/git/checkouts/halo2-gpu-specific-4d08aed75011eb52/64ccffd/halo2_proofs/src/arithmetic.rs:356:53",
    );
    assert!(
        t.codes
            .iter()
            .any(|c| c.name.as_deref() == Some("CUDA_ERROR_NO_BINARY_FOR_GPU")),
        "{:?}",
        t.codes
    );
    let text = all_text(&t);
    assert!(text.contains("GPU architecture"), "{text}");
    assert!(text.contains("compute_cap"), "{text}");
    // A device index in the same spelling is not a status.
    // https://github.com/igor-yusupov/rusty-yolo/issues/10
    assert!(triage("Device: Cuda(0)").codes.is_empty());
}

#[test]
fn a_dotnet_binding_variant_is_the_driver_status_it_wraps() {
    // https://github.com/lepoco/CUDAfy.NET/issues/3
    let t = triage(
        "Cudafy.Host.CudafyHostException: CUDA.NET exception: ErrorInvalidPtx (Ensure that latest Display Driver version is installed).",
    );
    let names: Vec<_> = t.codes.iter().filter_map(|c| c.name.as_deref()).collect();
    assert!(names.contains(&"CUDA_ERROR_INVALID_PTX"), "{names:?}");
    // ManagedCuda's spelling keeps an abbreviation in capitals.
    let t = triage("ManagedCuda.CudaException: ErrorNoBinaryForGPU: No binary for GPU");
    let names: Vec<_> = t.codes.iter().filter_map(|c| c.name.as_deref()).collect();
    assert!(names.contains(&"CUDA_ERROR_NO_BINARY_FOR_GPU"), "{names:?}");
    // The same spelling on a line that is not about CUDA is no status.
    assert!(
        triage("System.IO.IOException: ErrorInvalidValue while reading the file")
            .codes
            .is_empty()
    );
}

#[test]
fn a_label_outside_the_classes_is_the_data_not_the_install() {
    // https://github.com/open-mmlab/mmdetection/issues/2461
    let t = triage(
        "/pytorch/aten/src/THCUNN/ClassNLLCriterion.cu:57: void ClassNLLCriterion_updateOutput_no_reduce_kernel(int, THCDeviceTensor<Dtype, 2, int, DefaultPtrTraits>, THCDeviceTensor<long, 1, int, DefaultPtrTraits>, THCDeviceTensor<Dtype, 1, int, DefaultPtrTraits>, Dtype *, int, int) [with Dtype = float]: block: [7,0,0], thread: [129,0,0] Assertion `cur_target >= 0 && cur_target < n_classes` failed.\n\
         RuntimeError: copy_if failed to synchronize: cudaErrorAssert: device-side assert triggered",
    );
    assert!(message_ids(&t).contains(&"cuda-assert-class-label-range"));
    let text = all_text(&t);
    assert!(text.contains("class label"), "{text}");
    assert!(text.contains("CUDA_LAUNCH_BLOCKING=1"), "{text}");
    // https://github.com/milesial/Pytorch-UNet/issues/375 (the ATen spelling of the same check)
    let t = triage(
        "../aten/src/ATen/native/cuda/NLLLoss2d.cu:103: nll_loss2d_forward_kernel: block: [5,0,0], thread: [996,0,0] Assertion `t >= 0 && t < n_classes` failed.",
    );
    assert_eq!(message_ids(&t), ["cuda-assert-class-label-range"]);
}

#[test]
fn an_index_out_of_bounds_and_a_bare_device_assert() {
    // https://github.com/huggingface/accelerate/issues/2539
    let t = triage(
        "/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:93: operator(): block: [0,0,0], thread: [93,0,0] Assertion `index >= -sizes[i] && index < sizes[i] && \"index out of bounds\"` failed.",
    );
    assert_eq!(message_ids(&t), ["cuda-assert-index-range"]);
    // https://github.com/KaihuaTang/Scene-Graph-Benchmark.pytorch/issues/207 (its title)
    let t = triage("cudaErrorAssert: device-side assert triggered");
    assert!(message_ids(&t).contains(&"cuda-device-side-assert"));
    let text = all_text(&t);
    assert!(text.contains("not the CUDA install"), "{text}");
    assert!(text.contains("labels in 0..n_classes-1"), "{text}");
}

#[test]
fn a_bf16_gemm_cublas_refuses_is_named_bf16() {
    // https://github.com/deepspeedai/DeepSpeed/issues/6723
    let t = triage(
        "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmStridedBatchedEx(handle, opa, opb, (int)m, (int)n, (int)k, (void*)&falpha, a, CUDA_R_16BF, (int)lda, stridea, b, CUDA_R_16BF, (int)ldb, strideb, (void*)&fbeta, c, CUDA_R_16BF, (int)ldc, stridec, (int)num_batches, compute_type, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`",
    );
    assert!(message_ids(&t).contains(&"cublas-bf16-gemm"));
    let text = all_text(&t);
    assert!(text.contains("bf16") && text.contains("8.0"), "{text}");
    // An fp16 call is not a bf16 one. https://github.com/buaacyw/GaussianEditor/issues/46
    let t = triage(
        "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb, &fbeta, c, CUDA_R_16F, ldc, CUDA_R_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`",
    );
    assert!(!message_ids(&t).contains(&"cublas-bf16-gemm"));
}

#[test]
fn nvrtc_names_the_header_it_cannot_open() {
    // https://github.com/MegEngine/mgeconvert/issues/107
    let t = triage(
        "RuntimeError: nvrtc compile error: default_program(2): catastrophic error: cannot open source file \"cuda_fp16.h\"",
    );
    let f = t
        .findings
        .iter()
        .find(|f| f.code == "log-nvrtc-include-not-found")
        .expect("the NVRTC reading");
    assert!(f.summary.contains("cuda_fp16.h"), "{}", f.summary);
    assert!(all_text(&t).contains("nvidia-cuda-runtime-cu12"));
}

#[test]
fn tensorflows_duplicate_plugin_registration_is_harmless() {
    // https://github.com/bmaltais/kohya_ss/issues/3320
    let t = triage(
        "2025-07-02 09:22:30.972636: E external/local_xla/xla/stream_executor/cuda/cuda_fft.cc:467] Unable to register cuFFT factory: Attempting to register factory for plugin cuFFT when one has already been registered\n\
         E0000 00:00:1751448150.986970   10148 cuda_dnn.cc:8579] Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered",
    );
    assert!(message_ids(&t).contains(&"tf-duplicate-plugin-factory"));
    assert!(
        t.findings.iter().all(|f| f.severity == Severity::Info),
        "{:?}",
        t.findings
    );
    assert!(all_text(&t).contains("harmless"));
}

#[test]
fn nccls_failed_extend_is_dev_shm() {
    // https://github.com/kserve/kserve/issues/3791 (a Kubernetes pod)
    let t = triage(
        "hugging-model-1-predictor-00001-deployment-5c86c57756-p7ghj:1:1 [0] misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/nccl-H1dBqY to 9637892 bytes",
    );
    assert!(message_ids(&t).contains(&"nccl-shm-segment"));
    assert!(all_text(&t).contains("emptyDir"));
}

#[test]
fn a_message_broken_over_two_lines_is_read_across_the_break() {
    // https://github.com/googlecolab/colabtools/issues/765, as a narrow terminal wraps it:
    // mid-word, and at a space.
    let line = "Loaded runtime CuDNN library: 7.3.1 but source was compiled with: 7.6.2.  CuDNN library major and minor version needs to match";
    for at in [line.find("ibrary").unwrap(), line.find(" library").unwrap()] {
        let t = triage(&format!("{}\n{}", &line[..at], &line[at..]));
        let m = t
            .messages
            .iter()
            .find(|m| m.id == "cudnn-version-mismatch")
            .expect("read across the break");
        assert_eq!(m.groups, ["7.3.1", "7.6.2"]);
    }
    // A message on one line is not read twice through its neighbours.
    let t = triage(&format!("{line}\nnext line"));
    assert_eq!(message_ids(&t), ["cudnn-version-mismatch"]);
}

#[test]
fn a_versioned_plan_mismatch_keeps_its_versions() {
    // https://github.com/wang-xinyu/tensorrtx/issues/664
    let t = triage(
        "ERROR: 6: The engine plan file is not compatible with this version of TensorRT, expecting library version 8.0.0 got 8.0.1, please rebuild.",
    );
    assert_eq!(message_ids(&t), ["tensorrt-engine-version"]);
}

#[test]
fn a_hip_error_is_rocm_not_cuda() {
    // https://github.com/ROCm/legacy-rocm-build/issues/5264 (two Radeon Pro WX 5100)
    let t = triage("HIP error: Invalid device function");
    assert_eq!(message_ids(&t), ["rocm-hip-error"]);
    // HIP copies CUDA's wording; no CUDA code is read from it.
    assert!(t.codes.is_empty(), "{:?}", t.codes);
    assert!(all_text(&t).contains("rocminfo"));
}

#[test]
fn a_collective_timeout_names_the_operation() {
    // https://github.com/hiyouga/LlamaFactory/issues/6269
    let t = triage(
        "[rank0]:[E1206 18:44:12.715298746 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7753, OpType=_REDUCE_SCATTER_BASE, NumelIn=544997376, NumelOut=68124672, Timeout(ms)=600000) ran for 600061 milliseconds before timing out.",
    );
    let f = t
        .findings
        .iter()
        .find(|f| f.code == "log-nccl-watchdog-timeout")
        .expect("the watchdog reading");
    assert!(f.summary.contains("_REDUCE_SCATTER_BASE"), "{}", f.summary);
    assert!(all_text(&t).contains("NCCL_P2P_DISABLE=1"));
}

#[test]
fn tensors_on_two_devices_are_a_placement_bug() {
    // https://github.com/wmyw96/FAST-NN/issues/1
    let t = triage(
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0! (when checking argument for argument mat2 in method wrapper_mm)",
    );
    assert_eq!(message_ids(&t), ["torch-tensors-on-different-devices"]);
    assert!(all_text(&t).contains("model.to(device)"));
}

#[test]
fn cmakes_find_cuda_toolkit_without_nvcc() {
    // CMake's own message: Modules/FindCUDAToolkit.cmake (message(FATAL_ERROR "Could not find
    // nvcc, please set CUDAToolkit_ROOT.")), as CMake 3.28 prints it.
    let t = triage(
        "CMake Error at /usr/share/cmake-3.28/Modules/FindCUDAToolkit.cmake:855 (message):\n  Could not find nvcc, please set CUDAToolkit_ROOT.",
    );
    assert_eq!(message_ids(&t), ["cmake-cuda-not-found"]);
}

#[test]
fn nvrtc_sonames_carry_the_cuda_minor_up_to_11_1() {
    // https://github.com/WisconsinAIVision/yolact_edge/issues/186 (CUDA 11.6's lib64 listing)
    let t = triage("libnvrtc-builtins.so.11.6     libnvrtc.so.11.2");
    let id = t
        .identities
        .iter()
        .find(|i| i.file == "libnvrtc.so.11.2")
        .expect("identified");
    assert!(id.toolkits.iter().any(|c| c == "11.6"), "{:?}", id.toolkits);
    assert!(
        !id.toolkits.iter().any(|c| c == "11.1"),
        "{:?}",
        id.toolkits
    );
    // The name TensorRT 7.2's libnvinfer links is CUDA 11.1's alone.
    let t = triage("libnvrtc.so.11.1");
    assert_eq!(t.identities[0].toolkits, ["11.1"]);
}

//! The compilers a process really runs: PTX refused by the driver's own JIT (a ptxas message
//! printed by a `cuLink*` call), a C++ check against `CUDA_SUCCESS` with the number in brackets,
//! Triton's bundled ptxas refusing a GPU newer than it, and ArrayFire's JIT kernels past CUDA's
//! parameter limit; on real lines from public issues (each cited), and the lines that must not
//! be read so.

use super::*;
use crate::engine::finding_codes as codes;

#[test]
fn ptxas_refusal_printed_by_a_driver_jit_call_is_the_driver_too_old() {
    // https://github.com/heavyai/heavydb/issues/617 (maintainer: upgrade the driver to 450.xx)
    let t = triage(
        "NvidiaKernel.cpp:82 Check failed: cuLinkAddFile_v2( link_state, CU_JIT_INPUT_FATBINARY, gpu_rt_path.c_str(), 0, nullptr, nullptr) == CUDA_SUCCESS (218 == 0) ptxas application ptx input, line 9; fatal   : Unsupported .version 7.0; current version is '6.4'.",
    );
    let f = finding(&t, codes::DRIVER_TOO_OLD).expect("the driver's JIT refused PTX ISA 7.0");
    assert!(f.summary.contains("CUDA 11.0"), "{}", f.summary);
    assert!(f.detail.contains("450.36"), "{}", f.detail);
    assert!(
        f.fixes
            .iter()
            .any(|x| x.summary.contains("Update the driver")),
        "{:?}",
        f.fixes
    );
    // The number in the C++ check is CUDA_ERROR_INVALID_PTX.
    assert!(codes(&t).contains(&"cuda-error-218"), "{:?}", codes(&t));
}

#[test]
fn ptxas_refusal_without_a_driver_jit_call_stays_the_toolkits_ptxas() {
    // https://github.com/numba/numba/issues/3794 (ptxas alone: no driver call on the line)
    let t = triage(
        "ptxas application ptx input, line 9; fatal   : Unsupported .version 6.3; current version is '6.1'",
    );
    assert!(finding(&t, codes::PTXAS_TOO_OLD).is_some());
    assert!(
        finding(&t, codes::DRIVER_TOO_OLD).is_none(),
        "{:?}",
        codes(&t)
    );
}

#[test]
fn the_driver_refusal_reads_the_isa_from_the_ptxas_line_below_it() {
    // https://github.com/hashcat/hashcat/issues/2694 (the driver was older than the toolkit's NVRTC)
    let t = triage(
        "cuLinkAddData(): the provided PTX was compiled with an unsupported toolchain.\n\n* Device #1: Kernel ./OpenCL/shared.cl link failed. Error Log:\n\nptxas application ptx input, line 9; fatal: Unsupported .version 7.2; current version is '7.1'",
    );
    let f = finding(&t, codes::DRIVER_TOO_OLD).expect("PTX ISA 7.2 names CUDA 11.2");
    assert!(f.summary.contains("CUDA 11.2"), "{}", f.summary);
}

#[test]
fn triton_refusing_a_gpu_is_pointed_at_a_newer_ptxas() {
    // https://github.com/triton-lang/triton/issues/8539 (DGX Spark, sm_121a: TRITON_PTXAS_PATH to CUDA 13's ptxas)
    let t = triage(
        "riton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error\n`ptxas` stderr:\nptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'",
    );
    let f = finding(&t, codes::GPU_ARCH_REFUSED).expect("sm_121a refused");
    assert_eq!(f.fixes[0].id, "advice-triton-ptxas", "{:?}", f.fixes);
    assert!(f.fixes[0].summary.contains("TRITON_PTXAS_PATH"));
    assert!(
        f.fixes[0].summary.contains("CUDA 12.9"),
        "{}",
        f.fixes[0].summary
    );
    // nvcc refusing the same architecture is not Triton's.
    let t = triage("nvcc fatal   : Value 'sm_121a' is not defined for option 'gpu-architecture'");
    let f = finding(&t, codes::GPU_ARCH_REFUSED).expect("sm_121a refused");
    assert!(f.fixes.iter().all(|x| x.id != "advice-triton-ptxas"));
}

#[test]
fn a_glog_check_with_the_success_value_first_reads_the_number_after_vs() {
    // https://github.com/tensorflow/tensorflow/issues/526 (216: a K40m in EXCLUSIVE_THREAD mode)
    let t = triage("Check failed: CUDA_SUCCESS == dynload::cuCtxSetCurrent(context) (0 vs. 216)");
    let f = finding(&t, "cuda-error-216").expect("216 is read");
    assert!(f.detail.contains("compute mode"), "{}", f.detail);
    // The success value itself is no error.
    let t = triage("Check failed: CUDA_SUCCESS == cuInit(0) (0 vs. 0)");
    assert!(
        !codes(&t).iter().any(|c| c.starts_with("cuda-error-")),
        "{:?}",
        codes(&t)
    );
}

#[test]
fn a_function_the_newest_headers_no_longer_declare_means_a_newer_library() {
    // https://github.com/jw1912/bullet/pull/491 (cudarc 0.17.3 resolving nvrtcGetNVVM from CUDA 13's NVRTC)
    let t = triage(
        "Expected symbol in library: DlSym { desc: \"/opt/cuda/lib64/libnvrtc.so: undefined symbol: nvrtcGetNVVM\" }",
    );
    let f = finding(&t, codes::MISSING_SYMBOL).expect("the missing function");
    assert!(
        f.summary.contains("removed from NVRTC after CUDA 12.9"),
        "{}",
        f.summary
    );
    assert!(f.summary.contains("newer"), "{}", f.summary);
    assert!(!f.summary.contains("older"), "{}", f.summary);
    // A function added later keeps the older-copy reading, with the release that added it.
    // https://github.com/rapidsai/cugraph/issues/4465 (CuPy loaded an older system NCCL first)
    let t = triage(
        "E   ImportError: /pyenv/versions/3.9.19/lib/python3.9/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister",
    );
    let f = finding(&t, codes::MISSING_SYMBOL).expect("the missing function");
    assert!(f.summary.contains("older"), "{}", f.summary);
    assert!(f.detail.contains("from NCCL 2.19 on"), "{}", f.detail);
}

#[test]
fn a_cpp_name_says_which_library_by_its_namespace() {
    // https://github.com/NVIDIA/Stable-Diffusion-WebUI-TensorRT/issues/12 (pip's nvidia-cudnn-cu11
    // beside torch's own cuDNN; the dialog's text retyped and cut short)
    let t = triage(
        "The procedure entry point ?destroyTensorDescriptor@ops@cudnn@@ya?AW4cudnnStatus_t......",
    );
    let f = finding(&t, codes::MISSING_SYMBOL).expect("the missing entry point");
    assert!(f.summary.contains("cuDNN function"), "{}", f.summary);
    // https://github.com/triton-inference-server/tensorrtllm_backend/issues/662 (24.11-trtllm fixed it)
    let t = triage(
        "UNAVAILABLE: Not found: unable to load shared library: /opt/tritonserver/backends/tensorrtllm/libtriton _tensorrtllm.so: undefined symbol: _ZNK12tensorrt_llm8executor8Response11getErrorMsgB5cxx11Ev",
    );
    let f = finding(&t, codes::MISSING_SYMBOL).expect("the missing C++ function");
    assert!(
        f.summary
            .starts_with("The program needs a TensorRT-LLM C++ function"),
        "{}",
        f.summary
    );
    // A namespace of no known library keeps the generic reading.
    let t = triage("undefined symbol: _ZN7mylib3fooEv");
    let f = finding(&t, codes::MISSING_SYMBOL).expect("the missing function");
    assert!(f.summary.contains("is missing from"), "{}", f.summary);
}

#[test]
fn cuda_13s_four_argument_cuctxcreate_is_named_in_a_build_error() {
    // https://github.com/HazyResearch/ThunderKittens/issues/160 (code written for CUDA 12)
    let t = triage(
        "ThunderKittens/include/types/device/ipc.cuh(159): error: too few arguments in function call\n          do { CUresult err = cuCtxCreate_v4(&contexts[i], 0, devices[i]); if (err != CUDA_SUCCESS) {",
    );
    assert!(
        message_ids(&t).contains(&"cuda13-cuctxcreate-v4-arguments"),
        "{:?}",
        message_ids(&t)
    );
}

#[test]
fn an_unresolved_extern_device_function_is_relocatable_device_code() {
    // https://github.com/NVIDIA/cub/pull/533 (cudaGetLastError in device code without -rdc=true)
    // and https://github.com/NVlabs/instant-ngp/issues/544 (pow(float, int))
    for line in [
        "ptxas fatal   : Unresolved extern function 'cudaGetLastError'",
        "ptxas fatal   : Unresolved extern function '_Z3powfi'",
    ] {
        let t = triage(line);
        assert!(
            message_ids(&t).contains(&"ptxas-unresolved-extern-function"),
            "{line}"
        );
        assert!(all_text(&t).contains("-rdc=true"), "{line}");
    }
}

#[test]
fn arrayfire_jit_kernel_refused_by_the_driver_is_its_kernel_size_not_the_driver() {
    // https://github.com/arrayfire/arrayfire/issues/2527 (AF_CUDA_MAX_JIT_LEN=10 fixed it)
    let t = triage(
        "ERROR: ArrayFire Error (998) : Internal error\nIn function cuda::Kernel cuda::buildKernel(int, const string&, const string&, const std::vector<std::__cxx11::basic_string<char> >&, bool)\nIn file src/backend/cuda/nvrtc/cache.cpp:191\nCU Error CUDA_ERROR_INVALID_IMAGE(200): device kernel image is invalid",
    );
    let ids = message_ids(&t);
    assert!(ids.contains(&"arrayfire-jit-kernel-too-large"), "{ids:?}");
    assert!(!ids.contains(&"tf-kernel-image-invalid"), "{ids:?}");
    assert!(all_text(&t).contains("AF_CUDA_MAX_JIT_LEN"));
    // The same status from another program stays the driver's refusal.
    let other = triage("Status: device kernel image is invalid");
    assert!(message_ids(&other).contains(&"tf-kernel-image-invalid"));
}

//! A library that is not what it should be, or not where the loader looks: the toolkit's stub
//! libcuda answering for the driver, NVML outside the loader's cache, a soname a Java stack
//! printed capitalised, a ggml kernel built only for newer GPUs. Real lines from the public
//! threads cited above each assertion.

use super::*;

#[test]
fn a_driver_call_returning_minus_one_is_the_stub_libcuda() {
    // https://github.com/JuliaGPU/CUDAnative.jl/issues/72 (lib64/stubs on LD_LIBRARY_PATH)
    let t = triage("LoadError: Error -1 calling cuDriverGetVersion");
    assert!(message_ids(&t).contains(&"cuda-driver-call-minus-one-stub"));
    assert!(all_text(&t).contains("stub"), "{}", all_text(&t));
    // https://github.com/tensorflow/tensorflow/issues/14224 (the image's stub libcuda.so.1)
    let t = triage(
        "2017-11-03 17:57:11.181620: E tensorflow/stream_executor/cuda/cuda_driver.cc:406] failed call to cuInit: CUresult(-1)",
    );
    assert!(message_ids(&t).contains(&"cuda-driver-call-minus-one-stub"));
}

#[test]
fn nvml_outside_the_loaders_cache_is_not_read_as_a_kubernetes_plugin() {
    // https://github.com/NVIDIA/nvidia-docker/issues/470 (nvidia-docker 1.0 on the host)
    let t = triage(
        "nvidia-docker-plugin | 2017/09/18 16:29:20 Loading NVIDIA management library\nnvidia-docker-plugin | 2017/09/18 16:29:20 Error: could not load NVML library",
    );
    let ids = message_ids(&t);
    assert!(ids.contains(&"nvml-library-not-loadable"), "{ids:?}");
    assert!(!ids.contains(&"k8s-device-plugin-no-nvml"), "{ids:?}");
    assert!(all_text(&t).contains("ldconfig"), "{}", all_text(&t));
}

#[test]
fn a_capitalised_soname_is_identified() {
    // https://github.com/deepjavalibrary/djl/issues/2067 (the paste lost its spaces)
    let t = triage(
        "Caused by: java.lang.UnsatisfiedLinkError djl.ai/pytorch/1.12.1-Cu116-Linux-x86_64/Libtorch_cuda_cpp.so:Libcudnn.so.8:cannotopen:sharedobjectfile:Nosuchfileordirectory",
    );
    assert!(
        t.identified
            .iter()
            .any(|i| i.file == "libcudnn.so.8" && i.component == "cuDNN"),
        "{:?}",
        t.identified
    );
}

#[test]
fn a_ggml_kernel_without_code_for_the_gpu_is_named() {
    // https://github.com/ggml-org/llama.cpp/issues/7055 (--flash-attn on a Pascal GPU)
    let t = triage(
        "ERROR: CUDA kernel flash_attn_ext_f16 has no device code compatible with CUDA arch 610. ggml-cuda.cu was compiled for: 520,610,700",
    );
    let text = all_text(&t);
    assert!(text.contains("flash_attn_ext_f16"), "{text}");
    assert!(text.contains("sm_61"), "{text}");
}

#[test]
fn nccls_optional_net_plugin_is_no_error() {
    // https://github.com/NVIDIA/nccl/issues/1231 (the maintainer: harmless, not the failure)
    let t = triage(
        "VM-0-14-tencentos:162637:162637 [6] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation",
    );
    assert!(message_ids(&t).contains(&"nccl-net-plugin-absent"));
    assert!(
        t.findings
            .iter()
            .all(|f| f.severity != crate::engine::findings::Severity::Error),
        "{:?}",
        t.findings
            .iter()
            .map(|f| (&f.code, f.severity))
            .collect::<Vec<_>>()
    );
}

#[test]
fn wsl_gpus_have_no_device_minor_number() {
    // https://github.com/NVIDIA/k8s-device-plugin/issues/332
    let t = triage("Getting GPU device minor number: Not Supported");
    let text = all_text(&t);
    assert!(
        text.contains("WSL 2") && text.contains("/dev/dxg"),
        "{text}"
    );
}

//! The parts of an install a library search cannot fix: the driver's libraries of other container
//! capabilities (video, graphics), a kernel module that is not built or not loaded, a package
//! built without CUDA or for other GPUs, and CUDA through a translation layer on another vendor's
//! GPU. Each input is a real line from the public thread cited above it.

use super::*;
use crate::engine::finding_codes as codes;

#[test]
fn a_video_library_of_the_driver_names_the_capability_a_container_lacks() {
    // https://github.com/NVIDIA/DALI/issues/2362 (maintainer: the runtime does not expose the
    // video capability by default)
    let t = triage(
        "[/opt/dali/dali/operators/reader/loader/video_loader.h:182] Assert on \"lib_handle_\" failed: Failed to load libnvcuvid.so, needed by the VideoReader operator. If you are running in a Docker container, please refer to https://github.com/NVIDIA/nvidia-docker/wiki/Usage",
    );
    let f = finding(&t, codes::DRIVER_LIBRARY_NOT_LOADED).expect("libnvcuvid is the driver's");
    assert!(f.summary.contains("`video`"), "{}", f.summary);
    assert!(
        f.fixes[0]
            .summary
            .contains("NVIDIA_DRIVER_CAPABILITIES=compute,utility,video"),
        "{}",
        f.fixes[0].summary
    );
    assert_eq!(t.findings[0].code, codes::DRIVER_LIBRARY_NOT_LOADED);
}

#[test]
fn the_cuda_driver_itself_keeps_the_install_the_driver_advice() {
    // https://github.com/xorbitsai/inference/issues/2865
    let t =
        triage("OSError: libcuda.so.1: cannot open shared object file: No such file or directory");
    let f = finding(&t, codes::DRIVER_LIBRARY_NOT_LOADED).expect("libcuda is the driver's");
    assert!(!f.summary.contains("capability"), "{}", f.summary);
    assert_eq!(f.fixes[0].id, "advice-install-driver");
}

#[test]
fn a_missing_kernel_module_is_a_module_built_for_another_kernel() {
    // https://github.com/compiler-explorer/infra/issues/1413
    let t =
        triage("modprobe: FATAL: Module nvidia not found in directory /lib/modules/6.8.0-1015-aws");
    assert_eq!(message_ids(&t), ["kernel-module-not-installed"]);
    assert!(all_text(&t).contains("dkms"), "{}", all_text(&t));
}

#[test]
fn nvml_driver_not_loaded_is_one_code_reading_and_yields_to_a_specific_reading() {
    // https://github.com/bentoml/BentoML/issues/4940
    // pynvml's words are the message row's; NVML's status name is its [[code]] row's: one
    // reading each, never both.
    let t = triage("pynvml.NVMLError_DriverNotLoaded: Driver Not Loaded");
    assert_eq!(message_ids(&t), ["nvidia-kernel-module-not-loaded"]);
    assert_eq!(t.findings.len(), 1, "{:#?}", t.findings);
    assert!(t.findings[0].summary.contains("kernel module"));
    let t = triage("nvmlInit failed: NVML_ERROR_DRIVER_NOT_LOADED");
    assert!(message_ids(&t).is_empty(), "{:?}", message_ids(&t));
    assert_eq!(t.findings.len(), 1, "{:#?}", t.findings);
    assert!(
        t.findings[0].detail.contains("kernel module"),
        "{:#?}",
        t.findings
    );
    // https://github.com/NVIDIA/nvidia-container-toolkit/issues/1269: the container CLI's own
    // reading of the same words is kept, the general one dropped.
    let t = triage(
        "nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown.",
    );
    let ids = message_ids(&t);
    assert!(!ids.is_empty());
    assert!(!ids.contains(&"nvidia-kernel-module-not-loaded"), "{ids:?}");
}

#[test]
fn a_package_built_without_cuda_is_read_whatever_the_program() {
    // https://github.com/traveller59/spconv/issues/423
    let t = triage("ValueError: /io/include/tensorview/tensor.h(171) don't compiled with cuda");
    assert_eq!(message_ids(&t), ["program-built-without-cuda"]);
    // PyTorch's own message keeps its own reading alone.
    let t = triage("AssertionError: Torch not compiled with CUDA enabled");
    assert_eq!(message_ids(&t), ["torch-not-compiled-with-cuda"]);
}

#[test]
fn an_extension_without_code_for_the_gpu_is_an_architecture_refusal() {
    // https://github.com/nerfstudio-project/nerfstudio/issues/1173 (tiny-cuda-nn on a Tesla K40m)
    let t = triage(
        "OSError: Could not find compatible tinycudann extension for compute capability 35.",
    );
    assert_eq!(t.architectures[0].arch, "sm_35");
    assert!(finding(&t, codes::GPU_ARCH_REFUSED).is_some());
}

#[test]
fn zluda_is_cuda_on_another_vendors_gpu() {
    // https://github.com/CS1o/Stable-Diffusion-Info/issues/5
    let t = triage(
        "ZLUDA device failed to pass basic operation test: index=None, device_name=AMD Radeon RX 7900 XT [ZLUDA]\nCUDA error: operation not supported",
    );
    assert!(message_ids(&t).contains(&"zluda-translation-layer"));
    assert!(
        t.findings[0].summary.contains("ZLUDA"),
        "{}",
        t.findings[0].summary
    );
}

#[test]
fn the_x_servers_kernel_module_line_is_the_same_family() {
    // https://github.com/MrMEEE/bumblebee-Old-and-abbandoned/issues/71
    let t = triage("(EE) NVIDIA: Failed to load the NVIDIA kernel module. Please check your");
    assert_eq!(message_ids(&t), ["nvidia-kernel-module-not-loaded"]);
}

#[test]
fn a_floor_said_as_an_architecture_is_a_generation_minimum() {
    // TensorRT-LLM's plugins check it (cpp/tensorrt_llm/plugins/gptAttentionCommon/gptAttentionCommon.cpp,
    // https://github.com/NVIDIA/TensorRT-LLM)
    let mins = architectures::generation_minimums(
        "[TensorRT-LLM][ERROR] Assertion failed: Unsupported data type, pre SM 80 GPUs do not support bfloat16",
    );
    assert_eq!(mins[0].0, "8.0");
    // ptxas refusing a PTX feature for the target compiled.
    let mins = architectures::generation_minimums(
        "ptxas /tmp/tmpxft_0000_kernel.ptx, line 42; error   : Feature '.bf16' requires .target sm_80 or higher",
    );
    assert_eq!(mins[0].0, "8.0");
}

#[test]
fn a_jetson_driver_library_in_a_container_is_the_nvidia_runtime() {
    // https://github.com/OE4T/meta-tegra/issues/1281
    let t = triage(
        "ImportError: libnvdla_compiler.so: cannot open shared object file: No such file or directory",
    );
    let f = finding(&t, codes::DRIVER_LIBRARY_NOT_LOADED).expect("an L4T library");
    assert!(f.summary.contains("Jetson"), "{}", f.summary);
    assert_eq!(f.fixes[0].id, "advice-jetson-runtime");
    assert!(f.fixes[0].summary.contains("default-runtime"));
}

#[test]
fn podman_without_cdi_is_told_to_use_cdi() {
    // https://github.com/NVIDIA/nvidia-container-runtime/issues/190
    let t = triage(
        "Error: crun: executable file `nvidia-smi` not found in $PATH: No such file or directory: OCI runtime attempted to invoke a command that was not found",
    );
    assert_eq!(message_ids(&t), ["podman-no-gpu-cdi"]);
    assert!(all_text(&t).contains("--device nvidia.com/gpu=all"));
}

#[test]
fn a_stub_nvml_is_named_as_the_toolkits_stub() {
    // https://github.com/NVIDIA/DALI/issues/1863
    let t = triage(
        "You should always run with libnvidia-ml.so that is installed with your\nNVIDIA Display Driver. By default it's installed in /usr/lib and /usr/lib64.",
    );
    assert!(message_ids(&t).contains(&"nvml-stub-library"));
    assert!(
        t.findings[0].summary.contains("stub"),
        "{}",
        t.findings[0].summary
    );
}

#[test]
fn tensorrt_refusing_the_gpus_sm_names_it_from_hex() {
    // https://github.com/NVIDIA/TensorRT/issues/3826
    let t = triage("[04/25/2024-15:52:54] [TRT] [E] 1: Unsupported SM: 0x601");
    assert!(message_ids(&t).contains(&"tensorrt-unsupported-sm"));
    assert!(
        t.findings[0].summary.contains("(0x601)"),
        "{}",
        t.findings[0].summary
    );
    assert!(
        t.findings[0]
            .detail
            .contains("compute capability 6.1 (sm_61, Pascal)"),
        "{}",
        t.findings[0].detail
    );
    // TensorRT 7's assertion names no SM (https://github.com/NVIDIA/TensorRT/issues/2332):
    // no empty brackets are left.
    let t = triage(
        "ERROR: ../rtSafe/cuda/caskUtils.cpp (80) - Assertion Error in trtSmToCask: 0 (Unsupported SM.)",
    );
    assert!(
        t.findings[0]
            .summary
            .starts_with("This TensorRT release does not support the GPU's architecture: "),
        "{}",
        t.findings[0].summary
    );
}

#[test]
fn a_dkms_build_failure_names_the_kernel() {
    // NVIDIA driver README, DKMS installation (the make.log of a failed build)
    let t =
        triage("Error! Bad return status for module build on kernel: 6.8.0-45-generic (x86_64)");
    assert_eq!(message_ids(&t), ["dkms-nvidia-build-failed"]);
    assert!(t.findings[0].summary.contains("6.8.0-45-generic"));
}

#[test]
fn a_number_after_nvml_is_nvmls_status_not_cudas() {
    // https://github.com/ollama/ollama/issues/1898 (Ollama under WSL)
    let t = triage("gpu.go:39: CUDA not detected: nvml vram init failure: 9");
    assert!(
        t.codes
            .iter()
            .any(|c| c.kind == "nvml" && c.number == Some(9))
    );
    assert!(!t.codes.iter().any(|c| c.kind == "cuda"), "{:?}", t.codes);
}

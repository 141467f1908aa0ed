//! Readings of a kernel module that does not fit the running kernel, an engine build without an
//! optimization profile, a device plugin without the NVIDIA runtime, an NGC container older than
//! the GPU, a build's architecture list below what its code needs, and CUDA headers of another
//! release than the compiler. Each line is from the public thread cited.

use super::*;

#[test]
fn a_module_that_does_not_fit_the_kernel_is_a_driver_that_is_not_running() {
    // https://github.com/tensorflow/tensorflow/issues/5473 (fixed by reinstalling the driver)
    let t = triage(
        "modprobe: ERROR: ../libkmod/libkmod-module.c:832 kmod_module_insert_module() could not find module by name='nvidia_367_uvm'\n\
         modprobe: ERROR: could not insert 'nvidia_367_uvm': Unknown symbol in module, or unknown parameter (see dmesg)\n\
         E tensorflow/stream_executor/cuda/cuda_driver.cc:491] failed call to cuInit: CUDA_ERROR_UNKNOWN\n\
         I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:140] kernel driver does not appear to be running on this host (gzhao-b1208): /proc/driver/nvidia/version does not exist",
    );
    let first = t.findings.first().expect("a reading");
    assert_eq!(
        first.code,
        "log-modprobe-nvidia-unknown-symbol",
        "{}",
        all_text(&t)
    );
    assert!(message_ids(&t).contains(&"tf-kernel-driver-not-running"));
}

#[test]
fn dynamic_inputs_need_an_optimization_profile() {
    // https://github.com/onnx/onnx-tensorrt/issues/518
    let t = triage(
        "[2020-08-20 11:03:50   ERROR] Network has dynamic or shape inputs, but no optimization profile has been defined.\n\
         [2020-08-20 11:03:50   ERROR] Network validation failed.",
    );
    assert!(message_ids(&t).contains(&"tensorrt-dynamic-inputs-no-profile"));
}

#[test]
fn a_device_plugin_without_the_nvidia_runtime_and_an_ngc_container_older_than_the_gpu() {
    // https://github.com/NVIDIA/k8s-device-plugin/issues/604 (containerd without nvidia as default)
    let t = triage(
        "E0318 09:59:50.207221       1 factory.go:77] Failed to initialize NVML: ERROR_UNKNOWN.\n\
         E0318 09:59:50.207267       1 factory.go:78] If this is a GPU node, did you set the docker default runtime to `nvidia`?",
    );
    assert_eq!(
        t.findings[0].code,
        "log-k8s-device-plugin-no-nvidia-runtime",
        "{}",
        all_text(&t)
    );
    // https://github.com/HuangJunJie2017/BEVDet/issues/314 (tensorrt:22.07-py3 on an RTX 4090)
    let t = triage(
        "WARNING: Detected NVIDIA NVIDIA GeForce RTX 4090 GPU, which is not yet supported in this version of the container\n\
         ERROR: No supported GPU(s) detected to run this container",
    );
    assert!(message_ids(&t).contains(&"ngc-container-gpu-not-supported"));
}

#[test]
fn a_build_list_below_what_the_code_needs_is_the_builds_not_the_gpus() {
    // https://github.com/chengzeyi/stable-fast/issues/86 (TORCH_CUDA_ARCH_LIST held 5.2)
    let t = triage(
        "ptxas /tmp/tmpxft_00000247_00000000-13_cutlass_qlinear_dynamic_kernel.compute_52.ptx, line 12796; error   : Feature 'f16 arithemetic and compare instructions' requires .target sm_53 or higher",
    );
    let f = message(&t, "ptxas-feature-needs-newer-target");
    assert!(f.summary.contains("take compute_52 out"), "{}", f.summary);
    // Neither a GPU below a floor nor a GPU of compute capability 5.2 is read into it.
    assert!(
        t.findings
            .iter()
            .all(|f| !f.summary.contains("The GPU here") && !f.summary.contains("needs a Maxwell")),
        "{}",
        all_text(&t)
    );
}

#[test]
fn cuda_headers_of_another_release_than_the_compiler() {
    // https://github.com/NVIDIA/TransformerEngine/issues/1018 (NVTE_CUDA_INCLUDE_DIR fixed it)
    let t = triage(
        "/scratch/midway3/tvallabh/tarun_dev/include/cuda_bf16.hpp(522): error: expected a \")\"\n\
         /scratch/midway3/tvallabh/tarun_dev/include/cuda_bf16.hpp(521): error: identifier \"NV_IF_ELSE_TARGET\" is undefined",
    );
    let f = message(&t, "cuda-header-macro-undefined");
    assert!(f.summary.contains("NV_IF_ELSE_TARGET"), "{}", f.summary);
}

#[test]
fn tensorflows_kernel_driver_check_says_nothing_under_wsl() {
    // https://github.com/microsoft/DirectML/issues/18 (a distro on WSL 1's kernel)
    let t = triage(
        "Linux version 4.4.0-20150-Microsoft (Microsoft@Microsoft.com) (gcc version 5.4.0 (GCC) ) #1000-Microsoft Thu Jun 12 17:34:00 PST 2020\n\
         2020-06-17 16:36:05.470029: I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:156] kernel driver does not appear to be running on this host (MAKERPC): /proc/driver/nvidia/version does not exist",
    );
    assert!(!message_ids(&t).contains(&"tf-kernel-driver-not-running"));
}

#[test]
fn a_program_whose_own_architecture_table_predates_the_gpu() {
    // https://github.com/genn-team/genn/issues/136 (a GTX 1080 in GeNN's block-size optimiser)
    let t = triage(
        "optimizing block size...\n\
         Error: unsupported CUDA device major version: 6\n\
         genn-buildmodel.sh:75: error 50: command failure",
    );
    let f = message(&t, "program-unknown-compute-major");
    assert!(
        f.summary.contains("compute capability 6.x"),
        "{}",
        f.summary
    );
}

#[test]
fn darknets_handle_set_up_and_a_number_in_a_path() {
    // https://github.com/AlexeyAB/darknet/issues/8759 (cuDNN 8.8.1; 8.8.0 worked)
    let t = triage(
        "CUDA-version: 11080 (11080), cuDNN: 8.8.1, GPU count: 1  \n\
         \x20cuDNN status Error in: file: /home/sg-atcoe-23761/ws_scannerbot/src/darknet_ros_yolov4/darknet_ros/darknet/src/dark_cuda.c : () : line: 176 : build time: Mar 23 2023 - 15:40:52 \n\
         \x20cuDNN Error: CUDNN_STATUS_BAD_PARAM",
    );
    let f = finding(&t, "cudnn-status-bad-param").expect("the status is explained");
    // Not the convolutional layer's cfg: the handle set-up in dark_cuda.c failed.
    assert!(!f.detail.contains("cfg"), "{}", f.detail);
    let decoded = finding(&t, "version-numbers-decoded").expect("11080 is decoded");
    assert!(!decoded.summary.contains("23761"), "{}", decoded.summary);
}

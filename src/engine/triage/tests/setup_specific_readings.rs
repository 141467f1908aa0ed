//! Readings of a setup's own limits and of a message's other lines: a Python binding's status
//! class and a status in words with the library named on the lines around it, thrust's
//! parallel_for in PaddlePaddle, bitsandbytes without a library for the CUDA it found, memory
//! pools a vGPU lacks, ggml's address reservation, container mounts that shadow the NVIDIA hook's
//! devices and sockets, a CDI mount point, and a list of candidate names that is no folder
//! listing. Each line is from the public thread cited.

use super::*;
use crate::engine::finding_codes as codes;

#[test]
fn a_bindings_camel_case_status_class_is_the_status() {
    // https://github.com/hannes-brt/cudnn-python-wrappers/issues/11 (a Fermi GPU)
    let t = triage("    raise cudnnExceptions[status]\nlibcudnn.cudnnStatusArchMismatch");
    assert!(
        finding(&t, "cudnn-status-arch-mismatch").is_some(),
        "{}",
        all_text(&t)
    );
}

#[test]
fn a_status_in_words_alone_is_the_status_of_the_library_named_around_it() {
    // https://github.com/pluskid/Mocha.jl/issues/57 (a GPU below cuDNN's minimum architecture)
    let t = triage(
        "16-Mar 23:11:13:INFO:root:Initializing CuDNN backend...\n\
         ERROR: Arch mismatch\n\
         \x20in create at /home/b/.julia/v0.3/Mocha/src/cuda/cudnn.jl:43",
    );
    assert!(
        finding(&t, "cudnn-status-arch-mismatch").is_some(),
        "{}",
        all_text(&t)
    );
    // The same words with no library around them name no status.
    let t = triage("ERROR: Arch mismatch");
    assert!(finding(&t, "cudnn-status-arch-mismatch").is_none());
}

#[test]
fn paddles_thrust_parallel_for_is_not_ctranslate2() {
    // https://github.com/PaddlePaddle/PaddleNLP/issues/348 (a CUDA 10.2 build on an RTX 30)
    let t = triage(
        "W0509 13:09:59.510846 14922 device_context.cc:362] Please NOTE: device: 0, GPU Compute Capability: 8.6, Driver API Version: 11.1, Runtime API Version: 10.2\n\
         parallel_for failed: cudaErrorNoKernelImageForDevice: no kernel image is available for execution on the device",
    );
    assert!(!message_ids(&t).contains(&"ctranslate2-no-kernel-image"));
    assert!(finding(&t, codes::GPU_ARCH_REFUSED).is_some_and(|f| f.summary.contains("sm_86")));
}

#[test]
fn bitsandbytes_without_a_library_for_the_cuda_it_found() {
    // https://github.com/bitsandbytes-foundation/bitsandbytes/issues/551 (CUDA 12.2)
    let t = triage(
        "CUDA_SETUP: WARNING! libcudart.so not found in any environmental path. Searching in backup paths...\n\
         CUDA SETUP: CUDA runtime path found: /usr/local/cuda/lib64/libcudart.so\n\
         CUDA SETUP: Detected CUDA version 122\n\
         CUDA SETUP: Required library version not found: libbitsandbytes_cuda122.so. Maybe you need to compile it from source?\n\
         CUDA SETUP: Defaulting to libbitsandbytes_cpu.so...",
    );
    assert_eq!(
        t.findings[0].code,
        "log-bitsandbytes-required-library-not-found"
    );
    assert!(t.findings[0].summary.contains("CUDA 12.2"));
    assert!(
        finding(&t, codes::LIBRARY_NOT_FOUND).is_none(),
        "{}",
        all_text(&t)
    );
}

#[test]
fn memory_pools_a_virtual_gpu_lacks() {
    // https://github.com/NVIDIA/ChatRTX/issues/49 (an A40-16Q vGPU; the paste split a word)
    let t = triage(
        "RuntimeError: [TensorRT-LLM] [ERROR] CUDA runtime error in cudaDeviceGetDefaultMemPool(&memPool, device): operation not s upported (C: \\Users\\tejaswinp\\workspace\\tekit\\cpp\\tensorrt_llm\\runtime\\bufferManager.cpp:171)",
    );
    let f = message(&t, "cuda-memory-pools-not-supported");
    assert!(
        f.summary.contains("cudaDeviceGetDefaultMemPool"),
        "{}",
        f.summary
    );
}

#[test]
fn ggmls_pool_reservation_leads_over_the_general_out_of_memory() {
    // https://github.com/withcatai/node-llama-cpp/issues/580 (Windows, VRAM free)
    let t = triage(
        "CUDA error: out of memory\n\
         ...ggml-cuda.cu:97: CUDA error\n\
         \x20 current device: 0, in function alloc at ...ggml-cuda.cu:476\n\
         \x20 cuMemAddressReserve(&pool_addr, CUDA_POOL_VMM_MAX_SIZE, 0, 0, 0)",
    );
    assert_eq!(t.findings[0].code, "log-ggml-vmm-pool-address-reserve");
    assert!(message_ids(&t).contains(&"gpu-out-of-memory-generic"));
}

#[test]
fn a_host_folder_mounted_over_the_hooks_devices_and_sockets() {
    // https://github.com/CentaurusInfra/alnair/issues/119 (the whole /run bind-mounted)
    let t = triage(
        "stderr: nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/4012b48f38e9057eb80787735e1bb47e7d86c9402d4a4976fd4b07020ae4c63b/merged/run/nvidia-persistenced/socket: no such device or address: unknown",
    );
    assert_eq!(
        t.findings[0].code,
        "log-container-cli-host-mount-shadows-node"
    );
    assert!(!message_ids(&t).contains(&"container-cli-error"));
    // https://github.com/NVIDIA/libnvidia-container/issues/125 (the host /dev in enroot)
    let t = triage(
        "mount error: file creation failed: /scratch/pbs/enroot-data/user-613.chas052/lammps/dev/nvidia-uvm-tools: operation not permitted",
    );
    assert!(
        t.findings[0].summary.contains("/dev/nvidia-uvm-tools"),
        "{}",
        t.findings[0].summary
    );
}

#[test]
fn a_cdi_mount_point_for_the_persistence_daemons_socket() {
    // https://github.com/containers/toolbox/pull/1577
    let t = triage(
        "Error: mount: /run/nvidia-persistenced/socket: mount point does not exist.\n\
         failed to apply mount from Container Device Interface for NVIDIA",
    );
    assert_eq!(
        t.findings[0].code,
        "log-cdi-persistenced-socket-mount-point"
    );
}

#[test]
fn a_list_of_candidate_names_is_no_folder_listing() {
    // https://github.com/Softcatala/whisper-ctranslate2/issues/115 (no cuDNN 9 installed)
    let t = triage(
        "Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, libcudnn_ops.so}\n\
         Invalid handle. Cannot load symbol cudnnCreateTensorDescriptor",
    );
    assert!(
        t.findings
            .iter()
            .all(|f| f.fixes.iter().all(|x| x.id != "advice-create-soname-link")),
        "{}",
        all_text(&t)
    );
}

#[test]
fn ctranslate2s_cudnn_major_is_named_where_the_text_names_it() {
    // https://github.com/m-bain/whisperX/issues/899 (torch 2.4's cuDNN 9 only)
    let t = triage(
        "whisperx \"audio/test.mp3\" --model \"large-v3\" --language \"en\"\n\
         Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your library path!",
    );
    let f = message(&t, "cudnn-could-not-locate");
    assert!(f.detail.contains("ctranslate2==4.4.0"), "{}", f.detail);
    // Without CTranslate2 in the text, the general reading alone.
    let t = triage(
        "Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your library path!",
    );
    assert!(
        !message(&t, "cudnn-could-not-locate")
            .detail
            .contains("CTranslate2")
    );
}

#[test]
fn opencls_invalid_value_is_not_a_math_librarys() {
    // The math libraries' _INVALID_VALUE family (a library of another CUDA release) does not
    // describe OpenCL's: its own row says what the enumerator means.
    let t = triage("OpenCL error: clCreateBuffer returned CL_INVALID_VALUE");
    let f = finding(&t, "opencl-status-cl-invalid-value").unwrap();
    assert!(
        f.detail.contains("OpenCL call is not valid"),
        "{}",
        f.detail
    );
    assert!(
        !f.detail.contains("CUDA release than the framework"),
        "{}",
        f.detail
    );
}

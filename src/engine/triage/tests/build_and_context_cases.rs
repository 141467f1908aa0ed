//! Causes the rest of a text selects for a code or a message (CUDA IPC on Windows for 801, the
//! stream-ordered allocator for 801 and 36, macOS for a torch without CUDA, the driver's own
//! libraries for `-l`), a number confirmed by its own runtime message, and the general readings
//! of a first CUDA call failing, of a cuDNN floor and of an NVENC encoder in a container. Each
//! line is from the public issue cited.

use super::*;

#[test]
fn a_number_with_its_own_runtime_message_is_read_without_the_word_cuda() {
    // https://github.com/pytorch/pytorch/issues/36037 (PyTorch's Windows build sharing a CUDA
    // tensor with a worker process).
    let t = triage(
        r"Runtime Error(801) operation not supported at C:\w\1\s\windows\pytorch\torch/csrc/generic/StorageSharing.cpp:245",
    );
    let f = finding(&t, "cuda-error-801").unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert!(
        f.detail.contains("CUDA IPC is not supported on Windows"),
        "{}",
        f.detail
    );
    // The errno text alone, with another number, stays the system's.
    let t = triage("tar: error 95 operation not supported");
    assert!(finding(&t, "cuda-error-801").is_none(), "{:#?}", t.findings);
}

#[test]
fn the_stream_ordered_allocator_is_named_for_801_and_36() {
    // https://github.com/flatironinstitute/finufft/pull/468
    let t = triage(
        "CUDA error at /home/u/finufft/src/cuda/memtransfer_wrapper.cu:33 code=801(cudaErrorNotSupported) \"cudaMallocAsync(&d_plan->binsize, numbins * sizeof(int), stream)\"",
    );
    let f = finding(&t, "cuda-error-801").unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert!(
        f.detail.contains("cudaDevAttrMemoryPoolsSupported"),
        "{}",
        f.detail
    );
    // https://github.com/lllyasviel/Fooocus/issues/95
    let t = triage(
        "RuntimeError: CUDA error: API call is not supported in the installed CUDA driver\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
    );
    let f = finding(&t, "cuda-error-36").unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert!(f.detail.contains("cudaMallocAsync"), "{}", f.detail);
}

#[test]
fn a_torch_without_cuda_on_macos_says_no_cuda_build_exists_there() {
    // https://github.com/upseem/comfyui_sunxAI_facetools/issues/3
    let mac = "  File \"/Users/someone/Documents/ComfyUI/.venv/lib/python3.12/site-packages/torch/cuda/__init__.py\", line 403, in _lazy_init\n    raise AssertionError(\"Torch not compiled with CUDA enabled\")\nAssertionError: Torch not compiled with CUDA enabled";
    let t = triage(mac);
    let f = finding(&t, "log-torch-not-compiled-with-cuda")
        .unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert!(f.detail.contains("MPS"), "{}", f.detail);
    // A Windows traceback gets no macOS reading.
    let t = triage(
        "  File \"C:\\Users\\someone\\venv\\lib\\site-packages\\torch\\cuda\\__init__.py\", line 239, in _lazy_init\nAssertionError: Torch not compiled with CUDA enabled",
    );
    assert!(!all_text(&t).contains("MPS"), "{}", all_text(&t));
}

#[test]
fn the_driver_libraries_unversioned_link_name_for_the_linker() {
    // https://github.com/NVIDIA/nvidia-container-toolkit/issues/1479
    let t = triage("/usr/bin/ld: cannot find -lnvidia-ml: No such file or directory");
    let f =
        finding(&t, "log-ld-cannot-find-cuda-lib").unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert!(f.detail.contains("libnvidia-ml.so.1"), "{}", f.detail);
    // A toolkit library gets the general reading only.
    let t = triage("/usr/bin/ld: cannot find -lcublas: No such file or directory");
    assert!(
        !all_text(&t).contains("Container Toolkit"),
        "{}",
        all_text(&t)
    );
}

#[test]
fn a_first_cuda_call_failing_without_a_code_points_at_the_driver() {
    // https://github.com/PaddlePaddle/FastDeploy/issues/1333
    let t = triage(
        "[ERROR] fastdeploy/runtime/backends/tensorrt/trt_backend.cc(256)::InitFromOnnx  [ERROR] Error occurs while calling cudaStreamCreate().",
    );
    assert_eq!(message_ids(&t), ["first-cuda-call-failed"]);
    assert!(t.findings[0].summary.starts_with("cudaStreamCreate"));
}

#[test]
fn a_cudnn_floor_with_the_version_found() {
    // https://github.com/gnina/gnina/issues/151
    let t = triage(
        "-- Found cuDNN: ver. 7.6.5 found (include: /usr/include, library: /usr/lib/x86_64-linux-gnu/libcudnn.so)\nCMake Error at caffe/cmake/Cuda.cmake:237 (message):\n  cuDNN version >=8 is required.",
    );
    let f = finding(&t, "version-mismatch-reported").unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert!(f.summary.contains("cuDNN 8 or newer"), "{}", f.summary);
    assert!(f.detail.contains("cuDNN 7.6.5"), "{}", f.detail);
}

#[test]
fn a_binding_that_drops_the_status_prefix_on_a_line_naming_the_library() {
    // https://github.com/soumith/cudnn.torch/issues/192
    let t = triage(
        ".../torch/install/share/lua/5.1/cudnn/init.lua:58: Error in CuDNN: STATUS_EXECUTION_FAILED (cudnnSetDropoutDescriptor)",
    );
    assert!(
        t.codes
            .iter()
            .any(|c| c.name.as_deref() == Some("CUDNN_STATUS_EXECUTION_FAILED")),
        "{:#?}",
        t.codes
    );
}

#[test]
fn a_decoder_for_a_codec_the_gpu_lacks_and_a_driver_version_read_as_zero() {
    // https://github.com/mpv-player/mpv/pull/3496 (a GTX 970 has no HEVC decoder).
    let t = triage(
        "[ffmpeg/video] hevc_cuvid: cuvidCreateDecoder(&cudec, &cuinfo) failed ->\nCUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
    );
    assert!(
        all_text(&t).contains("HEVC needs a GTX 950/960"),
        "{}",
        all_text(&t)
    );
    // https://github.com/rigaya/NVEnc/issues/12
    let t = triage("Insufficient NVIDIA driver version, Required 378.66, Installed 0.0");
    assert!(
        all_text(&t).contains("could not query the driver"),
        "{}",
        all_text(&t)
    );
    // https://github.com/nljones/Accelerad/issues/11
    let t = triage(
        "accelerad_rpict: internal - Error reading OptiX library. Update your graphics driver.",
    );
    assert!(
        all_text(&t).contains("590 driver branch"),
        "{}",
        all_text(&t)
    );
}

#[test]
fn a_driver_enumerator_spelled_in_words_and_a_gpu_current_cuda_dropped() {
    // https://github.com/mumax/3/issues/278
    let t = triage("No binary for GPU. Your nvidia driver may be out-of-date");
    assert!(finding(&t, "cuda-error-209").is_some(), "{:#?}", t.findings);
    // Enumerator words that name nothing CUDA-only stay the system's ("file not found").
    let t = triage("error: file not found: config.yaml");
    assert!(t.codes.is_empty(), "{:#?}", t.codes);
    // https://github.com/alicevision/AliceVision/issues/621: a device listing, no refusal.
    let t = triage(
        "[12:23:18.519278][warning] CUDA-Enabled GPU.\nDevice information:\n\t- id:                      0\n\t- name:                    GeForce GT 540M\n\t- compute capability:      2.1",
    );
    let f = finding(&t, "gpu-arch-refused").unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert_eq!(f.severity, crate::engine::findings::Severity::Info);
    assert!(f.summary.contains("after 8.0"), "{}", f.summary);
    // A supported GPU gets no such note.
    let t = triage("Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6");
    assert!(
        finding(&t, "gpu-arch-refused").is_none(),
        "{:#?}",
        t.findings
    );
}

#[test]
fn an_nvenc_encoder_failing_in_a_container_names_the_video_capability() {
    // https://github.com/sam-dumont/immich-video-memory-generator/issues/936 (a Kubernetes pod
    // given only compute,utility).
    let t = triage(
        "Hardware encoder probe failed for ['-c:v', 'h264_nvenc']: ... Terminating thread with return code -22 (Invalid argument)\n\
         Hardware encoding is unavailable: libva could not open a device. Check that /dev/dri is passed into the container and that the container user is in the render group",
    );
    let f = finding(&t, "log-nvenc-encoder-failed-to-start")
        .unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert!(
        f.detail
            .contains("NVIDIA_DRIVER_CAPABILITIES includes video"),
        "{}",
        f.detail
    );
    // Without the container's line the container's cause is not claimed, and a more specific
    // NVENC line (the session limit's out of memory) keeps its own reading.
    let t = triage(
        "Hardware encoder probe failed for ['-c:v', 'h264_nvenc']: ... Terminating thread with return code -22 (Invalid argument)",
    );
    let f = finding(&t, "log-nvenc-encoder-failed-to-start")
        .unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert!(
        !f.detail.contains("this runs in a container"),
        "{}",
        f.detail
    );
    let t = triage(
        "[h264_nvenc @ 0000023a79212040] OpenEncodeSessionEx failed: out of memory (10): (no details)",
    );
    assert!(
        finding(&t, "log-nvenc-encoder-failed-to-start").is_none(),
        "{:#?}",
        t.findings
    );
}

#[test]
fn an_old_paddle_post_tag_names_cuda_and_cudnn_majors_and_the_cuda_beside_it() {
    // https://github.com/PaddlePaddle/PaddleOCR/issues/41 (a CUDA 9 build in a CUDA 10.0 container)
    let t = triage(
        "运行环境 docker-ubuntu 18.04 + cuda10.0 + python3.6.9 + paddle-gpu(1.7.2.post97)\n\
         Error: Failed to find dynamic library: libcublas.so ( libcublas.so: cannot open shared object file: No such file or directory ) ",
    );
    let decoded = finding(&t, "version-numbers-decoded").expect("the tag is decoded");
    assert!(
        decoded
            .summary
            .contains("1.7.2.post97 = built for CUDA 9.0"),
        "{}",
        decoded.summary
    );
    let load = message(&t, "dlopen-cannot-open");
    assert!(
        load.detail.starts_with(
            "The text names paddle-gpu 1.7.2.post97 (a build for CUDA 9.0) and CUDA 10.0"
        ),
        "{}",
        load.detail
    );
}

#[test]
fn a_kernel_looked_up_by_name_in_the_programs_own_module() {
    // https://github.com/huggingface/candle/issues/1168 (ucopy_64 asked for, ucopy_f64 defined)
    let t = triage(
        "Error: Cuda(Load { cuda: DriverError(CUDA_ERROR_NOT_FOUND, \"named symbol not found\"), module_name: \"ucopy_64\" })",
    );
    let f = finding(&t, "cuda-error-500").expect("the status is explained");
    assert!(
        f.detail
            .starts_with("Here (the text says \"module_name: \"ucopy_64\"\")"),
        "{}",
        f.detail
    );
}

#[test]
fn an_intrinsic_the_gpu_is_too_old_for_in_a_run_time_compiled_kernel() {
    // https://github.com/xmrig/xmrig-nvidia/issues/246 (Kepler GPUs; fixed in 2.14.1)
    let t = triage(
        "nvrtcCompileProgram failed: NVRTC_ERROR_COMPILATION\n\
         Program compile log: CryptonightR.cu(382): error: identifier \"__funnelshift_l\" is undefined\n\
         [CUDA] Error gpu 0: <cryptonight_gpu_hash>:878 \"device kernel image is invalid\"",
    );
    assert_eq!(
        t.findings[0].code,
        "nvrtc-status-nvrtc-error-compilation",
        "{}",
        all_text(&t)
    );
    assert!(
        t.findings[0]
            .detail
            .contains("__funnelshift_l and __funnelshift_r from 3.2")
    );
    assert!(!message_ids(&t).contains(&"tf-kernel-image-invalid"));
}

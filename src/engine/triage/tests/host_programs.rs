//! Lines of host programs around CUDA rather than CUDA itself: NVENC in FFmpeg and OBS Studio (a
//! driver older than the NVENC API, a session that cannot open), FFmpeg's CUDA context without the
//! driver library, OpenCV's DNN module without (or older than) its CUDA backend, DeepSpeed's op
//! builder refusing a toolkit that is not torch's CUDA, vLLM's KV cache too small for the
//! model's context, OpenCL without its loader or platform, and AMReX's managed arena under WSL 2.
//! Each input is a real line from the public thread cited above it.

use super::*;

#[test]
fn obs_refusing_an_old_driver_for_its_nvenc_version_names_the_api() {
    // https://github.com/obsproject/obs-studio/issues/10479 (Kepler's last driver; OBS restored a
    // fallback in #10445)
    let t = triage(
        "The installed NVIDIA driver does not support this NVENC version, try updating the driver.",
    );
    assert!(message_ids(&t).contains(&"nvenc-driver-older-than-api"));
    let text = all_text(&t);
    assert!(text.contains("NVENC API"), "{text}");
    assert!(text.contains("Kepler"), "{text}");
}

#[test]
fn no_nvenc_capable_device_is_a_warning_naming_the_support_matrix() {
    // https://github.com/googlecolab/colabtools/issues/3588 and
    // https://github.com/NixOS/nixpkgs/issues/265075 (a legacy card)
    for line in [
        "No NVENC capable devices found",
        "[h264_nvenc @ 0x4a47100] No capable devices found",
    ] {
        let t = triage(line);
        assert!(
            message_ids(&t).contains(&"nvenc-session-open-failed"),
            "{line}"
        );
        let text = all_text(&t);
        assert!(text.contains("support matrix"), "{text}");
        assert!(text.contains("nvidia-modprobe -u -c=0"), "{text}");
    }
}

#[test]
fn ffmpeg_without_the_driver_cuda_library_says_the_toolkit_does_not_provide_it() {
    // https://github.com/mdhiggins/sickbeard_mp4_automator/issues/1380
    let t = triage("[AVHWDeviceContext @ 0x5599facb8080] Could not dynamically load CUDA");
    assert!(message_ids(&t).contains(&"ffmpeg-cuda-dynamic-load-failed"));
    let text = all_text(&t);
    assert!(text.contains("libcuda.so.1"), "{text}");
    assert!(text.contains("NVIDIA_DRIVER_CAPABILITIES"), "{text}");
}

#[test]
fn opencv_dnn_without_its_cuda_backend_names_the_build_options() {
    // https://github.com/opencv/opencv/issues/18229 (pip opencv-python; maintainer: not enabled at
    // build time)
    let t = triage(
        "[ WARN:0] global /tmp/pip-req-build-sw_3pm_8/opencv/modules/dnn/src/dnn.cpp (1429) setUpNet DNN module was not built with CUDA backend; switching to CPU",
    );
    assert!(message_ids(&t).contains(&"opencv-dnn-built-without-cuda"));
    let text = all_text(&t);
    assert!(text.contains("OPENCV_DNN_CUDA=ON"), "{text}");
    assert!(text.contains("pip uninstall opencv-python"), "{text}");
}

#[test]
fn an_opencv_without_dnn_backend_cuda_predates_4_2() {
    // https://github.com/spmallick/learnopencv/issues/573 (GCC's typographic quotes, as pasted)
    let t = triage(
        "/home/xavier-nx/project/learnopencv/learnopencv/OpenPose-Multi-Person/multi-person-openpose.cpp:344:48: error: ‘DNN_BACKEND_CUDA’ is not a member of ‘cv::dnn’",
    );
    assert!(message_ids(&t).contains(&"opencv-dnn-cuda-backend-too-old"));
    assert!(all_text(&t).contains("OpenCV 4.2.0"));
}

#[test]
fn deepspeed_refusing_a_toolkit_names_both_versions_and_the_skip_switch() {
    // https://github.com/JIA-Lab-research/MGM/issues/91 (solved by aligning the versions)
    let t = triage(
        "deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA version 12.2 does not match the version torch was compiled with 11.7, unable to compile cuda/cpp extensions without a matching cuda version.",
    );
    assert!(message_ids(&t).contains(&"deepspeed-cuda-mismatch"));
    let text = all_text(&t);
    assert!(
        text.contains("found CUDA 12.2 (nvcc) but torch was built with CUDA 11.7"),
        "{text}"
    );
    assert!(text.contains("DS_SKIP_CUDA_CHECK=1"), "{text}");
}

#[test]
fn a_vllm_kv_cache_smaller_than_the_context_names_max_model_len() {
    // https://github.com/Graph-COM/SubgraphRAG/issues/19 (two RTX 3090s; a max_model_len below the
    // KV cache size worked)
    let t = triage(
        "\"ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be stored in KV cache (39024). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.\"",
    );
    assert!(message_ids(&t).contains(&"vllm-kv-cache-too-small"));
    let text = all_text(&t);
    assert!(text.contains("--max-model-len"), "{text}");
    assert!(text.contains("Not a driver or CUDA problem"), "{text}");
}

#[test]
fn opencl_without_its_loader_or_platform_names_the_icd() {
    // https://github.com/FoldingAtHome/fah-issues/issues/1246 (no libOpenCL.so) and
    // https://github.com/openwall/john/issues/5087 (John the Ripper's Cygwin build)
    let t = triage(
        "00:45:57:       OpenCL: Not detected: Failed to open dynamic library 'libOpenCL.so':\n00:45:57:               libOpenCL.so: cannot open shared object file: No such file or directory",
    );
    let ids = message_ids(&t);
    assert!(ids.contains(&"opencl-loader-missing"), "{ids:?}");
    assert!(!ids.contains(&"dlopen-cannot-open"), "{ids:?}");
    assert!(all_text(&t).contains("ocl-icd-libopencl1"));
    let t =
        triage("Error: No OpenCL-capable platforms were detected by the installed OpenCL driver.");
    assert!(message_ids(&t).contains(&"opencl-no-device"));
    assert!(all_text(&t).contains("cygOpenCL-1.dll"));
}

#[test]
fn amrexs_arena_names_managed_memory_for_wsl() {
    // https://github.com/AMReX-Codes/amrex/issues/2892 (WSL 2: the managed arena failed)
    let t = triage(
        "amrex::Abort::0::CUDA error 2 in file ../../..//Src/Base/AMReX_Arena.cpp line 166: out of memory !!!",
    );
    let text = all_text(&t);
    assert!(text.contains("amrex.the_arena_is_managed=0"), "{text}");
    assert!(text.contains("WSL 2"), "{text}");
}

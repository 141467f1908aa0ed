//! Readings that turn on the text around a message: a folder listing beside a load error (the
//! file is there, its soname link is not), thrust's "parallel_for failed" outside CTranslate2,
//! cuDNN asking for CUDA's cuBLAS, cuTENSOR's own logger, ggml printing the architecture of the
//! code that ran, a container runtime that left no log, a driver floor given as a branch, Lua
//! Torch's paths, and the AMD fork of the Stable Diffusion web UI. Each line is from the public
//! thread cited.

use super::*;
use crate::engine::finding_codes as codes;

#[test]
fn a_listing_with_a_longer_version_names_the_missing_soname_link() {
    // https://github.com/ollama/ollama/issues/602 (the bundle held only libcudart.so.12.0)
    let t = triage(
        "error while loading shared libraries: libcudart.so.12: cannot open shared object file: No such file or directory\n\
         ls -al /tmp/ollama3423059418/llama.cpp/ggml/build/cuda/bin/\n\
         -rwxr-xr-x 1 ollama ollama 107473968 Sep 26 06:27 libcublas.so.12\n\
         -rwxr-xr-x 1 ollama ollama    687456 Sep 26 06:27 libcudart.so.12.0",
    );
    let f = message(&t, "dlopen-cannot-open");
    assert!(
        f.detail.starts_with("The text shows libcudart.so.12.0"),
        "{}",
        f.detail
    );
    assert_eq!(f.fixes[0].id, "advice-create-soname-link", "{:?}", f.fixes);
    assert!(
        f.fixes[0]
            .summary
            .contains("ln -s libcudart.so.12.0 libcudart.so.12")
    );
    // Without a listing, nothing is claimed about a link.
    let t = triage(
        "error while loading shared libraries: libcudart.so.12: cannot open shared object file: No such file or directory",
    );
    let f = message(&t, "dlopen-cannot-open");
    assert!(f.fixes.iter().all(|x| x.id != "advice-create-soname-link"));
}

#[test]
fn thrusts_parallel_for_is_ctranslate2s_only_when_ctranslate2_raises_it() {
    // https://github.com/PaddlePaddle/PaddleFleetX/issues/577 (a CUDA 10.2 build on an RTX 30)
    let t = triage(
        "W0111 18:22:37.147157   515 device_context.cc:447] Please NOTE: device: 0, GPU Compute Capability: 8.6, Driver API Version: 11.5, Runtime API Version: 10.2\n\
         SystemError: (Fatal) Operator uniform_random raises an thrust::system::system_error exception.\n\
         The exception content is\n\
         :parallel_for failed: cudaErrorNoKernelImageForDevice: no kernel image is available for execution on the device. (at /paddle/paddle/fluid/imperative/tracer.cc:221)",
    );
    assert!(
        !message_ids(&t).contains(&"ctranslate2-no-kernel-image"),
        "{:?}",
        message_ids(&t)
    );
    assert!(finding(&t, codes::GPU_ARCH_REFUSED).is_some_and(|f| f.summary.contains("sm_86")));
    // https://github.com/PaddlePaddle/PaddleDetection/issues/5206: Paddle raises the same words
    // as CTranslate2 ("RuntimeError: parallel_for failed"); with neither named, the reading is
    // the general one, which names both.
    let t = triage(
        "W0214 14:20:51.479054 24961 device_context.cc:447] Please NOTE: device: 0, GPU Compute Capability: 8.6, Driver API Version: 11.4, Runtime API Version: 10.2\n\
         RuntimeError: parallel_for failed: cudaErrorNoKernelImageForDevice: no kernel image is available for execution on the device",
    );
    assert!(!message_ids(&t).contains(&"ctranslate2-no-kernel-image"));
    let f = message(&t, "no-kernel-image");
    assert!(f.detail.contains("PaddlePaddle"), "{}", f.detail);
    assert!(finding(&t, codes::GPU_ARCH_REFUSED).is_some_and(|f| f.summary.contains("sm_86")));
    // CTranslate2's line where its app is named keeps its own reading.
    // https://github.com/SYSTRAN/faster-whisper/issues/806
    let t = triage(
        "  File \"C:\\Users\\Administrator\\.conda\\envs\\faster_whisper\\lib\\site-packages\\faster_whisper\\transcribe.py\", line 762, in encode\n\
         \x20   return self.model.encode(features, to_cpu=to_cpu)\n\
         RuntimeError: parallel_for failed: cudaErrorNoKernelImageForDevice: no kernel image is available for execution on the device",
    );
    assert!(message_ids(&t).contains(&"ctranslate2-no-kernel-image"));
}

#[test]
fn cudnn_asking_for_cublas_names_the_cuda_major_to_install() {
    // https://github.com/w-okada/voice-changer/issues/605 (no CUDA 12 installed)
    let t =
        triage("Could not locate cublasLt64_12.dll. Please make sure it is in your library path!");
    let f = message(&t, "cudnn-could-not-locate-cublas");
    assert!(f.summary.contains("CUDA 12"), "{}", f.summary);
    assert!(
        f.fixes
            .iter()
            .any(|x| x.summary.contains("nvidia-cublas-cu12"))
    );
    assert!(!message_ids(&t).contains(&"cudnn-could-not-locate"));
    // A cuDNN sub-library keeps the sub-library reading.
    let t =
        triage("Could not locate cudnn_ops64_9.dll. Please make sure it is in your library path!");
    assert!(message_ids(&t).contains(&"cudnn-could-not-locate"));
}

#[test]
fn cutensors_logger_gives_the_reason_and_the_status() {
    // https://github.com/LBANN/lbann/issues/2463 (a rank given no samples)
    let t = triage(
        "[2024-07-12 12:39:08][cuTENSOR][2491675][Api][cutensorInitTensorDescriptor] handle=0X7F84A24F35E0 desc=0X7FFF83FFACE0 numModes=4 extent=[8,8,512,0] stride=[1,8,64,32768] dataType=0 op=1\n\
         [2024-07-12 12:39:08][cuTENSOR][2491675][Error][cutensorInitTensorDescriptor] Extent (0) must be > 0.\n\
         [2024-07-12 12:39:08][cuTENSOR][2491675][Api][cutensorGetErrorString] error=15",
    );
    let f = message(&t, "cutensor-zero-extent");
    assert!(
        f.summary.contains("cutensorInitTensorDescriptor"),
        "{}",
        f.summary
    );
    // The general reading of the same line gives way, also when the next line is read as its
    // continuation.
    assert!(
        !message_ids(&t).contains(&"cutensor-logged-error"),
        "{:?}",
        message_ids(&t)
    );
    assert!(
        t.codes
            .iter()
            .any(|c| c.kind == "cutensor" && c.number == Some(15)),
        "{:?}",
        t.codes
    );
}

#[test]
fn ggmls_newest_compiled_architecture_is_not_the_gpus() {
    // https://github.com/leejet/stable-diffusion.cpp/issues/541 (compiled for 520 only)
    let t = triage(
        "ERROR: CUDA kernel mul_mat_vec has no device code compatible with CUDA arch 520. ggml-cuda.cu was compiled for: 520",
    );
    let f = finding(&t, codes::GPU_ARCH_REFUSED).unwrap();
    assert!(f.summary.contains("sm_52 or newer"), "{}", f.summary);
    assert!(
        f.fixes[0]
            .summary
            .contains("CMAKE_CUDA_ARCHITECTURES=native")
    );
    assert!(
        f.fixes.iter().all(|x| x.id != "advice-too-old-gpu"),
        "{:?}",
        f.fixes
    );
    // An architecture below the newest compiled is the GPU's (the build chose it for the GPU).
    let t = triage(
        "ERROR: CUDA kernel flash_attn_ext_f16 has no device code compatible with CUDA arch 610. ggml-cuda.cu was compiled for: 520,610,700",
    );
    let f = finding(&t, codes::GPU_ARCH_REFUSED).unwrap();
    assert!(f.summary.contains("sm_61 (Pascal"), "{}", f.summary);
}

#[test]
fn a_container_runtime_that_left_no_log_and_its_missing_hook() {
    // https://github.com/NVIDIA/nvidia-container-runtime/issues/68
    let head = "docker: Error response from daemon: OCI runtime create failed: unable to retrieve OCI runtime error (open /run/containerd/io.containerd.runtime.v1.linux/moby/af425d9814b0843b3eb4d17d6b9fdd47837728148961e9832e09e47cf4cb61e3/log.json: no such file or directory): nvidia-container-runtime did not terminate sucessfully";
    let t = triage(&format!(
        "{head}: 2019/07/23 17:28:30 ERROR: nvidia-container-runtime: inject NVIDIA hook: stat /usr/bin/nvidia-container-runtime-hook: no such file or directory"
    ));
    let f = message(&t, "nvidia-runtime-hook-missing");
    assert!(
        f.summary.contains("/usr/bin/nvidia-container-runtime-hook"),
        "{}",
        f.summary
    );
    assert!(!message_ids(&t).contains(&"docker-oci-runtime-no-log"));
    let t = triage(&format!("{head}: unknown."));
    assert!(message_ids(&t).contains(&"docker-oci-runtime-no-log"));
}

#[test]
fn a_driver_branch_floor_names_the_cuda_of_that_branch() {
    // https://github.com/modular/mojo-gpu-puzzles/pull/256 (JetPack's driver on a Jetson Orin)
    let t = triage(
        "Your current NVIDIA GPU driver version is not supported. Required: driver version >= 580 (CUDA >= 13.0) Detected: 540.4.0 (CUDA 12.6)",
    );
    let f = finding(&t, codes::DRIVER_TOO_OLD).unwrap();
    assert!(
        f.detail.contains("driver 580 is the one for CUDA 13.0"),
        "{}",
        f.detail
    );
}

#[test]
fn lua_torch_is_not_pytorch() {
    // https://github.com/nagadomi/waifu2x/issues/176 (a GPU below cuDNN's minimum)
    let t = triage(
        "/home/zhixin/torch/install/share/lua/5.1/cudnn/init.lua:145: Error in CuDNN: CUDNN_STATUS_ARCH_MISMATCH",
    );
    let text = all_text(&t);
    assert!(text.contains("Reported by Torch7 (Lua)"), "{text}");
    assert!(!text.contains("Reported by PyTorch"), "{text}");
}

#[test]
fn the_amd_fork_of_the_web_ui_is_named_on_an_nvidia_machine() {
    // https://github.com/LykosAI/StabilityMatrix/issues/1512 (an RTX 3080)
    let t = triage(
        "NVIDIA driver was found.\n\
         Version: v1.10.1-amd-53-g32f147b7\n\
         RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to disable this check",
    );
    assert_eq!(
        t.findings[0].code,
        "log-sd-webui-amd-fork",
        "{:?}",
        message_ids(&t)
    );
}

#[test]
fn tensorflows_self_check_names_the_release_its_dll_carries() {
    // https://github.com/deepfakes/faceswap-playground/issues/136 (CUDA 9.1 for a 9.0 build)
    let t = triage(
        "ImportError: Could not find 'cudart64_90.dll'. TensorFlow requires that this DLL be installed in a directory that is named in your %PATH% environment variable. Download and install CUDA 9.0 from this URL: https://developer.nvidia.com/cuda-toolkit",
    );
    let f = message(&t, "tf-self-check-missing-dll");
    assert!(
        f.detail.contains("cudart64_90.dll is CUDA 9.0"),
        "{}",
        f.detail
    );
    assert!(
        !f.detail.starts_with("TensorFlow 1.13-2.0 was built"),
        "{}",
        f.detail
    );
}

#[test]
fn a_wheel_of_another_major_in_the_text_is_named_in_the_load_error() {
    // https://github.com/m-bain/whisperX/issues/865 (torch 2.4 brought cuDNN 9; CTranslate2
    // 4.3.1 asks for cuDNN 8: torch 2.3.1 fixed it)
    let t = triage(
        "Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot open shared object file: No such file or directory\n\
         ctranslate2 4.3.1\n\
         nvidia-cudnn-cu12 9.1.0.70\n\
         torch 2.4.0",
    );
    let f = message(&t, "dlopen-cannot-open");
    assert!(
        f.detail
            .starts_with("The text shows nvidia-cudnn-cu12 9.1.0.70 installed: cuDNN 9"),
        "{}",
        f.detail
    );
    // The same major shown says nothing of the kind.
    let t = triage(
        "Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot open shared object file: No such file or directory\n\
         nvidia-cudnn-cu11 8.9.7.29",
    );
    assert!(
        !all_text(&t).contains("The text shows nvidia-cudnn"),
        "{}",
        all_text(&t)
    );
}

#[test]
fn numba_falling_back_to_a_bare_dll_name_reads_as_its_search_failing() {
    // https://github.com/numba/numba/issues/10169 (CUDA 13.0 on Windows)
    let t = triage(
        "Finding nvvm from CUDA_HOME\n\
         \tLocated at nvvm.dll\n\
         \tTrying to open library...\tERROR: failed to open nvvm:\n\
         Could not find module 'nvvm.dll' (or one of its dependencies). Try using the full path with constructor syntax.",
    );
    assert_eq!(t.findings[0].code, "log-numba-dll-not-found-in-cuda-home");
    assert!(
        t.findings[0].detail.contains("CUDA 13"),
        "{}",
        t.findings[0].detail
    );
}

#[test]
fn an_unregistered_plugin_creator_names_the_plugin_library_to_load() {
    // https://github.com/wang-xinyu/tensorrtx/issues/1141
    let t = triage(
        "[pluginV2Runner.cpp::load::292] Error Code 1: Serialization (Serialization assertion creator failed.Cannot deserialize plugin since corresponding IPluginCreator not found in Plugin Registry)",
    );
    assert_eq!(
        t.findings[0].code,
        "log-tensorrt-plugin-creator-not-in-registry"
    );
}

#[test]
fn a_minimum_compute_capability_not_found_is_the_gpus_age() {
    // https://github.com/iperov/DeepFaceLab/issues/264 (a GeForce 780M, compute capability 3.0)
    let t = triage("No CUDA device found with minimum required compute capability 3.5");
    assert_eq!(
        message_ids(&t),
        vec!["no-device-with-minimum-capability"],
        "the fallback 'no device' reading gives way"
    );
}

#[test]
fn an_unversioned_name_not_found_says_it_is_a_development_link() {
    // https://github.com/NVIDIA/nvidia-docker/issues/160 (TensorFlow 0.8 in a runtime image)
    let t = triage(
        "I tensorflow/stream_executor/dso_loader.cc:99] Couldn't open CUDA library libcudnn.so. LD_LIBRARY_PATH: /usr/local/nvidia/lib:/usr/local/nvidia/lib64:",
    );
    let f = finding(&t, codes::LIBRARY_NOT_FOUND).unwrap();
    assert!(
        f.fixes.iter().any(|x| x.id == "advice-link-unversioned"),
        "{:?}",
        f.fixes
    );
}

#[test]
fn an_undefined_symbol_names_the_library_that_needs_it() {
    // https://github.com/dusty-nv/jetson-containers/issues/472 (a JetPack 6 image on JetPack 5)
    let t = triage(
        "ImportError: /usr/local/cuda/compat/libnvcudla.so: undefined symbol: _ZN5nvdla8IRuntime22registerTaskStatisticsE15NvDlaMemDescRec15NvDlaAccessType",
    );
    let f = finding(&t, codes::MISSING_SYMBOL).unwrap();
    assert!(
        f.summary.starts_with("libnvcudla.so needs "),
        "{}",
        f.summary
    );
    assert!(f.detail.contains("forward-compatibility"), "{}", f.detail);
    assert!(f.detail.contains("nv_tegra_release"), "{}", f.detail);
    // A lookup by name (ctypes' attribute access: dlsym) names the library looked in.
    let t = triage("AttributeError: /usr/lib/libfoo.so: undefined symbol: foo_bar_baz");
    let f = finding(&t, codes::MISSING_SYMBOL).unwrap();
    assert_eq!(f.summary, "foo_bar_baz is missing from libfoo.so");
}

#[test]
fn a_library_asked_for_by_its_full_path_says_so() {
    // https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/554 (Fedora)
    let t = triage(
        "Failed to get live GPU info through LMS Core at '/home/u/.cache/lm-studio/extensions/backends/llama.cpp-linux-x86_64-nvidia-cuda-avx2-1.23.1/liblmstudio_bindings_cuda.node': Could not find or load NVML library: /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1: cannot open shared object file: No such file or directory",
    );
    let f = &t.findings[0];
    assert!(
        f.detail.starts_with(
            "The program asked for /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 by its full path"
        ),
        "{}",
        f.detail
    );
    assert!(f.detail.contains("/usr/lib64 on Fedora"), "{}", f.detail);
    assert_eq!(f.fixes[0].id, "advice-provide-full-path");
}

#[test]
fn a_package_built_for_a_newer_cuda_than_the_drivers_is_an_error() {
    // https://github.com/SYSTRAN/faster-whisper/issues/362 (cuDNN for CUDA 12.1, driver 470)
    let t = triage(
        "RuntimeError: cuDNN failed with status CUDNN_STATUS_NOT_INITIALIZED\n\
         | NVIDIA-SMI 470.199.02   Driver Version: 470.161.03   CUDA Version: 11.4     |\n\
         libcudnn8/unknown,now 8.9.3.28-1+cuda12.1 amd64 [installed]",
    );
    let f = finding(&t, codes::DRIVER_TOO_OLD).unwrap();
    assert!(
        f.summary.contains("needs NVIDIA driver 525.60.13"),
        "{}",
        f.summary
    );
    // A build the driver supports says nothing.
    let t = triage(
        "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n\
         libcudnn8/unknown,now 8.9.3.28-1+cuda12.1 amd64 [installed]",
    );
    assert!(finding(&t, codes::DRIVER_TOO_OLD).is_none());
}

#[test]
fn a_requirement_option_and_memory_amounts_are_not_versions() {
    // https://github.com/NVIDIA/nvidia-docker/issues/825 (nvidia-container-cli's command line)
    let t = triage(
        "exec command: [/usr/bin/nvidia-container-cli --load-kmods configure --ldconfig=@/sbin/ldconfig.real --device=all --compute --require=cuda>=8.0 --pid=32239 /var/lib/docker/overlay2/bd4f/merged]",
    );
    assert!(finding(&t, codes::VERSION_MISMATCH_REPORTED).is_none());
    // https://github.com/cyrusbehr/tensorrt-cpp-api/issues/78 (TensorRT's memory log)
    let t = triage(
        "[2024-06-13 20:21:01.375] [info] [MemUsageChange] Init CUDA: CPU +76, GPU +0, now: CPU 7990, GPU 1166 (MiB)",
    );
    assert!(
        finding(&t, codes::VERSION_NUMBERS_DECODED).is_none(),
        "{}",
        all_text(&t)
    );
}

#[test]
fn a_symbol_that_could_not_be_loaded_is_not_a_library_that_could_not() {
    // https://github.com/JuliaGPU/CUDA.jl/issues/1753 (a libcuda.so that is no NVIDIA driver)
    let t = triage(
        "ERROR: LoadError: InitError: could not load symbol \"cuDriverGetVersion\":\n\
         /usr/lib64/libcuda.so: undefined symbol: cuDriverGetVersion",
    );
    assert!(
        finding(&t, codes::DRIVER_LIBRARY_NOT_LOADED).is_none(),
        "{}",
        all_text(&t)
    );
    assert!(finding(&t, codes::DRIVER_ENTRY_POINT_MISSING).is_some());
}

//! Entities read however the line is phrased: a status named by NVML's words or the runtime's
//! message on a line that names only a driver API call, a Linux exit status that is not a
//! Windows error, driver CUDA integers of old releases, capability floors stated as a number,
//! GPU product names, the Python package whose import needed a missing library, and the
//! framework a version line names. Each input is a real line from the public thread cited above.

use super::*;
use crate::engine::finding_codes as codes;

#[test]
fn a_runtime_message_after_a_driver_call_is_its_code_with_the_fork_cause() {
    // https://github.com/mlcommons/inference_results_v3.0/issues/18
    let t = triage("pycuda._driver.LogicError: cuInit failed: initialization error");
    assert!(
        t.codes
            .iter()
            .any(|c| c.kind == "cuda" && c.number == Some(3)),
        "{:?}",
        t.codes
    );
    let text = all_text(&t);
    assert!(text.contains("fork") && text.contains("spawn"), "{text}");
    // Without a CUDA call on the line, the two-word message is nobody's code.
    assert!(triage("initialization error").codes.is_empty());
    // https://github.com/inducer/pycuda/issues/276 (WSL): 999 with its causes by platform.
    let t = triage("pycuda._driver.Error: cuInit failed: unknown error");
    let text = all_text(&t);
    assert!(text.contains("nvidia_uvm"), "{text}");
    assert!(text.contains("Fabric Manager"), "{text}");
    assert!(text.contains("TdrDelay"), "{text}");
}

#[test]
fn nvml_words_are_matched_with_the_header_comment() {
    // https://github.com/oddmario/NVIDIA-Ubuntu-Driver-Guide/issues/4
    let t = triage("Failed to initialize NVML: Driver/library version mismatch");
    assert!(
        t.codes
            .iter()
            .any(|c| c.kind == "nvml" && c.number == Some(18)),
        "{:?}",
        t.codes
    );
    let text = all_text(&t);
    assert!(text.contains("Reboot"), "{text}");
    assert!(text.contains("kernel module"), "{text}");
}

#[test]
fn a_linux_exit_status_is_not_a_windows_error() {
    // https://github.com/NVIDIA/nvidia-docker/issues/659 (CentOS 7.2)
    let t = triage(
        "nvidia-container-cli: ldcache error: process /sbin/ldconfig failed with error code: 1",
    );
    assert!(t.codes.iter().all(|c| c.kind != "win32"), "{:?}", t.codes);
    let text = all_text(&t);
    assert!(text.contains("config.toml"), "{text}");
    assert!(text.contains("ldconfig.real"), "{text}");
    // A Windows line keeps its error number.
    let w = triage("OSError: [WinError 126] The specified module could not be found");
    assert!(
        w.codes
            .iter()
            .any(|c| c.kind == "win32" && c.number == Some(126))
    );
}

#[test]
fn an_old_driver_integer_names_the_drivers_of_the_next_releases() {
    // https://github.com/rikdz/GraphWriter/issues/6
    let t = triage("The NVIDIA driver on your system is too old (found version 6050).");
    let v: Vec<&str> = t.versions.iter().map(|v| v.decoded.as_str()).collect();
    assert_eq!(v, ["6.5"]);
    let f = finding(&t, codes::VERSION_NUMBERS_DECODED).expect("the integer is decoded");
    assert!(f.detail.contains("CUDA 7.0: 346"), "{}", f.detail);
    assert!(f.detail.contains("CUDA 7.5: 352"), "{}", f.detail);
    // A year is still not a version.
    assert!(chains::version_integers("driver released in 2020 for CUDA").is_empty());
}

#[test]
fn a_capability_floor_as_a_number_and_the_gpu_the_text_names() {
    // https://github.com/NervanaSystems/neon/issues/80 (Tesla K80)
    let t = triage(
        "Found GPU(s) with compute capability: [3.7, 3.7]\n\
         RuntimeError: Device 0 does not have CUDA compute capability 5.0 or greater",
    );
    let f = finding(&t, codes::GPU_ARCH_REFUSED).expect("the floor is read");
    assert!(f.summary.contains("5.0"), "{}", f.summary);
    assert!(
        f.detail.contains("Kepler (3.0, 3.2, 3.5, 3.7)"),
        "{}",
        f.detail
    );
    // https://github.com/NVIDIA/nccl-tests/issues/79: the GPU named on another line stands for
    // its architecture.
    let t = triage(
        "#   Rank  0 Pid  48592 on zlabs-trainer device  0 [0x06] Tesla K80\n\
         zlabs-trainer: Test CUDA failure common.cu:253 'no kernel image is available for execution on the device'",
    );
    assert_eq!(t.architectures[0].arch, "sm_37");
    let g = knowledge::knowledge()
        .compute
        .gpu_on("GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-5f...)");
    assert_eq!(g.map(|(_, cc)| cc), Some("8.6"));
}

#[test]
fn the_package_whose_import_needed_the_library_is_named() {
    // https://github.com/open-mmlab/mmdetection/issues/8010 (the last frames of its traceback)
    let t = triage(
        "    from mmcv.ops import RoIPool\n\
           File \"/home/amax/anaconda3/envs/FJJ/lib/python3.8/site-packages/mmcv/utils/ext_loader.py\", line 13, in load_ext\n\
             ext = importlib.import_module('mmcv.' + name)\n\
           File \"/home/amax/anaconda3/envs/FJJ/lib/python3.8/importlib/__init__.py\", line 127, in import_module\n\
             return _bootstrap._gcd_import(name[level:], package, level)\n\
         ImportError: libcudart.so.10.2: cannot open shared object file: No such file",
    );
    let f = t
        .findings
        .iter()
        .find(|f| f.summary.starts_with("mmcv needs libcudart.so.10.2"))
        .expect("the importing package is named");
    assert!(
        f.summary.contains("CUDA 10.2 (CUDA runtime)"),
        "{}",
        f.summary
    );
    // https://github.com/mesunhlf/UPC-tf/issues/7: a bare missing library names no package.
    let plain = triage(
        "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory",
    );
    assert!(!all_text(&plain).contains(" needs libcudart"));
    // https://github.com/cupy/cupy/pull/7237: a Cython module's init frame behind a CI log prefix
    // names the compiled module (cuTENSOR's CUDA 12 build on a CUDA 11 runner).
    let cython = triage(
        "00:25:58.826866 STDOUT 1621]\t    from cupyx import cutensor\t\n\
         00:25:58.826990 STDOUT 1621]\t  File \"cupyx/cutensor.pyx\", line 1, in init cupyx.cutensor\t\n\
         00:25:58.827087 STDOUT 1621]\tImportError: libcublasLt.so.12: cannot open shared object file: No such file or directory\t",
    );
    let f = cython
        .findings
        .iter()
        .find(|f| {
            f.summary
                .starts_with("cupyx.cutensor needs libcublasLt.so.12")
        })
        .expect("the Cython module is named");
    assert!(f.detail.contains("cuTENSOR"), "{}", f.detail);
}

#[test]
fn a_version_line_names_the_framework_that_was_built() {
    // https://github.com/deepspeedai/DeepSpeed/issues/2902
    let t = triage(
        "Exception: >- DeepSpeed Op Builder: Installed CUDA version 12.0 does not match the version torch was compiled with 11.7, unable to compile cuda/cpp extensions",
    );
    let f = finding(&t, codes::VERSION_MISMATCH_REPORTED).expect("the pair is read");
    assert!(
        f.detail.starts_with("The program (PyTorch)"),
        "{}",
        f.detail
    );
}

#[test]
fn a_library_named_in_words_is_identified() {
    // https://github.com/hashcat/hashcat/issues/3275 (hashcat without the CUDA toolkit)
    let t = triage("Failed to initialize NVIDIA RTC library.");
    assert_eq!(files(&t)[0].1, "NVRTC");
    // A library that is only mentioned, not failing, is not read from prose.
    assert!(
        triage("Using the cuDNN library for convolutions")
            .identified
            .is_empty()
    );
}

#[test]
fn a_versioned_undefined_reference_names_the_library_the_link_lacks() {
    // https://github.com/abetlen/llama-cpp-python/issues/1752
    let c = chains::chains(
        "      /root/miniconda3/envs/textgen/compiler_compat/ld: vendor/llama.cpp/ggml/src/libggml.so: undefined reference to `cudaGraphInstantiate@libcudart.so.12'",
    );
    assert_eq!(
        (c[0].needed_by.as_str(), c[0].missing.as_str()),
        ("libggml.so", "libcudart.so.12")
    );
    // https://github.com/abetlen/llama-cpp-python/issues/1639: a C library's symbol version is
    // not a library.
    assert!(
        chains::chains(
            "/home/lx/.conda/envs/py310/compiler_compat/ld: /usr/local/cuda-11.7/lib64/libcudart.so.11.0: undefined reference to `dlsym@GLIBC_2.2.5'"
        )
        .is_empty()
    );
}

#[test]
fn a_driver_and_runtime_version_side_by_side_are_compared() {
    // https://github.com/PaddlePaddle/PaddleSeg/issues/3470
    let t = triage(
        "gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: 7.0, Driver API Version: 11.4, Runtime API Version: 11.7",
    );
    let f = finding(&t, codes::DRIVER_TOO_OLD).expect("the pair is compared");
    assert_eq!(f.severity, crate::engine::findings::Severity::Warning);
    assert!(
        f.detail.contains("minor-version compatibility"),
        "{}",
        f.detail
    );
    // https://github.com/PaddlePaddle/Paddle/issues/62578: a runtime older than the driver is fine.
    let t = triage(
        "W0311 21:06:30.812400 31235 gpu_resources.cc:61] Please NOTE: device: 0, GPU Compute Capability: 7.5, Driver API Version: 11.4, Runtime API Version: 11.2",
    );
    assert!(finding(&t, codes::DRIVER_TOO_OLD).is_none());
}

#[test]
fn build_tags_name_their_cuda_release() {
    // https://github.com/sekwiatkowski/komputation/issues/12: JCuda 0.8.0 binds CUDA 8.0.
    let t = build_tags::build_tags(
        "java.lang.UnsatisfiedLinkError: Error while loading native library \"JNvrtc-0.8.0-windows-x86_64\"",
    );
    assert_eq!(t[0].cuda, "8.0");
    // https://github.com/jcuda/jcuda-samples/issues/2: the DLL of that release it loads.
    let text = all_text(&triage(
        "Exception in thread \"main\" java.lang.UnsatisfiedLinkError: Error while loading native library \"JCublas2-0.8.0-windows-x86_64\"",
    ));
    assert!(text.contains("cublas64_80.dll"), "{text}");
    // https://github.com/jcuda/jcuda-samples/issues/10: from 10.0 on, the version is CUDA's.
    let t = build_tags::build_tags(
        "Exception in thread \"main\" java.lang.UnsatisfiedLinkError: Error while loading native library \"JCudaDriver-11.1.1-windows-x86_64\"",
    );
    assert_eq!(t[0].cuda, "11.1");
    // https://github.com/ddPn08/automatic1111-colab/issues/62 (torch's local version and its
    // wheel index).
    let t = build_tags::build_tags(
        "%pip install torch==2.0.0+cu118 torchvision==0.15.1+cu118 torchtext torchaudio torchdata==0.6.0 --index-url https://download.pytorch.org/whl/cu118",
    );
    let tags: Vec<(&str, &str)> = t
        .iter()
        .map(|t| (t.tag.as_str(), t.cuda.as_str()))
        .collect();
    assert_eq!(tags, [("+cu118", "11.8"), ("whl/cu118", "11.8")]);
}

#[test]
fn an_old_runtime_error_number_is_read_in_the_numbering_of_its_time() {
    // https://github.com/pytorch/pytorch/issues/10853 (CUDA 9.2: error 6 was the launch timeout)
    let t = triage(
        "RuntimeError: cuda runtime error (6) : the launch timed out and was terminated at /opt/conda/conda-bld/pytorch_1532582123400/work/aten/src/THC/generic/THCStorage.cpp:36",
    );
    let found: Vec<&str> = t.findings.iter().map(|f| f.code.as_str()).collect();
    assert!(found.contains(&"cuda-error-702"), "{found:?}");
    assert!(!found.contains(&"cuda-error-6"), "{found:?}");
    assert!(all_text(&t).contains("TdrDelay"));
}

#[test]
fn context_words_choose_which_cause_of_a_code_comes_first() {
    // https://github.com/lllyasviel/stable-diffusion-webui-forge/issues/763 (Windows, Tesla M40)
    let t = triage(
        "  File \"D:\\stable-diffusion\\forge\\stable-diffusion-webui-forge\\modules\\devices.py\", line 39, in torch_gc\n\
         RuntimeError: CUDA error: the launch timed out and was terminated",
    );
    let f = finding(&t, "cuda-error-702").expect("the code is read");
    assert!(f.detail.starts_with("Here (the text says"), "{}", f.detail);
    assert!(f.detail.contains("TdrDelay"), "{}", f.detail);
    // Without the context words, no cause is singled out.
    let plain = triage("RuntimeError: CUDA error: the launch timed out and was terminated");
    let f = finding(&plain, "cuda-error-702").expect("the code is read");
    assert!(!f.detail.starts_with("Here"), "{}", f.detail);
    // Every case's context words compile.
    for row in &knowledge::knowledge().catalog.codes {
        for c in &row.cases {
            assert!(regex::Regex::new(&c.when).is_ok(), "{}", c.when);
        }
    }
}

#[test]
fn a_cuda_number_at_the_end_of_a_sentence_is_read() {
    // https://github.com/lewes6369/TensorRT-Yolov3/issues/61 (TensorRT's start-up check): "error 35." ends a sentence.
    let t = triage(
        "ERROR: Cuda initialization failure with error 35. Please check cuda installation:  http://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html.",
    );
    assert!(
        t.codes
            .iter()
            .any(|c| c.kind == "cuda" && c.number == Some(35)),
        "{:?}",
        t.codes
    );
    // A version ("CUDA error 12.4") is still not a number.
    let t = triage("built with CUDA version 12.4.1");
    assert!(
        t.codes.iter().all(|c| c.number != Some(12)),
        "{:?}",
        t.codes
    );
}

#[test]
fn tensorrts_error_code_with_a_component_is_its_own_and_its_version_pair_is_read() {
    // https://github.com/NVIDIA/TensorRT/issues/2580 (engine built with another CUDA's cuBLASLt)
    let t = triage(
        "Error Code 1: Myelin (Compiled against cuBLASLt 11.5.1.0 but running against cuBLASLt 11.4.2.0.)",
    );
    assert!(
        t.codes.iter().all(|c| c.kind != "win32"),
        "not a Windows error: {:?}",
        t.codes
    );
    assert!(
        t.codes.iter().any(|c| c.kind == "tensorrt"),
        "{:?}",
        t.codes
    );
    let f = finding(&t, codes::VERSION_MISMATCH_REPORTED).expect("the pair is read");
    assert!(
        f.summary
            .contains("built with cuBLASLt 11.5.1.0, but cuBLASLt 11.4.2.0 was loaded"),
        "{}",
        f.summary
    );
}

#[test]
fn an_nvml_status_without_its_prefix_is_read_on_an_nvml_line() {
    // https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/issues/1272 (go-nvml's spelling)
    let t = triage(
        "Error: error creating driver: error enumerating all possible devices: error enumerating GPUs and MIG devices: error initializing NVML: ERROR_LIBRARY_NOT_FOUND",
    );
    assert!(
        t.codes
            .iter()
            .any(|c| c.kind == "nvml" && c.name.as_deref() == Some("NVML_ERROR_LIBRARY_NOT_FOUND")),
        "{:?}",
        t.codes
    );
    assert!(all_text(&t).contains("libnvidia-ml.so.1"));
    // The same bare word on a line that says nothing of NVML is not NVML's.
    let t = triage("ERROR_LIBRARY_NOT_FOUND while loading the plugin");
    assert!(t.codes.iter().all(|c| c.kind != "nvml"), "{:?}", t.codes);
}

#[test]
fn a_status_a_check_compares_with_is_not_the_error_reported() {
    // https://github.com/TuSimple/mx-maskrcnn/issues/52 (MXNet's check accepts two statuses)
    let t = triage(
        "src/storage/storage.cc:59: Check failed: e == cudaSuccess || e == cudaErrorCudartUnloading CUDA: invalid device ordinal",
    );
    let names: Vec<_> = t.codes.iter().filter_map(|c| c.name.as_deref()).collect();
    assert!(!names.contains(&"cudaErrorCudartUnloading"), "{names:?}");
    assert!(
        t.codes
            .iter()
            .any(|c| c.kind == "cuda" && c.number == Some(101)),
        "the message's own error is read: {:?}",
        t.codes
    );
    // https://github.com/deepinsight/insightface/issues/1449
    let t = triage(
        "mxnet.base.MXNetError: [09:20:39] src/operator/nn/./cudnn/cudnn_convolution-inl.h:683: Check failed: e == CUDNN_STATUS_SUCCESS (4 vs. 0) : cuDNN: CUDNN_STATUS_INTERNAL_ERROR",
    );
    let names: Vec<_> = t.codes.iter().filter_map(|c| c.name.as_deref()).collect();
    assert!(!names.contains(&"CUDNN_STATUS_SUCCESS"), "{names:?}");
    assert!(names.contains(&"CUDNN_STATUS_INTERNAL_ERROR"), "{names:?}");
}

#[test]
fn pythons_winerror_is_windows_on_any_line_and_advice_reports_no_error() {
    // https://github.com/ultralytics/yolov5/issues/10706 (a TensorRT export on Windows)
    let t = triage("TensorRT: export failure  0.1s: [WinError 127]");
    assert!(
        t.codes
            .iter()
            .any(|c| c.kind == "win32" && c.number == Some(127)),
        "{:?}",
        t.codes
    );
    assert!(
        t.codes.iter().all(|c| c.kind != "tensorrt"),
        "{:?}",
        t.codes
    );
    // https://github.com/xinntao/Real-ESRGAN/issues/710: the hint Real-ESRGAN prints after any
    // error is no out-of-memory report.
    let t = triage(
        "Error \"slow_conv2d_cpu\" not implemented for 'Half'\nIf you encounter CUDA out of memory, try to set --tile with a smaller number.",
    );
    assert!(t.codes.iter().all(|c| c.number != Some(2)), "{:?}", t.codes);
    assert!(
        t.findings
            .iter()
            .all(|f| !f.summary.to_lowercase().contains("ran out of memory")),
        "{:?}",
        t.findings
    );
}

#[test]
fn a_family_reading_does_not_take_an_advice_line() {
    // The generic out-of-memory row alone, without Real-ESRGAN's own row for its hint
    // (https://github.com/xinntao/Real-ESRGAN/issues/710).
    let k = crate::engine::knowledge::Knowledge {
        catalog: std::sync::LazyLock::new(|| {
            crate::engine::knowledge::knowledge()
                .catalog
                .only(&["gpu-out-of-memory-generic"])
        }),
        ..Default::default()
    };
    let hint = "If you encounter CUDA out of memory, try to set --tile with a smaller number.";
    assert!(
        crate::engine::triage::classify::match_messages(hint, &k).is_empty(),
        "an advice line is no out-of-memory report"
    );
    // The row's own example, PaddlePaddle's report, is still read.
    let example = &k.catalog.messages[0].example;
    let read = crate::engine::triage::classify::match_messages(example, &k);
    assert!(!read.is_empty(), "the example is read");
    assert!(
        read.iter().all(|m| m.id == "gpu-out-of-memory-generic"),
        "{read:?}"
    );
}

//! Library statuses and refusals read from the words around them: a status number after a
//! failure word and a colon (CUPTI, cuFFT), a call's arguments before "failed with error N"
//! (nvJitLink), libraries that refuse a GPU (cuSPARSELt, TensorRT-LLM's attention), LTO-IR for a
//! newer GPU, the CPU build of ONNX Runtime, a package's list of library names (Julia, scikit-cuda),
//! bitsandbytes without a build for the CUDA it picked, a profiler standing in for the driver,
//! stream capture and destroyed contexts, a second cuDNN, a bundled NVML, and WinError 127 in
//! torch's own loader. Each line is from the public thread cited.

use super::*;
use crate::engine::finding_codes as codes;

fn has_code(t: &Triage, kind: &str, number: i64) -> bool {
    t.codes
        .iter()
        .any(|c| c.kind == kind && c.number == Some(number))
}

#[test]
fn a_status_after_a_failure_word_and_a_colon_is_the_librarys() {
    // https://github.com/rapidsai/rapidsmpf/issues/500 (under compute-sanitizer)
    let t = triage(
        "C++ exception with description \"Failed to initialize CUPTI: 39\" thrown in the test body.",
    );
    assert!(has_code(&t, "cupti", 39), "{:?}", t.codes);
    // https://github.com/keithito/tacotron/issues/300 (an RTX 2070 with CUDA 9.0)
    let t = triage(
        "E tensorflow/stream_executor/cuda/cuda_fft.cc:261] failed to make cuFFT batched plan:5",
    );
    assert!(has_code(&t, "cufft", 5), "{:?}", t.codes);
    // A process's exit status is not one.
    let t = triage("error: cuFFT test runner exited with exit status: 1");
    assert!(!has_code(&t, "cufft", 1), "{:?}", t.codes);
}

#[test]
fn nvjitlink_refusing_ltoir_for_a_newer_gpu() {
    // https://github.com/m-schuetz/SimLOD/issues/9 (NVRTC hard-coded to compute_89)
    let t = triage(
        "error: nvJitLinkAddData(handle, NVJITLINK_INPUT_LTOIR, (void *)module->ltoir, module->ltoirSize, \"module label\") failed with error 6\n\
         error: ERROR 89 in LTOIR arch newer than target arch",
    );
    assert!(has_code(&t, "nvjitlink", 6), "{:?}", t.codes);
    let f = message(&t, "nvjitlink-ltoir-arch-newer-than-target");
    assert!(
        f.fixes
            .iter()
            .any(|x| x.summary.contains("compute capability at run time")),
        "{:?}",
        f.fixes
    );
}

#[test]
fn libraries_that_refuse_a_gpu_say_which_gpus_they_take() {
    // https://github.com/pytorch/pytorch/pull/136898 (cuSPARSELt 0.5.2 on SM 9.0)
    let t = triage(
        "RuntimeError: CUDA error: architecture mismatch when calling `cusparseLtInit(&handle)`",
    );
    let f = message(&t, "cusparselt-architecture-mismatch");
    assert!(f.summary.contains("cusparseLtInit"), "{}", f.summary);
    assert!(f.detail.contains("Ampere"), "{}", f.detail);
    // https://github.com/NVIDIA/TensorRT-LLM/issues/320 (a V100)
    let t = triage(
        "[TensorRT-LLM][ERROR] Assertion failed: Unsupported architecture (/home/build/TensorRT_LLM/TensorRT-LLM-master/cpp/tensorrt_llm/kernels/contextFusedMultiHeadAttention/fmhaRunner.cpp:87)",
    );
    let f = message(&t, "tensorrt-llm-fmha-unsupported-architecture");
    assert!(
        f.fixes
            .iter()
            .any(|x| x.summary.contains("--context_fmha disable")),
        "{:?}",
        f.fixes
    );
}

#[test]
fn the_cpu_onnxruntime_lacks_the_gpu_providers_entry_point() {
    // https://github.com/dotnet/machinelearning/issues/4656 (ML.NET 1.4's OnnxTransformer)
    let t = triage(
        "System.EntryPointNotFoundException: Unable to find an entry point named 'OrtSessionOptionsAppendExecutionProvider_CUDA' in DLL 'onnxruntime'.",
    );
    let f = message(&t, "onnxruntime-cpu-build-without-cuda-provider");
    assert!(f.summary.contains("the CPU package's"), "{}", f.summary);
    assert!(
        finding(&t, codes::MISSING_SYMBOL).is_none(),
        "{:?}",
        codes(&t)
    );
}

#[test]
fn a_packages_own_list_of_library_names_is_named() {
    // https://github.com/pluskid/Mocha.jl/issues/164 (CUDA 7.5, not in the list)
    let t = triage(
        "julia> init(backend)\nERROR: error compiling init: error compiling create: could not load library \"\"\nThe specified module could not be found.",
    );
    message(&t, "julia-dlopen-empty-library-name");
    // https://github.com/lebedov/scikit-cuda/issues/179 (CUDA 8.0, not in _version_list)
    let t = triage(
        "  File \"C:\\Anaconda2\\Lib\\site-packages\\skcuda\\cublas.py\", line 55, in <module>\n    raise OSError('cublas library not found')\nOSError: cublas library not found",
    );
    let f = message(&t, "skcuda-library-not-found");
    assert!(f.detail.contains("_version_list"), "{}", f.detail);
}

#[test]
fn bitsandbytes_configured_for_a_cuda_it_has_no_build_for() {
    // https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1848 (CUDA 13.1)
    let t = triage(
        "Original error: Configured CUDA binary not found at /usr/local/lib/python3.12/dist-packages/bitsandbytes/libbitsandbytes_cuda131.so",
    );
    let f = message(&t, "bitsandbytes-no-binary-for-torch-cuda");
    assert!(f.summary.contains("CUDA 13.1"), "{}", f.summary);
    assert!(
        f.fixes
            .iter()
            .any(|x| x.summary.contains("BNB_CUDA_VERSION=130")),
        "{:?}",
        f.fixes
    );
}

#[test]
fn a_profilers_injection_library_is_not_an_old_driver() {
    // https://github.com/vortex-data/vortex/pull/6660 (a cudarc program under ncu)
    let t = triage(
        "Expected symbol in library: DlSym { desc: \"/usr/lib/x86_64-linux-gnu/nsight-compute/target/linux-desktop-glibc_2_11_3-x64/./libcuda-injection.so: undefined symbol: cuTensorMapEncodeIm2colWide\" }",
    );
    let f = finding(&t, codes::DRIVER_ENTRY_POINT_MISSING).expect("a driver entry point");
    assert!(f.summary.contains("profiler"), "{}", f.summary);
    assert!(!f.summary.contains("driver is older"), "{}", f.summary);
}

#[test]
fn stream_capture_and_destroyed_contexts_get_their_usual_causes() {
    // https://github.com/ggml-org/llama.cpp/issues/21682
    let t = triage("CUDA error: operation not permitted when stream is capturing");
    let f = finding(&t, "cuda-error-900").expect("900 is read");
    assert!(
        f.fixes
            .iter()
            .any(|x| x.summary.contains("GGML_CUDA_DISABLE_GRAPHS=1")),
        "{:?}",
        f.fixes
    );
    // https://github.com/lebedov/scikit-cuda/issues/330
    let t = triage("pycuda._driver.LogicError: cuMemAlloc failed: context is destroyed");
    let f = finding(&t, "cuda-error-709").expect("709 is read");
    assert!(
        f.fixes
            .iter()
            .any(|x| x.summary.contains("pycuda.autoprimaryctx")),
        "{:?}",
        f.fixes
    );
}

#[test]
fn a_second_cudnn_and_a_bundled_nvml_are_named() {
    // https://github.com/modelscope/ms-swift/issues/6931
    let t = triage(
        "RuntimeError: CUDNN_BACKEND_TENSOR_DESCRIPTOR cudnnFinalize failedptrDesc->finalize() cudnn_status: CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED",
    );
    assert!(
        all_text(&t).contains("pip uninstall nvidia-cudnn-cu12"),
        "{}",
        all_text(&t)
    );
    // https://github.com/flatpak/flatpak/issues/2571 (GWE's Flatpak)
    let t = triage(
        "py3nvml.py3nvml.NVMLError_LibRmVersionMismatch: RM has detected an NVML/RM version mismatch.",
    );
    assert!(all_text(&t).contains("Flatpak"), "{}", all_text(&t));
}

#[test]
fn winerror_127_in_torchs_loader_points_at_another_version_loaded_first() {
    // https://github.com/HypoX64/DeepMosaics/issues/47 (a C++ host with another cudnn64_7.dll)
    let t = triage(
        r#"OSError: [WinError 127] 找不到指定的程序。 Error loading "E:\development\Anaconda3\envs\mvposepy37t1\lib\site-packages\torch\lib\caffe2_detectron_ops_gpu.dll" or one of its dependencies."#,
    );
    let f = message(&t, "torch-winerror-loading-dll");
    assert!(
        f.detail.contains("already loaded into the process"),
        "{}",
        f.detail
    );
}

#[test]
fn cuptis_single_subscriber_is_not_read_as_an_unsupported_data_type() {
    // https://github.com/rapidsai/rapidsmpf/issues/500 (under compute-sanitizer)
    let t = triage(
        "C++ exception with description \"Failed to initialize CUPTI: 39\" thrown in the test body.",
    );
    let text = all_text(&t);
    assert!(text.contains("compute-sanitizer"), "{text}");
    assert!(!text.contains("BF16"), "{text}");
}

//! The general reading rules added for lines gathered from public reports after the project's
//! corpus: architectures a GPU's own line names, capability floors, empty architecture lists,
//! generation minimums, library names without an extension, the library a missing API function
//! belongs to, status numbers after a library's function, and C-library texts that are not CUDA's.
//! Each input is a real line from the public thread cited above it.

use super::*;
use crate::engine::finding_codes as codes;

#[test]
fn a_refusal_without_an_architecture_takes_the_gpu_another_line_names() {
    // https://github.com/OpenBMB/BMInf/issues/29 (Tesla P100)
    let t = triage(
        "GPU Device 0: \"Pascal\" with compute capability 6.0\n\
         RuntimeError: CUDA Error: no kernel image is available for execution on the device",
    );
    assert_eq!(t.architectures[0].arch, "sm_60");
    let f = finding(&t, codes::GPU_ARCH_REFUSED).expect("the GPU's architecture is named");
    assert!(f.summary.contains("Pascal"), "{}", f.summary);
    assert!(f.detail.contains("CUDA 8.0"), "{}", f.detail);
    // The advice names the build systems' architecture settings.
    let fix = &f.fixes[0].summary;
    assert!(fix.contains("CMAKE_CUDA_ARCHITECTURES=60"), "{fix}");
    assert!(fix.contains("TORCH_CUDA_ARCH_LIST=\"6.0\""), "{fix}");
}

#[test]
fn two_digit_capabilities_and_dropped_generations() {
    // https://github.com/fireice-uk/xmr-stak/issues/258 (GT 705, Fermi)
    let t = triage("WARNING: NVIDIA GPU 0: miner not compiled for the gpu architecture 21.");
    let f = finding(&t, codes::GPU_ARCH_REFUSED).expect("architecture 21 is sm_21");
    assert!(f.summary.contains("Fermi"), "{}", f.summary);
    assert!(
        f.detail.contains("CUDA 9.0 and newer cannot build for it"),
        "{}",
        f.detail
    );
}

#[test]
fn a_capability_floor_is_not_the_gpu() {
    // vLLM's dtype check (vllm/worker/worker.py, _check_if_gpu_supports_dtype)
    let t = triage(
        "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU has compute capability 7.5.",
    );
    assert_eq!(t.architectures[0].arch, "sm_75");
    assert_eq!(t.architectures[0].minimum.as_deref(), Some("8.0"));
}

#[test]
fn an_empty_architecture_is_detection_without_a_gpu() {
    // https://github.com/colmap/colmap/issues/1822 (CUDA_ARCHITECTURES=native in a docker build)
    let t = triage("nvcc fatal : Unsupported gpu architecture 'compute_'");
    let f = finding(&t, codes::GPU_ARCH_REFUSED).expect("an empty value is refused");
    assert!(
        f.detail.contains("CMAKE_CUDA_ARCHITECTURES"),
        "{}",
        f.detail
    );
    assert!(f.fixes[0].summary.contains("-DCMAKE_CUDA_ARCHITECTURES="));
}

#[test]
fn a_generation_minimum_names_its_first_capability() {
    // https://github.com/Dao-AILab/flash-attention/issues/762
    let t = triage("RuntimeError: FlashAttention only supports Ampere GPUs or newer.");
    let f = finding(&t, codes::GPU_ARCH_REFUSED).expect("a generation floor");
    assert!(
        f.summary.contains("compute capability 8.0"),
        "{}",
        f.summary
    );
    assert!(
        f.summary.starts_with("FlashAttention needs an Ampere GPU"),
        "{}",
        f.summary
    );
    assert!(f.detail.contains("Turing (7.5)"), "{}", f.detail);
    assert!(
        triage("Ampere and Hopper GPUs are supported")
            .findings
            .is_empty()
    );
}

#[test]
fn names_without_an_extension_are_resolved_to_the_platform_files() {
    // https://github.com/chelsea0x3b/cudarc/issues/274 (cudarc's candidate names)
    let t = triage(
        "Unable to dynamically load the \"cublas\" shared library - searched for library names: [\"cublas\", \"cublas64\", \"cublas64_12\"]. Ensure that `LD_LIBRARY_PATH` has the correct path to the installed library.",
    );
    assert!(
        t.identified.iter().any(|i| i.component == "cuBLAS"),
        "{:?}",
        t.identified
    );
    // https://github.com/JuliaGPU/CUDAdrv.jl/issues/174 (Julia on Windows asked for libcuda)
    let t = triage(
        "error compiling __hidden_init__: error compiling cuInit: could not load library \"libcuda\"\nThe specified module could not be found.",
    );
    let f = finding(&t, codes::DRIVER_LIBRARY_NOT_LOADED).expect("libcuda is the driver");
    assert!(f.detail.contains("nvcuda.dll"), "{}", f.detail);
}

#[test]
fn a_missing_api_function_names_its_library() {
    // https://github.com/pytorch/pytorch/issues/119932 (an older NCCL found first)
    let t = triage(
        "ImportError: /usr/lib/python3/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister",
    );
    let f = finding(&t, codes::MISSING_SYMBOL).expect("a missing symbol");
    assert!(
        f.summary.starts_with("ncclCommRegister is a NCCL function"),
        "{}",
        f.summary
    );
    assert!(f.detail.contains("libnccl.so.2"), "{}", f.detail);
    // A C++ symbol of another library is not taken for an API function.
    assert!(super::super::symbol_owner::api_owner("_ZN5torch4cuda4nccl6detail").is_none());
    assert!(super::super::symbol_owner::api_owner("ncclx").is_none());
    assert_eq!(
        super::super::symbol_owner::api_owner("cublasLtMatmul").map(|o| o.component),
        Some("cuBLASLt")
    );
}

#[test]
fn a_number_after_a_library_function_is_that_library_status() {
    // https://github.com/RRZE-HPC/likwid/issues/347
    let t = triage(
        "Error: function (*cuptiProfilerBeginSessionPtr)(&beginSessionParams) failed with error 35.",
    );
    assert!(
        t.codes.iter().any(|c| c.kind == "cupti"
            && c.name.as_deref() == Some("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES")),
        "{:?}",
        t.codes
    );
    // https://github.com/ollama/ollama/issues/11373
    let t = triage(
        "cuda driver library failed to get device context 800time=2025-07-11T07:00:00.476Z level=WARN source=gpu.go:434 msg=\"error looking up nvidia GPU memory\"",
    );
    assert!(
        t.codes.iter().any(|c| c.number == Some(800)),
        "{:?}",
        t.codes
    );
}

#[test]
fn the_c_library_texts_are_not_cuda_codes_on_lines_without_cuda() {
    // https://github.com/NVIDIA/libnvidia-container/issues/154 (Docker inside an LXC container)
    let t = triage(
        "nvidia-container-cli: mount error: failed to add device rules: unable to find any existing device filters attached to the cgroup: bpf_prog_query(BPF_CGROUP_DEVICE) failed: operation not permitted: unknown",
    );
    assert!(t.codes.is_empty(), "{:?}", t.codes);
    assert!(finding(&t, "log-container-cli-bpf-device-filter").is_some());
}

#[test]
fn version_lines_name_what_to_install() {
    // https://github.com/m-bain/whisperX/issues/320
    let t = triage(
        "RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA versions. PyTorch has CUDA Version=11.7 and torchvision has CUDA Version=11.8",
    );
    assert!(all_text(&t).contains("https://download.pytorch.org/whl/cu117"));
    // https://github.com/NVIDIA/TensorRT/issues/3898 (two TensorRT installs)
    let t = triage(
        "[TRT] [E] 1: [stdArchiveReader.cpp::StdArchiveReaderInitCommon::46] Error Code 1: Serialization (Serialization assertion stdVersionRead == serializationVersion failed.Version tag does not match. Note: Current Version: 236, Serialized Engine Version: 237)",
    );
    assert!(finding(&t, "log-tensorrt-engine-version-tag").is_some());
    // https://github.com/numba/numba/issues/8961 (PTX ISA 8.1 from CUDA 12.1, JIT-compiled by the driver)
    let t = triage(
        "ptxas application ptx input, line 9; fatal   : Unsupported .version 8.1; current version is '8.0'",
    );
    let f = finding(&t, codes::PTXAS_TOO_OLD).expect("a PTX ISA refusal");
    assert!(f.detail.contains("530."), "{}", f.detail);
}

#[test]
fn a_host_saying_a_library_did_not_load_is_an_error_once() {
    // Julia Libdl.dlopen's phrasing, as in https://github.com/JuliaGPU/CUDAdrv.jl/issues/174, for cuBLAS
    let t = triage("ERROR: LoadError: could not load library \"libcublas\"");
    let f = finding(&t, codes::LIBRARY_NOT_FOUND).expect("cuBLAS did not load");
    assert!(f.summary.contains("cuBLAS"), "{}", f.summary);
    // The Linux loader's own message already names it: no second error.
    let t = triage(
        "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory",
    );
    assert!(
        finding(&t, codes::LIBRARY_NOT_FOUND).is_none(),
        "{:?}",
        codes(&t)
    );
    // Only named, not failing: nothing.
    assert!(
        finding(
            &triage("found libcudnn.so.8 in /usr/lib"),
            codes::LIBRARY_NOT_FOUND
        )
        .is_none()
    );
}

#[test]
fn broad_refusal_words_count_only_with_an_architecture_on_the_line() {
    // LLVM's message for a CPU/GPU name its target lacks (llvm/lib/MC/MCSubtargetInfo.cpp), as the
    // NVPTX back end of clang, Julia and llvmlite prints it for an architecture it does not know
    let t = triage("error: 'sm_35' is not a recognized processor for this target");
    assert_eq!(t.architectures[0].arch, "sm_35");
    // "not supported" alone, with an architecture elsewhere, is not a refusal.
    let t = triage("Using sm_86\nfp16 is not supported on this platform");
    assert!(t.architectures.is_empty(), "{:?}", t.architectures);
}

#[test]
fn dgls_device_api_gpu_not_enabled_is_a_build_without_cuda() {
    // https://github.com/THUDM/GraphMAE/issues/9 (a CPU-only DGL)
    let t = triage(
        "dgl._ffi.base.DGLError: [21:48:49] /opt/dgl/src/runtime/c_runtime_api.cc:88: Check failed: allow_missing: Device API gpu is not enabled. Please install the cuda version of dgl.",
    );
    assert!(message_ids(&t).contains(&"program-built-without-cuda"));
}

#[test]
fn a_capability_printed_as_two_numbers_is_the_gpus() {
    // https://github.com/huggingface/text-generation-inference/issues/1161 (Tesla T4)
    let t = triage(
        "2023-10-17T07:47:06.229031Z WARN text_generation_launcher: Unable to use Flash Attention V2: GPU with CUDA capability 7 5 is not supported for Flash Attention V2",
    );
    assert_eq!(t.architectures[0].arch, "sm_75");
}

#[test]
fn a_header_and_library_version_pair_is_a_cudnn_mismatch() {
    // https://github.com/Theano/Theano/issues/5581 (cuDNN 5.0.5 headers, 5.1.10 loaded)
    let t = triage(
        "RuntimeError: Mixed dnn version. The header is version 5005 while the library is version 5110.",
    );
    let pair = &t.version_pairs[0];
    assert_eq!(
        (
            pair.product.as_str(),
            pair.built.as_str(),
            pair.loaded.as_str()
        ),
        ("cuDNN", "5.0.5", "5.1.10")
    );
}

#[test]
fn more_general_words_for_no_cuda_and_a_floor_stated_after_the_version() {
    // The family's alternatives for "no usable CUDA here", not tied to one program's wording.
    for line in [
        "CUDA not detected",
        "Could not find a compatible CUDA device",
        "This program requires an NVIDIA GPU with CUDA support",
    ] {
        assert!(
            message_ids(&triage(line)).contains(&"framework-cuda-unavailable"),
            "{line}"
        );
    }
    let t = triage("The detected CUDA driver version 11.4 is lower than the required version 12.0");
    assert!(all_text(&t).contains("needs CUDA 12.0 or newer"));
}

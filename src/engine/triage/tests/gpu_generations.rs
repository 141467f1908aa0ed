//! A GPU newer (or older) than what a build supports: the generation a refusal names, the
//! program's floor on a line of its own, an execution failure read against the GPU and the
//! build's CUDA release the text names, an attention kernel running another architecture's code,
//! and cuBLAS refusing llama.cpp on an old GPU. Each input is a real line from the public thread
//! cited above it.

use super::*;
use crate::engine::finding_codes as codes;

#[test]
fn a_generation_named_for_the_machine_is_its_first_architecture() {
    // https://github.com/PaddlePaddle/PaddleOCR/issues/13701
    let t = triage(
        "The GPU architecture in your current machine is Ampere, which is not compatible with Paddle \
         installation with arch: 60 61 70 75 , it is recommended to install the corresponding wheel \
         package according to the installation information on the official Paddle website.",
    );
    assert_eq!(t.architectures[0].arch, "sm_80");
    let f = finding(&t, codes::GPU_ARCH_REFUSED).expect("Ampere is refused");
    assert!(f.summary.contains("Ampere"), "{}", f.summary);
    // The package lacks code for it: its build for a CUDA that knows Ampere.
    assert!(f.detail.contains("not compiled for it"), "{}", f.detail);
    assert!(f.detail.contains("CUDA 11.0 or newer"), "{}", f.detail);
}

#[test]
fn the_programs_floor_on_its_own_line_is_read() {
    // https://github.com/w-okada/voice-changer/issues/447 (GeForce GT 720)
    let t = triage(
        "Found GPU0 GeForce GT 720 which is of cuda capability 3.5.\n\
         PyTorch no longer supports this GPU because it is too old.\n\
         The minimum cuda capability supported by this library is 3.7.",
    );
    assert_eq!(t.architectures[0].arch, "sm_35");
    assert_eq!(t.architectures[0].minimum.as_deref(), Some("3.7"));
    let f = finding(&t, codes::GPU_ARCH_REFUSED).expect("sm_35 is refused");
    assert!(
        f.detail
            .contains("supports compute capability 3.7 and newer"),
        "{}",
        f.detail
    );
}

#[test]
fn an_execution_failure_names_the_first_cuda_of_the_gpu_and_the_older_build() {
    // https://github.com/RenYurui/StructureFlow/issues/12 (TITAN RTX, CUDA 9.0 build)
    let t = triage(
        "RuntimeError: cublas runtime error : the GPU program failed to execute at \
         /opt/conda/conda-bld/pytorch_1556653183467/work/aten/src/THC/THCBlas.cu:450\n\
         GPU NVIDIA TITAN RTX\n\
         CUDA 9.0 pytorch 1.1.0 python 3.6.9",
    );
    let f = t
        .findings
        .iter()
        .find(|f| f.summary.contains("CUBLAS_STATUS_EXECUTION_FAILED"))
        .expect("cuBLAS's status text is its execution failure");
    assert!(f.detail.contains("Turing (7.5): CUDA 10.0"), "{}", f.detail);
    assert!(f.detail.contains("TITAN RTX: sm_75"), "{}", f.detail);
    assert!(
        f.detail.contains(
            "made with CUDA 9.0, older than that: install a build for CUDA 10.0 or newer"
        ),
        "{}",
        f.detail
    );
}

#[test]
fn without_a_gpu_in_the_text_the_generations_are_listed() {
    // https://github.com/yifita/3PU_pytorch/issues/5
    let t = triage(
        "When I tried to train, it showed that RuntimeError: cublas runtime error : the GPU program \
         failed to execute at /pytorch/aten/src/THC/THCBlas.cu:441",
    );
    let text = all_text(&t);
    assert!(text.contains("Turing (7.5): CUDA 10.0"), "{text}");
    assert!(!text.contains("The text names"), "{text}");
}

#[test]
fn bfloat16_on_an_older_gpu_is_told_to_use_float16() {
    // https://github.com/verl-project/verl/issues/2594 (Tesla V100)
    let t = triage(
        "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. \
         Your Tesla V100-SXM2-32GB GPU has compute capability 7.0. You can use float16 instead by \
         explicitly setting the`dtype` flag in CLI, for example: --dtype=half.",
    );
    let f = finding(&t, codes::GPU_ARCH_REFUSED).expect("bf16 is refused on the V100");
    // The two capabilities of the sentence give one reading, shown once.
    let refusals = t
        .findings
        .iter()
        .filter(|f| f.code == codes::GPU_ARCH_REFUSED);
    assert_eq!(refusals.count(), 1, "{}", all_text(&t));
    assert!(f.summary.contains("bfloat16 needs"), "{}", f.summary);
    assert!(f.summary.contains("this one is 7.0"), "{}", f.summary);
    assert!(
        f.fixes[0].summary.contains("--dtype half"),
        "{}",
        f.fixes[0].summary
    );
    // A format the hardware lacks is not a build to change.
    assert!(
        !f.detail.contains("build for this GPU with CUDA"),
        "{}",
        f.detail
    );
}

#[test]
fn fp8_needs_ada_or_hopper_with_the_gpu_on_another_line_or_after_the_floor() {
    // https://github.com/NVIDIA/TransformerEngine/issues/1159 (RTX 3090)
    let t = triage(
        "In my machine I am using **NVIDIA GeForce RTX 3090**.\n\
         AssertionError: Device compute capability 8.9 or higher required for FP8 execution.",
    );
    let f = finding(&t, codes::GPU_ARCH_REFUSED).expect("FP8 is refused on the 3090");
    assert!(
        f.summary
            .contains("FP8 needs a GPU of compute capability 8.9"),
        "{}",
        f.summary
    );
    assert!(f.summary.contains("this one is 8.6"), "{}", f.summary);
    // https://github.com/1038lab/ComfyUI-QwenVL/issues/28: the floor comes first on the line.
    let t = triage(
        "ERROR: FP8 models require a GPU with Compute Capability 8.9 or higher (e.g., RTX 4090). \
         Your GPU's capability is 8.6. Please select a non-FP8 model.",
    );
    let f = finding(&t, codes::GPU_ARCH_REFUSED).expect("FP8 is refused on 8.6");
    assert!(f.summary.contains("this one is 8.6"), "{}", f.summary);
}

#[test]
fn the_link_editors_needed_by_warning_is_a_chain_pinned_to_its_release() {
    // https://github.com/mahyarnajibi/SNIPER/issues/129 (OpenCV built against CUDA 8.0)
    let t = triage(
        "/usr/bin/ld: warning: libcudart.so.8.0, needed by /usr/local/opencv-3.2/lib/libopencv_core.so, \
         not found (try using -rpath or -rpath-link)",
    );
    assert_eq!(t.chains.len(), 1, "{:?}", t.chains);
    assert_eq!(t.chains[0].missing, "libcudart.so.8.0");
    assert_eq!(t.chains[0].needed_by, "libopencv_core.so");
    let f = finding(&t, codes::LIBRARY_DEPENDENCY_MISSING).expect("the chain's finding");
    assert!(
        f.summary.starts_with("libcudart.so.8.0 is missing"),
        "{}",
        f.summary
    );
    // Only CUDA 8.0 ships that name: after an upgrade the library that needs it is rebuilt.
    assert!(
        f.fixes[0]
            .summary
            .contains("rebuild libopencv_core.so against the CUDA release installed"),
        "{}",
        f.fixes[0].summary
    );
}

#[test]
fn a_floor_stated_as_capability_of_x_or_higher_names_the_generation() {
    // https://github.com/chrxh/alien/issues/68 (a GTX 750 Ti, compute capability 5.0)
    let t = triage(
        "2023-07-27 21-45-50: The following exception occurred: No CUDA device with\ncompute capability of 6.0 or higher found.\n2023-07-27 21-45-50: device 0: NVIDIA GeForce GTX 750 Ti with compute",
    );
    let text = all_text(&t);
    assert!(text.contains("Pascal GPU or newer"), "{text}");
    assert!(text.contains("newer GPU"), "{text}");
}

#[test]
fn no_kernel_image_names_the_package_whose_path_is_on_its_line() {
    // https://github.com/sgl-project/sglang/issues/1058 (FlashInfer 0.1.4 had no sm_75 kernels),
    // in the form FlashInfer's check prints.
    let t = triage(
        "CUDA Error: no kernel image is available for execution on the device (209) /tmp/build-via-sdist-abc/flashinfer-0.1.4+cu121torch2.4/include/flashinfer/attention/handler.cuh: line 169 at function cudaOccupancyMaxActiveBlocksPerMultiprocessor",
    );
    let f = t
        .findings
        .iter()
        .find(|f| f.detail.contains("flashinfer 0.1.4"))
        .unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert!(
        f.fixes[0].summary.contains("release of flashinfer"),
        "{:?}",
        f.fixes
    );
    // A package folder in site-packages, and no package on a line without a path.
    assert_eq!(
        super::super::source_package::source_package(
            "File \"/venv/lib/python3.10/site-packages/xformers/ops/fmha/cutlass.py\", line 3"
        )
        .map(|p| p.name),
        Some("xformers".to_string())
    );
    // A C++ library's function on the line: tsne-cuda's FAISS had no sm_50 kernels
    // (https://github.com/CannyLab/tsne-cuda/issues/116).
    let t = triage(
        "KNN Computation... Faiss assertion 'err__ == cudaSuccess' failed in void faiss::gpu::runL2Norm(faiss::gpu::Tensor<T, 2, true, IndexType>&, bool, cudaStream_t) [with T = float; cudaStream_t = CUstream_st*] at /home/conda/feedstock_root/build_artifacts/faiss-split_1636459943780/work/faiss/gpu/impl/L2Norm.cu:323; details: CUDA error 209 no kernel image is available for execution on the device",
    );
    let f = t
        .findings
        .iter()
        .find(|f| f.detail.contains("FAISS (from the C++ namespace"))
        .unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert!(
        f.fixes[0].summary.contains("release of FAISS"),
        "{:?}",
        f.fixes
    );
    // The standard library's and PyTorch's own namespaces name no package.
    assert_eq!(
        super::super::source_package::source_package(
            "what(): std::runtime_error at c10::cuda::c10_cuda_check_implementation: no kernel image"
        ),
        None
    );
    let t = triage(
        "RuntimeError: CUDA error: no kernel image is available for execution on the device",
    );
    assert!(
        t.findings
            .iter()
            .all(|f| !f.detail.contains("from its path"))
    );
}

#[test]
fn an_architecture_current_toolkits_dropped_is_also_read_as_a_gpu_too_old() {
    // https://github.com/dmlc/xgboost/issues/3625: the build detected a Fermi GPU.
    let t = triage("nvcc fatal   : Unsupported gpu architecture 'compute_21'");
    let f = t
        .findings
        .iter()
        .find(|f| f.code == "gpu-arch-refused")
        .unwrap_or_else(|| panic!("{:#?}", t.findings));
    let fix = f
        .fixes
        .iter()
        .find(|x| x.id == "advice-too-old-gpu")
        .unwrap_or_else(|| panic!("{:#?}", f.fixes));
    assert!(
        fix.summary.contains("CUDA toolkits after 8.0"),
        "{}",
        fix.summary
    );
    // One sentence, not the source's indentation.
    assert!(
        fix.summary.contains("too old for CUDA toolkits after 8.0"),
        "{}",
        fix.summary
    );
    // An architecture current toolkits still build has no such fix.
    let t = triage("nvcc fatal   : Unsupported gpu architecture 'compute_89'");
    assert!(
        t.findings
            .iter()
            .all(|f| f.fixes.iter().all(|x| x.id != "advice-too-old-gpu"))
    );
}

#[test]
fn the_hpc_compilers_application_wording_and_the_older_ta_flag_are_read() {
    // https://github.com/TinkerTools/tinker-gpu/issues/195 (NVHPC), and PGI's -ta=tesla:ccXY.
    for line in [
        "Rebuild the application with -gpu=cc86 to use NVIDIA Tesla GPU 0",
        "Rebuild this file with -ta=tesla:cc70 to use NVIDIA Tesla GPU 0",
    ] {
        let t = triage(line);
        assert!(
            t.findings
                .iter()
                .any(|f| f.code == "log-nvhpc-rebuild-for-gpu"),
            "{line}: {:#?}",
            t.findings
        );
    }
}

#[test]
fn a_capability_above_the_builds_range_within_its_major_is_harmless() {
    // https://github.com/eugr/spark-vllm-docker/issues/15 (DGX Spark's GB10, sm_121).
    let t = triage(
        "Found GPU0 NVIDIA GB10 which is of cuda capability 12.1. Minimum and Maximum cuda capability supported by this version of PyTorch is (8.0) - (12.0)",
    );
    let f = finding(&t, "gpu-arch-refused").unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert_eq!(f.severity, crate::engine::findings::Severity::Info);
    assert!(f.summary.contains("harmless"), "{}", f.summary);
    // A GPU of a major the build does not reach stays refused.
    let t = triage(
        "Found GPU0 NVIDIA GeForce RTX 5090 which is of cuda capability 12.0. Minimum and Maximum cuda capability supported by this version of PyTorch is (5.0) - (9.0)",
    );
    let f = finding(&t, "gpu-arch-refused").unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert_eq!(f.severity, crate::engine::findings::Severity::Error);
}

#[test]
fn an_attention_kernel_running_older_code_says_the_build_is_too_old() {
    // https://github.com/dmMaze/BallonsTranslator/issues/1148 (a bundled torch too old for the
    // GPU; the cu129 build fixed it)
    let t = triage(
        "FATAL: kernel `fmha_cutlassF_f32_aligned_64x64_rf_sm80` is for sm80-sm100, but was built for sm37",
    );
    let f = finding(&t, "log-cutlass-attention-kernel-built-for-other-sm")
        .unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert!(f.summary.contains("built for sm37"), "{}", f.summary);
    assert!(f.detail.contains("torch build is too old"), "{}", f.detail);
}

#[test]
fn cublas_refusing_llama_cpps_matmul_names_the_older_gpu() {
    // https://github.com/ollama/ollama/pull/1874 (compute capability 5.2 below Ollama's minimum)
    let t = triage(
        "cuBLAS error 15 at ggml-cuda.cu:7956: the requested functionality is not supported",
    );
    let f = finding(&t, "cublas-status-cublas-status-not-supported")
        .unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert!(f.detail.contains("llama.cpp's"), "{}", f.detail);
    assert!(f.detail.contains("Run on the CPU"), "{}", f.detail);
}

#[test]
fn a_two_digit_compute_capability_is_read_whole() {
    // https://github.com/CrispStrobe/CrispASR/issues/30: a CUDA 12.4 build on an RTX 5060.
    let t = triage(
        "ggml_cuda_init: found 1 CUDA devices (Total VRAM: 8150 MiB):\n\
         Device 0: NVIDIA GeForce RTX 5060, compute capability 12.0, VMM: yes, VRAM: 8150 MiB\n\
         ggml_cuda_compute_forward: IM2COL failed\n\
         CUDA error: no kernel image is available for execution on the device",
    );
    let refused: Vec<&str> = t
        .findings
        .iter()
        .filter(|f| f.code == codes::GPU_ARCH_REFUSED)
        .map(|f| f.summary.as_str())
        .collect();
    assert!(
        refused.iter().all(|s| !s.contains("sm_12 ")),
        "\"12.0\" is not sm_12: {refused:?}"
    );
    assert!(
        !all_text(&t).contains("CUDA 8.15"),
        "8150 MiB is the GPU's memory: {}",
        all_text(&t)
    );
    assert!(all_text(&t).contains("CUDA 12.8"), "{}", all_text(&t));
}

#[test]
fn a_builds_target_list_is_not_the_gpu() {
    // https://github.com/mp3guy/ICPCUDA/issues/17 (a Kepler GTX 765M; the build targeted Maxwell)
    let t = triage(
        "-- CUDA NVCC target flags: -gencode;arch=compute_50,code=sm_50;-gencode;arch=compute_52,code=sm_52\n\
         GeForce GTX 765M\n\
         Best: 224 threads, 96 blocks (3.40282e+38ms)Error: invalid device function\n\
         /home/wine/ICPCUDA-master/src/Cuda/pyrdown.cu:90",
    );
    assert!(finding(&t, "cuda-error-98").is_some(), "{}", all_text(&t));
    // compute_50 is what the build compiled for, not the GPU that ran it.
    assert!(
        !t.findings
            .iter()
            .any(|f| f.summary.starts_with("The GPU here (compute_50")),
        "{}",
        all_text(&t)
    );
}

//! Readings for lines whose cause is the build a program was given or the program itself, or
//! that are harmless hints: memory for convolution algorithms, a driver older than XLA's ptxas,
//! CPU-only packages (ONNX Runtime, Paddle, TorchSharp, bitsandbytes), TensorRT plans from
//! another release, Darknet's cfg, Kokkos' and CMake's architectures, Triton's ptxas, a debugger's
//! kernel exception, GROMACS's OpenCL build, and xFormers' attention kernels. Each input is a real
//! line from the public thread cited above it.

use super::*;
use crate::engine::findings::Severity;

#[test]
fn convolution_algorithm_failures_point_at_gpu_memory() {
    // https://github.com/tensorflow/tensorflow/issues/38929
    let t = triage(
        "  (0) Unknown: Failed to get convolution algorithm. This is probably because cuDNN failed to initialize, so try looking to see if a warning log message was printed above.",
    );
    assert_eq!(message_ids(&t), ["tf-conv-algorithm-cudnn-init"]);
    assert!(all_text(&t).contains("TF_FORCE_GPU_ALLOW_GROWTH=true"));
    // https://github.com/deepakn97/relationPrediction/issues/37
    let t = triage(
        "RuntimeError: Unable to find a valid cuDNN algorithm to run convolution (try_all at /opt/conda/conda-bld/pytorch_1591914868920/work/aten/src/ATen/native/cudnn/Conv.cpp:693)",
    );
    assert_eq!(message_ids(&t), ["torch-cudnn-no-valid-algorithm"]);
    assert!(all_text(&t).contains("out of memory"));
}

#[test]
fn a_driver_older_than_xlas_ptxas_is_a_warning() {
    // https://github.com/conda-forge/tensorflow-feedstock/issues/417 (the PTX compiler wording)
    let t = triage(
        "W external/local_xla/xla/service/gpu/nvptx_compiler.cc:930] The NVIDIA driver's CUDA version is 12.4 which is older than the PTX compiler version 12.5.82. Because the driver is older than the PTX compiler version, XLA is disabling parallel compilation, which may slow down compilation.",
    );
    let f = t
        .findings
        .iter()
        .find(|f| f.code == "log-xla-driver-older-than-ptxas")
        .expect("the XLA reading");
    assert_eq!(f.severity, Severity::Warning);
    assert!(
        f.summary.contains("CUDA 12.4,") && f.summary.contains("(12.5.82)"),
        "{}",
        f.summary
    );
}

#[test]
fn the_cpu_onnxruntime_has_no_cuda_provider() {
    // https://github.com/s9roll7/animatediff-cli-prompt-travel/issues/206
    let t = triage(
        "onnxruntime_inference_collection.py:69: UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names.Available providers: 'AzureExecutionProvider, CPUExecutionProvider'",
    );
    assert_eq!(message_ids(&t), ["ort-cuda-provider-not-available"]);
    assert!(all_text(&t).contains("pip install onnxruntime-gpu"));
}

#[test]
fn performance_hints_are_not_errors() {
    // https://github.com/ostris/ai-toolkit/issues/89 (PyTorch on Windows)
    let t = triage(
        "UserWarning: 1Torch was not compiled with flash attention. (Triggered internally at C:\\actions-runner\\_work\\pytorch\\pytorch\\builder\\windows\\pytorch\\aten\\src\\ATen\\native\\transformers\\cuda\\sdp_utils.cpp:555.)",
    );
    assert_eq!(message_ids(&t), ["torch-sdpa-no-flash-attention"]);
    // https://github.com/NVIDIA/TensorRT/issues/3307 (trtexec's log)
    let t = triage(
        "[09/12/2023-14:52:21] [W] [TRT] CUDA lazy loading is not enabled. Enabling it can significantly reduce device memory usage and speed up TensorRT initialization. See \"Lazy Loading\" section of CUDA documentation https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#lazy-loading",
    );
    assert_eq!(message_ids(&t), ["tensorrt-lazy-loading-off"]);
    assert!(all_text(&t).contains("CUDA_MODULE_LOADING=LAZY"));
    assert!(
        t.findings.iter().all(|f| f.severity == Severity::Info),
        "{:?}",
        t.findings
    );
}

#[test]
fn an_unknown_numa_node_is_information() {
    // https://github.com/tensorflow/tensorflow/issues/56456
    let t = triage(
        "2022-06-14 21:22:40.505725: I tensorflow/stream_executor/cuda/cuda_gpu_executor.cc:975] successful NUMA node read from SysFS had negative value (-1), but there must be at least one NUMA node, so returning NUMA node zero",
    );
    assert_eq!(message_ids(&t), ["tf-numa-node-unknown"]);
    assert!(
        t.findings.iter().all(|f| f.severity == Severity::Info),
        "{:?}",
        t.findings
    );
}

#[test]
fn bitsandbytes_on_its_cpu_library() {
    // https://github.com/zjunlp/DeepKE/issues/503 (Windows, bitsandbytes loaded libbitsandbytes_cpu.so)
    let t = triage(
        "D:\\ProgramData\\Anaconda3\\envs\\deepke-llm\\lib\\site-packages\\bitsandbytes\\cextension.py:34: UserWarning: The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers, 8-bit multiplication, and GPU quantization are unavailable.",
    );
    assert!(message_ids(&t).contains(&"bitsandbytes-cpu-library"));
    assert!(all_text(&t).contains("python -m bitsandbytes"));
}

#[test]
fn darknet_out_of_memory_points_at_the_cfg_subdivisions() {
    // https://github.com/AlexeyAB/darknet/issues/3281 (Ubuntu; errno text ': File exists' appended)
    let t = triage("CUDA Error: out of memory\nCUDA Error: out of memory: File exists");
    assert!(message_ids(&t).contains(&"darknet-out-of-memory"));
    assert!(all_text(&t).contains("raise subdivisions"));
}

#[test]
fn pytorch_out_of_memory_is_not_read_as_darknet() {
    // https://github.com/kuangliu/pytorch-cifar/issues/67 (PyTorch spells it 'CUDA error')
    let t = triage("RuntimeError: CUDA error: out of memory");
    assert!(
        !message_ids(&t).contains(&"darknet-out-of-memory"),
        "{:?}",
        message_ids(&t)
    );
}

#[test]
fn torchsharp_without_cuda_names_the_backend_package() {
    // https://github.com/dotnet/TorchSharp/issues/1196 (TorchSharp-cuda-windows in Unity)
    let t = triage("Torch device type CUDA did not initialise on the current machine");
    assert!(message_ids(&t).contains(&"torchsharp-cuda-not-initialised"));
    let text = all_text(&t);
    assert!(text.contains("TorchSharp-cuda-windows"), "{text}");
    assert!(text.contains("torch_cuda.dll"), "{text}");
}

#[test]
fn a_scatter_gather_index_assert_is_an_index_out_of_range() {
    // https://github.com/Zzh-tju/DIoU-SSD-pytorch/issues/20 (THC gather kernel)
    let t = triage(
        "/tmp/pip-req-build-9xcrj8au/aten/src/THC/THCTensorScatterGather.cu:100: void THCudaTensor_gatherKernel(TensorInfo<Real, IndexType>, TensorInfo<Real, IndexType>, TensorInfo<long, IndexType>, int, IndexType) [with IndexType = unsigned int, Real = float, Dims = 2]: block: [518,0,0], thread: [145,0,0] Assertion `indexValue >= 0 && indexValue < src.sizes[dim]` failed.",
    );
    let ids = message_ids(&t);
    assert!(ids.contains(&"cuda-assert-index-range"), "{ids:?}");
    assert!(all_text(&t).contains("n_classes"));
}

#[test]
fn a_wrapped_extension_mismatch_names_both_cuda_versions() {
    // https://github.com/open-mmlab/OpenPCDet/issues/1275 (the message wrapped after 'compile')
    let t = triage(
        "RuntimeError:\nThe detected CUDA version (11.8) mismatches the version that was used to compile\nPyTorch (11.7). Please make sure to use the same CUDA versions.",
    );
    let m = t
        .messages
        .iter()
        .find(|m| m.id == "torch-extension-cuda-mismatch")
        .unwrap_or_else(|| panic!("{:?}", message_ids(&t)));
    assert_eq!(m.groups, vec!["11.8".to_string(), "11.7".to_string()]);
    assert!(all_text(&t).contains("not CUDA 11.7, which PyTorch was built with"));
}

#[test]
fn tensorflows_cudart_stub_means_the_cuda_runtime_did_not_load() {
    // https://github.com/tensorflow/tensorflow/issues/32381 (tensorflow-gpu 2.0 on Windows, CUDA 10.0)
    let t = triage(
        "tensorflow.python.framework.errors_impl.InternalError: cudaGetDevice() failed. Status: cudaGetErrorString symbol not found.",
    );
    assert!(message_ids(&t).contains(&"tf-cudart-stub-not-loaded"));
    assert!(all_text(&t).contains("Could not load dynamic library"));
}

#[test]
fn a_tensorrt_plan_from_another_release_must_be_rebuilt() {
    // https://github.com/open-mmlab/mmdeploy/issues/2639 (built with TensorRT 8.6, run on a Jetson with 8.2)
    let t = triage(
        "[2024-01-12 12:53:54.250] [mmdeploy] [error] [trt_net.cpp:28] TRTNet: 1: [stdArchiveReader.cpp::StdArchiveReader::30] Error Code 1: Serialization (Serialization assertion magicTagRead == magicTag failed.Magic tag does not match)",
    );
    assert!(message_ids(&t).contains(&"tensorrt-plan-tag-mismatch"));
    assert!(all_text(&t).contains("trtexec --onnx"));
    // https://github.com/NVIDIA/TensorRT/issues/2195 (the version tag of the same check)
    let t = triage(
        "[08/01/2022-15:41:44] [TRT] [E] 1: [stdArchiveReader.cpp::StdArchiveReader::35] Error Code 1: Serialization (Serialization assertion safeVersionRead == safeSerializationVersion failed.Version tag does not match. Note: Current Version: 0, Serialized Engine Version: 96)",
    );
    assert!(message_ids(&t).contains(&"tensorrt-plan-tag-mismatch"));
}

#[test]
fn jax_and_an_older_jaxlib_name_both_versions() {
    // https://github.com/ROCm/jax/pull/756 (a lock file pinned the previous jaxlib)
    let t = triage(
        "RuntimeError: jaxlib is version 0.9.0, but this version of jax\nrequires version >= 0.9.1.",
    );
    let m = t
        .messages
        .iter()
        .find(|m| m.id == "jax-jaxlib-version-mismatch")
        .unwrap_or_else(|| panic!("{:?}", message_ids(&t)));
    assert_eq!(m.groups, vec!["0.9.0".to_string(), "0.9.1".to_string()]);
}

#[test]
fn a_cpu_only_paddle_names_the_gpu_package() {
    // https://github.com/baidu/Senta/issues/69
    let t = triage(
        "Cannot use GPU because you have installed CPU version PaddlePaddle.\nIf you want to use GPU, please try to install GPU version PaddlePaddle by: pip install paddlepaddle-gpu",
    );
    assert!(message_ids(&t).contains(&"paddle-cpu-build"));
    assert!(all_text(&t).contains("pip uninstall paddlepaddle paddlepaddle-gpu"));
}

#[test]
fn cmake_failing_to_detect_a_cuda_architecture_names_the_compiler_variable() {
    // https://github.com/bytedance/ABQ-LLM/issues/11 (fixed by setting the nvcc environment)
    let t = triage(
        "CMake Error at /usr/local/lib/python3.11/site-packages/cmake/data/share/cmake-3.29/Modules/CMakeDetermineCUDACompiler.cmake:266 (message):\n  Failed to detect a default CUDA architecture.",
    );
    assert!(message_ids(&t).contains(&"cmake-cuda-architecture-detection-failed"));
    assert!(all_text(&t).contains("-DCMAKE_CUDA_COMPILER="));
}

#[test]
fn a_kokkos_start_up_mismatch_is_a_gpu_architecture_mismatch() {
    // https://github.com/lammps/lammps/issues/2086 (LAMMPS built with -DKokkos_ARCH_VOLTA72=ON)
    let t = triage("Kokkos::Cuda::initialize ERROR: likely mismatch of architecture");
    let text = all_text(&t);
    assert!(text.contains("another GPU architecture"), "{text}");
    assert!(text.contains("VOLTA70 is sm_70"), "{text}");
    // https://github.com/kokkos/kokkos/issues/6565 (LAMMPS with Kokkos on an A100 server)
    let t = triage(
        "LAMMPS built with KOKKOS results in \"Kokkos::Cuda::initialize ERROR: likely mismatch of architecture\" error",
    );
    assert!(all_text(&t).contains("Kokkos_ARCH_"));
    // Kokkos' performance WARNING (an older architecture's build on a newer GPU runs) is no mismatch.
    let t = triage(
        "Kokkos::Cuda::initialize WARNING: running kernels compiled for compute capability 6.1 on device with compute capability 8.6 , this will likely reduce potential performance.",
    );
    assert!(!all_text(&t).contains("another GPU architecture"));
}

#[test]
fn an_optional_part_the_message_left_out_leaves_no_empty_brackets() {
    // nerfstudio's FAQ quotes the older wording, without the detected version
    // (https://docs.nerf.studio/quickstart/installation.html#installation-faq).
    let t = triage(
        "The detected CUDA version mismatches the version that was used to compile PyTorch (10.2). Please make sure to use the same CUDA versions.",
    );
    assert!(message_ids(&t).contains(&"torch-extension-cuda-mismatch"));
    let text = all_text(&t);
    assert!(
        text.contains("found for building is not CUDA 10.2"),
        "{text}"
    );
    assert!(!text.contains("()"), "{text}");
}

#[test]
fn bitsandbytes_cpu_library_and_tritons_ptxas_are_read_in_their_own_words() {
    // https://github.com/bitsandbytes-foundation/bitsandbytes/issues/459
    let t = triage(
        "AttributeError: /opt/conda/lib/python3.10/site-packages/bitsandbytes/libbitsandbytes_cpu.so: undefined symbol: cget_col_row_stats",
    );
    let codes: Vec<&str> = t.findings.iter().map(|f| f.code.as_str()).collect();
    assert!(codes.contains(&"log-bitsandbytes-cpu-library"), "{codes:?}");
    assert!(!codes.contains(&"missing-symbol"), "{codes:?}");
    // https://github.com/triton-lang/triton/issues/8539 (a DGX Spark, sm_121a)
    let t = triage(
        "riton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error\n`ptxas` stderr:\nptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'",
    );
    assert!(message_ids(&t).contains(&"triton-ptx-codegen-error"));
    assert!(all_text(&t).contains("TRITON_PTXAS_PATH"));
}

#[test]
fn darknets_bad_param_in_its_convolutional_setup_points_at_updating_darknet() {
    // https://github.com/AlexeyAB/darknet/issues/3537 (updating Darknet fixed it)
    let t = triage(
        " cuDNN status Error in: file: ./src/convolutional_layer.c : () : line: 300 : build time: Jun 11 2019 - 12:11:40 \ncuDNN Error: CUDNN_STATUS_BAD_PARAM\ncuDNN Error: CUDNN_STATUS_BAD_PARAM: File exists",
    );
    let f = finding(&t, "cudnn-status-bad-param").expect("the cuDNN status is read");
    assert!(f.detail.contains("Update Darknet"), "{}", f.detail);
    // A framework's BAD_PARAM keeps the general reading.
    let caffe = triage(
        "F0713 11:13:15.701544 23058 cudnn_conv_layer.cu:53] Check failed: status == CUDNN_STATUS_SUCCESS (3 vs. 0)  CUDNN_STATUS_BAD_PARAM",
    );
    let g = finding(&caffe, "cudnn-status-bad-param").expect("the cuDNN status is read");
    assert!(!g.detail.contains("Darknet"), "{}", g.detail);
}

#[test]
fn a_debuggers_kernel_exception_and_an_opencl_build_of_gromacs() {
    // https://github.com/lammps/lammps/pull/718 (a device function without its marker)
    let t = triage(
        "CUDA Exception: Warp Illegal Address\nThe exception was triggered at PC 0x1cf0d8d0 (fix_shardlow_kokkos.cpp:484)",
    );
    let f = message(&t, "cuda-gdb-kernel-exception");
    assert!(
        f.summary.contains("Warp-level Illegal Address"),
        "{}",
        f.summary
    );
    // https://github.com/samuelmurail/gromacs_py/issues/22 (an A100 with a conda OpenCL build)
    let t = triage(
        "Internal error (bug):\nFailed to compile NBNXN kernels for GPU #NVIDIA A100-SXM4-40GB\n  Could not build OpenCL program, error was Unknown OpenCL error: -9999",
    );
    let f = message(&t, "gromacs-opencl-kernels-not-built");
    assert!(f.summary.contains("NVIDIA A100-SXM4-40GB"), "{}", f.summary);
    assert!(
        f.fixes.iter().any(|x| x.summary.contains("-DGMX_GPU=CUDA")),
        "{:?}",
        f.fixes
    );
}

#[test]
fn xformers_cutlass_without_a_kernel_and_operators_of_a_build_without_cuda() {
    // https://github.com/facebookresearch/xformers/issues/729 (xFormers 0.0.19 on an H100)
    let t = triage(
        "  File \"/home/h100/miniconda3/envs/sdwl/lib/python3.10/site-packages/torch/_ops.py\", line 502, in __call__\n\
         \x20   return self._op(*args, **kwargs or {})\n\
         RuntimeError: cutlassF: no kernel found to launch!",
    );
    let f = message(&t, "xformers-cutlass-no-kernel");
    assert!(f.summary.contains("(cutlassF)"), "{}", f.summary);
    // https://github.com/victorchall/EveryDream2trainer/issues/122: every operator is refused
    // because the build has no CUDA; the FlashAttention operator's own reading stays out.
    let t = triage(
        "flshattF is not supported because:\n\
         xFormers wasn't build with CUDA support\n\
         dtype=torch.float32 (supported: {torch.float16, torch.bfloat16})\n\
         cutlassF is not supported because:\n\
         xFormers wasn't build with CUDA support",
    );
    let ids = message_ids(&t);
    assert!(ids.contains(&"xformers-not-built-with-cuda"), "{ids:?}");
    assert!(
        !ids.contains(&"xformers-flash-op-needs-newer-gpu"),
        "{ids:?}"
    );
}

//! A program's build against the stack it meets: a package without code for the GPU
//! (PaddlePaddle's architecture list), a release without a library for the CUDA in use
//! (bitsandbytes), an extension built with an older CUDA's launch API (`cudaLaunch`), torch
//! releases whose Windows DLLs broke, .NET and Julia packages missing their CUDA parts, and
//! causes kept beside a status (a stale `~/.nv` cache, a miner's launch settings, CUTLASS's
//! cluster kernels), and a program's own capability check. Each input is a real line from the
//! public thread cited above it.

use super::*;
use crate::engine::finding_codes as codes;

#[test]
fn a_package_compiled_for_older_gpus_is_reinstalled_from_a_build_for_the_gpus_cuda() {
    // https://github.com/PaddlePaddle/Paddle/issues/76037 (the cu129 wheel fixed it)
    let t = triage(
        "Mismatched GPU Architecture: The installed PaddlePaddle package was compiled for 60 61 70 75 80 86 ,but your current GPU is 120 Solution: Install the correct wheel package built for your GPU from the official PaddlePaddle website",
    );
    let f = finding(&t, codes::GPU_ARCH_REFUSED).expect("sm_120 refused");
    assert!(f.summary.contains("sm_120"), "{}", f.summary);
    assert!(f.detail.contains("not compiled for it"), "{}", f.detail);
    assert!(f.detail.contains("cu128"), "{}", f.detail);
}

#[test]
fn bitsandbytes_without_a_library_for_torchs_cuda_names_that_cuda() {
    // https://github.com/Haoming02/sd-webui-forge-classic/issues/184 (0.47.0 ships cuda129)
    let t = triage(
        "WARNING:bitsandbytes.cextension:Could not find the bitsandbytes CUDA binary at WindowsPath('E:/Forge_Neo_v1/sd-webui-forge-classic/venv/Lib/site-packages/bitsandbytes/libbitsandbytes_cuda129.dll')",
    );
    assert!(message_ids(&t).contains(&"bitsandbytes-no-binary-for-torch-cuda"));
    assert!(all_text(&t).contains("no library for CUDA 12.9"));
}

#[test]
fn a_small_error_code_after_a_named_cuda_call_is_that_calls_status() {
    // https://github.com/PaddlePaddle/Paddle/issues/22576 (35: the driver older than the wheel's
    // CUDA)
    let t = triage(
        "Error: cudaGetDeviceCount failed in paddle::platform::GetCUDADeviceCountImpl, error code : 35, Please see detail in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html at (/paddle/paddle/fluid/platform/gpu_info.cc:67)",
    );
    assert!(finding(&t, "cuda-error-35").is_some(), "{:?}", codes(&t));
    assert!(finding(&t, "win32-error-35").is_none());
}

#[test]
fn the_old_launch_api_missing_is_a_build_for_cuda_10_0_or_older() {
    // https://github.com/horovod/horovod/issues/2224 (built for CUDA 10.0, run with 10.1)
    let t = triage("mpi_lib.cpython-36m-x86_64-linux-gnu.so: undefined symbol: cudaLaunch");
    assert!(message_ids(&t).contains(&"cudart-launch-api-removed"));
    assert!(all_text(&t).contains("CUDA 10.1"));
}

#[test]
fn torch_windows_import_failures_name_the_releases_and_the_redistributable() {
    // https://github.com/olegchomp/TDDepthAnything/issues/8 (torch 2.3.0; 2.2.x fixed it)
    let shm = triage(
        "  File \"C:\\TDDepthAnything\\venv\\Lib\\site-packages\\torch\\__init__.py\", line 141\n    raise err\nOSError: [WinError 126] The specified module could not be found. Error loading \"C:\\TDDepthAnything\\venv\\Lib\\site-packages\\torch\\lib\\shm.dll\" or one of its dependencies.",
    );
    assert!(all_text(&shm).contains("2.3.1"), "{}", all_text(&shm));
    // https://github.com/pytorch/pytorch/issues/39980 (the maintainer: VC++ redistributable, or
    // the CPU build without an NVIDIA GPU)
    let ctypes = triage(
        "  File \"C:\\Python37\\lib\\site-packages\\torch\\__init__.py\", line 81, in <module>\n    ctypes.CDLL(dll)\n  File \"C:\\Python37\\lib\\ctypes\\__init__.py\", line 364, in __init__\n    self._handle = _dlopen(self._name, mode)\nOSError: [WinError 126] The specified module could not be found",
    );
    assert!(
        all_text(&ctypes).contains("vc_redist"),
        "{}",
        all_text(&ctypes)
    );
    // https://github.com/facebookresearch/pytorch3d/issues/1792 (built for torch 2.1.0)
    let ext = triage(
        "ImportError: DLL load failed while importing _C: The specified program could not be found.",
    );
    let f = finding(&ext, "win32-error-127").expect("127 in its Chinese wording read back");
    assert!(f.detail.contains("another torch release"), "{}", f.detail);
}

#[test]
fn dotnet_and_julia_packages_missing_their_cuda_parts() {
    // https://github.com/takuya-takeuchi/DlibDotNet/issues/78 (cuDNN not installed)
    let dlib = triage(
        "8. Name of the class: 8 to load DLL 'DlibDotNetNativeDnn' or one of its dependencies: 8 to find the named module.(the Exception from HRESULT: 0 x8007007e)",
    );
    assert!(message_ids(&dlib).contains(&"dotnet-dll-not-found"));
    assert!(all_text(&dlib).contains("cudnn64_"));
    // https://github.com/JuliaGPU/CUDA.jl/issues/784 (a clean ~/.julia/artifacts fixed it)
    let julia = triage("│    AssertionError: isfile(__nvdisasm[])");
    assert!(message_ids(&julia).contains(&"cudajl-toolkit-artifact-incomplete"));
    assert!(all_text(&julia).contains("~/.julia/artifacts"));
}

#[test]
fn causes_kept_beside_a_status_for_the_program_that_printed_it() {
    // https://github.com/HKUST-Aerial-Robotics/Stereo-RCNN/issues/13 (sudo rm -rf ~/.nv)
    let nv = triage("RuntimeError: CUDNN_STATUS_INTERNAL_ERROR");
    assert!(all_text(&nv).contains("rm -rf ~/.nv"));
    // https://github.com/fireice-uk/xmr-stak/issues/327 (fewer threads, bfactor 8)
    let miner = triage(
        "[CUDA] Error gpu 0: </home/sokoow/Desktop/xmr-stak/xmrstak/backend/nvidia/nvcc_code/cuda_core.cu>:322\n  what():  [CUDA] Error: invalid configuration argument",
    );
    assert!(all_text(&miner).contains("bfactor"), "{}", all_text(&miner));
    // https://github.com/NVIDIA/cutlass/issues/2513 (example 77 targets tcgen05 GPUs only)
    let cutlass = triage(
        "[ ERROR: CUDA Runtime ] ./include/cutlass/cluster_launch.hpp:248: invalid argument\nFailed to launch the CUTLASS kernel. Last CUDA error is: no error",
    );
    assert!(
        all_text(&cutlass).contains("sm_100a"),
        "{}",
        all_text(&cutlass)
    );
    // A framework's invalid argument keeps the general reading.
    let plain = triage("RuntimeError: CUDA error: invalid argument");
    assert!(!all_text(&plain).contains("CUTLASS"));
}

#[test]
fn a_programs_own_capability_check_may_refuse_a_gpu_newer_than_the_program() {
    // https://github.com/hibagus/CUDA_Bench/issues/3 (an RTX 4070 Super refused by a branch
    // without Ada support)
    let t = triage("[ERR!] GPU Compute Capability is lower than it is required");
    assert!(message_ids(&t).contains(&"program-compute-capability-check-refused"));
    assert!(all_text(&t).contains("update the program"));
}

//! Build steps and process exits: a library the linker or CMake cannot find, an architecture
//! a build or a runtime refuses in its own words, a message printed with odd spacing, TensorRT's
//! headers and plugin interfaces, and the Video Codec SDK's names. Real
//! lines from the public threads cited above each assertion.

use super::*;
use crate::engine::finding_codes as codes;
use crate::engine::findings::Severity;

#[test]
fn cmake_missing_nvml_says_the_driver_installs_it() {
    // https://github.com/Syllo/nvtop/issues/30 (a Docker build image without the driver)
    let t = triage(
        "CMake Error at /usr/share/cmake-3.5/Modules/FindPackageHandleStandardArgs.cmake:148 (message):\n  Could NOT find NVML (missing: NVML_LIBRARIES) (found version \"8\")",
    );
    let f = finding(&t, codes::BUILD_LIBRARY_NOT_FOUND).expect("CMake's line is read");
    assert!(f.summary.contains("libnvidia-ml.so"), "{}", f.summary);
    assert!(
        f.detail.contains("installed by the NVIDIA driver"),
        "{}",
        f.detail
    );
    assert!(f.detail.contains("stub"), "{}", f.detail);
}

#[test]
fn a_link_name_is_identified_from_the_wheels_and_says_what_installs_it() {
    // The link names of libraries the wheels ship only versioned (libnccl.so.2, libcufile.so.0):
    // the finding names the package, not the driver.
    let t = triage("Could NOT find NCCL (missing: NCCL_INCLUDE_DIR NCCL_LIBRARY)");
    let f = finding(&t, codes::BUILD_LIBRARY_NOT_FOUND).expect("CMake's NCCL is read");
    assert!(f.detail.contains("nvidia-nccl-cu12"), "{}", f.detail);
    assert!(
        f.detail.contains("not by the NVIDIA driver"),
        "{}",
        f.detail
    );
    let t = triage("/usr/bin/ld: cannot find -lcufile: No such file or directory");
    let f = finding(&t, codes::BUILD_LIBRARY_NOT_FOUND).expect("ld's line is read");
    assert!(f.summary.contains("cuFile"), "{}", f.summary);
    assert!(f.detail.contains("nvidia-cufile"), "{}", f.detail);
    // Apple's ld: https://github.com/pyg-team/pytorch_geometric/blob/2.2.0/docs/source/notes/installation.rst
    let t = triage(
        "ld: warning: directory not found for option '-L/usr/local/cuda/lib64'\nld: library not found for -lcudart",
    );
    let f = finding(&t, codes::BUILD_LIBRARY_NOT_FOUND).expect("Apple ld's line is read");
    assert!(f.summary.contains("CUDA runtime"), "{}", f.summary);
    // A library that is no NVIDIA package's is left to other readers.
    let t = triage("/usr/bin/ld: cannot find -lpng16");
    assert!(finding(&t, codes::BUILD_LIBRARY_NOT_FOUND).is_none());
    assert!(finding(&t, codes::BUILD_LIBRARY_UNKNOWN_RELEASE).is_none());
}

#[test]
fn a_library_no_release_ships_is_said_to_be_one() {
    // https://github.com/dusty-nv/jetson-inference/issues/1298 (libnvcaffe_parser, gone from
    // the installed TensorRT)
    let t = triage(
        "/usr/bin/ld: cannot find -lnvcaffe_parser\ncollect2: error: ld returned 1 exit status",
    );
    let f = finding(&t, codes::BUILD_LIBRARY_UNKNOWN_RELEASE).expect("the name is read");
    assert_eq!(f.severity, Severity::Warning);
    assert!(f.summary.contains("libnvcaffe_parser"), "{}", f.summary);
    // "ld returned 1 exit status" is no CUDA status.
    assert!(t.codes.is_empty(), "{:?}", t.codes);
}

#[test]
fn lcuda_under_wsl_names_the_driver_folder() {
    // https://github.com/flashinfer-ai/flashinfer/pull/1909 (FlashInfer's JIT link in vLLM on WSL)
    let t = triage(
        "(Worker_TP0 pid=5917) ERROR 10-10 12:22:46 [multiproc_executor.py:671] /root/miniconda3/bin/../lib/gcc/x86_64-conda-linux-gnu/11.2.0/../../../../x86_64-conda-linux-gnu/bin/ld: cannot find -lcuda: No such file or directory",
    );
    assert!(
        all_text(&t).contains("/usr/lib/wsl/lib"),
        "{}",
        all_text(&t)
    );
}

#[test]
fn a_runtime_names_the_gpu_and_the_architecture_it_was_built_for() {
    // https://github.com/ollama/ollama/issues/17766 (Ollama's cc= is the GPU's capability)
    let t = triage(
        "Aug 16 00:44:16 custom ollama[3422]: time=2026-08-16T00:44:16.901+12:00 level=INFO source=llama_server.go:299 msg=\"skipping CUDA device — compute capability not in compiled architectures\" device=\"Quadro P4000\" cc=610 archs=\"[750 800 860 870 890 900 1000 1030 1100 1200 1210]\"",
    );
    assert!(
        t.architectures.iter().any(|a| a.arch == "sm_61"),
        "{:?}",
        t.architectures
    );
    assert!(message_ids(&t).contains(&"ollama-skipping-device-compute-capability"));
    // https://github.com/rnd-team-dev/plotoptix/issues/56
    let t = triage(
        "Error: Invalid target architecture. Maximum feasible for current context: sm_50, found: sm_60",
    );
    let text = all_text(&t);
    assert!(text.contains("built for sm_60"), "{text}");
    assert!(text.contains("this GPU (sm_50)"), "{text}");
}

#[test]
fn a_message_with_a_space_before_its_colon_or_broken_over_lines_is_read() {
    // https://github.com/NVIDIA/nccl/issues/290 (" : " where the row has ": ")
    let t = triage(
        "gpu2-ru7:2143:2561 [1] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device",
    );
    assert!(
        message_ids(&t).contains(&"nccl-shm-segment"),
        "{:?}",
        message_ids(&t)
    );
    // https://github.com/JuliaGPU/julia-ngc/issues/7 (the message wrapped in the report)
    let t = triage(
        "ERROR: LoadError: CUDA 10.0 is not supported by\nyour driver (which supports up to 9.0)",
    );
    let text = all_text(&t);
    assert!(text.contains("supports CUDA up to 9.0"), "{text}");
}

#[test]
fn tensorrt_headers_and_plugins_are_read_as_tensorrt_not_the_toolkit() {
    // https://github.com/wang-xinyu/tensorrtx/issues/635 (TensorRT 5 on a TX2)
    let t = triage(
        "/home/nvidia/tensorRT_test/tensorrtx-master/dbnet/logging.h:20:10: fatal error: NvInferRuntimeCommon.h: No such file or directory",
    );
    let ids = message_ids(&t);
    assert!(ids.contains(&"tensorrt-header-not-found"), "{ids:?}");
    assert!(!ids.contains(&"cuda-header-not-found"), "{ids:?}");
    assert!(all_text(&t).contains("TensorRT 6"));
    // https://github.com/ceccocats/tkDNN/issues/265 (JetPack 4.6's TensorRT 8)
    let t = triage(
        "tkDNN/include/tkDNN/pluginsRT/ActivationLeakyRT.h(4): error: incomplete type is not allowed",
    );
    assert!(message_ids(&t).contains(&"tensorrt-plugin-api-changed"));
    assert!(all_text(&t).contains("noexcept"));
}

#[test]
fn a_video_codec_sdk_name_not_declared_is_an_older_sdk() {
    // https://github.com/philipl/nv-video-info/issues/3
    let t = triage(
        "nvdecinfo.c:100:8: error: ‘cudaVideoCodec_AV1’ undeclared (first use in this function); did you mean ‘cudaVideoCodec_NV12’?",
    );
    assert!(message_ids(&t).contains(&"video-codec-sdk-headers-too-old"));
    let text = all_text(&t);
    assert!(text.contains("cudaVideoCodec_AV1 is not in"), "{text}");
    assert!(text.contains("SDK 11.0"), "{text}");
}

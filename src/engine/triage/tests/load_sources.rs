//! What installs a library a load error names, and runtime messages a program rewords: real
//! lines from the public threads cited above each test.

use super::*;
use crate::engine::finding_codes as codes;

#[test]
fn an_unversioned_driver_name_is_a_development_link_to_the_versioned_file() {
    // https://github.com/PTRFRLL/nv-docker-trex/issues/31 (fixed by adding libnvidia-ml-dev)
    let t = triage(
        "20211025 09:25:39 WARN: Can't load NVML library, dlopen(25): failed to load libnvidia-ml.so, \
         libnvidia-ml.so: cannot open shared object file: No such file or directory",
    );
    let f = finding(&t, "log-dlopen-cannot-open").expect("the loader's message is read");
    assert!(
        f.detail
            .contains("only the versioned file (libnvidia-ml.so.1)"),
        "{}",
        f.detail
    );
    let link = f
        .fixes
        .iter()
        .find(|x| x.id == "advice-link-unversioned")
        .expect("the link is offered");
    assert!(
        link.summary
            .contains("sudo ln -s libnvidia-ml.so.1 libnvidia-ml.so"),
        "{}",
        link.summary
    );
}

#[test]
fn an_unversioned_toolkit_name_lists_each_soname_the_wheels_ship() {
    let t =
        triage("OSError: libcudart.so: cannot open shared object file: No such file or directory");
    let f = finding(&t, "log-dlopen-cannot-open").expect("the loader's message is read");
    // One soname per major release, never a full version (libcudart.so.12.4.127).
    assert!(
        f.detail
            .contains("(libcudart.so.11.0, libcudart.so.12, libcudart.so.13)"),
        "{}",
        f.detail
    );
}

#[test]
fn a_missing_toolkit_library_says_the_driver_does_not_install_it() {
    // https://github.com/CryptoDredge/miner/issues/3 (only the driver was installed)
    let t = triage(
        "/home/ceedii/CryptoDredge_0.27.0_cuda_11.4_linux/CryptoDredge: error while loading shared \
         libraries: libnvrtc.so.11.2: cannot open shared object file: No such file or directory",
    );
    let f = finding(&t, "log-dlopen-cannot-open").expect("the loader's message is read");
    assert!(
        f.detail.contains(
            "libnvrtc.so.11.2 is installed by the CUDA toolkit (CUDA 11.2 to 11.8) or the pip \
             wheel nvidia-cuda-nvrtc-cu11, not by the NVIDIA driver."
        ),
        "{}",
        f.detail
    );
    // A driver library gets no such sentence.
    let t =
        triage("OSError: libcuda.so.1: cannot open shared object file: No such file or directory");
    assert!(
        !all_text(&t).contains("not by the NVIDIA driver"),
        "{}",
        all_text(&t)
    );
}

#[test]
fn a_runtime_message_without_its_leading_article_is_still_read() {
    // https://github.com/dynexcoin/Dynex/issues/42 (HiveOS driver older than the miner's CUDA; a driver update fixed it)
    let t = triage("PUassert: The PTX was compiled with an unsupported toolchain, kernel.cu 2352");
    assert!(finding(&t, "cuda-error-222").is_some(), "{:?}", codes(&t));
}

#[test]
fn a_cuda_failure_that_nccl_quotes_is_the_runtime_code_not_ncclinvalidargument() {
    // https://github.com/NVIDIA/nccl/issues/976 (NVLS after a Fabric Manager restart)
    let t = triage("transport/nvls.cc:165 NCCL WARN Cuda failure 'invalid argument'");
    assert!(
        finding(&t, "nccl-status-ncclinvalidargument").is_none(),
        "{:?}",
        codes(&t)
    );
    let f = finding(&t, "cuda-error-1").expect("cudaErrorInvalidValue");
    assert!(f.detail.contains("Fabric Manager"), "{}", f.detail);
}

#[test]
fn a_cudnn_8_dll_that_error_126_names_points_at_zlibwapi() {
    // https://github.com/pytorch/builder/pull/955 (the cuDNN 8 DLLs need zlibwapi.dll)
    let t = triage(
        "OSError: [WinError 126] The specified module could not be found. Error loading \
         \"C:\\w\\b\\windows\\conda\\envs\\testenv\\lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll\" \
         or one of its dependencies.",
    );
    let f = finding(&t, "log-torch-winerror-loading-dll").expect("PyTorch's message is read");
    assert!(f.detail.contains("zlibwapi.dll"), "{}", f.detail);
}

#[test]
fn a_package_built_without_an_architecture_is_not_a_compiler_refusal() {
    // https://github.com/NVlabs/tiny-cuda-nn/issues/490 (built for compute capability 86 only)
    let t = triage(
        "OSError: Could not find compatible tinycudann extension for compute capability 70.",
    );
    let f = finding(&t, codes::GPU_ARCH_REFUSED).expect("sm_70 is named");
    assert!(f.detail.contains("was not compiled for it"), "{}", f.detail);
    assert!(
        !f.detail.contains("The tool that refused it is newer than"),
        "{}",
        f.detail
    );
    // https://github.com/PaddlePaddle/PaddleDetection/issues/8873: a wheel built for other architectures.
    let t = triage(
        "The GPU architecture in your current machine is Pascal, which is not compatible with Paddle installation with arch: 70 75 80 86 , it is recommended to install the corresponding wheel package",
    );
    let f = finding(&t, codes::GPU_ARCH_REFUSED).expect("Pascal is named");
    assert!(f.detail.contains("was not compiled for it"), "{}", f.detail);
    // A compiler's refusal keeps the compiler's reading, both ways: a compiler newer than the
    // last release for it, or an old one first on PATH
    // (https://github.com/CMU-Perceptual-Computing-Lab/openpose/issues/1231: CUDA 7.5's nvcc).
    let t = triage("nvcc fatal   : Unsupported gpu architecture 'compute_70'");
    let f = finding(&t, codes::GPU_ARCH_REFUSED).expect("compute_70 is named");
    assert!(
        f.detail.contains("The tool that refused it is newer than"),
        "{}",
        f.detail
    );
    assert!(f.detail.contains("or older than 9.0"), "{}", f.detail);
}

#[test]
fn a_compiled_extension_missing_a_procedure_was_built_for_another_torch() {
    // https://github.com/facebookresearch/xformers/issues/1248 (the Windows loader's dialog)
    let t = triage(
        "The procedure entry point could not be located in the dynamic link library \
         Z:\\_PSTART_\\_APPS_\\_AI_\\ComfyUI_windows_portable\\python_embeded\\Lib\\site-packages\\xformers\\_C.pyd",
    );
    let f = finding(&t, "win32-error-127").expect("the dialog's wording is error 127");
    assert!(
        f.detail.contains("for another torch release"),
        "{}",
        f.detail
    );
}

#[test]
fn tensorflow_1_on_windows_names_its_native_module_when_a_dll_is_missing() {
    // https://github.com/tensorflow/tensorflow/issues/10111 (cudnn64_5.dll was missing)
    let t = triage("ImportError: No module named '_pywrap_tensorflow_internal'");
    assert!(
        finding(&t, codes::EXTENSION_MODULE_MISSING).is_none(),
        "{:?}",
        codes(&t)
    );
    assert!(message_ids(&t).contains(&"tensorflow-pywrap-no-module"));
}

#[test]
fn a_driver_and_runtime_version_on_consecutive_lines_are_compared() {
    // https://github.com/sp-hash/TeamBlackMiner/issues/285 (driver 460.32 supports CUDA 11.2)
    let t = triage(
        "00:00:00 [2022-05-03 15:10:57.644] Cuda driver version: 11.2\n\
         00:00:00 [2022-05-03 15:10:57.644] Cuda runtime API version: 11.4",
    );
    let f = finding(&t, codes::DRIVER_TOO_OLD).expect("11.4 runtime on an 11.2 driver");
    assert!(f.summary.contains("CUDA 11.2"), "{}", f.summary);
    assert!(f.summary.contains("11.4"), "{}", f.summary);
}

#[test]
fn a_cuda_function_the_linker_did_not_find_means_an_old_toolkit_at_build_time() {
    // https://github.com/NVlabs/instant-ngp#troubleshooting-compile-errors (update CUDA)
    let t = triage("undefined references to \"cudaGraphExecUpdate\"");
    assert!(
        t.symbols
            .iter()
            .any(|s| s.symbol == "cudaGraphExecUpdate" && s.at_link)
    );
    let f = finding(&t, codes::DRIVER_ENTRY_POINT_MISSING).expect("a runtime API function");
    assert!(
        f.summary.contains("toolkit this build links against"),
        "{}",
        f.summary
    );
    // Any other symbol the linker misses is the program's own business: no CUDA reading.
    let t = triage("main.o: undefined reference to `my_helper'");
    assert!(t.symbols.is_empty(), "{:?}", t.symbols);
}

#[test]
fn an_extension_module_missing_a_library_function_may_not_link_the_library() {
    // https://github.com/deepspeedai/DeepSpeed/pull/1879 (the op was built without -lcurand)
    let t = triage(
        "ImportError: /mnt/nvme0/code/github/00optimize/deepspeed/deepspeed/ops/adam/\
         cpu_adam_op.cpython-38-x86_64-linux-gnu.so: undefined symbol: curandCreateGenerator",
    );
    let f = finding(&t, codes::MISSING_SYMBOL).expect("a cuRAND function");
    assert!(
        f.detail.contains("built without linking cuRAND"),
        "{}",
        f.detail
    );
}

#[test]
fn windows_errors_in_other_display_languages_are_read_as_their_codes() {
    for (line, code) in [
        // https://github.com/priyankshah7/hypers/issues/85 (Italian Windows)
        (
            "ImportError: DLL load failed: Impossibile trovare il modulo specificato.",
            "win32-error-126",
        ),
        // https://github.com/666ghj/BettaFish/issues/430 (Chinese Windows, without the number)
        (
            "ImportError: DLL load failed while importing onnxruntime_pybind11_state: 动态链接库(DLL)初始化例程失败",
            "win32-error-1114",
        ),
    ] {
        assert!(finding(&triage(line), code).is_some(), "{line}");
    }
}

#[test]
fn windows_start_up_dialog_status_is_read() {
    // https://github.com/lightvector/KataGo/issues/679 (a CUDA build of KataGo) and
    // https://github.com/eezstreet/OpenD2/issues/4 (64-bit DLLs beside a 32-bit program).
    let t = triage(
        "The application was unable to start correctly (0xc000007b). Click OK to close the application.",
    );
    assert!(finding(&t, "ntstatus-0xc000007b").is_some());
}

//! Lines whose words hide who failed or what a number is: a shell that never links CUDA (a
//! preloaded plugin asked), an Electron app's exit code rounded by JavaScript, a binding's
//! enumerator without its `CUDA_` prefix, a library named without its extension, a driver
//! library asked for by its unversioned name, a harmless warning that carries a status name.
//! Real lines from the public threads cited above each assertion.

use super::*;
use crate::engine::finding_codes as codes;
use crate::engine::findings::Severity;

#[test]
fn a_shell_missing_a_cuda_library_was_started_with_a_preloaded_plugin() {
    // https://github.com/isarsoft/yolov4-triton-tensorrt/issues/16 (LD_PRELOAD of a plugin built
    // against CUDA 10.1 in a CUDA 11 tritonserver container)
    let t = triage(
        "/bin/bash: error while loading shared libraries: libcudart.so.10.1: cannot open shared object file: No such file or directory",
    );
    let f = finding(&t, codes::LIBRARY_PRELOADED_DEPENDENCY_MISSING).expect("the preload is read");
    assert!(f.summary.contains("LD_PRELOAD"), "{}", f.summary);
    assert!(f.summary.contains("10.1"), "{}", f.summary);
    // A program that links the runtime itself is not a preload.
    let t = triage(
        "./deviceQuery: error while loading shared libraries: libcudart.so.10.1: cannot open shared object file: No such file or directory",
    );
    assert!(finding(&t, codes::LIBRARY_PRELOADED_DEPENDENCY_MISSING).is_none());
}

#[test]
fn an_exit_code_rounded_by_javascript_is_read_only_where_one_status_fits() {
    // https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/432 (0xC0000409 as a double)
    let t = triage(
        "Error loading model.\n(Exit code: 18446744072635812000). Unknown error. Try a different model and/or config.",
    );
    let text = all_text(&t);
    assert!(
        codes(&t).contains(&"ntstatus-0xc0000409"),
        "{:?}",
        codes(&t)
    );
    assert!(text.contains("compute capability"), "{text}");
    // The exact digits of a sign-extended status read as that status.
    let t = triage("Process exited with code 18446744072635809797");
    assert!(
        codes(&t).contains(&"ntstatus-0xc0000005"),
        "{:?}",
        codes(&t)
    );
    // "...810000" rounds from any status 0xC0000000-0xC00003FF: access violation and illegal
    // instruction alike, so none is named (https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/770).
    let t = triage("(Exit code: 18446744072635810000). Unknown error.");
    assert!(
        !codes(&t).iter().any(|c| c.starts_with("ntstatus-")),
        "{:?}",
        codes(&t)
    );
}

#[test]
fn a_driver_enumerator_without_its_prefix_is_read_where_only_cuda_has_it() {
    // https://github.com/anduril/jetpack-nixos/issues/184 (CUDA.jl on Jetson: the PTX JIT
    // library was in another package)
    let t = triage("ERROR_JIT_COMPILER_NOT_FOUND");
    assert!(
        all_text(&t).contains("libnvidia-ptxjitcompiler"),
        "{}",
        all_text(&t)
    );
    // Windows' ERROR_NOT_FOUND is not CUDA's CUDA_ERROR_NOT_FOUND on a line about no CUDA.
    let t = triage("Element not found. ERROR_NOT_FOUND");
    assert!(
        !codes(&t).iter().any(|c| c.starts_with("cuda-")),
        "{:?}",
        codes(&t)
    );
}

#[test]
fn a_library_named_without_its_extension_is_the_one_that_failed() {
    // https://github.com/Sergio0694/NeuralNetwork.NET/issues/83 (Alea GPU asks for cuDNN 5)
    let t = triage("Couldn't open CUDA library 'cudnn64_5'");
    let f = finding(&t, codes::LIBRARY_NOT_FOUND).expect("the library is read");
    assert!(f.summary.contains("cuDNN 5"), "{}", f.summary);
}

#[test]
fn nvml_by_its_unversioned_name_is_still_the_drivers_library() {
    // https://github.com/utkuozdemir/nvidia_gpu_exporter/issues/105 (the exporter's pod had no
    // host driver libraries mounted)
    let t = triage(
        "stdout: NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the NVIDIA Display Driver is properly installed and present in your system.",
    );
    let f = finding(&t, codes::DRIVER_LIBRARY_NOT_LOADED).expect("a driver library");
    assert!(f.detail.contains("mounted"), "{}", f.detail);
    assert!(finding(&t, codes::LIBRARY_NOT_FOUND).is_none());
}

#[test]
fn a_harmless_warning_keeps_its_status_name_a_note() {
    // https://github.com/pytorch/pytorch/issues/121834 (PyTorch 2.3.0; gone in 2.3.1)
    let t = triage(
        "UserWarning: Plan failed with a cudnnException: CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: cudnnFinalize Descriptor Failed cudnn_status: CUDNN_STATUS_NOT_SUPPORTED (Triggered internally at ../aten/src/ATen/native/cudnn/Conv_v8.cpp:919.)",
    );
    assert!(
        t.findings.iter().all(|f| f.severity == Severity::Info),
        "{:?}",
        codes(&t)
    );
    assert!(all_text(&t).contains("2.3.1"), "{}", all_text(&t));
}

#[test]
fn musls_loader_names_the_library_that_needed_the_missing_one() {
    // https://github.com/numba/numba/issues/3396 (an Alpine-based image: libcuda's dependency
    // was not on the loader path)
    let t = triage(
        "Error loading shared library libnvidia-fatbinaryloader.so.410.48: No such file or directory (needed by /usr/lib64/libcuda.so)",
    );
    assert!(
        t.chains
            .iter()
            .any(|c| c.needed_by == "libcuda.so"
                && c.missing == "libnvidia-fatbinaryloader.so.410.48"),
        "{:?}",
        t.chains
    );
}

#[test]
fn a_return_value_from_a_runtime_call_is_its_status() {
    // https://github.com/charmplusplus/charm/issues/802 (several processes on a GPU in
    // exclusive-process mode)
    let t = triage(
        "Fatal CUDA Error at cuda-hybrid-api.cu:450.\nReturn value 46 from 'cudaStreamCreate(&kernel_stream)'.  Exiting.",
    );
    assert!(
        t.codes
            .iter()
            .any(|c| c.kind == "cuda" && c.number == Some(46)),
        "{:?}",
        t.codes
    );
    assert!(
        all_text(&t).contains("Exclusive_Process"),
        "{}",
        all_text(&t)
    );
}

#[test]
fn a_plugin_the_scan_skipped_is_not_an_error() {
    // https://github.com/NVIDIA-AI-IOT/deepstream_360_d_smart_parking_application/issues/26
    // (maintainer: ignore it unless nvinferserver is used)
    let t = triage(
        "(gst-plugin-scanner:554): GStreamer-WARNING **: 02:31:21.877: Failed to load plugin '/usr/lib/x86_64-linux-gnu/gstreamer-1.0/deepstream/libnvdsgst_inferserver.so': libtrtserver.so: cannot open shared object file: No such file or directory",
    );
    assert!(
        t.findings.iter().all(|f| f.severity == Severity::Info),
        "{:?}",
        codes(&t)
    );
    assert!(message_ids(&t).contains(&"deepstream-inferserver-plugin-without-triton"));
}

#[test]
fn a_missing_dll_in_a_cuda_tagged_build_says_which_cuda_it_wants() {
    // https://github.com/TabbyML/tabby/issues/4117 (the cuda117 build on a machine with CUDA 12)
    let t = triage(
        r#"WARN llama_cpp_server::supervisor: llama-server <embedding> exited with status code -1073741515, args: `Command { std: "C:\\users\\chx\\tabby_x86_64-windows-msvc-cuda117\\llama-server.exe" }`"#,
    );
    assert!(
        codes(&t).contains(&"ntstatus-0xc0000135"),
        "{:?}",
        codes(&t)
    );
    assert!(
        all_text(&t).contains("cuda124 build worked"),
        "{}",
        all_text(&t)
    );
}

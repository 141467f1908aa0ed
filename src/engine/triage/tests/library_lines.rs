//! Libraries a text says did not load, in the shapes real logs take: a name the tables do not
//! know, a message wrapped over lines, a CUDA build of a program's own DLL, and a log where one
//! library opened next to one that did not, or was found in the wrong word size.

use super::*;
use crate::engine::finding_codes as codes;

#[test]
fn an_unknown_library_that_did_not_load_is_named_as_such() {
    // https://github.com/flashcatcloud/categraf/issues/886 (DCGM's library)
    let t = triage("exporter.go:167: libdcgm.so not Found");
    let f = finding(&t, codes::LIBRARY_NOT_FOUND).expect("the text says it was not found");
    assert_eq!(f.libraries, ["libdcgm.so"]);
    assert!(!f.detail.contains("CUDA build"), "{}", f.detail);
    // Named only, not failing: nothing to report.
    assert!(
        finding(
            &triage("loaded plugin libdcgm.so"),
            codes::LIBRARY_NOT_FOUND
        )
        .is_none()
    );
}

#[test]
fn a_message_wrapped_over_lines_still_names_the_library_that_did_not_load() {
    // https://github.com/cortex-lab/KiloSort/issues/229 (MATLAB on a machine without a driver)
    let t = triage(
        "Caused by:\n    The CUDA driver could not be loaded. The library name used was 'nvcuda.dll'. The error was:\n    The specified module could not be found.",
    );
    let f = finding(&t, codes::DRIVER_LIBRARY_NOT_LOADED).expect("nvcuda.dll is the driver's");
    assert!(f.summary.contains("nvcuda.dll"), "{}", f.summary);
}

#[test]
fn a_library_that_opened_next_to_one_that_did_not_is_not_blamed() {
    // TensorFlow's log: one line per library, each saying what happened to it.
    let t = triage(
        "I tensorflow/stream_executor/platform/default/dso_loader.cc:53] Successfully opened dynamic library libcudart.so.11.0\nW tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file: No such file or directory",
    );
    let blamed: Vec<&str> = t
        .findings
        .iter()
        .filter(|f| f.severity == crate::engine::findings::Severity::Error)
        .flat_map(|f| f.libraries.iter().map(String::as_str))
        .collect();
    assert!(blamed.contains(&"libcudnn.so.8"), "{blamed:?}");
    assert!(!blamed.contains(&"libcudart.so.11.0"), "{blamed:?}");
}

#[test]
fn a_programs_own_cuda_build_that_did_not_load_names_the_driver_and_runtime() {
    // https://github.com/nomic-ai/gpt4all/pull/2389 (nvcuda.dll missing: no NVIDIA driver)
    let t = triage(
        "Failed to load llamamodel-mainline-cuda-avxonly.dll: LoadLibraryExA failed with error 0x7e",
    );
    let text = all_text(&t);
    assert!(text.contains("nvcuda.dll"), "{text}");
    assert!(text.contains("cudart"), "{text}");
}

#[test]
fn a_message_is_read_across_a_blank_line_and_over_three_lines() {
    // https://github.com/clearlinux/distribution/issues/1970: the installer's message with a
    // blank line after its first line and a wrap in its second.
    let t = triage(
        "Compiler version check failed:\n\nThe major and minor number of the compiler used to\ncompile the kernel:",
    );
    assert!(
        t.findings
            .iter()
            .any(|f| f.code == "log-dkms-compiler-version-mismatch"),
        "{:#?}",
        t.findings
    );
}

#[test]
fn a_dotnet_dll_named_without_its_extension_is_the_library_that_failed() {
    // .NET's DllNotFoundException, as managedCuda users paste it
    // (https://github.com/kunzmi/managedCuda/issues/32 names CUDA 7.5's NPP the same way).
    let t = triage(
        "Additional information: Unable to load DLL 'cublas64_80': The specified module could not be found. (Exception from HRESULT: 0x8007007E)",
    );
    let missing = t
        .findings
        .iter()
        .find(|f| f.code == codes::LIBRARY_NOT_FOUND)
        .unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert!(
        missing.summary.contains("cublas64_80.dll"),
        "{}",
        missing.summary
    );
    assert!(missing.summary.contains("CUDA 8.0"), "{}", missing.summary);
}

#[test]
fn a_load_error_says_which_release_the_missing_name_belongs_to() {
    // https://github.com/pytorch/pytorch/issues/41975 (a torch built for CUDA 10.0); the
    // loader's message names only the file.
    let t = triage(
        "ImportError: libcufft.so.10.0: cannot open shared object file: No such file or directory",
    );
    let error =
        finding(&t, "log-dlopen-cannot-open").unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert!(
        error.detail.contains("cuFFT (CUDA 10.0)"),
        "{}",
        error.detail
    );
    assert!(error.detail.contains("built against"), "{}", error.detail);
    // A message about a library that did load (the glibc it needs) says nothing of a missing
    // release.
    let t = triage(
        "glxgears: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.34' not found (required by /usr/lib/libcudart.so.12)",
    );
    assert!(
        t.findings
            .iter()
            .all(|f| !f.detail.contains("built against that release")),
        "{:#?}",
        t.findings
    );
    // A name of no known release adds nothing.
    let t = triage(
        "ImportError: libfoo_cuda.so.3: cannot open shared object file: No such file or directory",
    );
    assert!(
        t.findings
            .iter()
            .all(|f| !f.detail.contains("built against that release"))
    );
}

#[test]
fn a_library_outside_the_searched_folders_says_where_it_lives() {
    // https://github.com/numba/numba/issues/9216 (CUDA_HOME set to a list of folders)
    let t =
        triage("OSError: libnvvm.so: cannot open shared object file: No such file or directory");
    let f = t
        .findings
        .iter()
        .find(|f| f.severity == crate::engine::findings::Severity::Error)
        .expect("the load failure is an error");
    assert!(f.detail.contains("{toolkit}/nvvm/lib64"), "{}", f.detail);
    assert!(f.detail.contains("CUDA_HOME"), "{}", f.detail);
    // A Linux file's folder only, in one sentence.
    assert!(!f.detail.contains("on windows"), "{}", f.detail);
    assert!(
        !f.detail.contains(".;") && !f.detail.contains(".."),
        "{}",
        f.detail
    );
}

#[test]
fn nvml_not_found_in_a_tools_words_is_nvml_missing() {
    // https://github.com/XuehaiPan/nvitop/issues/78 (Jetson AGX Orin)
    let t = triage("FATAL ERROR: NVIDIA Management Library (NVML) not found.");
    assert!(
        message_ids(&t).contains(&"nvml-init-failure-generic"),
        "{:?}",
        message_ids(&t)
    );
    assert!(all_text(&t).contains("Jetson"));
}

#[test]
fn a_library_of_the_wrong_word_size_is_not_a_missing_one() {
    // https://github.com/MotrixLab/SMPLer-X/issues/37 (a 32-bit libcuda.so first on the path)
    let t = triage(
        "Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: wrong ELF class: ELFCLASS32",
    );
    assert!(message_ids(&t).contains(&"elf-wrong-class"));
    let codes: Vec<&str> = t.findings.iter().map(|f| f.code.as_str()).collect();
    assert!(!codes.contains(&"driver-library-not-loaded"), "{codes:?}");
    assert!(!codes.contains(&"library-not-found"), "{codes:?}");
    assert!(all_text(&t).contains("LD_LIBRARY_PATH"));
}

#[test]
fn a_tensorrt_entry_point_missing_from_a_caller_means_it_was_not_linked() {
    // https://github.com/nvidia-holoscan/holohub/pull/512: the extension relied on the ONNX parser
    // to load the plugin library, which TensorRT 10 no longer does.
    let t =
        triage("libgxf_lstm_tensor_rt_inference_lib.so: undefined symbol: initLibNvInferPlugins");
    let f = t
        .findings
        .iter()
        .find(|f| f.code == "missing-symbol")
        .unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert!(
        f.summary
            .contains("not linked against TensorRT's plugin library"),
        "{}",
        f.summary
    );
    assert!(
        f.fixes[0].summary.contains("libnvinfer_plugin"),
        "{}",
        f.fixes[0].summary
    );
    // A cuBLAS function keeps the older-copy reading.
    let t = triage("libtorch_cuda.so: undefined symbol: cublasLtMatmulAlgoGetHeuristic");
    assert!(
        t.findings
            .iter()
            .all(|f| !f.summary.contains("not linked against"))
    );
}

#[test]
fn a_windows_code_on_a_dll_load_failure_names_the_module_being_imported() {
    // https://github.com/pytorch/pytorch/issues/7579 (WinError 182 text on torch._C's import).
    let t = triage(
        " File \"C:\\anaconda2\\envs\\pytorch\\lib\\site-packages\\torch\\__init__.py\", line 78, in <module>\n    from torch._C import *\nImportError: DLL load failed: The operating system cannot run %1.",
    );
    let f = t
        .findings
        .iter()
        .find(|f| f.code == "win32-error-182")
        .unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert!(
        f.detail.contains("the import that failed is torch"),
        "{}",
        f.detail
    );
}

#[test]
fn a_programs_own_gpu_dll_that_does_not_load_points_at_the_cuda_it_was_built_with() {
    // https://github.com/AlturosDestinations/Alturos.Yolo/issues/13 (built for CUDA 9.2, 9.1 installed).
    let t =
        triage("System.DllNotFoundException: 'Unable to load DLL 'x64\\yolo_cpp_dll_gpu.dll': ");
    let f = t
        .findings
        .iter()
        .find(|f| f.code == codes::LIBRARY_NOT_FOUND)
        .unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert!(
        f.fixes.iter().any(|x| x
            .summary
            .contains("matching CUDA release it was built with")),
        "{:?}",
        f.fixes
    );
    // A program library without a GPU word in its name gets no such advice.
    let t = triage("System.DllNotFoundException: Unable to load DLL 'sqlite3.dll'");
    assert!(
        t.findings
            .iter()
            .all(|f| f.fixes.iter().all(|x| x.id != "advice-install-build-cuda"))
    );
}

#[test]
fn tensorflows_loader_inside_jaxlib_is_jaxs() {
    // https://github.com/jax-ml/jax/issues/8289 (jaxlib+cuda110 on a CUDA 11.0 install)
    let t = triage(
        "2021-10-19 12:49:58.203647: W external/org_tensorflow/tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcusolver.so.11'; dlerror: libcusolver.so.11: cannot open shared object file: No such file or directory; LD_LIBRARY_PATH: /pkgs/cuda-11.0/lib64:/p",
    );
    let f = message(&t, "tf-dso-load-failed");
    assert!(f.detail.contains("JAX's jaxlib"), "{}", f.detail);
}

//! Windows load errors as TensorFlow, cuDNN 8, PyTorch and ONNX Runtime print them: every DLL a
//! log lists, zlibwapi, the phrasings of Win32 codes, paths in quotes, and the loader's dialog
//! pasted as laid out on screen.

use super::*;
use crate::engine::finding_codes as codes;

#[test]
fn tensorflow_windows_log_lists_every_dll_and_the_mixed_families() {
    let log = "2024-07-01 W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cublas64_11.dll'; dlerror: cublas64_11.dll not found\n\
               W dso_loader.cc:64] Could not load dynamic library 'cublasLt64_11.dll'; dlerror: cublasLt64_11.dll not found\n\
               W dso_loader.cc:64] Could not load dynamic library 'cufft64_10.dll'; dlerror: cufft64_10.dll not found\n\
               W dso_loader.cc:64] Could not load dynamic library 'cusparse64_11.dll'; dlerror: cusparse64_11.dll not found\n\
               W dso_loader.cc:64] Could not load dynamic library 'cudnn64_8.dll'; dlerror: cudnn64_8.dll not found\n\
               I found C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.5\\bin\\cublas64_12.dll";
    let t = triage(log);
    assert_eq!(
        files(&t),
        vec![
            ("cublas64_11.dll", "cuBLAS", "11.x"),
            ("cublasLt64_11.dll", "cuBLASLt", "11.x"),
            ("cufft64_10.dll", "cuFFT", "10.1-11.8"),
            ("cusparse64_11.dll", "cuSPARSE", "11.x"),
            ("cudnn64_8.dll", "cuDNN", "8"),
            ("cublas64_12.dll", "cuBLAS", "12.x"),
        ]
    );
    let f = t
        .findings
        .iter()
        .find(|f| f.code == "log-tf-dso-load-failed")
        .unwrap();
    assert_eq!(f.severity, crate::engine::findings::Severity::Error);
    assert!(
        f.summary.contains("cublas64_11.dll") && f.summary.contains("4 more"),
        "{}",
        f.summary
    );
    assert_eq!(f.evidence.iter().filter(|e| e.kind == "log").count(), 5);
    assert!(f.evidence.iter().any(|e| e.text.contains("issues/72097")));
    assert!(codes(&t).contains(&"mixed-cuda-families"));
}

#[test]
fn cudnn_zlibwapi_lines() {
    let t = triage("Could not locate zlibwapi.dll. Please make sure it is in your library path!");
    assert_eq!(files(&t), vec![("zlibwapi.dll", "zlib", "cuDNN 8")]);
    assert!(codes(&t).contains(&"log-zlibwapi-missing"));
    assert!(
        !codes(&t).contains(&"log-cudnn-could-not-locate"),
        "specific message overrides the generic one"
    );

    let t = triage(
        "Could not load library zlibwapi.dll. Error code 193\nPlease verify that the library is built correctly for your processor architecture (32-bit, 64-bit)",
    );
    let c = codes(&t);
    assert!(
        c.contains(&"log-zlibwapi-wrong-architecture") && c.contains(&"win32-error-193"),
        "{c:?}"
    );
    assert!(!c.contains(&"log-cudnn-could-not-load-library"));
    let win = t
        .findings
        .iter()
        .find(|f| f.code == "win32-error-193")
        .unwrap();
    assert!(win.detail.contains("architecture"));

    let t = triage(
        "Could not load library cudnn_cnn_infer64_8.dll. Error code 126\nPlease make sure cudnn_cnn_infer64_8.dll is in your library path!",
    );
    assert_eq!(files(&t), vec![("cudnn_cnn_infer64_8.dll", "cuDNN", "8")]);
    let c = codes(&t);
    assert!(
        c.contains(&"log-cudnn-sublibrary-126") && c.contains(&"win32-error-126"),
        "{c:?}"
    );
    let f = t
        .findings
        .iter()
        .find(|f| f.code == "log-cudnn-sublibrary-126")
        .unwrap();
    assert!(f.detail.contains("zlibwapi"));
}

#[test]
fn win32_code_phrasings() {
    for text in [
        "OSError: [WinError 126] The specified module could not be found",
        "Error code 126",
        "LoadLibrary failed with error 126 \"\" when trying to load \"C:\\x\\onnxruntime_providers_cuda.dll\"",
        "LoadLibraryExW failed: error 0x7E",
        "failed with HRESULT 0x8007007E",
        "The specified module could not be found.",
        "load failed, win32 error 126",
    ] {
        let t = triage(text);
        assert!(
            t.codes
                .iter()
                .any(|c| c.kind == "win32" && c.number == Some(126)),
            "{text}: {:?}",
            t.codes
        );
    }
    let t = triage("[WinError 193] %1 is not a valid Win32 application");
    assert_eq!(t.codes.len(), 1, "{:?}", t.codes);
    assert_eq!(t.codes[0].number, Some(193));
    let t = triage("Could not load library cudnn_cnn_infer64_8.dll. Error code 127");
    assert!(codes(&t).contains(&"log-cudnn-sublibrary-127"));
    assert!(t.codes.iter().any(|c| c.number == Some(127)));
    assert!(triage("dlerror: libfoo.so: cannot open").codes.is_empty());
}

#[test]
fn pytorch_and_onnxruntime_paths_in_quotes() {
    let t = triage(
        r#"OSError: [WinError 126] The specified module could not be found. Error loading "C:\Users\me\venv\lib\site-packages\torch\lib\cudnn_cnn_infer64_8.dll" or one of its dependencies."#,
    );
    assert_eq!(files(&t), vec![("cudnn_cnn_infer64_8.dll", "cuDNN", "8")]);
    let f = t
        .findings
        .iter()
        .find(|f| f.code == "log-torch-winerror-loading-dll")
        .unwrap();
    assert!(f.summary.contains("WinError 126"));
    let t = triage(
        r#"[ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 "" when trying to load "C:\app\onnxruntime_providers_cuda.dll""#,
    );
    assert!(codes(&t).contains(&"log-ort-loadlibrary-failed"));
    assert_eq!(t.identified[0].component, "ONNX Runtime CUDA provider");
}

#[test]
fn a_loader_dialog_laid_out_over_lines_is_read_as_one_and_names_the_torch_build() {
    // https://github.com/pytorch/TensorRT/pull/3086 (torchtrt.dll built against another libtorch)
    let t = triage(
        "The procedure entry point\n\
         ?getinstance@UndefinedTensorImpl@c10@@CAAEAU12@XZ\n\
         could not be located in the dynamic link library\n\
         C:\\Users\\lanl\\git\\venv_py310\\Lib\\site-packages\\torch_tensorrt\\\n\
         lib\\torchtrt.dll.",
    );
    let f = message(&t, "torch-extension-abi-entry-point");
    assert!(f.summary.contains("(torchtrt.dll)"), "{}", f.summary);
    // The symbol is not said to be missing from torchtrt.dll: the row overrides that reading.
    assert!(finding(&t, "missing-symbol").is_none(), "{}", all_text(&t));
    assert_eq!(t.symbols[0].library.as_deref(), Some("torchtrt.dll"));
}

#[test]
fn a_refusal_that_names_no_dll_is_the_library_the_traceback_was_loading() {
    // https://github.com/asappresearch/sru/issues/72 (pynvrtc made for another CUDA release)
    let text = "File \"E:\\Anaconda\\lib\\site-packages\\pynvrtc\\interface.py\", line 87, in init\n\
                self._load_nvrtc_lib(lib_path)\n\
                File \"E:\\Anaconda\\lib\\site-packages\\pynvrtc\\interface.py\", line 109, in _load_nvrtc_lib\n\
                self.lib = cdll.LoadLibrary(name)\n\
                File \"E:\\Anaconda\\lib\\ctypes_init.py\", line 426, in LoadLibrary\n\
                return self.dlltype(name)\n\
                File \"E:\\Anaconda\\lib\\ctypes_init.py\", line 348, in init\n\
                self._handle = _dlopen(self._name, mode)\n\
                OSError: [WinError 126] 找不到指定的模块。";
    let t = triage(text);
    let f = finding(&t, codes::LIBRARY_FROM_TRACEBACK).expect("the traced library is named");
    assert!(f.summary.contains("NVRTC's"), "{}", f.summary);
    assert!(f.detail.contains("_load_nvrtc_lib"), "{}", f.detail);
    assert!(f.detail.contains("nvrtc64_120_0.dll"), "{}", f.detail);
}

#[test]
fn javas_dependent_libraries_are_the_wrappers_cuda_release() {
    // https://github.com/uncomplicate/clojurecuda/issues/3 (JCuda 0.9.0 with CUDA 9.1/9.2)
    let t = triage(
        "%APPDATA%\\Local\\Temp\\JNvrtc-0.9.0-windows-x86_64.dll: Can't find dependent libraries",
    );
    let f = message(&t, "java-dependent-libraries-missing");
    assert!(
        f.summary
            .starts_with("JNvrtc-0.9.0-windows-x86_64.dll was found")
    );
    // Not read as the wrapper's own DLL missing.
    assert!(
        finding(&t, codes::LIBRARY_NOT_FOUND).is_none(),
        "{}",
        all_text(&t)
    );
    assert!(all_text(&t).contains("nvrtc64_90.dll"), "{}", all_text(&t));
}

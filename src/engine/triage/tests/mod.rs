//! Triage on real error lines, each from a public GitHub issue (the error catalog's and others). Extraction is generic, so these lines only exercise it; the junk test checks that no
//! input panics.

use super::*;

mod bindings_and_extensions;
mod build_and_context_cases;
mod build_steps;
mod caller_and_setup_errors;
mod chain_readers;
mod container_runtime;
mod cut_and_reworded_statuses;
mod driver_lines;
mod driver_parts;
mod entity_reading;
mod entry_checks_and_hidden_gpus;
mod general_families;
mod gpu_generations;
mod host_programs;
mod host_versions;
mod jit_compilers;
mod library_limits_and_contexts;
mod library_lines;
mod library_stand_ins;
mod load_sources;
mod logged_lines_and_setups;
mod lost_gpus_and_old_cards;
mod modules_profiles_and_headers;
mod nccl_statuses;
mod program_builds_and_hints;
mod program_errors;
mod quiet_requesters;
mod readings_in_context;
mod release_mismatches;
mod runtime_policies;
mod setup_specific_readings;
mod spelled_statuses;
mod split_libraries;
mod status_family;
mod windows_lines;
mod worded_statuses;

/// The finding of a code, if the text gave one.
fn finding<'a>(t: &'a Triage, code: &str) -> Option<&'a crate::engine::findings::Finding> {
    t.findings.iter().find(|f| f.code == code)
}

/// The code of the first error finding: the reading a user sees first.
fn first_error(t: &Triage) -> Option<&str> {
    t.findings
        .iter()
        .find(|f| f.severity == crate::engine::findings::Severity::Error)
        .map(|f| f.code.as_str())
}

/// Every finding's summary, detail and fixes, one line each: what a user reads.
fn all_text(t: &Triage) -> String {
    t.findings
        .iter()
        .map(|f| {
            let fixes: Vec<&str> = f.fixes.iter().map(|x| x.summary.as_str()).collect();
            format!("{} {} {}", f.summary, f.detail, fixes.join(" "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The finding of a catalog message row (`log-<id>`), which the text must have matched.
fn message<'a>(t: &'a Triage, id: &str) -> &'a crate::engine::findings::Finding {
    finding(t, &format!("log-{id}")).unwrap_or_else(|| panic!("no {id}: {:?}", message_ids(t)))
}

/// The catalog messages the text matched, by id.
fn message_ids(t: &Triage) -> Vec<&str> {
    t.messages.iter().map(|m| m.id.as_str()).collect()
}

fn files(t: &Triage) -> Vec<(&str, &str, &str)> {
    t.identified
        .iter()
        .map(|i| (i.file.as_str(), i.component.as_str(), i.version.as_str()))
        .collect()
}

fn codes(t: &Triage) -> Vec<&str> {
    t.findings.iter().map(|f| f.code.as_str()).collect()
}

#[test]
fn linux_dlopen_and_dependency_chain() {
    let t = triage(
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory; LD_LIBRARY_PATH: /usr/local/nvidia/lib",
    );
    assert_eq!(
        files(&t),
        vec![("libcudart.so.11.0", "CUDA runtime", "11.x")]
    );
    let c = codes(&t);
    assert!(
        c.contains(&"log-tf-dso-load-failed") && c.contains(&"log-dlopen-cannot-open"),
        "{c:?}"
    );
    let t = triage(
        "Could not load dynamic library 'libcusolver.so.11'; dlerror: libnvJitLink.so.12: cannot open shared object file",
    );
    assert_eq!(
        files(&t),
        vec![
            ("libcusolver.so.11", "cuSOLVER", "11.1-12.x"),
            ("libnvJitLink.so.12", "nvJitLink", "12.x")
        ]
    );
    let t = triage(
        "./reduction: error while loading shared libraries: libcublasLt.so.12: cannot open shared object file: No such file or directory",
    );
    assert_eq!(t.identified[0].file, "libcublasLt.so.12");
}

#[test]
fn symbols_from_linux_and_windows() {
    // GitHub issues not in the reference: pytorch/pytorch#91067 (via PR #174320), zai-org/ChatGLM-6B#921,
    // NVIDIA/ChatRTX#54, terrychenism/caffe-windows-cudnn#4.
    let t = triage(
        "OSError: /home/u/.local/lib/python3.8/site-packages/torch/lib/../../nvidia/cublas/lib/libcublas.so.11: undefined symbol: cublasLtHSHMatmulAlgoInit, version libcublasLt.so.11",
    );
    assert_eq!(t.symbols[0].symbol, "cublasLtHSHMatmulAlgoInit");
    assert_eq!(t.symbols[0].library.as_deref(), Some("libcublas.so.11"));
    assert!(codes(&t).contains(&"missing-symbol"));
    let t = triage(
        "OSError nvidia/cublas/lib/libcublas.so.11: symbol cublasLtGetStatusString, version libcublasLt.so.11 not defined in file libcublasLt.so.11 with link time reference",
    );
    assert_eq!(t.symbols[0].symbol, "cublasLtGetStatusString");
    assert_eq!(t.symbols[0].library.as_deref(), Some("libcublasLt.so.11"));
    let t = triage(
        r"The procedure entry point cudnnSetPoolingDescriptor could not be located in the dynamic link library C:\tools\cudnn64_8.dll.",
    );
    assert_eq!(t.symbols[0].symbol, "cudnnSetPoolingDescriptor");
    assert_eq!(t.symbols[0].library.as_deref(), Some("cudnn64_8.dll"));
    let t = triage(
        r"Failed to locate the entry point for the procedure ?destroyTensorDescriptorExOps@cudaNN@@YA?AW4cudnnStatus_t@@PEAPEAUcudnnTensorStruct@@@Z in the dynamic link library C:\Program Files\Python310\Lib\site-packages\nvidia\cudnn\bin\cudnn_adv_infer64_8.dll.",
    );
    assert_eq!(
        t.symbols[0].library.as_deref(),
        Some("cudnn_adv_infer64_8.dll")
    );
    let t = triage(
        "Could not locate cudnn_ops64_9.dll. Please make sure it is in your library path!\nInvalid handle. Cannot load symbol cudnnCreateTensorDescriptor",
    );
    assert_eq!(files(&t), vec![("cudnn_ops64_9.dll", "cuDNN", "9")]);
    // "Invalid handle": the DLL did not load at all, so no symbol of it is missing.
    assert!(t.symbols.is_empty(), "{:?}", t.symbols);
}

#[test]
fn cuda_errors_and_driver_messages() {
    let t = triage(
        "cupy.cuda.runtime.CUDARuntimeError: cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version",
    );
    assert_eq!(t.codes.len(), 1, "{:?}", t.codes);
    assert_eq!(t.codes[0].number, Some(35));
    assert!(codes(&t).contains(&"log-insufficient-driver"));
    let t = triage(
        "E tensorflow/stream_executor/cuda/cuda_driver.cc:328] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
    );
    assert!(
        t.codes
            .iter()
            .any(|c| c.name.as_deref() == Some("CUDA_ERROR_NO_DEVICE") && c.number == Some(100))
    );
    let t = triage(
        "cuda runtime error (38) : no CUDA-capable device is detected at /opt/conda/Module.cpp:34",
    );
    assert!(
        t.codes
            .iter()
            .any(|c| c.kind == "cuda" && c.number == Some(38))
    );
    assert!(
        t.codes
            .iter()
            .any(|c| c.name.as_deref() == Some("cudaErrorNoDevice"))
    );
    let t = triage(
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver",
    );
    let f = t
        .findings
        .iter()
        .find(|f| f.code == "log-torch-driver-too-old")
        .unwrap();
    assert!(f.detail.contains("up to 11.4"), "{}", f.detail);
}

#[test]
fn cudnn_statuses_and_version_checks() {
    let t = triage("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED");
    let c = codes(&t);
    assert!(
        c.contains(&"log-cudnn-status-not-initialized")
            && c.contains(&"cudnn-status-not-initialized"),
        "{c:?}"
    );
    let t = triage("Error: CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED; Reason: xDesc.finalize()");
    assert_eq!(
        t.codes[0].name.as_deref(),
        Some("CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED")
    );
    let t = triage("CUDNN_STATUS_SOMETHING_NEW");
    assert!(
        t.findings
            .iter()
            .any(|f| f.summary.starts_with("Unrecognised"))
    );
    let t = triage(
        "E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded runtime CuDNN library: 8.0.4 but source was compiled with: 8.1.0.  CuDNN library needs to have matching major version and equal or higher minor version.",
    );
    let f = t
        .findings
        .iter()
        .find(|f| f.code == "log-cudnn-version-mismatch")
        .unwrap();
    assert!(f.summary.contains("8.0.4") && f.summary.contains("8.1.0"));
    let t = triage(
        "CUDA backend failed to initialize: Found cuDNN version 8600, but JAX was built against version 8906, which is newer. The copy of cuDNN that is installed must be at least as new",
    );
    let f = t
        .findings
        .iter()
        .find(|f| f.code == "log-jax-found-older-version")
        .unwrap();
    assert!(
        f.detail.contains("8.6.0") && f.detail.contains("8.9.6"),
        "{}",
        f.detail
    );
    let t = triage(
        "Unable to use CUDA because of the following issues with CUDA components: Outdated cuDNN installation found. Version JAX was built against: 8907 Minimum supported: 9100 Installed version: 8907",
    );
    assert!(codes(&t).contains(&"log-jax-outdated-installation"));
}

#[test]
fn xla_ptxas_and_libdevice() {
    for (text, code) in [
        (
            "Can't find libdevice directory ${CUDA_DIR}/nvvm/libdevice. This may result in compilation or runtime failures",
            "log-xla-libdevice-dir",
        ),
        (
            "InternalError: libdevice not found at ./libdevice.10.bc [Op:__inference_train_function_1234]",
            "log-xla-libdevice-not-found",
        ),
        (
            "*** WARNING *** You are using ptxas 11.0.221, which is older than 11.1. ptxas before 11.1 is known to miscompile XLA code",
            "log-xla-ptxas-too-old",
        ),
        (
            "OP_REQUIRES failed at xla_ops.cc:489 : Not found: ./bin/ptxas not found",
            "log-xla-ptxas-not-found-old",
        ),
        (
            "No PTX compilation provider is available. Neither ptxas/nvlink nor nvjtlink is available.",
            "log-xla-no-ptx-provider",
        ),
        (
            "W external/xla/xla/stream_executor/cuda/ptx_compiler_helpers.cc] Couldn't invoke ptxas --version",
            "log-xla-couldnt-invoke-ptxas",
        ),
        (
            "ptxas fatal : Unsupported .version 8.3; current version is '7.8'",
            "log-ptxas-unsupported-ptx-version",
        ),
        (
            "Falling back to the CUDA driver for PTX compilation; ptxas does not support CC 9.0",
            "log-xla-ptxas-cc-unsupported",
        ),
    ] {
        assert!(codes(&triage(text)).contains(&code), "{text}");
    }
}

#[test]
fn plain_library_names() {
    let t = triage("cublas64_11.dll");
    assert_eq!(files(&t), vec![("cublas64_11.dll", "cuBLAS", "11.x")]);
    assert!(!crate::engine::findings::has_errors(&t.findings));
    let t = triage("libcudnn.so.9");
    assert_eq!(files(&t), vec![("libcudnn.so.9", "cuDNN", "9")]);
    // Retyped with a comma (https://github.com/tonyyxliu/CUHKSZ-CSC4005/issues/69).
    let t = triage(
        "error while loading shared libraries: libcudart,so.11.0: cannot open shared object file: No such file or directory",
    );
    assert_eq!(files(&t)[0].0, "libcudart.so.11.0");
    let t = triage("cublas64_11");
    assert_eq!(files(&t), vec![("cublas64_11", "cuBLAS", "11.x")]);
    let t = triage("fbgemm.dll");
    assert!(t.identified.is_empty());
    assert_eq!(t.unrecognized, vec!["fbgemm.dll"]);
    let t = triage("cupti64_2025.1.1.dll libcupti.so.11.8");
    assert_eq!(
        files(&t),
        vec![
            ("cupti64_2025.1.1.dll", "CUPTI", "12.8"),
            ("libcupti.so.11.8", "CUPTI", "11.8")
        ]
    );
}

#[test]
fn junk_never_panics() {
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let pieces = [
        ".dll",
        ".so.",
        "lib",
        "Error code ",
        "[WinError ",
        "0x",
        "CUDNN_STATUS_",
        "cudaError",
        "'",
        "\"",
        "\\",
        "undefined symbol: ",
        "entry point ",
        "Could not load dynamic library '",
        "\u{0}",
        "é",
        "💥",
        "\n",
        "12",
        "found version ",
        "Found cuDNN version ",
        ", but JAX was built against version ",
    ];
    for _ in 0..400 {
        let mut text = String::new();
        for _ in 0..(seed % 40) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            match seed % 3 {
                0 => text.push_str(pieces[(seed >> 8) as usize % pieces.len()]),
                1 => text.push(char::from_u32((seed >> 16) as u32 % 0x11_0000).unwrap_or('?')),
                _ => text.push_str(&((seed >> 20) % 100_000).to_string()),
            }
        }
        let _ = triage(&text);
    }
    let bytes: Vec<u8> = (0..5000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let _ = triage(&String::from_utf8_lossy(&bytes));
    let _ = triage(&"a.dll ".repeat(200_000));
    let _ = triage(
        "Found cuDNN version 99999999999999999999999, but JAX was built against version 1, which is newer",
    );
}

/// Codes by name or number, as NVIDIA's headers and libcudart declare them (the generated
/// tables): every family, the `code=N(name)` form, a bare number next to "CUDA error", and the
/// runtime's own message.
#[test]
fn status_codes_from_the_generated_tables() {
    let cases = [
        (
            "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: system has unsupported display driver / cuda driver combination",
            "cuda-error-803",
        ),
        (
            "CUDA error at foo.cu:12 code=222(cudaErrorUnsupportedPtxVersion) \"cudaGetLastError()\"",
            "cuda-error-222",
        ),
        (
            "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES",
            "cupti-status-cupti-error-insufficient-privileges",
        ),
        (
            "RuntimeError: CUDA error: system not yet initialized",
            "cuda-error-802",
        ),
        (
            "NCCL error in: ProcessGroupNCCL.cpp:1191, unhandled cuda error, NCCL version 2.10.3 ncclUnhandledCudaError: Call to CUDA function failed.",
            "nccl-status-ncclunhandledcudaerror",
        ),
        (
            "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`",
            "cublas-status-cublas-status-not-initialized",
        ),
        ("cuInit(0) failed with error 999", "cuda-error-999"),
    ];
    for (line, code) in cases {
        let t = triage(line);
        let f = t
            .findings
            .iter()
            .find(|f| f.code == code)
            .unwrap_or_else(|| panic!("{line}: no {code} in {:?}", codes(&t)));
        assert_eq!(
            f.severity,
            crate::engine::findings::Severity::Error,
            "{line}"
        );
        assert!(f.summary.starts_with("What "), "{}", f.summary);
    }
    // A curated row adds its fix; NVIDIA's words come with it.
    let t =
        triage("failed call to cuInit: CUDA_ERROR_SYSTEM_NOT_READY: system not yet initialized");
    let f = t
        .findings
        .iter()
        .find(|f| f.code == "cuda-error-802")
        .expect("802");
    assert!(
        f.fixes.iter().any(|x| x.summary.contains("Fabric Manager")),
        "{f:?}"
    );
}

#[test]
fn a_chain_blames_the_library_really_missing() {
    let t = triage(
        "[TRT] [E] 6: [libLoader.cpp::Impl::293] Error Code 6: Internal Error (Unable to load library: libnvinfer_builder_resource.so.8.6.1) Unable to open library: libnvinfer_plugin.so.8 due to libcudnn.so.8: cannot open shared object file",
    );
    let f = &t.findings[0];
    assert_eq!(f.code, "library-dependency-missing", "{:?}", codes(&t));
    assert!(
        f.summary
            .starts_with("libcudnn.so.8 is missing: libnvinfer_plugin.so.8 needs it (cuDNN 8)"),
        "{}",
        f.summary
    );
    // Libraries outside the toolkit, from the wheels' file lists.
    let t =
        triage("libnccl.so.2: cannot open shared object file; nvinfer_10.dll; libcusparseLt.so.0");
    let comps: Vec<&str> = t.identified.iter().map(|i| i.component.as_str()).collect();
    assert_eq!(comps, ["NCCL", "TensorRT", "cuSPARSELt"]);
    // Old toolkits' names get their version.
    let t = triage("ImportError: libcudart.so.7.5: cannot open shared object file; cudnn64_5.dll");
    assert_eq!(
        files(&t),
        vec![
            ("libcudart.so.7.5", "CUDA runtime", "7.5"),
            ("cudnn64_5.dll", "cuDNN", "5")
        ]
    );
}

#[test]
fn driver_entry_points_versions_and_architectures() {
    let t =
        triage("ImportError: /lib/x86_64-linux-gnu/libcuda.so.1: undefined symbol: cuCtxCreate_v4");
    let f = t
        .findings
        .iter()
        .find(|f| f.code == "driver-entry-point-missing")
        .unwrap_or_else(|| panic!("{:?}", codes(&t)));
    assert!(f.detail.contains("CUDA 12."), "{}", f.detail);
    let t = triage(
        "jaxlib: Found CUDA version 12010, but JAX was built against version 12020, which is newer.",
    );
    let f = t
        .findings
        .iter()
        .find(|f| f.code == "version-numbers-decoded")
        .expect("decoded");
    assert!(
        f.summary.contains("12010 = CUDA 12.1") && f.summary.contains("12020 = CUDA 12.2"),
        "{}",
        f.summary
    );
    let t = triage("ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'");
    let f = t
        .findings
        .iter()
        .find(|f| f.code == "gpu-arch-refused")
        .expect("arch");
    assert!(f.detail.contains("from CUDA 12.9"), "{}", f.detail);
    let t = triage("nvcc fatal   : Value 'sm_70' is not defined for option 'gpu-architecture'");
    let f = t
        .findings
        .iter()
        .find(|f| f.code == "gpu-arch-refused")
        .expect("arch");
    assert!(f.detail.contains("dropped after 12."), "{}", f.detail);
}

/// A ptxas refusing newer PTX, a library status number, a torch extension build against
/// another CUDA, and NCCL's shared memory: each names what to install or change.
#[test]
fn ptx_isa_and_build_messages() {
    let t = triage(
        "ptxas /tmp/x.ptx, line 5; fatal   : Unsupported .version 8.5; current version is '8.4'",
    );
    let f = t
        .findings
        .iter()
        .find(|f| f.code == "ptxas-too-old")
        .expect("ptx isa");
    assert!(
        f.summary.contains("CUDA 12.5") && f.summary.contains("CUDA 12.4"),
        "{}",
        f.summary
    );
    let t = triage(
        "numba.cuda.cudadrv.driver.CudaAPIError: [34] Call to cuInit results in CUDA_ERROR_STUB_LIBRARY",
    );
    assert!(
        t.findings.iter().any(|f| f.code == "cuda-error-34"),
        "{:?}",
        codes(&t)
    );
    let t = triage(
        "RuntimeError: The detected CUDA version (11.8) mismatches the version that was used to compile PyTorch (12.4). Please make sure to use the same CUDA versions.",
    );
    assert!(
        t.findings
            .iter()
            .any(|f| f.code == "log-torch-extension-cuda-mismatch"),
        "{:?}",
        codes(&t)
    );
}

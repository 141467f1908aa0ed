//! Which NVIDIA library exports a C API function, from the prefix every function of that
//! library's public header carries (`ncclCommInitRank` → NCCL, `cudnnCreate` → cuDNN,
//! `cublasLtMatmul` → cuBLASLt). A missing function then names the library whose copy is too old,
//! not only the library that called it; and, from the generated function table, a function the
//! newest releases no longer declare: the library loaded is newer than the caller was built for.

use super::extract::MissingSymbol;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::knowledge::generated::generated;

/// One API prefix: the component and the files that export its functions.
pub struct ApiOwner {
    pub prefix: &'static str,
    pub component: &'static str,
    /// The Linux soname and Windows DLL pattern, as users find them.
    pub files: &'static str,
    /// The NVIDIA API reference that lists the functions.
    pub source: &'static str,
    /// Whether its functions are in every release in use (TensorRT's few C entry points): one
    /// missing means no copy of the library is loaded at all, not an older copy.
    pub in_every_release: bool,
}

/// Longest prefixes first (`cublasLt` before `cublas`).
const OWNERS: &[ApiOwner] = &[
    ApiOwner {
        prefix: "cublasLt",
        component: "cuBLASLt",
        files: "libcublasLt.so.N / cublasLt64_N.dll",
        source: "https://docs.nvidia.com/cuda/cublas/index.html#using-the-cublaslt-api",
        in_every_release: false,
    },
    ApiOwner {
        prefix: "cublas",
        component: "cuBLAS",
        files: "libcublas.so.N / cublas64_N.dll",
        source: "https://docs.nvidia.com/cuda/cublas/index.html",
        in_every_release: false,
    },
    ApiOwner {
        prefix: "cudnn",
        component: "cuDNN",
        files: "libcudnn.so.N (and its sub-libraries) / cudnn64_N.dll",
        source: "https://docs.nvidia.com/deeplearning/cudnn/latest/api/overview.html",
        in_every_release: false,
    },
    ApiOwner {
        prefix: "cufft",
        component: "cuFFT",
        files: "libcufft.so.N / cufft64_N.dll",
        source: "https://docs.nvidia.com/cuda/cufft/index.html",
        in_every_release: false,
    },
    ApiOwner {
        prefix: "curand",
        component: "cuRAND",
        files: "libcurand.so.N / curand64_N.dll",
        source: "https://docs.nvidia.com/cuda/curand/index.html",
        in_every_release: false,
    },
    ApiOwner {
        prefix: "cusolver",
        component: "cuSOLVER",
        files: "libcusolver.so.N / cusolver64_N.dll",
        source: "https://docs.nvidia.com/cuda/cusolver/index.html",
        in_every_release: false,
    },
    ApiOwner {
        prefix: "cusparse",
        component: "cuSPARSE",
        files: "libcusparse.so.N / cusparse64_N.dll",
        source: "https://docs.nvidia.com/cuda/cusparse/index.html",
        in_every_release: false,
    },
    ApiOwner {
        prefix: "cupti",
        component: "CUPTI",
        files: "libcupti.so.N / cupti64_*.dll",
        source: "https://docs.nvidia.com/cupti/api/modules.html",
        in_every_release: false,
    },
    ApiOwner {
        prefix: "nvrtc",
        component: "NVRTC",
        files: "libnvrtc.so.N / nvrtc64_*.dll",
        source: "https://docs.nvidia.com/cuda/nvrtc/index.html",
        in_every_release: false,
    },
    ApiOwner {
        prefix: "nvJitLink",
        component: "nvJitLink",
        files: "libnvJitLink.so.N / nvJitLink_*.dll",
        source: "https://docs.nvidia.com/cuda/nvjitlink/index.html",
        in_every_release: false,
    },
    ApiOwner {
        prefix: "nccl",
        component: "NCCL",
        files: "libnccl.so.2 (the nvidia-nccl-cuXX wheel, a system package or the framework's own copy)",
        source: "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api.html",
        in_every_release: false,
    },
    ApiOwner {
        prefix: "cuvid",
        component: "NVCUVID (NVIDIA driver, video decoder)",
        files: "libnvcuvid.so.1 / nvcuvid.dll, installed by the driver",
        source: "NVIDIA Video Codec SDK, NVDEC video decoder API (cuviddec.h, nvcuvid.h): https://docs.nvidia.com/video-technologies/video-codec-sdk/12.0/nvdec-video-decoder-api-prog-guide/index.html",
        in_every_release: false,
    },
    ApiOwner {
        prefix: "NvEncodeAPI",
        component: "NVENC (NVIDIA driver, video encoder)",
        files: "libnvidia-encode.so.1 / nvEncodeAPI64.dll, installed by the driver",
        source: "NVIDIA Video Codec SDK, NVENC API (nvEncodeAPI.h): https://docs.nvidia.com/video-technologies/video-codec-sdk/12.0/nvenc-video-encoder-api-prog-guide/index.html",
        in_every_release: false,
    },
    ApiOwner {
        prefix: "nppi",
        component: "NPP",
        files: "libnpp*.so.N / npp*64_N.dll: image functions are split by group over nppial (arithmetic and logic), nppicc (colour conversion), nppidei (data exchange), nppif (filtering, segmentation), nppig (geometry), nppim (morphology), nppist (statistics), nppisu (memory) and nppitc (threshold and compare), with nppc as the core",
        source: "https://docs.nvidia.com/cuda/npp/index.html",
        in_every_release: false,
    },
    ApiOwner {
        prefix: "npps",
        component: "NPP",
        files: "libnpps.so.N / npps64_N.dll (signal functions), with nppc as the core",
        source: "https://docs.nvidia.com/cuda/npp/index.html",
        in_every_release: false,
    },
    ApiOwner {
        prefix: "nvml",
        component: "NVML (NVIDIA driver)",
        files: "libnvidia-ml.so.1 / nvml.dll",
        source: "https://docs.nvidia.com/deploy/nvml-api/index.html",
        in_every_release: false,
    },
    // TensorRT's C entry points (the rest of its API is C++ behind them), in every release since
    // TensorRT 5.
    ApiOwner {
        prefix: "initLibNvInfer",
        component: "TensorRT's plugin library",
        files: "libnvinfer_plugin.so.N / nvinfer_plugin_N.dll",
        source: "initLibNvInferPlugins in https://github.com/NVIDIA/TensorRT/blob/main/include/NvInferPlugin.h",
        in_every_release: true,
    },
    ApiOwner {
        prefix: "createInfer",
        component: "TensorRT",
        files: "libnvinfer.so.N / nvinfer_N.dll",
        source: "createInferBuilder_INTERNAL, createInferRuntime_INTERNAL in https://github.com/NVIDIA/TensorRT/blob/main/include/NvInfer.h",
        in_every_release: true,
    },
    ApiOwner {
        prefix: "createNvOnnx",
        component: "TensorRT's ONNX parser",
        files: "libnvonnxparser.so.N / nvonnxparser_N.dll",
        source: "createNvOnnxParser_INTERNAL in https://github.com/onnx/onnx-tensorrt/blob/main/NvOnnxParser.h",
        in_every_release: true,
    },
];

/// The library whose API a C function name belongs to: the prefix followed by an upper-case
/// letter (`ncclMemFree`, not `ncclx` or a C++ mangled name).
pub fn api_owner(symbol: &str) -> Option<&'static ApiOwner> {
    OWNERS
        .iter()
        .find(|o| {
            symbol
                .strip_prefix(o.prefix)
                .and_then(|rest| rest.chars().next())
                .is_some_and(|c| c.is_ascii_uppercase())
        })
        .or_else(|| msvc_scope_owner(symbol))
}

/// The library whose C++ namespace an MSVC-decorated name sits in: `?name@scope@...@@` lists its
/// scopes innermost first (`?destroyTensorDescriptor@ops@cudnn@@...` is `cudnn::ops::`), and a
/// scope spelled as a library's prefix (`cudnn`) names that library.
fn msvc_scope_owner(symbol: &str) -> Option<&'static ApiOwner> {
    let scopes = symbol.strip_prefix('?')?.split("@@").next()?;
    scopes
        .split('@')
        .skip(1)
        .find_map(|scope| OWNERS.iter().find(|o| o.prefix.eq_ignore_ascii_case(scope)))
}

/// A missing function that the library's newest releases no longer declare (the generated
/// function table: `nvrtcGetNVVM` is in `nvrtc.h` up to CUDA 12.9): the library loaded is newer
/// than the one the caller was written for, the other way round from an older copy first.
pub fn removed_function_finding(
    s: &MissingSymbol,
    caller: &str,
    owner: &ApiOwner,
) -> Option<Finding> {
    let (function, read) = generated().function_named(&s.symbol)?;
    if function.last == read.last {
        return None;
    }
    let component = owner.component;
    // A symbol looked up in the library itself (dlsym: "libnvrtc.so: undefined symbol") was
    // looked up by the program that loaded it.
    let caller = if caller
        .to_ascii_lowercase()
        .contains(&owner.prefix.to_ascii_lowercase())
    {
        "the program that looked it up"
    } else {
        caller
    };
    let mut f = Finding::new(
        codes::MISSING_SYMBOL,
        Severity::Error,
        format!(
            "{} was removed from {component} after {}: the {component} loaded is newer than the one {caller} was built for",
            s.symbol, function.last
        ),
        format!(
            "{caller} calls {}, which {component}'s header declares from {} to {} and no longer in \
             later releases (read up to {}). The copy of {component} found at run time ({}) is of a \
             later release, so {caller}, or the bindings it was built with, expects an API that \
             release no longer has: a program or binding (a Rust, Julia or Python wrapper that \
             resolves every function when it loads) made for the older {component}, run with a newer \
             one installed.",
            s.symbol, function.first, function.last, read.last, owner.files
        ),
    )
    .with_evidence(Evidence::new("log", s.line.clone()))
    .with_evidence(Evidence::new(
        "source",
        format!(
            "the functions each release's header declares (the nvidia-* wheels on PyPI, {} to {}); {}",
            read.first, read.last, owner.source
        ),
    ))
    .with_fix(FixRef {
        id: "advice-update-caller-for-newer-library".into(),
        kind: FixKind::Manual,
        summary: format!(
            "Update {caller} (or the binding crate or package it is built with) to a release made for \
             the installed {component}, or load a {component} of {} or older, the API it was built \
             for (put that release's library first on the library path).",
            function.last
        ),
    });
    if let Some(l) = &s.library {
        f = f.with_libraries([l.clone()]);
    }
    Some(f)
}

/// C++ libraries of the GPU stack by their outermost namespace, as the Itanium ABI mangles it
/// (`_ZNK12tensorrt_llm8executor8Response11getErrorMsg...` is `tensorrt_llm::executor::...`).
const CPP_NAMESPACES: &[(&str, &str)] = &[
    ("tensorrt_llm", "TensorRT-LLM"),
    ("nvinfer1", "TensorRT"),
    ("onnxruntime", "ONNX Runtime"),
    ("tensorflow", "TensorFlow"),
    ("xla", "XLA"),
    ("paddle", "PaddlePaddle"),
    ("triton", "Triton Inference Server"),
    ("cudnn_frontend", "cuDNN's frontend"),
    ("dali", "DALI"),
    ("cv", "OpenCV"),
    ("faiss", "FAISS"),
];

/// The library a known C++ namespace belongs to (`nvinfer1`: TensorRT).
pub fn cpp_library_of(namespace: &str) -> Option<&'static str> {
    CPP_NAMESPACES
        .iter()
        .find(|(n, _)| *n == namespace)
        .map(|(_, library)| *library)
}

/// The outermost namespace of an Itanium-mangled name (`_ZN`, `_ZNK`, ...: nested names only).
fn itanium_namespace(symbol: &str) -> Option<&str> {
    let rest = symbol
        .strip_prefix("_ZN")?
        .trim_start_matches(['K', 'V', 'r']);
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    rest.get(digits..digits + len)
}

/// A missing C++ function of a known library (by its namespace): the caller and that library
/// come from different releases, which the generic reading cannot say.
pub fn cpp_library_finding(s: &MissingSymbol) -> Option<Finding> {
    let namespace = itanium_namespace(&s.symbol)?;
    let component = cpp_library_of(namespace)?;
    let caller = s.library.as_deref().unwrap_or("the program");
    let summary = format!(
        "{caller} needs a {component} C++ function ({namespace}::...) that the {component} library loaded does not have: a version mismatch between the two"
    );
    let summary = summary[..1].to_uppercase() + &summary[1..];
    let mut f = Finding::new(
        codes::MISSING_SYMBOL,
        Severity::Error,
        summary,
        format!(
            "{} is a function of {component}'s C++ API (namespace {namespace}). {caller} was built \
             against one release of {component} and another release's library is found at run time: \
             C++ APIs change between releases, so a backend, plugin or extension only runs with the \
             {component} it was built with (a Triton backend with the TensorRT-LLM of the same \
             container release, a custom op with the framework release it was compiled for). A \
             library that calls {component} without being linked against it fails the same way \
             (a TensorRT plugin library given OpenCV code but no -lopencv_*).",
            s.symbol
        ),
    )
    .with_evidence(Evidence::new("log", s.line.clone()))
    .with_evidence(Evidence::new(
        "source",
        "Itanium C++ ABI, name mangling (nested names): https://itanium-cxx-abi.github.io/cxx-abi/abi.html#mangling; https://github.com/triton-inference-server/tensorrtllm_backend/issues/662 (the 24.11-trtllm container matching the backend fixed it)",
    ))
    .with_fix(FixRef {
        id: "advice-matching-cpp-release".into(),
        kind: FixKind::Manual,
        summary: format!(
            "Use {caller} and {component} from the same release: the matching container image or \
             package set (for Triton, the xx.yy-trtllm image whose TensorRT-LLM the backend was built \
             with), upgrade the older of the two, or rebuild {caller} against the {component} installed."
        ),
    });
    if let Some(l) = &s.library {
        f = f.with_libraries([l.clone()]);
    }
    Some(f)
}

/// A missing function of a library that has it in every release (`initLibNvInferPlugins`):
/// no copy of that library is loaded, so the caller was not linked against it and relied on
/// another library to bring it in (TensorRT 10's ONNX parser stopped linking the plugin library:
/// https://github.com/nvidia-holoscan/holohub/pull/512).
pub fn unlinked_library_finding(
    s: &MissingSymbol,
    caller: &str,
    owner: &ApiOwner,
) -> Option<Finding> {
    if !owner.in_every_release || s.looked_in || s.at_link {
        return None;
    }
    let component = owner.component;
    let mut f = Finding::new(
        codes::MISSING_SYMBOL,
        Severity::Error,
        format!(
            "{} is a function every release of {component} has: {caller} is not linked against {component}, so nothing loaded provides it",
            s.symbol
        ),
        format!(
            "{caller} calls {}, which {component} ({}) exports in every release, so an older copy \
             cannot be why it is missing: no copy of {component} is loaded in the process. {caller} \
             was built without linking it directly and relied on another library to load it, which a \
             newer release of that library no longer does (TensorRT 10's ONNX parser no longer links \
             the plugin library), or the library is opened later, privately (dlopen with RTLD_LOCAL).",
            s.symbol, owner.files
        ),
    )
    .with_evidence(Evidence::new("log", s.line.clone()))
    .with_evidence(Evidence::new(
        "source",
        format!(
            "{}; https://github.com/nvidia-holoscan/holohub/pull/512 (linking nvinfer_plugin directly fixed it with TensorRT 10.3)",
            owner.source
        ),
    ))
    .with_fix(FixRef {
        id: "advice-link-library-directly".into(),
        kind: FixKind::Manual,
        summary: format!(
            "Link {caller} against {component} directly (the {} file: -l<name> on the link line, \
             target_link_libraries in CMake) and rebuild it; as a stop-gap, preload the library \
             (LD_PRELOAD on Linux).",
            owner.files
        ),
    });
    if let Some(l) = &s.library {
        f = f.with_libraries([l.clone()]);
    }
    Some(f)
}

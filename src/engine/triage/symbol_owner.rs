//! Which NVIDIA library exports a C API function, from the prefix every function of that
//! library's public header carries (`ncclCommInitRank` → NCCL, `cudnnCreate` → cuDNN,
//! `cublasLtMatmul` → cuBLASLt). A missing function then names the library whose copy is too old,
//! not only the library that called it.

/// One API prefix: the component and the files that export its functions.
pub struct ApiOwner {
    pub prefix: &'static str,
    pub component: &'static str,
    /// The Linux soname and Windows DLL pattern, as users find them.
    pub files: &'static str,
    /// The NVIDIA API reference that lists the functions.
    pub source: &'static str,
}

/// Longest prefixes first (`cublasLt` before `cublas`).
const OWNERS: &[ApiOwner] = &[
    ApiOwner {
        prefix: "cublasLt",
        component: "cuBLASLt",
        files: "libcublasLt.so.N / cublasLt64_N.dll",
        source: "https://docs.nvidia.com/cuda/cublas/index.html#using-the-cublaslt-api",
    },
    ApiOwner {
        prefix: "cublas",
        component: "cuBLAS",
        files: "libcublas.so.N / cublas64_N.dll",
        source: "https://docs.nvidia.com/cuda/cublas/index.html",
    },
    ApiOwner {
        prefix: "cudnn",
        component: "cuDNN",
        files: "libcudnn.so.N (and its sub-libraries) / cudnn64_N.dll",
        source: "https://docs.nvidia.com/deeplearning/cudnn/latest/api/overview.html",
    },
    ApiOwner {
        prefix: "cufft",
        component: "cuFFT",
        files: "libcufft.so.N / cufft64_N.dll",
        source: "https://docs.nvidia.com/cuda/cufft/index.html",
    },
    ApiOwner {
        prefix: "curand",
        component: "cuRAND",
        files: "libcurand.so.N / curand64_N.dll",
        source: "https://docs.nvidia.com/cuda/curand/index.html",
    },
    ApiOwner {
        prefix: "cusolver",
        component: "cuSOLVER",
        files: "libcusolver.so.N / cusolver64_N.dll",
        source: "https://docs.nvidia.com/cuda/cusolver/index.html",
    },
    ApiOwner {
        prefix: "cusparse",
        component: "cuSPARSE",
        files: "libcusparse.so.N / cusparse64_N.dll",
        source: "https://docs.nvidia.com/cuda/cusparse/index.html",
    },
    ApiOwner {
        prefix: "cupti",
        component: "CUPTI",
        files: "libcupti.so.N / cupti64_*.dll",
        source: "https://docs.nvidia.com/cupti/api/modules.html",
    },
    ApiOwner {
        prefix: "nvrtc",
        component: "NVRTC",
        files: "libnvrtc.so.N / nvrtc64_*.dll",
        source: "https://docs.nvidia.com/cuda/nvrtc/index.html",
    },
    ApiOwner {
        prefix: "nvJitLink",
        component: "nvJitLink",
        files: "libnvJitLink.so.N / nvJitLink_*.dll",
        source: "https://docs.nvidia.com/cuda/nvjitlink/index.html",
    },
    ApiOwner {
        prefix: "nccl",
        component: "NCCL",
        files: "libnccl.so.2 (the nvidia-nccl-cuXX wheel, a system package or the framework's own copy)",
        source: "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api.html",
    },
    ApiOwner {
        prefix: "nvml",
        component: "NVML (NVIDIA driver)",
        files: "libnvidia-ml.so.1 / nvml.dll",
        source: "https://docs.nvidia.com/deploy/nvml-api/index.html",
    },
];

/// The library whose API a C function name belongs to: the prefix followed by an upper-case
/// letter (`ncclMemFree`, not `ncclx` or a C++ mangled name).
pub fn api_owner(symbol: &str) -> Option<&'static ApiOwner> {
    OWNERS.iter().find(|o| {
        symbol
            .strip_prefix(o.prefix)
            .and_then(|rest| rest.chars().next())
            .is_some_and(|c| c.is_ascii_uppercase())
    })
}

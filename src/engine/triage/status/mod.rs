//! Status codes as people paste them, recognised with the generated tables
//! ([`crate::engine::knowledge::generated`]): any enumerator name of NVIDIA's status enums
//! (`CUDA_ERROR_SYSTEM_DRIVER_MISMATCH`, `cudaErrorUnsupportedPtxVersion`,
//! `CUPTI_ERROR_INSUFFICIENT_PRIVILEGES`, `ncclUnhandledCudaError`, ...; [`names`]), the CUDA
//! runtime's own messages ("system not yet initialized", read in [`super::runtime_messages`]),
//! and numbers in the forms libraries print them (`code=222(...)`, `CUDA error 803`, `cuInit
//! returned 999`; [`numbers`]). This file holds what both share: the status kinds, the one table
//! of libraries read by their name, and the lookup of a generated row.

mod names;
mod numbers;

pub use names::{go_cu_panic, names_on, status_alone_near_library};
pub use numbers::{cuda_numbers_on, library_numbers_on, status_on_next_line};

use crate::engine::knowledge::generated::{StatusCode, generated};

/// The triage `kind` of a C status type: `cuda` for the runtime and driver APIs, else the
/// library's own (`cudnn`, `cublas`, `cupti`, `nccl`, ...).
pub fn kind_of(type_name: &str) -> &'static str {
    match type_name {
        "CUresult" | "cudaError_t" => "cuda",
        "cudnnStatus_t" => "cudnn",
        "cublasStatus_t" => "cublas",
        "CUptiResult" => "cupti",
        "nvrtcResult" => "nvrtc",
        "nvJitLinkResult" => "nvjitlink",
        "cufftResult" => "cufft",
        "curandStatus_t" => "curand",
        "cusolverStatus_t" => "cusolver",
        "cusparseStatus_t" => "cusparse",
        "ncclResult_t" => "nccl",
        "nvmlReturn_t" => "nvml",
        "nvjpegStatus_t" => "nvjpeg",
        "NppStatus" => "npp",
        "cutensorStatus_t" => "cutensor",
        "cudssStatus_t" => "cudss",
        "CUfileOpError" => "cufile",
        "cl_int" => "opencl",
        "NVENCSTATUS" => "nvenc",
        "NTSTATUS" => "ntstatus",
        _ => "other",
    }
}

/// A library whose statuses are read next to its name in a line.
struct StatusLibrary {
    /// The triage kind, also the library's name in lower case (`cublas`, `nvjitlink`).
    kind: &'static str,
    /// How its functions start (`cublasCreate`, `nvJitLinkComplete`), case-sensitively.
    function_prefix: &'static str,
    /// Its enumerators' prefix (`CUBLAS_STATUS_`), where they share one before the words.
    enumerator_prefix: Option<&'static str>,
    /// Whether its error-string function (or a binding) prints the enumerator's words
    /// ("cuSolver internal error", "Library not initialized"), so they are read as its status.
    printed_in_words: bool,
}

/// The libraries whose status a line names by the library's word or function: one table for
/// the number patterns, the statuses in words and the kind of a word.
const STATUS_LIBRARIES: &[StatusLibrary] = &[
    library("cupti", "cupti", Some("CUPTI_ERROR_"), true),
    library("cublas", "cublas", Some("CUBLAS_STATUS_"), true),
    library("cudnn", "cudnn", Some("CUDNN_STATUS_"), true),
    library("cufft", "cufft", Some("CUFFT_"), true),
    library("curand", "curand", Some("CURAND_STATUS_"), true),
    library("cusolver", "cusolver", Some("CUSOLVER_STATUS_"), true),
    library("cusparse", "cusparse", Some("CUSPARSE_STATUS_"), true),
    library("nvrtc", "nvrtc", Some("NVRTC_ERROR_"), false),
    library("nvjitlink", "nvJitLink", Some("NVJITLINK_ERROR_"), false),
    library("nccl", "nccl", None, false),
    library("nvml", "nvml", Some("NVML_ERROR_"), false),
    library("cutensor", "cutensor", Some("CUTENSOR_STATUS_"), false),
    library("cudss", "cudss", Some("CUDSS_STATUS_"), false),
];

const fn library(
    kind: &'static str,
    function_prefix: &'static str,
    enumerator_prefix: Option<&'static str>,
    printed_in_words: bool,
) -> StatusLibrary {
    StatusLibrary {
        kind,
        function_prefix,
        enumerator_prefix,
        printed_in_words,
    }
}

/// The libraries whose statuses are printed in words: (kind, enumerator prefix).
fn libraries_in_words() -> impl Iterator<Item = (&'static str, &'static str)> {
    STATUS_LIBRARIES
        .iter()
        .filter(|l| l.printed_in_words)
        .filter_map(|l| Some((l.kind, l.enumerator_prefix?)))
}

/// The libraries' words as a regex alternation (`cupti|cublas|...`), or their function
/// prefixes (`cupti|...|nvJitLink|...`).
fn library_alternation(function_prefixes: bool) -> String {
    STATUS_LIBRARIES
        .iter()
        .map(|l| {
            if function_prefixes {
                l.function_prefix
            } else {
                l.kind
            }
        })
        .collect::<Vec<_>>()
        .join("|")
}

/// Every enumerator prefix a status name starts with: the driver's `CUDA_ERROR_` and each
/// library's (`CUBLAS_STATUS_`, `NVRTC_ERROR_`, ...), as a regex alternation.
pub fn enumerator_prefix_alternation() -> String {
    std::iter::once("CUDA_ERROR_")
        .chain(STATUS_LIBRARIES.iter().filter_map(|l| l.enumerator_prefix))
        .collect::<Vec<_>>()
        .join("|")
}

/// The status kind of a library named in words (`CUPTI`, `cuFFT`), or `opencl` for OpenCL.
fn kind_of_word(word: &str) -> Option<&'static str> {
    if word.eq_ignore_ascii_case("opencl") || word == "cl" {
        return Some("opencl");
    }
    STATUS_LIBRARIES
        .iter()
        .find(|l| l.kind.eq_ignore_ascii_case(word))
        .map(|l| l.kind)
}

/// Whether a bare enumerator's words name something only CUDA has (its JIT, PTX, kernels,
/// contexts, peers, NVLink, MPS, stub library, graphs), not a Windows error.
pub(super) fn names_cuda_only_thing(bare: &str) -> bool {
    const WORDS: [&str; 18] = [
        "JIT",
        "PTX",
        "KERNEL",
        "LAUNCH",
        "CONTEXT",
        "GPU",
        "PEER",
        "ECC",
        "NVLINK",
        "MPS",
        "STUB",
        "BINARY",
        "GRAPHICS",
        "CAPTURE",
        "COOPERATIVE",
        "PROFILER",
        "CUDART",
        "DEVSIDE",
    ];
    bare.split('_').any(|w| WORDS.contains(&w))
}

/// The generated rows of a status name, or none.
pub fn rows_named(name: &str) -> Vec<&'static StatusCode> {
    generated().status_named(name)
}

/// The generated row a code found in text stands for: by name, else by number (for `cuda`,
/// the runtime's `cudaError_t` first, then the driver's `CUresult`).
pub fn row_for(kind: &str, number: Option<i64>, name: Option<&str>) -> Option<&'static StatusCode> {
    if let Some(name) = name {
        let rows = rows_named(name);
        if let Some(r) = number
            .and_then(|n| rows.iter().find(|r| r.number == n))
            .or_else(|| rows.iter().max_by(|a, b| a.last.cmp(&b.last)))
        {
            return Some(r);
        }
    }
    let n = number?;
    let g = generated();
    match kind {
        "cuda" => g
            .status_numbered("cudaError_t", n)
            .or_else(|| g.status_numbered("CUresult", n)),
        other => g
            .status
            .code
            .iter()
            .find(|c| kind_of(&c.type_name) == other && c.number == n),
    }
}

/// The driver API enumerator a binding's CamelCase variant stands for (`NoBinaryForGpu` and
/// `NoBinaryForGPU` → `CUDA_ERROR_NO_BINARY_FOR_GPU`).
fn driver_enumerator(variant: &str) -> String {
    format!("CUDA_ERROR_{}", snake_upper(variant))
}

/// A CamelCase name in upper snake case (`NoBinaryForGPU` → `NO_BINARY_FOR_GPU`): a word starts
/// at a capital that follows a lower-case letter or digit, or that a lower-case letter follows
/// after other capitals.
fn snake_upper(camel: &str) -> String {
    let chars: Vec<char> = camel.chars().collect();
    let mut name = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let after_lower = i > 0 && !chars[i - 1].is_ascii_uppercase();
        let starts_word = i > 0
            && chars[i - 1].is_ascii_uppercase()
            && chars.get(i + 1).is_some_and(char::is_ascii_lowercase);
        if i > 0 && c.is_ascii_uppercase() && (after_lower || starts_word) {
            name.push('_');
        }
        name.push(c.to_ascii_uppercase());
    }
    name
}

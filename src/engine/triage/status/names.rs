//! Status names as people paste them: NVIDIA's enumerators (`CUDA_ERROR_NO_DEVICE`,
//! `cudnnStatusArchMismatch`, `NCCL_ERROR_SYSTEM_ERROR`), the spellings bindings give them
//! (Rust's `CudaError::InvalidPtx`, .NET's `ErrorNoBinaryForGPU`, pynvml's
//! `NVMLError_NoPermission`, CUDA.jl's `ERROR_JIT_COMPILER_NOT_FOUND`) and the words the
//! libraries' error-string functions print, each matched to its generated row.

use super::{
    STATUS_LIBRARIES, driver_enumerator, kind_of, libraries_in_words, names_cuda_only_thing,
    rows_named, snake_upper,
};
use crate::engine::knowledge::generated::{StatusCode, generated};
use regex::Regex;
use std::sync::OnceLock;

struct Patterns {
    name: Regex,
    opencl_bare: Regex,
    dotnet_variant: Regex,
    pynvml_class: Regex,
    camel_status: Regex,
    nccl_upper: Regex,
    bare_enumerator: Regex,
    rust_variant: Regex,
    nvml_words: Regex,
    nvml_short: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let re = crate::engine::static_regex::compile;
        // The libraries whose enumerators are `<LIBRARY>_STATUS_<WORDS>`, the ones Python
        // bindings and Julia spell `<library>Status<Words>`.
        let status_libraries = STATUS_LIBRARIES
            .iter()
            .filter(|l| l.enumerator_prefix.is_some_and(|p| p.ends_with("_STATUS_")))
            .map(|l| l.kind)
            .collect::<Vec<_>>()
            .join("|");
        Patterns {
            // A name may run into the next word when a program glues its text on (Theano's
            // "CUDNN_STATUS_BAD_PARAMdim=4"): the upper-case name ends at the first lower-case
            // letter.
            name: re(
                r"\b(CUDA_ERROR_[A-Z0-9_]+|cudaError[A-Z][A-Za-z0-9]*|CUBLAS_STATUS_[A-Z0-9_]+|CUDNN_STATUS_[A-Z0-9_]+|CUPTI_ERROR_[A-Z0-9_]+|NVRTC_ERROR_[A-Z0-9_]+|NVJITLINK_ERROR_[A-Z0-9_]+|CUFFT_[A-Z0-9_]+|CURAND_STATUS_[A-Z0-9_]+|CUSOLVER_STATUS_[A-Z0-9_]+|CUSPARSE_STATUS_[A-Z0-9_]+|NVML_ERROR_[A-Z0-9_]+|NVJPEG_STATUS_[A-Z0-9_]+|CUTENSOR_STATUS_[A-Z0-9_]+|CUDSS_STATUS_[A-Z0-9_]+|CU_FILE_[A-Z0-9_]+|NPP_[A-Z0-9_]+_(?:ERROR|WARNING)|NV_ENC_ERR_[A-Z0-9_]+|CL_[A-Z][A-Z0-9_]+|nccl[A-Z][A-Za-z]+|STATUS_[A-Z0-9_]+)(?:\b|[a-z])",
            ),
            // PyOpenCL drops OpenCL's `CL_` prefix: "clGetPlatformIDs failed: PLATFORM_NOT_FOUND_KHR".
            opencl_bare: re(r"\bcl[A-Z][A-Za-z]*(?:\(\))?\s+failed:\s*([A-Z][A-Z0-9_]+)\b"),
            // pynvml raises one exception class per NVML status: `NVMLError_NotSupported`,
            // `NVMLError_NoPermission`, `NVMLError_LibRmVersionMismatch`.
            pynvml_class: re(r"\bNVMLError_([A-Z][A-Za-z0-9]+)\b"),
            // Python bindings' exception classes and Julia's enum spellings: libcudnn.py's
            // `cudnnStatusArchMismatch`, `cublasStatusNotInitialized`.
            camel_status: re(&format!(r"\b({status_libraries})Status([A-Z][A-Za-z]+)\b")),
            // CuPy names NCCL's results in upper snake case: `NCCL_ERROR_SYSTEM_ERROR` is
            // `ncclSystemError`, `NCCL_ERROR_UNHANDLED_CUDA_ERROR` is `ncclUnhandledCudaError`.
            nccl_upper: re(r"\bNCCL_ERROR_([A-Z][A-Z0-9_]*[A-Z0-9])\b"),
            // Bindings that drop a library's prefix: go-nvml's `Return.String()` ("error
            // initializing NVML: ERROR_LIBRARY_NOT_FOUND"), CUDA.jl ("ERROR_JIT_COMPILER_NOT_FOUND").
            bare_enumerator: re(r"(?:^|[^A-Za-z0-9_])ERROR_([A-Z][A-Z_]*[A-Z])\b"),
            // .NET bindings (ManagedCuda's CUResult, CUDAfy's "CUDA.NET exception") name the
            // driver API's enumerators `ErrorInvalidPtx`, `ErrorNoBinaryForGPU`.
            dotnet_variant: re(r"\bError((?:[A-Z][a-z0-9]+|[A-Z]{2,}(?:[a-z0-9]+)?)+)\b"),
            // Rust bindings (RustaCUDA, cust, rust-gpu-tools) turn `CUresult` into an enum whose
            // variants are the enumerators in CamelCase: `Cuda(NoBinaryForGpu)`,
            // `CudaError::InvalidPtx`.
            rust_variant: re(r"\b(?:Cuda\(|CudaError(?:::|\())([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)*)\b"),
            // `nvmlErrorString` spells the enumerator in words: "nvml error: driver not loaded",
            // "Failed to initialize NVML: Insufficient Permissions".
            nvml_words: re(r"(?i)\bnvml(?: error)?:\s*([a-z][a-z /]{2,40}?)\s*(?:[:.,;(]|$)"),
            // Modular's runtime drops NVML's `ERROR_`: "NVML_DRIVER_NOT_LOADED".
            nvml_short: re(r"\bNVML_([A-Z][A-Z_]*[A-Z])\b"),
        }
    })
}

/// Status names on a line that NVIDIA's headers declare: (kind, name, number when it has one).
pub fn names_on(line: &str) -> Vec<(&'static str, String, Option<i64>)> {
    let mut out = Vec::new();
    for c in patterns().name.captures_iter(line) {
        let rows = rows_named(&c[1]);
        // A binding that drops the library's prefix on a line naming the library: Torch7's
        // "Error in CuDNN: STATUS_EXECUTION_FAILED" is CUDNN_STATUS_EXECUTION_FAILED.
        let rows = if rows.is_empty() && c[1].starts_with("STATUS_") {
            let lower = line.to_ascii_lowercase();
            libraries_in_words()
                .filter(|(library, prefix)| lower.contains(library) && prefix.ends_with("STATUS_"))
                .map(|(_, prefix)| rows_named(&format!("{prefix}{}", &c[1]["STATUS_".len()..])))
                .find(|rows| !rows.is_empty())
                .unwrap_or_default()
        } else {
            rows
        };
        // A success name (`cudaSuccess (46 vs. 0)`) says nothing went wrong.
        let Some(first) = rows.first().filter(|r| r.number != 0) else {
            continue;
        };
        // cuDNN 8 and 9 number one name differently: no single number then.
        let number = rows
            .iter()
            .all(|r| r.number == first.number)
            .then_some(first.number);
        out.push((kind_of(&first.type_name), first.name.clone(), number));
    }
    for c in patterns().opencl_bare.captures_iter(line) {
        if let Some(row) = rows_named(&format!("CL_{}", &c[1])).into_iter().next()
            && row.number != 0
            && !out.iter().any(|(_, n, _)| *n == row.name)
        {
            out.push(("opencl", row.name.clone(), Some(row.number)));
        }
    }
    for c in patterns().rust_variant.captures_iter(line) {
        if let Some(row) = rows_named(&driver_enumerator(&c[1])).into_iter().next()
            && !out.iter().any(|(_, n, _)| *n == row.name)
        {
            out.push(("cuda", row.name.clone(), Some(row.number)));
        }
    }
    if line.to_ascii_lowercase().contains("cuda") {
        for c in patterns().dotnet_variant.captures_iter(line) {
            if let Some(row) = rows_named(&driver_enumerator(&c[1])).into_iter().next()
                && !out.iter().any(|(_, n, _)| *n == row.name)
            {
                out.push(("cuda", row.name.clone(), Some(row.number)));
            }
        }
    }
    for c in patterns().pynvml_class.captures_iter(line) {
        let name = snake_upper(&c[1]);
        if let Some(row) = rows_named(&format!("NVML_ERROR_{name}")).into_iter().next()
            && !out.iter().any(|(_, n, _)| *n == row.name)
        {
            out.push(("nvml", row.name.clone(), Some(row.number)));
        }
    }
    for c in patterns().camel_status.captures_iter(line) {
        let name = format!(
            "{}_STATUS_{}",
            c[1].to_ascii_uppercase(),
            snake_upper(&c[2])
        );
        if let Some(row) = rows_named(&name).into_iter().next()
            && row.number != 0
            && !out.iter().any(|(_, n, _)| *n == row.name)
        {
            out.push((kind_of(&row.type_name), row.name.clone(), Some(row.number)));
        }
    }
    for c in patterns().nccl_upper.captures_iter(line) {
        if let Some((row, _)) = nccl_results().find(|(_, upper)| *upper == c[1])
            && !out.iter().any(|(_, n, _)| *n == row.name)
        {
            out.push(("nccl", row.name.clone(), Some(row.number)));
        }
    }
    // ncclGetErrorString spells the enumerator in words on a line about NCCL ("NCCL failure
    // all_reduce.cu:95 'unhandled cuda error'" is ncclUnhandledCudaError). NCCL's own CUDA checks
    // quote cudaGetErrorString instead ("NCCL WARN Cuda failure 'invalid argument'" is the CUDA
    // runtime's cudaErrorInvalidValue: src/include/checks.h), read as the runtime's message.
    let lower = line.to_ascii_lowercase();
    let quotes_cuda = lower.contains("cuda failure") && !lower.contains("nccl failure");
    if lower.contains("nccl") && !quotes_cuda {
        for (row, upper) in nccl_results() {
            let words = upper.replace('_', " ").to_ascii_lowercase();
            if words.contains(' ')
                && lower.contains(&words)
                && !out.iter().any(|(_, n, _)| *n == row.name)
            {
                out.push(("nccl", row.name.clone(), Some(row.number)));
            }
        }
    }
    // NVML's enumerator without its prefix on a line about NVML ("ERROR_LIBRARY_NOT_FOUND"), or
    // without its `ERROR_` anywhere ("NVML_DRIVER_NOT_LOADED").
    let bare_on_nvml_line = lower
        .contains("nvml")
        .then(|| patterns().bare_enumerator.captures_iter(line))
        .into_iter()
        .flatten();
    for c in bare_on_nvml_line.chain(patterns().nvml_short.captures_iter(line)) {
        if let Some(row) = rows_named(&format!("NVML_ERROR_{}", &c[1]))
            .into_iter()
            .next()
            && !out.iter().any(|(_, n, _)| *n == row.name)
        {
            out.push(("nvml", row.name.clone(), Some(row.number)));
        }
    }
    // CUDA.jl and other bindings print the driver API's enumerator without its `CUDA_`
    // ("ERROR_JIT_COMPILER_NOT_FOUND"): read on a line about CUDA, or where the name says
    // something only CUDA has (so Windows' ERROR_NOT_FOUND is not taken for CUDA's).
    for c in patterns().bare_enumerator.captures_iter(line) {
        let bare = &c[1];
        if !(lower.contains("cuda") || names_cuda_only_thing(bare)) {
            continue;
        }
        if let Some(row) = rows_named(&format!("CUDA_ERROR_{bare}")).into_iter().next()
            && !out
                .iter()
                .any(|(_, n, _)| n.ends_with(&format!("_ERROR_{bare}")))
        {
            out.push(("cuda", row.name.clone(), Some(row.number)));
        }
    }
    for row in library_statuses_in_words(&lower) {
        if !out.iter().any(|(_, n, _)| *n == row.name) {
            out.push((kind_of(&row.type_name), row.name.clone(), Some(row.number)));
        }
    }
    for c in patterns().nvml_words.captures_iter(line) {
        if let Some(row) = nvml_row_in_words(&c[1])
            && !out.iter().any(|(_, n, _)| *n == row.name)
        {
            out.push(("nvml", row.name.clone(), Some(row.number)));
        }
    }
    out
}

/// The math libraries' statuses in words, as their `...GetStatusString` or a binding prints them,
/// on a failure line that names the library: "cusolverDnCreate(&handle) failed: cuSolver internal
/// error" is `CUSOLVER_STATUS_INTERNAL_ERROR`, "cublasCreate: (cublas) Library not initialized" is
/// `CUBLAS_STATUS_NOT_INITIALIZED`. The words are the enumerator's after its prefix (two or more,
/// from the generated tables), the longest one the line holds for each library.
fn library_statuses_in_words(lower: &str) -> Vec<&'static StatusCode> {
    const FAILURE: &[&str] = &["error", "fail", "exception", "status", "abort"];
    if !FAILURE.iter().any(|w| lower.contains(w)) {
        return Vec::new();
    }
    libraries_in_words()
        .filter(|(library, _)| lower.contains(library))
        .filter_map(|(_, prefix)| {
            generated()
                .status
                .code
                .iter()
                .filter(|r| r.number != 0)
                .filter_map(|r| {
                    let words = r
                        .name
                        .strip_prefix(prefix)?
                        .replace('_', " ")
                        .to_ascii_lowercase();
                    (words.contains(' ') && lower.contains(&words)).then_some((words.len(), r))
                })
                .max_by_key(|(len, _)| *len)
                .map(|(_, r)| r)
        })
        .collect()
}

/// NCCL's failure results with their names in upper snake case, without the prefix
/// (`ncclSystemError` → `SYSTEM_ERROR`): the form CuPy prints after `NCCL_ERROR_`, and in lower
/// case with spaces the words ncclGetErrorString prints.
fn nccl_results() -> impl Iterator<Item = (&'static StatusCode, String)> {
    generated()
        .status
        .code
        .iter()
        .filter(|r| r.type_name == "ncclResult_t" && r.number != 0)
        .filter_map(|r| Some((r, snake_upper(r.name.strip_prefix("nccl")?))))
}

/// Go's gorgonia.org/cu (formerly github.com/chewxy/cu) panics with the driver API result's name
/// without its prefix ("panic: Unknown" from `cu.init` is `CUDA_ERROR_UNKNOWN`).
pub fn go_cu_panic(line: &str) -> Option<&'static StatusCode> {
    let word = line.trim().strip_prefix("panic:")?.trim();
    let camel = !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric());
    camel.then(|| rows_named(&driver_enumerator(word)).into_iter().next())?
}

/// The NVML enumerator whose name the words spell ("driver not loaded" →
/// `NVML_ERROR_DRIVER_NOT_LOADED`; "unknown error" → `NVML_ERROR_UNKNOWN`).
fn nvml_row_in_words(words: &str) -> Option<&'static StatusCode> {
    let upper: Vec<String> = words
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_uppercase)
        .collect();
    let mut tries = vec![upper.join("_")];
    if upper.last().is_some_and(|w| w == "ERROR") {
        tries.push(upper[..upper.len() - 1].join("_"));
    }
    tries
        .iter()
        .filter(|t| !t.is_empty())
        .find_map(|t| rows_named(&format!("NVML_ERROR_{t}")).into_iter().next())
        .or_else(|| nvml_row_by_comment(words))
}

/// The NVML enumerator whose header comment holds the words ("Driver/library version mismatch"
/// is `NVML_ERROR_LIB_RM_VERSION_MISMATCH`, commented "RM detects a driver/library version
/// mismatch"): `nvmlErrorString` and the header say the same thing in nearly the same words.
fn nvml_row_by_comment(words: &str) -> Option<&'static StatusCode> {
    let words = words.trim().to_ascii_lowercase();
    if words.split_whitespace().count() < 2 {
        return None;
    }
    generated().status.code.iter().find(|c| {
        c.type_name == "nvmlReturn_t"
            && c.number != 0
            && c.comment.to_ascii_lowercase().contains(&words)
    })
}

/// A line that is only an error marker and a library status's words ("ERROR: Arch mismatch",
/// Mocha.jl's rethrow of cudnnGetErrorString's words: https://github.com/pluskid/Mocha.jl/issues/57),
/// where the library is named on the lines around it ("Initializing CuDNN backend...", a
/// `cudnn.jl` stack frame) rather than on the line itself: the status of the library named
/// nearby whose enumerator's words (two or more) are the whole rest of the line.
pub fn status_alone_near_library(line: &str, around: &[&str]) -> Option<&'static StatusCode> {
    static MARKER: OnceLock<Regex> = OnceLock::new();
    let marker = MARKER.get_or_init(|| {
        crate::engine::static_regex::compile(r"(?i)^\s*(?:error|exception|fatal)\s*:\s*(.+?)\s*$")
    });
    let words = marker.captures(line)?[1]
        .trim_end_matches(['.', '!'])
        .to_ascii_lowercase();
    if !words.contains(' ') {
        return None;
    }
    let nearby = around.join("\n").to_ascii_lowercase();
    libraries_in_words()
        .filter(|(library, _)| nearby.contains(library))
        .find_map(|(_, prefix)| {
            generated().status.code.iter().find(|r| {
                r.number != 0
                    && r.name
                        .strip_prefix(prefix)
                        .is_some_and(|w| w.replace('_', " ").eq_ignore_ascii_case(&words))
            })
        })
}

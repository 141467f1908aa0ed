//! Status codes as people paste them, recognised with the generated tables
//! ([`crate::engine::knowledge::generated`]): any enumerator name of NVIDIA's status enums
//! (`CUDA_ERROR_SYSTEM_DRIVER_MISMATCH`, `cudaErrorUnsupportedPtxVersion`,
//! `CUPTI_ERROR_INSUFFICIENT_PRIVILEGES`, `ncclUnhandledCudaError`, ...), the CUDA runtime's own
//! messages ("system not yet initialized", read in [`super::runtime_messages`]), and numbers in the forms libraries print them
//! (`code=222(...)`, `CUDA error 803`, `cuInit returned 999`).

use crate::engine::knowledge::generated::{StatusCode, generated};
use regex::Regex;
use std::sync::OnceLock;

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

struct Patterns {
    name: Regex,
    opencl_bare: Regex,
    opencl_call_number: Regex,
    dotnet_variant: Regex,
    pynvml_class: Regex,
    camel_status: Regex,
    nccl_upper: Regex,
    bare_enumerator: Regex,
    rust_variant: Regex,
    nvml_words: Regex,
    numbers: Vec<Regex>,
    library_numbers: Regex,
    library_numbers_after: Regex,
    nvenc_number: Regex,
    nvml_short: Regex,
    checked_success: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let re = crate::engine::static_regex::compile;
        Patterns {
            name: re(
                r"\b(CUDA_ERROR_[A-Z0-9_]+|cudaError[A-Z][A-Za-z0-9]*|CUBLAS_STATUS_[A-Z0-9_]+|CUDNN_STATUS_[A-Z0-9_]+|CUPTI_ERROR_[A-Z0-9_]+|NVRTC_ERROR_[A-Z0-9_]+|NVJITLINK_ERROR_[A-Z0-9_]+|CUFFT_[A-Z0-9_]+|CURAND_STATUS_[A-Z0-9_]+|CUSOLVER_STATUS_[A-Z0-9_]+|CUSPARSE_STATUS_[A-Z0-9_]+|NVML_ERROR_[A-Z0-9_]+|NVJPEG_STATUS_[A-Z0-9_]+|CUTENSOR_STATUS_[A-Z0-9_]+|CUDSS_STATUS_[A-Z0-9_]+|CU_FILE_[A-Z0-9_]+|NPP_[A-Z0-9_]+_(?:ERROR|WARNING)|NV_ENC_ERR_[A-Z0-9_]+|CL_[A-Z][A-Z0-9_]+|nccl[A-Z][A-Za-z]+|STATUS_[A-Z0-9_]+)\b",
            ),
            // PyOpenCL drops OpenCL's `CL_` prefix: "clGetPlatformIDs failed: PLATFORM_NOT_FOUND_KHR".
            opencl_bare: re(r"\bcl[A-Z][A-Za-z]*(?:\(\))?\s+failed:\s*([A-Z][A-Z0-9_]+)\b"),
            // An OpenCL call with its (negative) result in brackets: "clGetPlatformIDs(-1001)".
            opencl_call_number: re(r"\bcl[A-Z][A-Za-z]*\s*\(\s*(-[0-9]{1,4})\s*\)"),
            // .NET bindings (ManagedCuda's CUResult, CUDAfy's "CUDA.NET exception") name the
            // driver API's enumerators `ErrorInvalidPtx`, `ErrorNoBinaryForGPU`.
            // pynvml raises one exception class per NVML status: `NVMLError_NotSupported`,
            // `NVMLError_NoPermission`, `NVMLError_LibRmVersionMismatch`.
            pynvml_class: re(r"\bNVMLError_([A-Z][A-Za-z0-9]+)\b"),
            // Python bindings' exception classes and Julia's enum spellings: libcudnn.py's
            // `cudnnStatusArchMismatch`, `cublasStatusNotInitialized`.
            camel_status: re(
                r"\b(cudnn|cublas|cusparse|cusolver|curand|cutensor)Status([A-Z][A-Za-z]+)\b",
            ),
            // CuPy names NCCL's results in upper snake case: `NCCL_ERROR_SYSTEM_ERROR` is
            // `ncclSystemError`, `NCCL_ERROR_UNHANDLED_CUDA_ERROR` is `ncclUnhandledCudaError`.
            nccl_upper: re(r"\bNCCL_ERROR_([A-Z][A-Z0-9_]*[A-Z0-9])\b"),
            // Bindings that drop a library's prefix: go-nvml's `Return.String()` ("error
            // initializing NVML: ERROR_LIBRARY_NOT_FOUND"), CUDA.jl ("ERROR_JIT_COMPILER_NOT_FOUND").
            bare_enumerator: re(r"(?:^|[^A-Za-z0-9_])ERROR_([A-Z][A-Z_]*[A-Z])\b"),
            dotnet_variant: re(r"\bError((?:[A-Z][a-z0-9]+|[A-Z]{2,}(?:[a-z0-9]+)?)+)\b"),
            // Rust bindings (RustaCUDA, cust, rust-gpu-tools) turn `CUresult` into an enum whose
            // variants are the enumerators in CamelCase: `Cuda(NoBinaryForGpu)`,
            // `CudaError::InvalidPtx`.
            rust_variant: re(r"\b(?:Cuda\(|CudaError(?:::|\())([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)*)\b"),
            numbers: vec![
                re(r"(?i)\bcode\s*[=:]\s*([0-9]{1,4})\s*\(\s*(?:cuda|cu)"),
                // "CUDA error DRIVER: '300'" (NiceHash Excavator names the API and quotes the number).
                re(r"(?i)\bcuda[a-z_ ]{0,24}?\b(?:error|err|failure|status)(?:\s*(?:code|number))?(?:\s+(?:driver|runtime))?\s*[:=(#]?\s*'?([0-9]{1,4})\b"),
                re(r"\b(?:cu[A-Z][A-Za-z0-9_]*|cuda[A-Z][A-Za-z0-9_]*)(?:\([^)]{0,40}\))?\s*(?:returned|failed with(?: error)?|failed:?|error)\s*(?:code\s*)?[:=(]?\s*([0-9]{1,4})\b"),
                re(r"(?i)\bcuda\b[^\n]{0,40}?\b(?:failure|error|failed(?: with)?|code|status)\b\s*[:=(#]?\s*([0-9]{1,4})(?:[^0-9.]|\.(?:[^0-9]|$)|$)"),
                re(r"(?i)\bcuda\w*?(?:error|err)\b\s*[:=(#\[\s]*([0-9]{1,4})\]"),
                re(r"\bcuda[A-Za-z]*\s*\(([0-9]{1,4}) vs\. 0\)"),
                // A C++ check against the driver API's success value: "cuLinkAddFile_v2(...) ==
                // CUDA_SUCCESS (218 == 0)".
                re(r"\bCUDA_SUCCESS\s*\(([0-9]{1,4})\s*(?:==|vs\.)\s*0\)"),
                // glog's CHECK with the success value first: "Check failed: CUDA_SUCCESS ==
                // dynload::cuCtxSetCurrent(context) (0 vs. 216)".
                re(r"\b(?:CUDA_SUCCESS|cudaSuccess)\s*==\s*[^\n]{0,80}?\(0 vs\. ([1-9][0-9]{0,3})\)"),
                // Numba's driver wrapper: "[222] Call to cuLinkAddData results in UNKNOWN_CUDA_ERROR".
                re(r"\[([0-9]{1,4})\] Call to cu[A-Za-z0-9_]+ results in"),
                // Charm++ and other C hosts: "Return value 46 from 'cudaStreamCreate(&s)'".
                re(r"(?i)\breturn(?:ed)? value\s+([0-9]{1,4})\s+from\s+['`\x22]?(?:cu|cuda)[A-Z]"),
                // Go's and C's bindings print the driver API's type with the number
                // ("Unknown CUresult: 35", "CUresult 100").
                re(r"\bCUresult\s*[:=(]?\s*([0-9]{1,4})\b"),
                // Ollama's "cuda driver library failed to get device context 800".
                re(r"(?i)\b(?:nv)?cuda\b[^\n]{0,40}?\bfailed to [a-z ]{1,40}?\b([0-9]{1,4})(?:[^0-9.]|\.(?:[^0-9]|$)|$)"),
            ],
            // `nvmlErrorString` spells the enumerator in words: "nvml error: driver not loaded",
            // "Failed to initialize NVML: Insufficient Permissions".
            nvml_words: re(r"(?i)\bnvml(?: error)?:\s*([a-z][a-z /]{2,40}?)\s*(?:[:.,;(]|$)"),
            // The library's name, or one of its functions (`cuptiProfilerBeginSession(...)
            // failed with error 35`: the prefix followed by an upper-case letter).
            // glog's CHECK_EQ against a library's success value, as Caffe and other C++ hosts
            // print it: "Check failed: result == ncclSuccess (1 vs. 0)".
            checked_success: re(
                r"\b((?:nccl|cupti|nvrtc|nvJitLink)Success|[A-Z]+_STATUS_SUCCESS|CUFFT_SUCCESS|NVML_SUCCESS|CUPTI_SUCCESS|NVRTC_SUCCESS)\s*\((-?[0-9]{1,4}) (?i:vs)\. ?0\)",
            ),
            nvenc_number: re(r":\s*[a-z][a-z ]{2,40}\s\(([0-9]{1,2})\)"),
            // Modular's runtime drops NVML's `ERROR_`: "NVML_DRIVER_NOT_LOADED".
            nvml_short: re(r"\bNVML_([A-Z][A-Z_]*[A-Z])\b"),
            library_numbers: re(
                r"(?:\b(?i:(cupti|cublas|cudnn|cufft|curand|cusolver|cusparse|nvrtc|nvjitlink|nccl|nvml|cutensor|cudss|opencl))\b|\b(cupti|cublas|cudnn|cufft|curand|cusolver|cusparse|nvrtc|nvJitLink|nccl|nvml|cutensor|cudss|cl)[A-Z][A-Za-z0-9_]*(?:\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\))?)(?i:[^0-9\n]{0,40}?\b(?:error|status|code|returned|failed|failure|result)\b[^0-9\n]{0,12}?\(?(-?[0-9]{1,4})(?:[^0-9.]|\.(?:[^0-9]|$)|$))",
            ),
            // The failure word first and the number after a colon: "Failed to initialize CUPTI:
            // 39", TensorFlow's "failed to make cuFFT batched plan:5".
            library_numbers_after: re(
                r"(?i)\b(?:failed|failure|error|unable)\b[^0-9\n]{0,30}?\b(cupti|cublas|cudnn|cufft|curand|cusolver|cusparse|nvrtc|nvjitlink|nccl|nvml)\b[^0-9\n:]{0,24}:\s*\(?(-?[0-9]{1,4})(?:[^0-9.]|\.(?:[^0-9]|$)|$)",
            ),
        }
    })
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

/// Status names on a line that NVIDIA's headers declare: (kind, name, number when it has one).
pub fn names_on(line: &str) -> Vec<(&'static str, String, Option<i64>)> {
    let mut out = Vec::new();
    for c in patterns().name.captures_iter(line) {
        let rows = rows_named(&c[1]);
        // A binding that drops the library's prefix on a line naming the library: Torch7's
        // "Error in CuDNN: STATUS_EXECUTION_FAILED" is CUDNN_STATUS_EXECUTION_FAILED.
        let rows = if rows.is_empty() && c[1].starts_with("STATUS_") {
            let lower = line.to_ascii_lowercase();
            LIBRARY_PREFIXES
                .iter()
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

/// The math libraries by the word a line names them with, and their enumerators' prefix.
const LIBRARY_PREFIXES: &[(&str, &str)] = &[
    ("cublas", "CUBLAS_STATUS_"),
    ("cusolver", "CUSOLVER_STATUS_"),
    ("cusparse", "CUSPARSE_STATUS_"),
    ("cufft", "CUFFT_"),
    ("curand", "CURAND_STATUS_"),
    ("cudnn", "CUDNN_STATUS_"),
    ("cupti", "CUPTI_ERROR_"),
];

/// The math libraries' statuses in words, as their `...GetStatusString` or a binding prints them,
/// on a failure line that names the library: "cusolverDnCreate(&handle) failed: cuSolver internal
/// error" is `CUSOLVER_STATUS_INTERNAL_ERROR`, "cublasCreate: (cublas) Library not initialized" is
/// `CUBLAS_STATUS_NOT_INITIALIZED`. The words are the enumerator's after its prefix (two or more,
/// from the generated tables), the longest one the line holds for each library.
fn library_statuses_in_words(lower: &str) -> Vec<&'static StatusCode> {
    const LIBRARIES: &[(&str, &str)] = LIBRARY_PREFIXES;
    const FAILURE: &[&str] = &["error", "fail", "exception", "status", "abort"];
    if !FAILURE.iter().any(|w| lower.contains(w)) {
        return Vec::new();
    }
    LIBRARIES
        .iter()
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

/// The driver API enumerator a binding's CamelCase variant stands for (`NoBinaryForGpu` and
/// `NoBinaryForGPU` → `CUDA_ERROR_NO_BINARY_FOR_GPU`).
/// Go's gorgonia.org/cu (formerly github.com/chewxy/cu) panics with the driver API result's name
/// without its prefix ("panic: Unknown" from `cu.init` is `CUDA_ERROR_UNKNOWN`).
pub fn go_cu_panic(line: &str) -> Option<&'static StatusCode> {
    let word = line.trim().strip_prefix("panic:")?.trim();
    let camel = !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric());
    camel.then(|| rows_named(&driver_enumerator(word)).into_iter().next())?
}

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

/// Whether the number a pattern caught is a process's exit status ("command
/// '/usr/local/cuda/bin/nvcc' failed with exit status 1", "returned non-zero exit status 2"),
/// which says a program failed, not which CUDA or library status it failed with.
fn is_process_exit_status(line: &str, caught: &regex::Captures) -> bool {
    let (Some(whole), Some(number)) = (caught.get(0), caught.get(caught.len() - 1)) else {
        return false;
    };
    let before = line[whole.start()..number.start()].to_ascii_lowercase();
    [
        "exit status",
        "exit code",
        "exited with",
        "return code",
        "returncode",
    ]
    .iter()
    .any(|words| before.contains(words))
}

/// CUDA error numbers in the forms printed next to "CUDA" or a CUDA function.
pub fn cuda_numbers_on(line: &str) -> Vec<i64> {
    let mut out = Vec::new();
    for re in &patterns().numbers {
        for c in re.captures_iter(line) {
            if is_process_exit_status(line, &c) {
                continue;
            }
            if let Ok(n) = c[1].parse::<i64>()
                && !out.contains(&n)
            {
                out.push(n);
            }
        }
    }
    out
}

/// Status numbers next to a library's name (`CUPTI error 35`, `cuBLAS status 13`):
/// (kind, number) where the generated tables have that number for that library.
pub fn library_numbers_on(line: &str) -> Vec<(&'static str, i64)> {
    let mut out = Vec::new();
    for c in patterns().checked_success.captures_iter(line) {
        if let Some(kind) = rows_named(&c[1]).first().map(|r| kind_of(&r.type_name)) {
            push_known(&mut out, kind, &c[2]);
        }
    }
    // NVENC's status in brackets after its words, on a line about NVENC ("NVENC: Failed locking
    // bitstream buffer: invalid param (8)", FFmpeg's "OpenEncodeSessionEx failed: out of memory (10)").
    if line.to_ascii_lowercase().contains("nvenc") {
        for c in patterns().nvenc_number.captures_iter(line) {
            push_known(&mut out, "nvenc", &c[1]);
        }
    }
    for c in patterns().opencl_call_number.captures_iter(line) {
        push_known(&mut out, "opencl", &c[1]);
    }
    for c in patterns().library_numbers.captures_iter(line) {
        let Some(library) = c.get(1).or(c.get(2)) else {
            continue;
        };
        if is_process_exit_status(line, &c) {
            continue;
        }
        let kind = match library.as_str().to_ascii_lowercase().as_str() {
            "opencl" | "cl" => "opencl",
            _ => kind_of_word(library.as_str()),
        };
        push_known(&mut out, kind, &c[3]);
    }
    for c in patterns().library_numbers_after.captures_iter(line) {
        if is_process_exit_status(line, &c) {
            continue;
        }
        let kind = kind_of_word(&c[1]);
        push_known(&mut out, kind, &c[2]);
    }
    out
}

/// The status kind of a library named in words (`CUPTI`, `cuFFT`).
fn kind_of_word(word: &str) -> &'static str {
    const KINDS: [&str; 12] = [
        "cutensor",
        "cudss",
        "cupti",
        "cublas",
        "cudnn",
        "cufft",
        "curand",
        "cusolver",
        "cusparse",
        "nvrtc",
        "nvjitlink",
        "nvml",
    ];
    KINDS
        .into_iter()
        .find(|k| k.eq_ignore_ascii_case(word))
        .unwrap_or("nccl")
}

/// Adds (kind, number) once, when the number is not the success value 0 and the generated
/// tables have it for that kind.
fn push_known(out: &mut Vec<(&'static str, i64)>, kind: &'static str, digits: &str) {
    if let Ok(n) = digits.parse::<i64>()
        && n != 0
        && row_for(kind, Some(n), None).is_some()
        && !out.contains(&(kind, n))
    {
        out.push((kind, n));
    }
}

/// A library's status printed alone on the line after its failure line (DyNet's "CURAND failure
/// in curandGenerateUniform(...)" then "201": https://github.com/clab/dynet/issues/1218): the
/// library and the number, where the library's table has that number.
pub fn status_on_next_line(line: &str, next: &str) -> Option<(&'static str, i64)> {
    const LIBRARY_KINDS: [&str; 9] = [
        "cuda", "curand", "cublas", "cufft", "cusolver", "cusparse", "cudnn", "nccl", "nvrtc",
    ];
    static FAILURE: OnceLock<Regex> = OnceLock::new();
    let n: i64 = next.trim().parse().ok()?;
    let c = FAILURE
        .get_or_init(|| {
            crate::engine::static_regex::compile(
                r"(?i)\b(cuda|curand|cublas|cufft|cusolver|cusparse|cudnn|nccl|nvrtc)\b[^\n]*\b(?:failure|error|failed)\b",
            )
        })
        .captures(line)?;
    // A failure line that carries its own number needs none from the next line.
    if !cuda_numbers_on(line).is_empty() || !library_numbers_on(line).is_empty() {
        return None;
    }
    let kind = LIBRARY_KINDS
        .into_iter()
        .find(|k| k.eq_ignore_ascii_case(&c[1]))?;
    row_for(kind, Some(n), None).map(|_| (kind, n))
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

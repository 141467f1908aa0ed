//! Status numbers as libraries print them: a CUDA code after "CUDA error", a CUDA function or
//! `code=` (`code=222(...)`, `CUDA error 803`, `cuInit returned 999`), and a library's own
//! status next to its name or function (`CUPTI error 35`, `cublasCreate failed with 13`,
//! `Check failed: result == ncclSuccess (1 vs. 0)`), kept where the generated tables have the
//! number for that library.

use super::{kind_of, kind_of_word, library_alternation, row_for, rows_named};
use regex::Regex;
use std::sync::OnceLock;

struct Patterns {
    numbers: Vec<Regex>,
    opencl_call_number: Regex,
    library_numbers: Regex,
    library_numbers_after: Regex,
    julia_exception: Regex,
    nvenc_number: Regex,
    checked_success: Regex,
    failure_then_number: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let re = crate::engine::static_regex::compile;
        let words = library_alternation(false);
        let functions = library_alternation(true);
        Patterns {
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
            // An OpenCL call with its (negative) result in brackets: "clGetPlatformIDs(-1001)".
            opencl_call_number: re(r"\bcl[A-Z][A-Za-z]*\s*\(\s*(-[0-9]{1,4})\s*\)"),
            // glog's CHECK_EQ against a library's success value, as Caffe and other C++ hosts
            // print it: "Check failed: result == ncclSuccess (1 vs. 0)".
            checked_success: re(
                r"\b((?:nccl|cupti|nvrtc|nvJitLink)Success|[A-Z]+_STATUS_SUCCESS|CUFFT_SUCCESS|NVML_SUCCESS|CUPTI_SUCCESS|NVRTC_SUCCESS)\s*\((-?[0-9]{1,4}) (?i:vs)\. ?0\)",
            ),
            nvenc_number: re(r":\s*[a-z][a-z ]{2,40}\s\(([0-9]{1,2})\)"),
            // The library's name, or one of its functions (`cuptiProfilerBeginSession(...)
            // failed with error 35`: the prefix followed by an upper-case letter).
            library_numbers: re(&format!(
                r"(?:\b(?i:({words}|opencl))\b|\b({functions}|cl)[A-Z][A-Za-z0-9_]*(?:\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\))?)(?i:[^0-9\n]{{0,40}}?\b(?:error|status|code|returned|failed|failure|result)\b[^0-9\n]{{0,12}}?\(?(-?[0-9]{{1,4}})(?:[^0-9.]|\.(?:[^0-9]|$)|$))",
            )),
            // The failure word first and the number after a colon: "Failed to initialize CUPTI:
            // 39", TensorFlow's "failed to make cuFFT batched plan:5".
            library_numbers_after: re(&format!(
                r"(?i)\b(?:failed|failure|error|unable)\b[^0-9\n]{{0,30}}?\b({words})\b[^0-9\n:]{{0,24}}:\s*\(?(-?[0-9]{{1,4}})(?:[^0-9.]|\.(?:[^0-9]|$)|$)",
            )),
            // CUDA.jl's (and CuArrays.jl's) exception per library, with the status number:
            // "CURANDError(code 105, Length requested is not a multple of dimension)"
            // (https://github.com/JuliaGPU/CuArrays.jl/issues/392), "CUBLASError(code 13, ...)".
            julia_exception: re(&format!(r"(?i)\b({words})Error\(code (-?[0-9]{{1,4}})\b")),
            // A failure line about CUDA or a library whose status follows alone on the next line.
            failure_then_number: re(&format!(
                r"(?i)\b(cuda|{words})\b[^\n]*\b(?:failure|error|failed)\b"
            )),
        }
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
    for c in patterns().julia_exception.captures_iter(line) {
        if let Some(kind) = kind_of_word(&c[1]) {
            push_known(&mut out, kind, &c[2]);
        }
    }
    for c in patterns().opencl_call_number.captures_iter(line) {
        push_known(&mut out, "opencl", &c[1]);
    }
    let caught = patterns()
        .library_numbers
        .captures_iter(line)
        .filter_map(|c| Some((c.get(1).or(c.get(2))?.as_str(), c.get(3)?.as_str(), c)))
        .chain(
            patterns()
                .library_numbers_after
                .captures_iter(line)
                .filter_map(|c| Some((c.get(1)?.as_str(), c.get(2)?.as_str(), c))),
        );
    for (library, digits, c) in caught {
        if is_process_exit_status(line, &c) {
            continue;
        }
        if let Some(kind) = kind_of_word(library) {
            push_known(&mut out, kind, digits);
        }
    }
    out
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
    let n: i64 = next.trim().parse().ok()?;
    let c = patterns().failure_then_number.captures(line)?;
    // A failure line that carries its own number needs none from the next line.
    if !cuda_numbers_on(line).is_empty() || !library_numbers_on(line).is_empty() {
        return None;
    }
    let kind = if c[1].eq_ignore_ascii_case("cuda") {
        "cuda"
    } else {
        kind_of_word(&c[1])?
    };
    row_for(kind, Some(n), None).map(|_| (kind, n))
}

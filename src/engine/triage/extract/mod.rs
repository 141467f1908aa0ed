//! Extraction: pulls library names and error codes out of pasted error text (missing symbols: `symbols`).
//! Generic patterns, not a lookup of known lines: any `*.dll` token (also inside quotes and
//! Windows paths), any `lib*.so[.N...]` soname, the usual phrasings of Win32 load errors
//! (`[WinError 126]`, `Error code 126`, `error 0x7E`, `LoadLibrary failed with error 126`,
//! "The specified module could not be found"), CUDA runtime/driver error names and numbers, and
//! `CUDNN_STATUS_*` names. Wildcard names as some tools print them (`nvJitLink*.dll`,
//! `libnvJitLink.so*`) are kept with their `*`.

mod broken_dialogs;
mod symbols;

pub use broken_dialogs::joined_dialogs;
pub use symbols::{MissingSymbol, symbols, version_node};

use super::status;
use crate::engine::knowledge::Catalog;
use regex::Regex;
use serde::Serialize;
use std::sync::OnceLock;

/// An error code or status name found in the text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ErrorCode {
    /// `win32`, `cuda` or `cudnn`.
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<i64>,
    /// The name or phrase as written (e.g. `CUDNN_STATUS_NOT_INITIALIZED`), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub line: String,
}

struct Patterns {
    dll: Regex,
    dotnet_dll: Regex,
    soname: Regex,
    /// Python's `[WinError N]`: a Windows error whatever else the line names.
    win_error: Regex,
    /// Other spellings of a number that is a Windows error unless the line is TensorRT's.
    win_numbers: Vec<Regex>,
    win_hex: Regex,
    hresult: Regex,
    cuda_name: Regex,
    cudnn_status: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let re = crate::engine::static_regex::compile;
        Patterns {
            dll: re(r"(?i)([A-Za-z0-9_+\-][A-Za-z0-9_.+\-]*\*?[A-Za-z0-9_.+\-]*\.dll)\b"),
            // .NET's DllNotFoundException names the DLL as P/Invoke asked for it, often without
            // its extension: "Unable to load DLL 'npps64_75': The specified module could not be
            // found." (the loader adds `.dll`).
            dotnet_dll: re(r"(?i)\bUnable to load DLL '([A-Za-z0-9_+\-]+)'"),
            // "Libcudnn.so.8" as some Java stacks print it (capitalised, spaces lost).
            soname: re(
                r"(?:^|[^A-Za-z0-9_.+\-])([Ll]ib[A-Za-z0-9_+\-]+\.so(?:\.[0-9]+)*(?:\*|\b))",
            ),
            win_error: re(r"(?i)\[WinError\s+(\d+)\]"),
            win_numbers: vec![
                re(r"(?i)error code[:\s]*(\d+)"),
                re(r"(?i)LoadLibrary\w*\s+failed with error\s+(\d+)"),
                re(r"(?i)(?:^|[^\w.])error[\s:#]*(126|127|193)\b"),
            ],
            win_hex: re(r"(?i)\berror[\s:]*0x0*([0-9a-f]{1,8})\b"),
            hresult: re(r"(?i)\b0x8007([0-9a-f]{4})\b"),
            cuda_name: re(r"\b(cudaError[A-Z][A-Za-z]*|CUDA_ERROR_[A-Z_]+)\b"),
            cudnn_status: re(r"\b(CUDNN_STATUS_[A-Z_]+)\b"),
        }
    })
}

/// A soname as the file is named: always "lib" (a capital is the printer's, not the file's).
pub(super) fn soname_as_meant(written: &str) -> String {
    match written.strip_prefix("Lib") {
        Some(rest) => format!("lib{rest}"),
        None => written.to_string(),
    }
}

/// The text with sonames people retyped with a comma ("libcudart,so.11.0") written as the
/// loader printed them, so every reader sees the library.
pub fn retyped_sonames(text: &str) -> std::borrow::Cow<'_, str> {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        crate::engine::static_regex::compile(r"\b(lib[A-Za-z0-9_+\-]+),(so(?:\.[0-9]+)*)\b")
    })
    .replace_all(text, "$1.$2")
}

/// The text with a status name a paste broke at a space ("CUDA_ERROR_INVALID _PTX", LuxCore's
/// log: https://github.com/LuxCoreRender/BlendLuxCore/issues/568) written whole, where the
/// whole name is one NVIDIA's headers declare. The prefixes are the status table's.
pub fn rejoined_status_names(text: &str) -> std::borrow::Cow<'_, str> {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        crate::engine::static_regex::compile(&format!(
            r"\b((?:{})[A-Z0-9_]*[A-Z0-9]) (_[A-Z][A-Z0-9_]*)\b",
            status::enumerator_prefix_alternation()
        ))
    })
    .replace_all(text, |c: &regex::Captures| {
        let whole = format!("{}{}", &c[1], &c[2]);
        if super::status::rows_named(&whole).is_empty() {
            c[0].to_string()
        } else {
            whole
        }
    })
}

/// Every library file name in the text, in order of first appearance, without duplicates.
pub fn libraries(text: &str) -> Vec<String> {
    let p = patterns();
    let mut found: Vec<(usize, String)> = Vec::new();
    for m in p.dll.captures_iter(text) {
        if let Some(g) = m.get(1) {
            let name = g.as_str().trim_start_matches(['.', '-']);
            if name.len() > 4 {
                found.push((g.start(), name.to_string()));
            }
        }
    }
    for m in p.soname.captures_iter(text) {
        if let Some(g) = m.get(1) {
            found.push((g.start(), soname_as_meant(g.as_str())));
        }
    }
    for m in p.dotnet_dll.captures_iter(text) {
        if let Some(g) = m.get(1) {
            found.push((g.start(), format!("{}.dll", g.as_str())));
        }
    }
    found.sort_by_key(|(pos, _)| *pos);
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (_, name) in found {
        if out.len() >= MAX_NAMES {
            break;
        }
        if seen.insert(name.to_ascii_lowercase()) {
            out.push(name);
        }
    }
    out
}

/// Library names written without an extension, as dlopen wrappers take them: Julia's
/// `could not load library "libcuda"`, cudarc's `under the names ["cuda", "nvcuda"]`, Go's and
/// Java's `load library 'cudnn'`, Alea GPU's `Couldn't open CUDA library 'cudnn64_5'` and
/// ManagedCuda's unquoted Windows stem (`find a library nvrtc64_100`). The caller resolves each to a platform's file name.
pub fn library_stems(text: &str) -> Vec<String> {
    static P: OnceLock<(Regex, Regex, Regex)> = OnceLock::new();
    let (single, list, quoted) = P.get_or_init(|| {
        let re = crate::engine::static_regex::compile;
        (
            re(
                r#"(?i)\b(?:load|find|open|locate|dlopen)\w*\s+(?:the\s+|an?\s+)?(?:shared\s+|native\s+|dynamic\s+)?(?:CUDA\s+|NVIDIA\s+|GPU\s+)?(?:library|lib|module)\s+(?:["'`]([A-Za-z][A-Za-z0-9_+\-]{1,40})["'`]|([A-Za-z]+(?:64|32)_[0-9]{1,3})\b)"#,
            ),
            re(r"(?i)\bnames?\s*[:=]?\s*\[([^\]\n]{1,200})\]"),
            re(r#"["'`]([A-Za-z][A-Za-z0-9_+\-]{1,40})["'`]"#),
        )
    });
    let mut out: Vec<String> = Vec::new();
    for c in single.captures_iter(text) {
        if let Some(name) = c.get(1).or(c.get(2)) {
            out.push(name.as_str().to_string());
        }
    }
    for c in list.captures_iter(text) {
        for q in quoted.captures_iter(&c[1]) {
            out.push(q[1].to_string());
        }
    }
    out.extend(prose_library_stems(text));
    out.dedup();
    out
}

/// Libraries named in words by a failure ("Failed to initialize NVIDIA RTC library", "could not
/// load the cuDNN library", scikit-cuda's "cublas library not found"): the file stem each
/// component's name stands for.
fn prose_library_stems(text: &str) -> Vec<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        crate::engine::static_regex::compile(r"(?i)\b(?:failed to|could not|couldn't|cannot|can't|unable to)\s+(?:initiali[sz]e|load|find|open|locate)\s+(?:the\s+)?(?:nvidia\s+)?(cuDNN|cuBLASLt|cuBLAS|cuFFT|cuRAND|cuSOLVER|cuSPARSE|NVRTC|RTC|NVML|NCCL|CUPTI|nvJitLink|TensorRT|CUDA runtime|CUDA driver)\s+(?:shared\s+|dynamic\s+)?(?:librar(?:y|ies)|DSO)\b|\b(cuDNN|cuBLASLt|cuBLAS|cuFFT|cuRAND|cuSOLVER|cuSPARSE|NVRTC|NVML|NCCL|CUPTI|nvJitLink|TensorRT|CUDA runtime)\s+(?:shared\s+|dynamic\s+)?librar(?:y|ies)\s+(?:was\s+|is\s+)?(?:not found|not installed|missing|could not be (?:found|loaded))")
    });
    re.captures_iter(text)
        .filter_map(|c| c.get(1).or(c.get(2)))
        .map(|name| {
            match name.as_str().to_ascii_lowercase().as_str() {
                "rtc" | "nvrtc" => "nvrtc",
                "nvml" => "nvidia-ml",
                "tensorrt" => "nvinfer",
                "cuda runtime" => "cudart",
                "cuda driver" => "cuda",
                "nvjitlink" => "nvJitLink",
                other => return other.to_string(),
            }
            .to_string()
        })
        .collect()
}

/// At most this many distinct library names are taken from one text.
pub const MAX_NAMES: usize = 500;

/// Shortens a log line for evidence.
pub fn clip(line: &str) -> String {
    let line = line.trim();
    if line.chars().count() <= 300 {
        return line.to_string();
    }
    let mut s: String = line.chars().take(297).collect();
    s.push_str("...");
    s
}

/// A line TensorRT's logger wrote: its `[TRT]` tag, `nvinfer1::` frames, or the
/// `[source.cpp::function::line]` location TensorRT puts before "Error Code N".
fn is_tensorrt_line(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        crate::engine::static_regex::compile(
            r"(?i)\[TRT\]|\bTensorRT\b|nvinfer1::|\[[A-Za-z0-9_]+\.cpp::[^\]]*\]\s*Error Code|\bError Code [0-9]+: (?:Myelin|Cuda (?:Runtime|Driver)|Internal Error|Serialization|API Usage Error|Cask|Tactic|Unsupported|OutOfMemory)\b",
        )
    });
    re.is_match(line)
}

/// "If you encounter CUDA out of memory, try to set --tile ...": advice printed with any error,
/// not a report of one.
pub fn is_conditional_hint(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        crate::engine::static_regex::compile(
            r"(?i)^\W*(?:if|when) you (?:encounter|see|get|run into|hit|experience)\b",
        )
    })
    .is_match(line)
}

/// Names a check's expression compares with (`e == cudaSuccess || e == cudaErrorCudartUnloading`,
/// `status != CUBLAS_STATUS_SUCCESS`).
fn compared_names(line: &str) -> Vec<String> {
    static RE: OnceLock<[Regex; 2]> = OnceLock::new();
    // Each side on its own: one match would take the `==` the other side needs.
    let sides = RE.get_or_init(|| {
        let re = crate::engine::static_regex::compile;
        [
            re(r"(?:==|!=)\s*([A-Za-z_][A-Za-z0-9_]*)"),
            re(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:==|!=)"),
        ]
    });
    sides
        .iter()
        .flat_map(|re| re.captures_iter(line).map(|c| c[1].to_string()))
        .collect()
}

/// A line AMD's HIP (ROCm) wrote: its messages copy CUDA's ("HIP error: invalid device
/// function"), but no CUDA, driver or Windows code is meant.
fn is_hip_line(line: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| crate::engine::static_regex::compile(r"\bHIP error\b|\bhipError[A-Z]"))
        .is_match(line)
}

/// Error codes, status names and the standard phrases of known codes.
/// A line that names Unix paths or shared objects and nothing of Windows: its "error code: 127"
/// is a process's exit status (127: command not found), not a Windows error.
/// "The GPU failed to perform image processing because of an error. Error Code: 702": a program
/// that talks of the GPU or CUDA and of no DLL prints a CUDA code, not a Windows error, when the
/// number is one of CUDA's and none of the Windows loader's (126, 127, 193, 1114 are not CUDA's).
fn reports_a_gpu_code(line: &str, n: i64, catalog: &Catalog) -> bool {
    let lower = line.to_ascii_lowercase();
    let gpu = ["gpu", "cuda", "nvidia"].iter().any(|w| lower.contains(w));
    let loader = [".dll", "loadlibrary", "winerror", "module", "dll load"]
        .iter()
        .any(|w| lower.contains(w));
    // A line that names the CUDA call that failed ("cudaGetDeviceCount failed ... error code :
    // 35") reports that call's status, small numbers too.
    static CALL: OnceLock<Regex> = OnceLock::new();
    let names_a_cuda_call = || {
        CALL.get_or_init(|| {
            crate::engine::static_regex::compile(r"\bcuda[A-Z][A-Za-z]+|\bcu[A-Z][a-z]+[A-Z]\w*")
        })
        .is_match(line)
    };
    gpu && !loader && (n >= 100 || names_a_cuda_call()) && catalog.code("cuda", n).is_some()
}

fn unix_only(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    let windows = lower.contains(".dll")
        || lower.contains('\\')
        || lower.contains("winerror")
        || lower.contains("loadlibrary")
        || lower.contains("windows");
    let unix = [
        " /sbin/", " /usr/", " /bin/", " /lib", " /opt/", " /etc/", ".so", "ldconfig", "modprobe",
    ]
    .iter()
    .any(|m| lower.contains(m));
    unix && !windows
}

fn ib_completion() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        crate::engine::static_regex::compile(
            r"(?i)\bGot completion (?:from peer \S+ )?with (?:error |status=)([0-9]{1,2})\b",
        )
    })
}

pub fn codes(text: &str, catalog: &Catalog) -> Vec<ErrorCode> {
    let p = patterns();
    let mut out: Vec<ErrorCode> = Vec::new();
    let mut add = |kind: &str, number: Option<i64>, name: Option<String>, line: &str| {
        let dup = out.iter().any(|c| {
            c.kind == kind
                && ((number.is_some() && c.number == number)
                    || (name.is_some()
                        && c.name.as_deref().map(str::to_ascii_lowercase)
                            == name.as_deref().map(str::to_ascii_lowercase)))
        });
        if !dup {
            out.push(ErrorCode {
                kind: kind.to_string(),
                number,
                name,
                line: clip(line),
            });
        }
    };
    let go_cu = text.contains("chewxy/cu") || text.contains("gorgonia.org/cu");
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().copied().enumerate() {
        if is_hip_line(line) {
            continue;
        }
        if let Some((kind, n)) = lines
            .get(i + 1)
            .and_then(|next| status::status_on_next_line(line, next))
        {
            let name = status::row_for(kind, Some(n), None).map(|r| r.name.clone());
            add(kind, Some(n), name, line);
        }
        if let Some(row) = status::go_cu_panic(line).filter(|_| go_cu) {
            add("cuda", Some(row.number), Some(row.name.clone()), line);
        }
        // NCCL's IB transport: "Got completion from peer <addr> with error 4" / "with status=12"
        // is an InfiniBand work-completion status (ibv_wc_status), not an NCCL, CUDA or Windows
        // code: the line says nothing else.
        if let Some(c) = ib_completion().captures(line)
            && let Ok(n) = c[1].parse::<i64>()
        {
            let name = catalog
                .code("ibverbs", n)
                .and_then(|r| r.names.first().cloned());
            add("ibverbs", Some(n), name, line);
            continue;
        }
        // A line that only says what to do if an error comes ("If you encounter CUDA out of
        // memory, try ...") reports none.
        if is_conditional_hint(line) {
            continue;
        }
        // A name a check compares with ("Check failed: e == cudaSuccess || e ==
        // cudaErrorCudartUnloading") is a value the check accepts, not the error that happened.
        let compared = compared_names(line);
        let reported = |name: &str| !compared.iter().any(|c| c == name);
        // Status names NVIDIA's headers declare come first: their number says which code a
        // bare number on the same line (`code=222(cudaErrorUnsupportedPtxVersion)`) is.
        let named: Vec<_> = status::names_on(line)
            .into_iter()
            .filter(|(_, name, _)| reported(name))
            .collect();
        for (kind, name, number) in &named {
            add(kind, *number, Some(name.clone()), line);
        }
        if named.is_empty() {
            let around = &lines[i.saturating_sub(3)..(i + 4).min(lines.len())];
            if let Some(row) = status::status_alone_near_library(line, around) {
                let kind = status::kind_of(&row.type_name);
                add(kind, Some(row.number), Some(row.name.clone()), line);
            }
        }
        // A Windows process's exit code that is an NTSTATUS (0xC0000409, 3221225781,
        // -1073741819): not a Windows error number and not a CUDA code.
        for row in super::nt_status::rows_on(line, catalog) {
            add("ntstatus", Some(row.number), Some(row.name.clone()), line);
        }
        for c in p.cuda_name.captures_iter(line).filter(|c| reported(&c[1])) {
            let name = c[1].to_string();
            let number = catalog.code_named(&name).and_then(|r| r.number);
            add("cuda", number, Some(name), line);
        }
        for c in p
            .cudnn_status
            .captures_iter(line)
            .filter(|c| reported(&c[1]))
        {
            add("cudnn", None, Some(c[1].to_string()), line);
        }
        let library_numbers = status::library_numbers_on(line);
        for &(kind, n) in &library_numbers {
            let name = status::row_for(kind, Some(n), None).map(|r| r.name.clone());
            add(kind, Some(n), name, line);
        }
        let mut cuda_numbered = false;
        // A number a library's name claims ("nvml ... init failure: 9") is not also CUDA's.
        for n in status::cuda_numbers_on(line)
            .into_iter()
            .filter(|n| !library_numbers.iter().any(|(_, m)| m == n))
        {
            cuda_numbered = true;
            add("cuda", Some(n), None, line);
        }
        if named.is_empty() {
            for row in super::runtime_messages::runtime_messages_on(line) {
                cuda_numbered = true;
                add("cuda", Some(row.number), Some(row.name.clone()), line);
            }
        }
        // TensorRT's logger prints its own ErrorCode ("[TRT] [E] 1: [file.cpp::fn::42] Error Code
        // 1: Serialization ..."), not a Windows error.
        let number_kind = if is_tensorrt_line(line) {
            "tensorrt"
        } else {
            "win32"
        };
        if !cuda_numbered && !unix_only(line) {
            let spellings = std::iter::once((&p.win_error, "win32"))
                .chain(p.win_numbers.iter().map(|re| (re, number_kind)));
            for (re, kind) in spellings {
                for c in re.captures_iter(line) {
                    if let Ok(n) = c[1].parse::<i64>()
                        && !super::nt_status::is_nt_status_number(n)
                    {
                        let kind = if kind == "win32" && reports_a_gpu_code(line, n, catalog) {
                            "cuda"
                        } else {
                            kind
                        };
                        add(kind, Some(n), None, line);
                    }
                }
            }
            for re in [&p.win_hex, &p.hresult] {
                for c in re.captures_iter(line) {
                    if let Ok(n) = i64::from_str_radix(&c[1], 16)
                        && catalog.code("win32", n).is_some()
                    {
                        add("win32", Some(n), None, line);
                    }
                }
            }
        }
        let lower = line.to_lowercase();
        for row in &catalog.codes {
            // A phrase is a name with a space, or in another script (the message in Windows'
            // Chinese or Japanese display language has no spaces).
            for phrase in row
                .names
                .iter()
                .filter(|n| n.contains(' ') || !n.is_ascii())
            {
                if lower.contains(&phrase.to_lowercase()) {
                    let name = if row.kind == "win32" {
                        None
                    } else {
                        row.names.first().cloned()
                    };
                    add(&row.kind, row.number, name, line);
                }
            }
        }
    }
    out
}

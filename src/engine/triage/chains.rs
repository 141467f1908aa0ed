//! What a loader message says beyond the names in it: which library is really missing when one
//! library failed because of another ("A due to B", "A: B: cannot open shared object file",
//! the link editor's "B, needed by A, not found", musl's "Error loading shared library B: …
//! (needed by A)",
//! "dlerror: B: …", "error while loading shared libraries: B"), the CUDA/cuDNN version integers
//! messages print (12010 = CUDA 12.1, 8902 = cuDNN 8.9.2, 90100 = cuDNN 9.1.0), the versions a
//! program was built with and found, and the PTX ISA a ptxas refused. The GPU architectures a
//! message names or refuses are [`super::architectures`]'.

use super::extract::clip;
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// One library that could not be loaded because another one is missing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chain {
    /// The library that was asked for (it was found; its dependency was not).
    pub needed_by: String,
    /// The library that is really missing.
    pub missing: String,
    pub line: String,
}

/// A version integer and what it decodes to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionInteger {
    pub number: u64,
    /// "CUDA" or "cuDNN".
    pub product: String,
    pub decoded: String,
    pub line: String,
}

/// A library version a program was built with, and the one it found at run time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionPair {
    /// "cuDNN", "TensorRT", "cuBLAS", "CUDA", "NCCL".
    pub product: String,
    pub built: String,
    pub loaded: String,
    pub line: String,
}

struct Patterns {
    library: Regex,
    due_to: Regex,
    needed_by: Regex,
    musl_needed_by: Regex,
    versioned_reference: Regex,
    cannot_open: Regex,
    while_loading: Regex,
    version_int: Regex,
    version_short: Regex,
    dotted: Regex,
    driver: Regex,
    ptx_isa: Regex,
}

const LIB: &str = r"(lib[A-Za-z0-9_+\-]+\.so(?:\.[0-9]+)*|[A-Za-z0-9_+\-][A-Za-z0-9_.+\-]*\.dll)";

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let re = crate::engine::static_regex::compile;
        Patterns {
            library: re(LIB),
            due_to: re(&format!(r"(?i){LIB}['`\x22]?\s+(?:due to|because of)\s+['`\x22]?{LIB}")),
            // GNU ld: "warning: B, needed by /path/A, not found (try using -rpath or -rpath-link)".
            needed_by: re(&format!(r"{LIB},\s*needed by\s+(?:[^\s,]*/)?{LIB},\s*not found")),
            // musl's loader (Alpine images): "Error loading shared library B: No such file or
            // directory (needed by /usr/lib64/A)".
            musl_needed_by: re(&format!(
                r"Error loading shared library\s+{LIB}:[^(\n]*\(needed by\s+(?:[^\s)]*/)?{LIB}\)"
            )),
            versioned_reference: re(&format!(
                r"{LIB}:\s*undefined reference to [`'\x22\u{{2018}}][A-Za-z_][A-Za-z0-9_]*@{LIB}"
            )),
            cannot_open: re(&format!(
                r"(?i){LIB}:\s*cannot open shared object file|{LIB}['`\x22]?\s*(?:was )?not found"
            )),
            while_loading: re(&format!(r"(?i)error while loading shared libraries:\s*{LIB}")),
            version_int: re(r"(?:^|[^0-9.])([0-9]{4,5})(?:[^0-9.]|$)"),
            version_short: re(r"\bcuda[ _]?version\s*[:=]?\s*([0-9]{2,3})(?:[^0-9.]|$)"),
            ptx_isa: re(
                r"(?i)Unsupported \.version ([0-9]+\.[0-9]+); current version is '([0-9]+\.[0-9]+)'",
            ),
            driver: re(
                r"(?i)(?:driver|kernel|nvidia|nvrm|dso)[^\r\n]{0,48}?\b([1-9][0-9]{2}\.[0-9]{2,3}(?:\.[0-9]{1,3})?)\b",
            ),
            dotted: re(
                r"\(\s*([0-9]+),\s*([0-9]+),\s*([0-9]+)\s*\)|\bv?([0-9]+\.[0-9]+(?:\.[0-9]+){0,2})\b|\b([0-9]{4,5})\b",
            ),
        }
    })
}

/// Libraries that failed because another one is missing.
pub fn chains(text: &str) -> Vec<Chain> {
    let p = patterns();
    let mut out: Vec<Chain> = Vec::new();
    let mut push = |needed_by: &str, missing: &str, line: &str| {
        let same = needed_by.eq_ignore_ascii_case(missing);
        if !same
            && !out
                .iter()
                .any(|c| c.needed_by == needed_by && c.missing == missing)
        {
            out.push(Chain {
                needed_by: needed_by.to_string(),
                missing: missing.to_string(),
                line: clip(line),
            });
        }
    };
    for line in text.lines() {
        for c in p.due_to.captures_iter(line) {
            push(&c[1], &c[2], line);
        }
        for c in p.needed_by.captures_iter(line) {
            push(&c[2], &c[1], line);
        }
        for c in p.musl_needed_by.captures_iter(line) {
            push(&c[2], &c[1], line);
        }
        // The link editor's "A: undefined reference to `sym@B'": A was linked against B (the
        // symbol's version names it), which this link does not find.
        for c in p.versioned_reference.captures_iter(line) {
            push(&c[1], &c[2], line);
        }
        // "A: B: cannot open shared object file", "Could not load 'A'; dlerror: B: cannot
        // open", "Failed to load library A with error: B: cannot open": the library reported
        // missing is B, and the nearest other library named before it on the line needed it.
        let missing_hits = p
            .cannot_open
            .captures_iter(line)
            .filter_map(|c| c.get(1).or_else(|| c.get(2)))
            .chain(p.while_loading.captures_iter(line).filter_map(|c| c.get(1)));
        for m in missing_hits {
            let before = p
                .library
                .find_iter(&line[..m.start()])
                .filter(|n| !n.as_str().eq_ignore_ascii_case(m.as_str()))
                .last();
            if let Some(n) = before {
                push(n.as_str(), m.as_str(), line);
            }
        }
    }
    out
}

/// Decodes a CUDA version integer (12010 → 12.1; 11080 → 11.8; 9020 → 9.2).
pub fn decode_cuda(n: u64) -> String {
    format!("{}.{}", n / 1000, (n % 1000) / 10)
}

/// Version integers on lines about CUDA or cuDNN, each within a few words after "version",
/// "CUDA", "cuDNN" or "driver"; the product is the nearest one named before it.
pub fn version_integers(text: &str) -> Vec<VersionInteger> {
    let p = patterns();
    let mut out: Vec<VersionInteger> = Vec::new();
    for line in text.lines() {
        let lower = line.to_ascii_lowercase();
        // "NVIDIA driver ... too old (found version 6000)": the driver's newest CUDA.
        let says_driver = lower.contains("driver");
        if !lower.contains("cuda") && !lower.contains("cudnn") && !says_driver {
            continue;
        }
        // bitsandbytes' "Detected CUDA version 122": major and minor digits run together.
        for c in p.version_short.captures_iter(&lower) {
            let Ok(number) = c[1].parse::<u64>() else {
                continue;
            };
            if (70..=139).contains(&number) && !out.iter().any(|v| v.number == number) {
                out.push(VersionInteger {
                    number,
                    product: "CUDA".to_string(),
                    decoded: format!("{}.{}", number / 10, number % 10),
                    line: clip(line),
                });
            }
        }
        for c in p.version_int.captures_iter(&lower) {
            let (Some(m), Ok(number)) = (c.get(1), c[1].parse::<u64>()) else {
                continue;
            };
            let prefix = &lower[..m.start()];
            // A number inside a path or a name ("/home/sg-atcoe-23761/") is no version.
            if prefix.ends_with(['-', '_', '/', '\\'])
                || lower[m.end()..].starts_with(['/', '\\', '-', '_'])
            {
                continue;
            }
            let mut from = prefix.len().saturating_sub(60);
            while !prefix.is_char_boundary(from) {
                from += 1;
            }
            let near = &prefix[from..];
            // "CUDNN failure 1001: CUDNN_STATUS_NOT_INITIALIZED", "error 1001": a status number.
            let last_word = near
                .trim_end_matches([' ', '=', '(', '#'])
                .rsplit(|c: char| !c.is_ascii_alphanumeric())
                .next()
                .unwrap_or("");
            if [
                "failure", "error", "err", "status", "code", "result", "returned",
            ]
            .contains(&last_word)
            {
                continue;
            }
            // "Total VRAM: 8150 MiB", "1200 MHz": a quantity with its unit, not a version.
            let unit = lower[m.end()..]
                .trim_start()
                .split(|c: char| !c.is_ascii_alphabetic())
                .next()
                .unwrap_or("");
            if [
                "mib", "mb", "gib", "gb", "kib", "kb", "bytes", "b", "mhz", "ghz", "w", "ms", "s",
            ]
            .contains(&unit)
            {
                continue;
            }
            // "GPU: NVIDIA GeForce RTX 2080 SUPER": a GPU model number, not a version; TensorRT's
            // "[MemUsageChange] ... now: CPU 7990, GPU 1166 (MiB)": memory amounts, their unit
            // at the end of the line.
            if [
                "rtx", "gtx", "gt", "quadro", "titan", "mx", "tesla", "geforce", "radeon", "rx",
                "cpu", "gpu", "vram", "ram", "memory",
            ]
            .contains(&last_word)
                || lower.trim_end().ends_with("(mib)")
                || lower.trim_end().ends_with("(mb)")
            {
                continue;
            }
            if ![
                "version", "cuda", "cudnn", "driver", "against", "compiled", "linked", "loaded",
                "found",
            ]
            .iter()
            .any(|k| near.contains(k))
            {
                continue;
            }
            let cudnn = match (prefix.rfind("cudnn"), prefix.rfind("cuda")) {
                (Some(n), Some(c)) => n > c,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => lower.contains("cudnn"),
            };
            let (product, decoded) = if cudnn {
                // Five digits are cuDNN 9 and later (90100 = 9.1.0); below that, four digits.
                if !(1000..=9999).contains(&number) && !(90000..=99999).contains(&number) {
                    continue;
                }
                (
                    "cuDNN",
                    crate::engine::knowledge::decode_cudnn_version(number),
                )
            } else {
                // CUDA integers run 7000 (7.0) to 13xxx; a year or a port is not one. Older
                // releases (2000-6050) only right after "version".
                let floor = if near.trim_end().ends_with("version") {
                    2000
                } else {
                    7000
                };
                if !(floor..=14000).contains(&number) || number % 10 != 0 {
                    continue;
                }
                if !(lower.contains("cuda") || (says_driver && near.contains("version"))) {
                    continue;
                }
                ("CUDA", decode_cuda(number))
            };
            if !out.iter().any(|v| v.number == number) {
                out.push(VersionInteger {
                    number,
                    product: product.to_string(),
                    decoded,
                    line: clip(line),
                });
            }
        }
    }
    out
}

const PRODUCTS: &[(&str, &str)] = &[
    ("cudnn", "cuDNN"),
    // Theano calls cuDNN "dnn" ("Mixed dnn version. The header is version 5005 while the
    // library is version 5110."); inside "cudnn" it names the same product.
    ("dnn", "cuDNN"),
    ("tensorrt", "TensorRT"),
    ("cublas", "cuBLAS"),
    // After cuBLAS: at the same position the later entry wins, and "cublaslt" holds "cublas".
    ("cublaslt", "cuBLASLt"),
    ("nccl", "NCCL"),
    ("cuda", "CUDA"),
];
const BUILT: &[&str] = &[
    "compiled",
    "linked",
    "built",
    "source was",
    "header",
    "expected",
];
const LOADED: &[&str] = &[
    "loaded",
    "library is",
    "library version",
    "found",
    "installed",
    "in your machine",
    "runtime version",
    "runtime is",
    // Caffe2's "cuDNN compiled (6021) and runtime (7003) versions mismatch".
    "and runtime",
    "detected",
    "running against",
];

fn last_of(window: &str, words: &[&str]) -> Option<usize> {
    words.iter().filter_map(|w| window.rfind(w)).max()
}

/// "Built with X, loaded Y" on one line, for cuDNN, TensorRT, cuBLAS, NCCL or CUDA: each version
/// takes the role of the nearest "compiled/linked/built" or "loaded/found/installed" before
/// it, and the product named last before it.
pub fn version_pairs(text: &str) -> Vec<VersionPair> {
    let p = patterns();
    let mut out: Vec<VersionPair> = Vec::new();
    for line in text.lines() {
        let lower = line.to_ascii_lowercase();
        // "compiled against X but linked against Y" (PyTorch before 1.0): linked is the run time.
        let linked_is_runtime = lower.contains("compiled")
            && lower.contains("linked")
            && !LOADED.iter().any(|w| lower.contains(w));
        let (built_words, loaded_words): (&[&str], &[&str]) = if linked_is_runtime {
            (&["compiled", "built", "source was"], &["linked"])
        } else {
            (BUILT, LOADED)
        };
        let mut built: Vec<(&str, String)> = Vec::new();
        let mut loaded: Vec<(&str, String)> = Vec::new();
        for c in p.dotted.captures_iter(&lower) {
            let Some(m) = c.get(0) else { continue };
            let prefix = &lower[..m.start()];
            let mut from = prefix.len().saturating_sub(60);
            while !prefix.is_char_boundary(from) {
                from += 1;
            }
            let window = &prefix[from..];
            // "(compatibility version 7100)" beside a version is the ABI floor, not a release.
            if window.trim_end().ends_with("compatibility version") {
                continue;
            }
            let Some(product) = PRODUCTS
                .iter()
                .filter_map(|(k, name)| prefix.rfind(k).map(|at| (at, *name)))
                .max_by_key(|(at, _)| *at)
                .map(|(_, name)| name)
            else {
                continue;
            };
            // A version integer (6021, 12010) is decoded the product's way.
            let version = match (c.get(1), c.get(4), c.get(5)) {
                (Some(a), _, _) => format!("{}.{}.{}", a.as_str(), &c[2], &c[3]),
                (None, Some(v), _) => v.as_str().to_string(),
                (None, None, Some(n)) => match (product, n.as_str().parse::<u64>()) {
                    ("cuDNN", Ok(n)) if (1000..=99999).contains(&n) => {
                        crate::engine::knowledge::decode_cudnn_version(n)
                    }
                    ("CUDA", Ok(n)) if (7000..=14000).contains(&n) && n % 10 == 0 => decode_cuda(n),
                    _ => continue,
                },
                _ => continue,
            };
            match (last_of(window, built_words), last_of(window, loaded_words)) {
                (Some(b), l) if l.is_none_or(|l| b > l) => built.push((product, version)),
                (_, Some(_)) => loaded.push((product, version)),
                _ => {}
            }
        }
        for (product, b) in &built {
            if let Some((_, l)) = loaded.iter().find(|(p, l)| p == product && l != b)
                && !out.iter().any(|v| v.product == *product && v.built == *b)
            {
                out.push(VersionPair {
                    product: product.to_string(),
                    built: b.clone(),
                    loaded: l.clone(),
                    line: clip(line),
                });
            }
        }
    }
    out
}

/// "Unsupported .version 8.5; current version is '8.4'": (PTX ISA asked, PTX ISA of the
/// ptxas that refused it, line).
pub fn ptx_isa_refusals(text: &str) -> Vec<(String, String, String)> {
    let p = patterns();
    let mut out: Vec<(String, String, String)> = Vec::new();
    for line in text.lines() {
        for c in p.ptx_isa.captures_iter(line) {
            if !out.iter().any(|(a, b, _)| *a == c[1] && *b == c[2]) {
                out.push((c[1].to_string(), c[2].to_string(), clip(line)));
            }
        }
    }
    out
}

/// NVIDIA driver versions (`384.145`, `550.54.15`) named on lines about a driver or kernel
/// module: (version, line).
pub fn driver_versions(text: &str) -> Vec<(String, String)> {
    let p = patterns();
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        for c in p.driver.captures_iter(line) {
            // A kernel's release ("4.18.0-240.23.2.el8_3") holds driver-like numbers: a
            // version is only one whose token starts with it.
            let start = c.get(1).map_or(0, |m| m.start());
            if line[..start]
                .chars()
                .next_back()
                .is_some_and(|ch| ch == '-' || ch == '.' || ch == '_' || ch.is_ascii_alphanumeric())
            {
                continue;
            }
            let v = c[1].trim_end_matches(".0").to_string();
            if !out.iter().any(|(x, _)| *x == v) {
                out.push((v, clip(line)));
            }
        }
    }
    out
}

//! What a loader message says beyond the names in it: which library is really missing when one
//! library failed because of another ("A due to B", "A: B: cannot open shared object file",
//! "dlerror: B: …", "error while loading shared libraries: B"), the CUDA/cuDNN version integers
//! messages print (12010 = CUDA 12.1, 8902 = cuDNN 8.9.2, 90100 = cuDNN 9.1.0), and the GPU
//! architectures (`sm_121a`, `compute_70`) a compiler or framework refused.

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

/// A GPU architecture a tool said it does not know or support.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefusedArch {
    pub arch: String,
    pub line: String,
}

struct Patterns {
    library: Regex,
    due_to: Regex,
    cannot_open: Regex,
    while_loading: Regex,
    version_int: Regex,
    arch: Regex,
    arch_refused: Regex,
}

const LIB: &str = r"(lib[A-Za-z0-9_+\-]+\.so(?:\.[0-9]+)*|[A-Za-z0-9_+\-][A-Za-z0-9_.+\-]*\.dll)";

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let re = |s: &str| Regex::new(s).expect("static pattern compiles");
        Patterns {
            library: re(LIB),
            due_to: re(&format!(r"(?i){LIB}['`\x22]?\s+(?:due to|because of)\s+['`\x22]?{LIB}")),
            cannot_open: re(&format!(
                r"(?i){LIB}:\s*cannot open shared object file|{LIB}['`\x22]?\s*(?:was )?not found"
            )),
            while_loading: re(&format!(r"(?i)error while loading shared libraries:\s*{LIB}")),
            version_int: re(r"(?:^|[^0-9.])([0-9]{4,5})(?:[^0-9.]|$)"),
            arch: re(r"\b((?:sm|compute)_[0-9]{2,3}[a-z]?)\b"),
            arch_refused: re(
                r"(?i)is not defined for option|unsupported gpu architecture|not compatible with the current|not supported by|no kernel image|unknown (?:target|architecture)|invalid value .*gpu-name|does not support",
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
        if !lower.contains("cuda") && !lower.contains("cudnn") {
            continue;
        }
        for c in p.version_int.captures_iter(&lower) {
            let (Some(m), Ok(number)) = (c.get(1), c[1].parse::<u64>()) else {
                continue;
            };
            let prefix = &lower[..m.start()];
            let mut from = prefix.len().saturating_sub(40);
            while !prefix.is_char_boundary(from) {
                from += 1;
            }
            let near = &prefix[from..];
            if !["version", "cuda", "cudnn", "driver"]
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
                if !(5000..=99999).contains(&number) {
                    continue;
                }
                (
                    "cuDNN",
                    crate::engine::knowledge::decode_cudnn_version(number),
                )
            } else {
                // CUDA integers run 7000 (7.0) to 13xxx; a year or a port is not one.
                if !(7000..=14000).contains(&number) || number % 10 != 0 {
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

/// Architectures named on lines that refuse them.
pub fn refused_architectures(text: &str) -> Vec<RefusedArch> {
    let p = patterns();
    let mut out: Vec<RefusedArch> = Vec::new();
    for line in text.lines() {
        if !p.arch_refused.is_match(line) {
            continue;
        }
        for c in p.arch.captures_iter(line) {
            let arch = c[1].to_ascii_lowercase();
            if !out.iter().any(|a| a.arch == arch) {
                out.push(RefusedArch {
                    arch,
                    line: clip(line),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_second_library_of_a_chain_is_the_missing_one() {
        let c = chains("Unable to open library: libnvinfer_plugin.so.8 due to libcudnn.so.8");
        assert_eq!(c[0].needed_by, "libnvinfer_plugin.so.8");
        assert_eq!(c[0].missing, "libcudnn.so.8");
        let c = chains(
            "Could not load dynamic library 'libnvinfer.so.7'; dlerror: libnvrtc.so.11.1: cannot open shared object file: No such file or directory",
        );
        assert_eq!(
            (c[0].needed_by.as_str(), c[0].missing.as_str()),
            ("libnvinfer.so.7", "libnvrtc.so.11.1")
        );
        let plain = chains(
            "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file",
        );
        assert!(plain.is_empty(), "{plain:?}");
    }

    #[test]
    fn version_integers_decode() {
        let v =
            version_integers("Found CUDA version 12010, but JAX was built against version 12020");
        let d: Vec<&str> = v.iter().map(|v| v.decoded.as_str()).collect();
        assert_eq!(d, ["12.1", "12.2"]);
        assert!(version_integers("listening on port 8080 for CUDA jobs in 2023").is_empty());
    }

    #[test]
    fn refused_architectures_are_named() {
        let a = refused_architectures(
            "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'",
        );
        assert_eq!(a[0].arch, "sm_121a");
        assert!(refused_architectures("compiling for sm_90 with ptxas").is_empty());
    }
}

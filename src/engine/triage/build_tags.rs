//! Package and file names that carry the CUDA release they were built for: PyTorch's `+cu117`
//! and its `/whl/cu118` index, `cupy-cuda11x`, `mxnet-cu112`, PaddlePaddle's `.post112`,
//! bitsandbytes' `libbitsandbytes_cuda122`, and JCuda's native libraries (`JNvrtc-0.9.0-windows-x86_64`:
//! JCuda's version is its CUDA release's, so 0.9.0 loads CUDA 9.0's `nvrtc64_90.dll`).

use super::extract::clip;
use crate::engine::context::Platform;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, Severity};
use crate::engine::knowledge::Knowledge;
use regex::Regex;
use std::sync::OnceLock;

/// A build tag found in the text and the CUDA release it names ("11.7", "11.x").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildTag {
    pub tag: String,
    pub cuda: String,
    /// For a JCuda native library: the component it binds ("NVRTC", "cuBLAS") and its platform.
    pub binds: Option<(&'static str, &'static str)>,
    pub line: String,
}

/// "117" → "11.7", "92" → "9.2", "11x" → "11.x".
fn decode(digits: &str) -> Option<String> {
    if let Some(major) = digits.strip_suffix(['x', 'X']) {
        return Some(format!("{major}.x"));
    }
    crate::engine::knowledge::frameworks::cuda_from_tag_digits(digits)
}

/// The CUDA release of PaddlePaddle's `.postXY` tag. Paddle 0.x and 1.x named the CUDA major and
/// the cuDNN major (`.post97`: CUDA 9.0 with cuDNN 7, `.post87`, `.post85`; `.post107`: CUDA 10.0
/// with cuDNN 7: https://github.com/PaddlePaddle/Paddle/issues/14759,
/// https://github.com/PaddlePaddle/Paddle/issues/12284); 2.x names the CUDA release (`.post112`:
/// CUDA 11.2).
fn paddle_post_cuda(digits: &str) -> Option<String> {
    let cudnn_major = |d: &str| matches!(d, "5" | "6" | "7");
    match digits.len() {
        2 if cudnn_major(&digits[1..]) => Some(format!("{}.0", &digits[..1])),
        3 if digits.starts_with("10") && cudnn_major(&digits[2..]) => Some("10.0".into()),
        _ => decode(digits),
    }
}

/// JCuda's library prefix → the NVIDIA component it binds.
fn jcuda_component(name: &str) -> Option<&'static str> {
    Some(match name.to_ascii_lowercase().as_str() {
        "jcuda" | "jcudadriver" | "jcudaruntime" => "CUDA runtime",
        "jcublas" | "jcublas2" => "cuBLAS",
        "jcufft" => "cuFFT",
        "jcurand" => "cuRAND",
        "jcusparse" => "cuSPARSE",
        "jcusolver" => "cuSOLVER",
        "jnvrtc" => "NVRTC",
        _ => return None,
    })
}

/// Every build tag in the text, once each.
pub fn build_tags(text: &str) -> Vec<BuildTag> {
    static RE: OnceLock<(Regex, Regex, Regex, Regex)> = OnceLock::new();
    let (tag, paddle, jcuda, package) = RE.get_or_init(|| {
        let re = crate::engine::static_regex::compile;
        (
            re(
                r"(?i)(?:\+cu|/whl/cu|\b(?:cupy|mxnet|jaxlib)[-_]cu(?:da)?|\blibbitsandbytes_cuda)([0-9]{2,3}x?)\b",
            ),
            re(r"(?i)\bpaddle(?:paddle)?[-_]gpu[=\s(-]*[0-9.]*?\.post([0-9]{2,3})\b"),
            re(r"\b(J[A-Z][A-Za-z0-9]*?)-([0-9]+)\.([0-9]+)\.([0-9]+)[a-z]?-(windows|linux|apple)-"),
            // NVIDIA's Debian and RPM packages: "libcudnn8 8.9.3.28-1+cuda12.1", "libnccl2
            // 2.18.3-1+cuda12.2".
            re(r"[0-9][0-9.]*-[0-9]+\+cuda([0-9]{1,2})\.([0-9])\b"),
        )
    });
    let mut out: Vec<BuildTag> = Vec::new();
    let mut push = |t: BuildTag| {
        if !out.iter().any(|o| o.tag == t.tag) {
            out.push(t);
        }
    };
    for line in text.lines() {
        let tags = tag.captures_iter(line).map(|c| (c, false));
        for (c, paddle) in tags.chain(paddle.captures_iter(line).map(|c| (c, true))) {
            let cuda = if paddle {
                paddle_post_cuda(&c[1])
            } else {
                decode(&c[1])
            };
            if let (Some(m), Some(cuda)) = (c.get(0), cuda) {
                push(BuildTag {
                    tag: m.as_str().trim_start_matches('/').replace('(', " "),
                    cuda,
                    binds: None,
                    line: clip(line),
                });
            }
        }
        for c in package.captures_iter(line) {
            if let Some(m) = c.get(0) {
                push(BuildTag {
                    tag: m.as_str().to_string(),
                    cuda: format!("{}.{}", &c[1], &c[2]),
                    binds: None,
                    line: clip(line),
                });
            }
        }
        for c in jcuda.captures_iter(line) {
            let Some(component) = jcuda_component(&c[1]) else {
                continue;
            };
            // JCuda 0.8.0 is CUDA 8.0; from 10.0 on the two numbers are the same.
            let cuda = if &c[2] == "0" {
                format!("{}.{}", &c[3], &c[4])
            } else {
                format!("{}.{}", &c[2], &c[3])
            };
            let platform = if &c[5] == "windows" {
                "windows"
            } else {
                "linux"
            };
            push(BuildTag {
                tag: format!("{}-{}.{}.{}", &c[1], &c[2], &c[3], &c[4]),
                cuda,
                binds: Some((component, platform)),
                line: clip(line),
            });
        }
    }
    out
}

/// One note listing the CUDA release each build tag names, with that release's minimum driver
/// and, for a JCuda library, the NVIDIA files of that release it loads.
pub fn build_tag_findings(tags: &[BuildTag], k: &Knowledge) -> Vec<Finding> {
    if tags.is_empty() {
        return Vec::new();
    }
    let parts: Vec<String> = tags
        .iter()
        .map(|t| {
            let driver = k
                .drivers
                .min_driver(&t.cuda, Platform::Linux)
                .map(|d| format!(", driver {} or newer on Linux", d.min_driver))
                .unwrap_or_default();
            let files = t
                .binds
                .map(|(component, platform)| {
                    let names: Vec<&str> = k
                        .libraries
                        .shipped_by(&t.cuda, platform)
                        .into_iter()
                        .filter(|r| r.component == component)
                        .map(|r| r.file.as_str())
                        .collect();
                    if names.is_empty() {
                        format!(": JCuda's version is the CUDA release it binds ({component})")
                    } else {
                        format!(
                            ": JCuda's version is the CUDA release it binds; it loads {} of CUDA {}",
                            names.join(", "),
                            t.cuda
                        )
                    }
                })
                .unwrap_or_default();
            format!("{} = built for CUDA {}{driver}{files}", t.tag, t.cuda)
        })
        .collect();
    let mut f = Finding::new(
        codes::VERSION_NUMBERS_DECODED,
        Severity::Info,
        format!("Builds named for a CUDA release: {}", parts.join("; ")),
        "Package and library names carry the CUDA release they were built for (PyTorch's +cuXYZ and \
         its wheel index, cupy-cudaXYZ, mxnet-cuXYZ, PaddlePaddle's .postXYZ, bitsandbytes' \
         _cudaXYZ, JCuda's own version). That release's libraries must be installed and the driver \
         must support it; a build for another CUDA than the one installed fails to load or to run."
            .to_string(),
    );
    for t in tags {
        f = f.with_evidence(Evidence::new("log", t.line.clone()));
    }
    vec![f.with_evidence(Evidence::new(
        "source",
        "PyTorch local versions and wheel indexes: https://pytorch.org/get-started/previous-versions/; CuPy packages per CUDA: https://docs.cupy.dev/en/stable/install.html; JCuda (version X.Y.Z for CUDA X.Y): https://github.com/jcuda/jcuda-main, http://www.jcuda.org/downloads/downloads.html",
    ))]
}

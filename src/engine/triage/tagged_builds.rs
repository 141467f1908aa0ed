//! A load error in a text that also names a build made for one CUDA release (PaddlePaddle's
//! `.post97`, PyTorch's `+cu118`, `cupy-cuda11x`) and another CUDA release installed ("cuda10.0",
//! nvcc's "release 10.2"): the library that did not load is the one that build asks for, so the
//! build and the installed CUDA disagree (https://github.com/PaddlePaddle/PaddleOCR/issues/41:
//! `paddle-gpu(1.7.2.post97)` in a CUDA 10.0 container could not find its cuBLAS).

use super::build_tags::BuildTag;
use super::library_failure::load_errors;
use crate::engine::findings::Finding;
use regex::Regex;
use std::sync::OnceLock;

/// Puts first in each load error of a library file the build the text names for another CUDA
/// release than the one the text names beside it.
pub fn name_tagged_builds_in_load_errors(findings: &mut [Finding], tags: &[BuildTag], text: &str) {
    let Some((tag, other)) = tags.iter().find_map(|t| {
        cuda_releases(text)
            .into_iter()
            .find(|v| !same_release(v, &t.cuda))
            .map(|v| (t, v))
    }) else {
        return;
    };
    let words = format!(
        " The text names {} (a build for CUDA {}) and CUDA {other} beside it: where CUDA {other} \
         is what the machine has, the library this build asks for is CUDA {}'s, which CUDA \
         {other} does not provide under that name. Install the build of the package made for \
         CUDA {other} (or the CUDA release the build names).",
        tag.tag, tag.cuda, tag.cuda
    );
    let names_a_file = |f: &Finding| f.summary.contains(".so") || f.summary.contains(".dll");
    for f in load_errors(findings).filter(|f| names_a_file(f)) {
        if !f.detail.contains(&words) {
            f.detail = format!("{} {}", words.trim(), f.detail);
        }
    }
}

/// The CUDA releases a text names as a toolkit: "cuda10.0", "CUDA 10.2", nvcc's "release 10.2,
/// V10.2.89" (not nvidia-smi's "CUDA Version", the newest the driver supports).
fn cuda_releases(text: &str) -> Vec<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        crate::engine::static_regex::compile(
            r"(?i)(?:\bcuda[ -]?|\brelease\s)([0-9]{1,2}\.[0-9])\b",
        )
    });
    re.captures_iter(text).map(|c| c[1].to_string()).collect()
}

/// Whether two releases are the same for this purpose ("9.0" and "9.x", "11.8" and "11.8").
fn same_release(a: &str, b: &str) -> bool {
    let major = |v: &str| v.split('.').next().unwrap_or("").to_string();
    a == b || ((a.ends_with(".x") || b.ends_with(".x")) && major(a) == major(b))
}

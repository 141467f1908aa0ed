//! ggml's "CUDA kernel X has no device code compatible with CUDA arch N. ggml-cuda.cu was
//! compiled for: L": N is `__CUDA_ARCH__`, the architecture of the build's code that ran, not the
//! GPU's. A GPU runs the newest code of the build that it can, so where N is the newest
//! architecture in L the GPU is N or any newer one (a build for 520 alone, nvcc's default when a
//! build names no architecture, runs its sm_52 code on an RTX 40): reading N as the GPU's would
//! call a new GPU too old. Such a build is made for the GPU's own architecture instead.

use super::architectures::RefusedArch;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use regex::Regex;
use std::sync::OnceLock;

/// The finding for ggml's line where the code that ran is the newest the build has.
pub fn newest_code_ran(a: &RefusedArch) -> Option<Finding> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        crate::engine::static_regex::compile(
            r"CUDA kernel ([A-Za-z_][A-Za-z0-9_]*) has no device code compatible with CUDA arch ([0-9]{2,4})\. \S+ was compiled for: ([0-9][0-9, ]*)",
        )
    });
    let c = re.captures(&a.line)?;
    let (kernel, ran) = (&c[1], c[2].parse::<u32>().ok()?);
    let listed: Vec<u32> = c[3]
        .split([',', ' '])
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    if listed.iter().max() != Some(&ran) {
        return None;
    }
    let sm = format!("sm_{}", ran / 10);
    let list = &c[3].trim();
    Some(
        Finding::new(
            codes::GPU_ARCH_REFUSED,
            Severity::Error,
            format!(
                "ggml's kernel {kernel} has no code in this build for the GPU: the build's newest \
                 code is for {sm} (compiled for: {list}), and this GPU is {sm} or newer"
            ),
            format!(
                "ggml prints the architecture of the code that ran (__CUDA_ARCH__), not the GPU's: \
                 a GPU runs the newest code of the build it can, so with {ran} as the newest \
                 architecture compiled, any newer GPU runs the {sm} code too. Some ggml kernels, \
                 such as FlashAttention's and matrix kernels that need int8 dot products \
                 (compute capability 6.1) or tensor cores (7.0), are compiled only for \
                 architectures that can run them: {kernel} has no code for {sm}, so this build \
                 has none the GPU can run. A build \
                 for 520 alone is what nvcc makes when the build names no architecture (its \
                 default, sm_52, with CUDA 11 and 12): a build made on a machine without the GPU, \
                 or with CMAKE_CUDA_ARCHITECTURES unset where the project does not set it."
            ),
        )
        .with_evidence(Evidence::new("log", a.line.clone()))
        .with_evidence(Evidence::new(
            "source",
            "ggml's no_device_code() (ggml/src/ggml-cuda/common.cuh: __CUDA_ARCH__ and \
             __CUDA_ARCH_LIST__): https://github.com/ggml-org/llama.cpp; \
             https://github.com/leejet/stable-diffusion.cpp/issues/541 (compiled for 520 only: \
             -DCMAKE_CUDA_ARCHITECTURES=89-real fixed it)",
        ))
        .with_fix(FixRef {
            id: "advice-build-for-this-gpu".into(),
            kind: FixKind::Manual,
            summary:
                "Rebuild for this GPU's own architecture: cmake -DCMAKE_CUDA_ARCHITECTURES=native \
                      on the machine with the GPU, or its compute capability without the dot \
                      (nvidia-smi --query-gpu=compute_cap --format=csv shows it; e.g. 86, or \
                      89-real), or install a release built for it. Only if the GPU really is the \
                      listed architecture: turn off the feature that needs the kernel (such as \
                      --flash-attn)."
                    .into(),
        }),
    )
}

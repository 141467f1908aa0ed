//! A GPU newer than the CUDA release a program was built with: the GPU the text names (by
//! product, "RTX 2070", or by generation, "Ampere"), the first CUDA release whose compiler and
//! libraries support it (the compute-capability tables and each release's `ptxas`), and the CUDA
//! release the text says the build used ("built with CUDA 9.0", `+cu102`), compared; and a GPU
//! refused for a number format its Tensor Cores lack (bfloat16 below compute capability 8.0).

use super::build_tags::build_tags;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::knowledge::Knowledge;
use crate::engine::knowledge::cudnn::ComputeTables;
use crate::engine::knowledge::version::compare;
use regex::Regex;
use std::cmp::Ordering;
use std::sync::OnceLock;

/// A GPU the text names, with its compute capability and architecture generation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedGpu {
    /// As written ("GeForce GTX 660 Ti", "Ampere").
    pub name: String,
    /// The (oldest, for a generation) compute capability: "7.5".
    pub cc: String,
    pub generation: Option<String>,
}

/// The GPU a text names: a product the compute table knows, else a generation name said of
/// the machine's GPU ("the GPU architecture in your current machine is Ampere").
pub fn named_gpu(text: &str, k: &Knowledge) -> Option<NamedGpu> {
    if let Some((name, cc)) = text.lines().find_map(|l| k.compute.gpu_on(l)) {
        let generation = k.compute.generation(cc).map(str::to_string);
        return Some(NamedGpu {
            name,
            cc: cc.to_string(),
            generation,
        });
    }
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        crate::engine::static_regex::compile(
            r"(?i)\b(?:gpu|device|card)\b[^\n]{0,60}?\b(?:is|is an?|architecture:?)\s+(Kepler|Maxwell|Pascal|Volta|Turing|Ampere|Ada Lovelace|Hopper|Blackwell)\b",
        )
    });
    let c = re.captures(text)?;
    let written = c[1].to_string();
    let g = k
        .compute
        .generations
        .iter()
        .find(|g| g.name.eq_ignore_ascii_case(&written))?;
    Some(NamedGpu {
        name: written,
        cc: g.cc.first()?.clone(),
        generation: Some(g.name.clone()),
    })
}

/// The CUDA release the text says a build was made with: "built with CUDA 9.0", "CUDA
/// version 10.2", "cuda 9.0 / cudnn 7", a build tag (`+cu102`, `mxnet-cu100`).
pub fn build_cuda(text: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        crate::engine::static_regex::compile(
            r"(?i)\bcuda(?:\s+toolkit)?(?:\s+version)?\s*[:=]?\s*v?([1-9][0-9]?\.[0-9])\b",
        )
    });
    re.captures(text)
        .map(|c| c[1].to_string())
        .or_else(|| build_tags(text).into_iter().next().map(|t| t.cuda))
}

/// The first CUDA release that builds for a compute capability.
pub fn first_cuda(cc: &str, k: &Knowledge) -> Option<String> {
    let arch = format!("sm_{}", cc.replace('.', ""));
    super::arch_findings::arch_support(&arch, k).map(|(first, _)| first)
}

/// "RTX 2070 is sm_75 (Turing), first supported by CUDA 10.0; the build used CUDA 9.0: install
/// a build for CUDA 10.0 or newer." The second half only where the text names an older build.
pub fn gpu_support_sentence(text: &str, k: &Knowledge) -> Option<String> {
    let gpu = named_gpu(text, k)?;
    let first = first_cuda(&gpu.cc, k)?;
    let arch = format!("sm_{}", gpu.cc.replace('.', ""));
    let generation = match &gpu.generation {
        Some(g) if !g.eq_ignore_ascii_case(&gpu.name) => format!(" ({g})"),
        _ => String::new(),
    };
    let mut s = if gpu.generation.as_deref() == Some(gpu.name.as_str()) {
        let g = k.compute.generations.iter().find(|g| g.name == gpu.name)?;
        format!(
            " The text names a {} GPU: compute capability {} ({}), first supported by CUDA {first}.",
            gpu.name,
            g.cc.join(", "),
            g.cc.iter()
                .filter_map(|cc| first_cuda(cc, k).map(|f| format!("{cc}: CUDA {f}")))
                .collect::<Vec<_>>()
                .join(", ")
        )
    } else {
        format!(
            " The text names {}: {arch}{generation}, compute capability {}, first supported by CUDA {first}.",
            gpu.name, gpu.cc
        )
    };
    s.push_str(&older_build(text, &first));
    Some(s)
}

/// Triton assembles its kernels with the ptxas bundled in its wheel, whatever CUDA toolkit the
/// machine has: a GPU newer than that ptxas is refused until Triton is pointed at a newer one
/// (`TRITON_PTXAS_PATH`, read by triton/backends/nvidia/compiler.py) or upgraded.
pub fn bundled_ptxas_fix(text: &str, first: &str) -> Option<FixRef> {
    static TRITON: OnceLock<Regex> = OnceLock::new();
    TRITON
        .get_or_init(|| crate::engine::static_regex::compile(r"(?i)\btriton\b|\bPTXASError\b"))
        .is_match(text)
        .then(|| FixRef {
            id: "advice-triton-ptxas".into(),
            kind: FixKind::Manual,
            summary: format!(
                "Triton runs the ptxas bundled in its own wheel, not the system CUDA's: point it at the \
                 ptxas of a CUDA {first} or newer toolkit (TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas \
                 with that toolkit installed), or install a Triton release (with its matching PyTorch) \
                 whose bundled ptxas knows this GPU."
            ),
        })
}

/// " The build was made with CUDA 10.2, older than that: ..." where the text names the CUDA
/// release of a build older than `first`, the first one that supports the GPU.
pub fn older_build(text: &str, first: &str) -> String {
    build_cuda(text)
        .filter(|b| compare(b, first) == Some(Ordering::Less))
        .map(|b| {
            format!(
                " The build was made with CUDA {b}, older than that: install a build for CUDA {first} or newer."
            )
        })
        .unwrap_or_default()
}

/// A GPU refused because the line's number format (bfloat16, FP8) needs a newer compute
/// capability than the GPU's (`arch`, where the text names it): no build or CUDA release changes
/// that; the older format does.
pub fn feature_finding(line: &str, arch: Option<&str>, k: &Knowledge) -> Option<Finding> {
    let feature = k.compute.feature_on(line)?;
    let cc = arch.and_then(ComputeTables::cc_of);
    if let Some(cc) = &cc
        && compare(cc, &feature.min_cc) != Some(Ordering::Less)
    {
        return None;
    }
    let gpu = match (arch, &cc) {
        (Some(arch), Some(cc)) => {
            let generation = k
                .compute
                .generation(cc)
                .map(|g| format!(", {g}"))
                .unwrap_or_default();
            format!(
                "The GPU ({arch}{generation}, compute capability {cc}) has no {} support: ",
                feature.name
            )
        }
        _ => String::new(),
    };
    Some(
        Finding::new(
            codes::GPU_ARCH_REFUSED,
            Severity::Error,
            format!(
                "{} needs a GPU of compute capability {} or higher{}",
                feature.name,
                feature.min_cc,
                cc.as_ref().map(|c| format!("; this one is {c}")).unwrap_or_default()
            ),
            format!(
                "{gpu}NVIDIA's Tensor Cores run {} from compute capability {} on. No driver, CUDA or \
                 framework version changes that on an older GPU; run the model in another format: {}.",
                feature.name, feature.min_cc, feature.instead
            ),
        )
        .with_evidence(Evidence::new("log", super::extract::clip(line)))
        .with_evidence(Evidence::new("source", feature.source.clone()))
        .with_fix(FixRef {
            id: "advice-number-format".into(),
            kind: FixKind::Manual,
            summary: format!(
                "Load and run the model in a format the GPU supports instead of {}: {}; or use a GPU of \
                 compute capability {} or higher.",
                feature.name, feature.instead, feature.min_cc
            ),
        }),
    )
}

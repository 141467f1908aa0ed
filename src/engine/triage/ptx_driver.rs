//! PTX that the driver refused to JIT-compile (`CUDA_ERROR_UNSUPPORTED_PTX_VERSION`, 222, "the
//! provided PTX was compiled with an unsupported toolchain") in a text that also names the PTX
//! ISA of that PTX (`PTX ISA 8.7`, `.version 8.7`), or ptxas's own refusal printed by a driver JIT
//! call (`cuLinkAddFile ... Unsupported .version 7.0`): the ISA names the CUDA release whose compiler
//! wrote it (the generated ptxas table, and NVIDIA's release history before 11.8), and that
//! release names the driver it needs.

use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::knowledge::Knowledge;
use crate::engine::knowledge::drivers::requirement_words;
use crate::engine::knowledge::ptx_isa::first_cuda_for_ptx_isa;
use regex::Regex;
use std::sync::OnceLock;

struct Patterns {
    refusal: Regex,
    isa: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| Patterns {
        // The driver's refusal in words, or ptxas's own refusal ("Unsupported .version 7.0")
        // printed by a driver JIT call (cuLinkAddData, cuModuleLoadData, CU_JIT_* options,
        // CUDA_ERROR_INVALID_PTX): the ptxas that ran is the driver's.
        refusal: crate::engine::static_regex::compile(
            r"(?i)unsupported[ _]ptx[ _]version|unsupported toolchain|cudaErrorUnsupportedPtxVersion|(?:\bcuLink[A-Za-z_0-9]*|\bcuModuleLoad[A-Za-z_0-9]*|\bCU_JIT_[A-Z_]+|CUDA_ERROR_INVALID_PTX)[^\n]*Unsupported \.version",
        ),
        isa: crate::engine::static_regex::compile(r"(?i)\bPTX(?: ISA)?(?: version)?\s+v?([0-9]{1,2}\.[0-9])\b|^\s*\.version\s+([0-9]{1,2}\.[0-9])\b|\bUnsupported \.version\s+([0-9]{1,2}\.[0-9])\b"),
    })
}

/// The driver too old for PTX of a named ISA; nothing when the text names no refusal or no ISA.
pub fn ptx_driver_findings(text: &str, k: &Knowledge) -> Vec<Finding> {
    let p = patterns();
    let Some(refusal) = text.lines().find(|l| p.refusal.is_match(l)) else {
        return Vec::new();
    };
    let Some((isa, isa_line)) = text.lines().find_map(|l| {
        let c = p.isa.captures(l)?;
        Some((c.get(1).or(c.get(2)).or(c.get(3))?.as_str().to_string(), l))
    }) else {
        return Vec::new();
    };
    let Some(cuda) = first_cuda_for_ptx_isa(&isa, &k.compute) else {
        return Vec::new();
    };
    let needs = requirement_words(&cuda, &k.drivers).unwrap_or_else(|| {
        format!("CUDA {cuda} needs a driver that supports it (nvidia-smi shows the newest CUDA the driver supports).")
    });
    let mut finding = Finding::new(
        codes::DRIVER_TOO_OLD,
        Severity::Error,
        format!("PTX ISA {isa} was written by CUDA {cuda}'s compiler: the driver must support CUDA {cuda}"),
        format!(
            "The driver JIT-compiles PTX only up to the ISA of its own CUDA version, and refused this PTX. \
             PTX ISA {isa} is first accepted by the ptxas of CUDA {cuda}, so the program (or the \
             framework, Triton or NVRTC that generated the PTX) was built with CUDA {cuda} or newer. {needs}"
        ),
    )
    .with_evidence(Evidence::new("log", super::extract::clip(refusal.trim())));
    if isa_line != refusal {
        finding =
            finding.with_evidence(Evidence::new("log", super::extract::clip(isa_line.trim())));
    }
    vec![
        finding
            .with_evidence(Evidence::new(
                "source",
                "the PTX ISA each nvidia-cuda-nvcc wheel's ptxas accepts (PyPI), before CUDA 11.8 NVIDIA's PTX ISA release history (https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#release-notes); https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html (minimum driver per CUDA release)",
            ))
            .with_fix(FixRef {
                id: "advice-update-driver".into(),
                kind: FixKind::Manual,
                summary: format!(
                    "Update the driver to one that supports CUDA {cuda} or newer, or use a build \
                     of the program made with the CUDA your driver supports (nvidia-smi shows it)."
                ),
            }),
    ]
}

//! torch.compile's ptxas: Triton compiles its kernels with the first ptxas of its own order
//! (`TRITON_PTXAS_PATH`, then the copy it bundles; scan `frameworks/triton.rs`), and asks it for
//! the GPU by name (`--gpu-name=sm_<cc>`), with a PTX ISA chosen from that ptxas's release. Being
//! older than the CUDA the PyTorch build was made for breaks nothing by itself (torch 2.11.0+cu130
//! with Triton 3.6's ptxas 12.8 compiles and runs on an H200): what fails is a GPU that ptxas
//! does not know (sm_90 needs CUDA 11.8, sm_100 needs 12.8). So a GPU of this machine missing
//! from that ptxas's `--gpu-name` list (the generated `ptxas_architectures.toml`) is a warning
//! naming the file, its version and where it came from; with no GPU to check it is a note.

use super::RuleInput;
use crate::engine::context::SystemContext;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::inventory::FrameworkKind;
use crate::engine::knowledge::generated::generated;
use crate::engine::knowledge::version::compare;
use std::cmp::Ordering;

const SOURCE: &str = "https://github.com/triton-lang/triton/blob/v3.1.0/third_party/nvidia/backend/compiler.py (_path_to_binary: TRITON_PTXAS_PATH, then bin/ptxas beside the backend; make_ptx/make_cubin: PTX ISA from that ptxas's release, ptxas --gpu-name=sm_<capability>)";

fn mm(v: &str) -> String {
    v.split('.').take(2).collect::<Vec<_>>().join(".")
}

/// The machine's GPU architectures (`sm_90`) that ptxas `version` does not know; `None` when
/// there is no GPU with a known capability, or no list for that ptxas release.
pub(super) fn unknown_gpus(ctx: &SystemContext, version: &str) -> Option<Vec<String>> {
    let archs: Vec<String> = ctx
        .gpus
        .iter()
        .filter_map(|g| g.compute_capability.as_deref())
        .map(|cc| format!("sm_{}", cc.replace('.', "")))
        .collect();
    if archs.is_empty() {
        return None;
    }
    let row = generated()
        .architectures
        .ptxas
        .iter()
        .find(|p| p.cuda == mm(version))?;
    Some(
        archs
            .into_iter()
            .filter(|a| !row.archs.iter().any(|k| k.eq_ignore_ascii_case(a)))
            .collect(),
    )
}

pub fn check(input: &RuleInput) -> Vec<Finding> {
    let (ctx, inv) = (input.ctx, input.inventory);

    let mut out = Vec::new();
    for (env, f) in inv.frameworks() {
        if f.kind != FrameworkKind::PyTorch || f.cuda_build == Some(false) {
            continue;
        }
        let (Some(winner), Some(cuda)) = (env.triton_ptxas.first(), f.expects.cuda.as_deref())
        else {
            continue;
        };
        let Some(v) = winner.tool.version.as_deref() else {
            continue;
        };
        if compare(&mm(v), &mm(cuda)) != Some(Ordering::Less) {
            continue;
        }
        let (severity, gpu_words) = match unknown_gpus(ctx, v) {
            Some(unknown) if unknown.is_empty() => continue,
            Some(unknown) => (
                Severity::Warning,
                format!(
                    " This machine's {} is not among the GPUs ptxas {v} knows: torch.compile fails here.",
                    unknown.join(", ")
                ),
            ),
            None => (Severity::Info, String::new()),
        };
        let who = super::framework_libs::who(env, f);
        let mut finding = Finding::new(
            codes::PTXAS_TOO_OLD,
            severity,
            format!(
                "torch.compile (Triton {}) runs ptxas {v} ({}), older than CUDA {cuda} of {who}",
                winner.triton, winner.how
            ),
            format!(
                "Triton compiles torch.compile's GPU kernels with {} (found through {}), ptxas {v}; {who} was built for CUDA {cuda}. import torch and eager GPU work are unaffected; kernels torch.compile generates fail on a GPU this ptxas does not know (\"ptxas fatal: Value 'sm_90a' is not defined for option 'gpu-name'\"; sm_90 needs ptxas 11.8, sm_100 needs 12.8) and get only the PTX ISA of ptxas {v}.{gpu_words}",
                winner.tool.path, winner.how
            ),
        )
        .with_libraries(["ptxas"])
        .with_evidence(Evidence::at(
            "file",
            format!("ptxas {v} wins ({})", winner.how),
            winner.tool.path.clone(),
        ))
        .with_evidence(Evidence::new("load-list", format!("Triton {} picks its ptxas; source: {SOURCE}", winner.triton)));
        if let Some(bundled) = env
            .triton_ptxas
            .iter()
            .skip(1)
            .find(|t| t.how != winner.how)
        {
            finding = finding.with_evidence(Evidence::at(
                "file",
                format!(
                    "Triton's own ptxas {}",
                    bundled
                        .tool
                        .version
                        .as_deref()
                        .unwrap_or("(version unread)")
                ),
                bundled.tool.path.clone(),
            ));
        }
        if winner.how == crate::engine::inventory::TritonPtxasChoice::Variable {
            finding = finding.with_fix(FixRef {
                id: "env-unset:TRITON_PTXAS_PATH".into(),
                kind: FixKind::env("TRITON_PTXAS_PATH", None),
                summary: "Unset TRITON_PTXAS_PATH, so Triton uses the ptxas it ships (or point it at a ptxas of CUDA {cuda} or newer)".replace("{cuda}", cuda),
            });
        }
        out.push(finding);
    }
    out
}

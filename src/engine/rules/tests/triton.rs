//! `triton::check`: torch.compile's ptxas is judged by the GPUs it must compile for. Triton 3.6
//! bundles ptxas 12.8 beside torch 2.11.0+cu130 (a real, working install on an H200): older than
//! torch's CUDA, and silent, because ptxas 12.8 knows sm_90. A GPU that ptxas does not know is
//! the warning; with no GPU to judge by it is a note.

use super::{linux_venv, scan};
use crate::engine::context::fake::FakeMachine;
use crate::engine::context::{GpuFacts, Platform};
use crate::engine::findings::{Finding, Severity};
use crate::engine::inventory::{FrameworkKind, ToolInfo, TritonPtxas};
use crate::engine::rules::RuleInput;
use crate::engine::rules::triton::check;

fn gpu(cc: &str) -> GpuFacts {
    GpuFacts {
        name: format!("a GPU of compute capability {cc}"),
        compute_capability: Some(cc.into()),
        memory_mib: None,
    }
}

/// torch 2.11.0+cu130 in a venv whose Triton runs ptxas `ptxas_version`, on `gpus`.
fn findings(ptxas_version: &str, gpus: Vec<GpuFacts>) -> Vec<Finding> {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    let site = linux_venv(&mut m, "torch");
    m.file(
        &format!("{site}/torch-2.11.0.dist-info/METADATA"),
        "Metadata-Version: 2.1\nName: torch\nVersion: 2.11.0+cu130\n",
    );
    m.file(
        &format!("{site}/torch/version.py"),
        "__version__ = '2.11.0+cu130'\ncuda = '13.0'\n",
    );
    let (mut ctx, mut inv) = scan(&m);
    ctx.gpus = gpus;
    let env = inv
        .python_envs
        .iter_mut()
        .find(|e| {
            e.frameworks
                .iter()
                .any(|f| f.kind == FrameworkKind::PyTorch)
        })
        .expect("the scan finds torch");
    let f = env
        .frameworks
        .iter_mut()
        .find(|f| f.kind == FrameworkKind::PyTorch)
        .unwrap();
    f.cuda_build = Some(true);
    f.expects.cuda = Some("13.0".into());
    env.triton_ptxas = vec![TritonPtxas {
        triton: "3.6.0".into(),
        how: crate::engine::inventory::TritonPtxasChoice::Bundled,
        tool: ToolInfo {
            path: format!("{site}/triton/backends/nvidia/bin/ptxas"),
            version: Some(ptxas_version.into()),
            version_source: Some(crate::engine::inventory::ToolVersionSource::Binary),
        },
    }];
    check(&RuleInput::new(&ctx, &inv))
}

#[test]
fn an_older_ptxas_that_knows_the_gpu_is_silent() {
    assert_eq!(findings("12.8.93", vec![gpu("9.0")]), Vec::<Finding>::new());
}

#[test]
fn a_gpu_the_ptxas_does_not_know_is_the_warning() {
    // sm_100 (Blackwell) is first known to CUDA 12.8's ptxas: 12.6's refuses it.
    let found = findings("12.6.85", vec![gpu("10.0")]);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].severity, Severity::Warning);
    assert!(found[0].detail.contains("sm_100"), "{}", found[0].detail);
}

#[test]
fn with_no_gpu_to_judge_by_it_is_a_note() {
    let found = findings("12.8.93", Vec::new());
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].severity, Severity::Info);
}

//! `cupy_nvcc::check` over the scan's `cupy_nvcc` (CuPy's own order: `NVCC`, else
//! `<CUDA path>/bin/nvcc`): an nvcc of the build's major that knows the GPU is silent; another
//! major is named, as a note; an nvcc that does not know the GPU is the warning. The fake nvcc
//! holds the real banner of the `nvidia-cuda-nvcc` 13.5.37 / `-cu12` 12.6.85 binaries.

use super::{linux_venv, scan};
use crate::engine::context::Platform;
use crate::engine::context::fake::FakeMachine;
use crate::engine::findings::{Finding, Severity};
use crate::engine::rules::RuleInput;
use crate::engine::rules::cupy_nvcc::check;

/// cupy-cuda12x 13.3.0 in a venv; an nvcc of `release` (`13.5, V13.5.37`) in `/opt/cuda/bin`,
/// reached through `how` (`CUDA_PATH`, `PATH` or `NVCC`), on a GPU of `cc` when given.
fn findings(release: &str, how: &str, cc: Option<&str>) -> Vec<Finding> {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    let site = linux_venv(&mut m, "cupy");
    m.file(
        &format!("{site}/cupy_cuda12x-13.3.0.dist-info/METADATA"),
        "Metadata-Version: 2.1\nName: cupy-cuda12x\nVersion: 13.3.0\n",
    );
    m.file(&format!("{site}/cupy/__init__.py"), "");
    m.file(
        "/opt/cuda/bin/nvcc",
        format!("\x7fELF....Cuda compilation tools, release {release}\n"),
    );
    match how {
        "CUDA_PATH" => m.env("CUDA_PATH", "/opt/cuda"),
        "PATH" => m.env("PATH", "/opt/cuda/bin:/usr/bin:/bin"),
        _ => m.env("NVCC", "/opt/cuda/bin/nvcc -ccbin g++"),
    };
    if let Some(cc) = cc {
        m.gpu("a GPU", cc);
    }
    let (ctx, inv) = scan(&m);
    let nvcc = inv
        .python_envs
        .iter()
        .find_map(|e| e.cupy_nvcc.as_ref())
        .expect("the scan finds CuPy's nvcc");
    assert_eq!(nvcc.tool.path, "/opt/cuda/bin/nvcc");
    let expected_how = if how == "PATH" {
        "the nvcc on PATH"
    } else {
        how
    };
    assert_eq!(nvcc.how.as_str(), expected_how);
    check(&RuleInput::new(&ctx, &inv))
}

#[test]
fn an_nvcc_of_the_builds_major_that_knows_the_gpu_is_silent() {
    for how in ["CUDA_PATH", "PATH", "NVCC"] {
        assert_eq!(
            findings("12.6, V12.6.85", how, Some("9.0")),
            Vec::<Finding>::new()
        );
    }
    assert_eq!(
        findings("12.6, V12.6.85", "CUDA_PATH", None),
        Vec::<Finding>::new()
    );
}

#[test]
fn an_nvcc_of_another_major_is_named_with_its_version_and_what_chose_it() {
    let found = findings("13.5, V13.5.37", "CUDA_PATH", Some("9.0"));
    assert_eq!(found.len(), 1, "{found:#?}");
    let f = &found[0];
    assert_eq!(f.severity, Severity::Info);
    assert!(
        f.summary.contains("nvcc 13.5.37 (CUDA_PATH)"),
        "{}",
        f.summary
    );
    assert!(f.summary.contains("CUDA 12.x"), "{}", f.summary);
    let nvcc = findings("13.5, V13.5.37", "NVCC", None);
    assert!(
        nvcc[0].fixes.iter().any(|x| x.id == "env-unset:NVCC"),
        "{:#?}",
        nvcc[0].fixes
    );
}

#[test]
fn an_nvcc_that_does_not_know_the_gpu_is_the_warning() {
    // CUDA 13 dropped sm_70 (V100): its compilers refuse it.
    let found = findings("13.5, V13.5.37", "PATH", Some("7.0"));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].severity, Severity::Warning);
    assert!(found[0].detail.contains("sm_70"), "{}", found[0].detail);
}

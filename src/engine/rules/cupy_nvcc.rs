//! The nvcc CuPy runs (scan `frameworks/cupy_nvcc.rs`: `NVCC`, else `<CUDA path>/bin/nvcc` with
//! the CUDA path from `CUDA_PATH`, the nvcc on PATH or /usr/local/cuda), compared with the CUDA
//! the CuPy build was made for and this machine's GPUs. NVRTC compiles nearly all of CuPy's
//! kernels, so `import cupy` and array work never run nvcc; `RawKernel`/`RawModule` with
//! `backend='nvcc'` and cuFFT callbacks do. An nvcc that does not know the GPU fails there for
//! certain ("nvcc fatal : Unsupported gpu architecture 'compute_70'": the architectures each CUDA
//! release's compilers accept are the generated `ptxas_architectures.toml`): a warning. An nvcc
//! of another CUDA major than the build is named with its version and what chose it, as a note:
//! whether its output runs depends on the driver, which a scan cannot try.

use super::RuleInput;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::inventory::FrameworkKind;
use crate::engine::knowledge::version::major_part as major;

const SOURCE: &str = "https://github.com/cupy/cupy/blob/v13.3.0/cupy/_environment.py (_get_cuda_path: CUDA_PATH, then the folder above the nvcc on PATH, then /usr/local/cuda; _get_nvcc_path: NVCC, then <CUDA path>/bin/nvcc); https://github.com/cupy/cupy/blob/v13.3.0/cupy/cuda/compiler.py (compile_using_nvcc: nvcc -gencode=arch=compute_<cc>,code=sm_<cc>)";

pub fn check(input: &RuleInput) -> Vec<Finding> {
    let (ctx, inv) = (input.ctx, input.inventory);

    let mut out = Vec::new();
    for (env, f) in inv.frameworks() {
        if f.kind != FrameworkKind::CuPy || f.cuda_build == Some(false) {
            continue;
        }
        let (Some(chosen), Some(cuda)) = (&env.cupy_nvcc, f.expects.cuda.as_deref()) else {
            continue;
        };
        let Some(v) = chosen.tool.version.as_deref() else {
            continue;
        };
        let other_major = major(v) != major(cuda);
        let unknown = super::triton::unknown_gpus(ctx, v).filter(|u| !u.is_empty());
        if !other_major && unknown.is_none() {
            continue;
        }
        let who = super::framework_libs::who(env, f);
        let (severity, consequence) = match &unknown {
            Some(archs) => (
                Severity::Warning,
                format!(
                    " nvcc {v} does not know this machine's {}: those compiles fail (\"nvcc fatal : Unsupported gpu architecture\").",
                    archs.join(", ")
                ),
            ),
            None => (
                Severity::Info,
                format!(
                    " nvcc {v} is of another CUDA major than the build: its cubins need a driver for CUDA {} (a guess from NVIDIA's compatibility rules; not tried here).",
                    major(v)
                ),
            ),
        };
        let mut finding = Finding::new(
            codes::CUPY_NVCC_MISMATCH,
            severity,
            format!(
                "CuPy's nvcc is nvcc {v} ({}), for CUDA {cuda} of {who}",
                chosen.how
            ),
            format!(
                "{who} runs {} (found through {}) for RawKernel/RawModule(backend='nvcc') and cuFFT callbacks; NVRTC compiles its other kernels, so import cupy and array work are unaffected.{consequence} The same CUDA path's include folder is added to every NVRTC compile, after CuPy's own headers.",
                chosen.tool.path, chosen.how
            ),
        )
        .with_libraries(["nvcc"])
        .with_evidence(Evidence::at(
            "file",
            format!("nvcc {v} ({})", chosen.how),
            chosen.tool.path.clone(),
        ))
        .with_evidence(Evidence::new(
            "load-list",
            format!("CuPy finds its nvcc; source: {SOURCE}"),
        ));
        if chosen.how == crate::engine::inventory::NvccChoice::NvccVariable {
            finding = finding.with_fix(FixRef {
                id: "env-unset:NVCC".into(),
                kind: FixKind::env("NVCC", None),
                summary: "Unset NVCC, so CuPy takes the nvcc of its CUDA path".into(),
            });
        } else if let Some(t) = inv.toolkits.iter().find(|t| {
            t.version
                .as_deref()
                .is_some_and(|tv| major(tv) == major(cuda))
                && t.nvcc.is_some()
        }) {
            finding = finding.with_fix(FixRef {
                id: format!("set-cuda-path:{}", t.root),
                kind: FixKind::env("CUDA_PATH", Some(t.root.clone())),
                summary: format!(
                    "Set CUDA_PATH to {} (CUDA {}), whose nvcc matches the build",
                    t.root,
                    t.version.as_deref().unwrap_or("")
                ),
            });
        }
        out.push(finding);
    }
    out
}

//! Whether each toolkit's `ptxas` can compile for this machine's GPUs: the architectures each
//! CUDA release's `ptxas` accepts are NVIDIA's own (`ptxas --help` of the `nvidia-cuda-nvcc`
//! wheels, the generated `ptxas_architectures.toml`). A `ptxas` that does not know the GPU
//! fails at the first JIT compile ("Value 'sm_120' is not defined for option 'gpu-name'"): a
//! warning when a framework that runs `ptxas` (TensorFlow's and JAX's XLA) is installed and this
//! toolkit's is the first `ptxas` on PATH, a note otherwise.

use super::RuleInput;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, Severity};
use crate::engine::inventory::FrameworkKind;
use crate::engine::knowledge::generated::generated;
use crate::engine::knowledge::version::Version;

/// `8.6` → `sm_86`.
fn sm(cc: &str) -> String {
    format!("sm_{}", cc.replace('.', ""))
}

pub fn check(input: &RuleInput) -> Vec<Finding> {
    let (ctx, inv) = (input.ctx, input.inventory);

    let g = generated();
    let jit_user = inv
        .frameworks()
        .any(|(_, f)| matches!(f.kind, FrameworkKind::TensorFlow | FrameworkKind::Jax));
    let exe = match ctx.platform {
        crate::engine::context::Platform::Windows => "ptxas.exe",
        crate::engine::context::Platform::Linux => "ptxas",
    };
    let first_on_path = ctx
        .path_entries()
        .into_iter()
        .find(|d| ctx.fs.is_file(&ctx.platform.join(d, exe)));
    let mut out = Vec::new();
    for t in &inv.toolkits {
        let Some(ptxas) = &t.ptxas else { continue };
        let Some(minor) = ptxas
            .version
            .as_deref()
            .or(t.version.as_deref())
            .and_then(Version::parse)
            .map(|v| v.major_minor())
        else {
            continue;
        };
        let Some(row) = g.architectures.ptxas.iter().find(|p| p.cuda == minor) else {
            continue;
        };
        for gpu in &ctx.gpus {
            let Some(cc) = gpu.compute_capability.as_deref() else {
                continue;
            };
            let arch = sm(cc);
            if row.archs.iter().any(|a| a.eq_ignore_ascii_case(&arch)) {
                continue;
            }
            let span = g.arch_span(&arch);
            let when = match span {
                Some((first, _))
                    if crate::engine::knowledge::version::compare(first, &minor)
                        == Some(std::cmp::Ordering::Greater) =>
                {
                    format!("ptxas knows {arch} from CUDA {first} on")
                }
                Some((_, last)) => format!("CUDA {last} is the last whose ptxas knows {arch}"),
                None => format!("no CUDA release read ({}-) knows {arch}", row.cuda),
            };
            let used = jit_user
                && first_on_path
                    .as_deref()
                    .is_some_and(|d| t.bin_dirs.iter().any(|b| b == d));
            out.push(
                Finding::new(
                    codes::PTXAS_LACKS_GPU_ARCH,
                    if used { Severity::Warning } else { Severity::Info },
                    format!(
                        "The ptxas of CUDA {minor} cannot compile for {} ({arch})",
                        gpu.name
                    ),
                    format!(
                        "{} is CUDA {minor}'s ptxas, which accepts {} but not {arch}, the architecture of {} \
                         (compute capability {cc}); {when}. Whatever runs this ptxas for this GPU (XLA in \
                         TensorFlow and JAX, nvcc builds) fails with \"Value '{arch}' is not defined for \
                         option 'gpu-name'\".{}",
                        ptxas.path,
                        row.archs
                            .iter()
                            .filter(|a| a.starts_with("sm_"))
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(" "),
                        gpu.name,
                        if used {
                            " It is the first ptxas on PATH and a framework that runs ptxas is installed."
                        } else {
                            ""
                        }
                    ),
                )
                .with_evidence(Evidence::at("file", format!("ptxas {minor}"), ptxas.path.clone()))
                .with_evidence(Evidence::new("driver", format!("{}: compute capability {cc}", gpu.name)))
                .with_evidence(Evidence::new(
                    "source",
                    format!("`ptxas --help` of nvidia-cuda-nvcc {} (PyPI), --gpu-name values", row.build),
                )),
            );
        }
    }
    out
}

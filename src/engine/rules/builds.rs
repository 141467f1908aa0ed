//! What a framework build can do on this machine: TensorFlow ≥ 2.11 has no GPU support on
//! native Windows, a CPU-only build, a GPU whose compute capability the build lacks, and a
//! driver older than the CUDA a build or toolkit needs (knowledge `min_driver_for_cuda`).

use crate::engine::context::{Platform, SystemContext};
use crate::engine::findings::{Evidence, Finding, FixRef, Severity};
use crate::engine::knowledge::{self, version::compare};
use crate::engine::scan::inventory::{FrameworkKind, Inventory};
use std::cmp::Ordering;

pub fn check(ctx: &SystemContext, inv: &Inventory) -> Vec<Finding> {
    let mut out = Vec::new();
    for (env, f) in inv.frameworks() {
        let who = format!(
            "{} {} in {}",
            f.kind.display_name(),
            f.version.as_deref().unwrap_or(""),
            env.root
        );
        let tf_no_gpu = ctx.platform == Platform::Windows
            && f.kind == FrameworkKind::TensorFlow
            && f.version
                .as_deref()
                .and_then(|v| knowledge::knowledge().tensorflow.native_windows_gpu(v))
                == Some(false);
        if tf_no_gpu {
            out.push(
                Finding::new(
                    "tensorflow-windows-no-gpu",
                    Severity::Warning,
                    format!("{who}: TensorFlow 2.11 and newer have no GPU support on native Windows"),
                    "TensorFlow 2.10 was the last release with CUDA support on native Windows. Newer releases run on the CPU there, whatever CUDA is installed. Use TensorFlow in WSL2, or pin tensorflow 2.10 with CUDA 11.2 and cuDNN 8.1.",
                )
                .with_evidence(Evidence::at("file", format!("{} {}", f.package, f.version.as_deref().unwrap_or("")), f.location.clone()))
                .with_fix(FixRef { id: "pin-tensorflow-2.10".into(), kind: "pin-version".into(), summary: "pip install \"tensorflow<2.11\" (with CUDA 11.2 and cuDNN 8.1)".into() })
                .with_fix(FixRef { id: "use-wsl2".into(), kind: "manual".into(), summary: "Run TensorFlow inside WSL2 with pip install tensorflow[and-cuda]".into() }),
            );
        } else if f.cuda_build == Some(false) {
            out.push(
                Finding::new(
                    "framework-cpu-build",
                    Severity::Warning,
                    format!("{who} is a CPU-only build"),
                    format!("The installed {} package was built without CUDA, so it never uses the GPU, however the CUDA libraries are set up. Install the CUDA build instead.", f.package),
                )
                .with_evidence(Evidence::at("file", "build without CUDA", f.location.clone()))
                .with_fix(FixRef { id: format!("install-cuda-build:{}", f.package), kind: "install".into(), summary: format!("Reinstall {} from its CUDA package index", f.package) }),
            );
        }
        for gpu in &ctx.gpus {
            let Some(cc) = gpu.compute_capability.as_deref() else {
                continue;
            };
            let archs = &f.expects.compute_capabilities;
            if archs.is_empty() {
                continue;
            }
            let want = cc.replace('.', "");
            let sass = archs
                .iter()
                .any(|a| a.strip_prefix("sm_") == Some(want.as_str()));
            let ptx = archs
                .iter()
                .filter_map(|a| a.strip_prefix("compute_"))
                .any(|p| p.parse::<u32>().ok() <= want.parse::<u32>().ok());
            if !sass && !ptx {
                out.push(
                    Finding::new(
                        "gpu-arch-missing",
                        Severity::Error,
                        format!("{who} has no code for {} (compute capability {cc})", gpu.name),
                        format!("The build contains {} only; a GPU of compute capability {cc} gets \"no kernel image is available for execution on the device\". Install a build that includes sm_{want}.", archs.join(", ")),
                    )
                    .with_evidence(Evidence::new("driver", format!("{}: compute capability {cc}", gpu.name)))
                    .with_fix(FixRef { id: format!("install-build-sm_{want}"), kind: "install".into(), summary: format!("Install a {} build that supports sm_{want}", f.kind.display_name()) }),
                );
            }
        }
    }
    out.extend(driver_too_old(ctx, inv));
    out
}

fn driver_too_old(ctx: &SystemContext, inv: &Inventory) -> Vec<Finding> {
    let Some(driver) = ctx.driver.as_ref().map(|d| d.version.clone()) else {
        return Vec::new();
    };
    let mut needs: Vec<(String, String)> = inv
        .toolkits
        .iter()
        .filter_map(|t| {
            t.version
                .clone()
                .map(|v| (v, format!("the CUDA toolkit at {}", t.root)))
        })
        .collect();
    needs.extend(inv.frameworks().filter_map(|(e, f)| {
        f.expects.cuda.clone().map(|c| {
            (
                c,
                format!(
                    "{} {} in {}",
                    f.kind.display_name(),
                    f.version.as_deref().unwrap_or(""),
                    e.root
                ),
            )
        })
    }));
    let mut out: Vec<Finding> = Vec::new();
    for (cuda, who) in needs {
        let Some(req) = knowledge::min_driver_for_cuda(&cuda, ctx.platform) else {
            continue;
        };
        if compare(&driver, &req.min_driver) != Some(Ordering::Less)
            || out
                .iter()
                .any(|f| f.summary.contains(&format!("CUDA {}", req.cuda)))
        {
            continue;
        }
        out.push(
            Finding::new(
                "driver-too-old",
                Severity::Error,
                format!("Driver {driver} is older than CUDA {} needs ({} or newer)", req.cuda, req.min_driver),
                format!("{who} needs the CUDA {} runtime, which requires driver {} or newer; this machine has {driver}. CUDA calls fail with \"CUDA driver version is insufficient for CUDA runtime version\" (error 35).", req.cuda, req.min_driver),
            )
            .with_libraries(if ctx.platform == Platform::Windows { ["nvcuda.dll"] } else { ["libcuda.so.1"] })
            .with_evidence(Evidence::new("driver", format!("installed driver {driver}")))
            .with_evidence(Evidence::new("knowledge", format!("CUDA {} needs {} ({})", req.cuda, req.min_driver, req.source)))
            .with_fix(FixRef { id: format!("install-driver-{}", req.min_driver), kind: "install".into(), summary: format!("Install NVIDIA driver {} or newer", req.min_driver) }),
        );
    }
    out
}

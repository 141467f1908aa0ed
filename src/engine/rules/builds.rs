//! What a framework build can do on this machine: TensorFlow ≥ 2.11 has no GPU support on
//! native Windows, a CPU-only build (a warning only where a GPU is there for it and no other
//! framework of its environment uses it), a GPU whose compute capability the build lacks, a
//! driver older than the CUDA a build or toolkit needs (knowledge `min_driver_for_cuda`), and a
//! CUDA build whose expectations could not be read or had to be inferred.

use super::RuleInput;
use crate::engine::context::{Platform, SystemContext};
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::inventory::{FrameworkKind, Inventory};
use crate::engine::knowledge::{self, version::compare};
use std::cmp::Ordering;

pub fn check(input: &RuleInput) -> Vec<Finding> {
    let (ctx, inv) = (input.ctx, input.inventory);

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
                    codes::TENSORFLOW_WINDOWS_NO_GPU,
                    Severity::Warning,
                    format!("{who}: TensorFlow 2.11 and newer have no GPU support on native Windows"),
                    "TensorFlow 2.10 was the last release with CUDA support on native Windows. Newer releases run on the CPU there, whatever CUDA is installed. Use TensorFlow in WSL2, or pin tensorflow 2.10 with CUDA 11.2 and cuDNN 8.1.",
                )
                .with_evidence(Evidence::at("file", format!("{} {}", f.package, f.version.as_deref().unwrap_or("")), f.location.clone()))
                .with_fix(FixRef { id: "pin-tensorflow-2.10".into(), kind: FixKind::PinVersion { requirements: vec!["tensorflow<2.11".into()], python: env.python_exe.clone(), reinstall: false }, summary: "pip install \"tensorflow<2.11\" (with CUDA 11.2 and cuDNN 8.1)".into() })
                .with_fix(FixRef { id: "use-wsl2".into(), kind: FixKind::Manual, summary: "Run TensorFlow inside WSL2 with pip install tensorflow[and-cuda]".into() }),
            );
        } else if f.cuda_build == Some(false) {
            // A CPU build matters where a GPU would be used: a warning on a machine with an
            // NVIDIA GPU (or its driver) where no other framework of the environment uses it, a
            // note otherwise
            // (the CPU `onnxruntime` package beside a working torch 2.11.0+cu130 on an H200 is
            // there as another package's dependency, not as a broken install).
            let gpu_framework_beside = env
                .frameworks
                .iter()
                .any(|other| other.cuda_build == Some(true));
            let nvidia_gpu_here = !ctx.gpus.is_empty() || ctx.driver.is_some();
            let severity = if nvidia_gpu_here && !gpu_framework_beside {
                Severity::Warning
            } else {
                Severity::Info
            };
            out.push(
                Finding::new(
                    codes::FRAMEWORK_CPU_BUILD,
                    severity,
                    format!("{who} is a CPU-only build"),
                    format!("The installed {} package was built without CUDA, so it never uses the GPU, however the CUDA libraries are set up. Install the CUDA build instead.", f.package),
                )
                .with_evidence(Evidence::at("file", "build without CUDA", f.location.clone()))
                .with_fix(FixRef { id: format!("install-cuda-build:{}", f.package), kind: FixKind::Install, summary: format!("Reinstall {} from its CUDA package index", f.package) }),
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
            if !build_runs_on(archs, cc) {
                out.push(
                    Finding::new(
                        codes::GPU_ARCH_MISSING,
                        Severity::Error,
                        format!("{who} has no code for {} (compute capability {cc})", gpu.name),
                        format!("The build contains {} only; a GPU of compute capability {cc} gets \"no kernel image is available for execution on the device\". Install a build that includes sm_{want}.", archs.join(", ")),
                    )
                    .with_evidence(Evidence::new("driver", format!("{}: compute capability {cc}", gpu.name)))
                    .with_fix(FixRef { id: format!("install-build-sm_{want}"), kind: FixKind::Install, summary: format!("Install a {} build that supports sm_{want}", f.kind.display_name()) }),
                );
            }
        }
    }
    out.extend(driver_too_old(ctx, inv));
    out.extend(expectations_unsure(inv));
    out
}

/// A CUDA build whose expectations could not be read (a warning: nothing below can be checked),
/// or were taken from the nearest documented release (info, so the inference is visible).
fn expectations_unsure(inv: &Inventory) -> Vec<Finding> {
    let mut out = Vec::new();
    for (env, f) in inv.frameworks() {
        if f.cuda_build == Some(false) {
            continue;
        }
        let who = super::framework_libs::who(env, f);
        let files = Evidence::at("file", format!("{} package", f.package), f.location.clone());
        if let Some(from) = &f.expects.inferred_from {
            out.push(
                Finding::new(
                    codes::FRAMEWORK_EXPECTATIONS_INFERRED,
                    Severity::Info,
                    format!("{who}: CUDA {} inferred from {from}", f.expects.cuda_label()),
                    format!("Neither the installed files nor the documented release table cover this release, so CUDA Triage assumes it needs what {from} needs (CUDA {}, cuDNN {}). Findings about its libraries rest on that inference.", f.expects.cuda.as_deref().unwrap_or("?"), f.expects.cudnn.as_deref().unwrap_or("?")),
                )
                .with_evidence(files),
            );
        } else if f.expects.cuda.is_none() {
            let why = if f.expects.unread.is_empty() {
                "its files do not say".to_string()
            } else {
                f.expects.unread.join("; ")
            };
            out.push(
                Finding::new(
                    codes::FRAMEWORK_EXPECTATIONS_UNKNOWN,
                    Severity::Warning,
                    format!("{who}: which CUDA it needs could not be read"),
                    format!("CUDA Triage could not tell which CUDA and cuDNN libraries this build loads ({why}), so it cannot check that they are present. Run the import probe, or check the package's documentation for its CUDA version."),
                )
                .with_evidence(files),
            );
        }
    }
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
        // From CUDA 11 on, a driver of the major's minor-compatibility branch runs code built
        // with any later minor of it, with a limited feature set: that is no load failure.
        let compat = cuda
            .split('.')
            .next()
            .and_then(|m| m.parse::<u64>().ok())
            .filter(|major| *major >= 11)
            .and_then(knowledge::minor_compat)
            .filter(|row| compare(&driver, &row.min_driver) != Some(Ordering::Less));
        let finding = match compat {
            Some(row) => Finding::new(
                codes::DRIVER_TOO_OLD,
                Severity::Info,
                format!("Driver {driver} is older than CUDA {} asks for ({} or newer); it runs by minor-version compatibility", req.cuda, req.min_driver),
                format!("{who} uses CUDA {}, whose release asks for driver {} or newer; this machine has {driver}, of the R{} branch or newer, which runs code built with any CUDA {}.x by minor-version compatibility. What needs the newer driver fails: PTX from CUDA {} that the driver must compile (\"the provided PTX was compiled with an unsupported toolchain\", error 222) and API calls newer than the driver (error 36). Update the driver to {} or newer to use all of CUDA {}.", req.cuda, req.min_driver, row.min_driver, row.major, req.cuda, req.min_driver, req.cuda),
            )
            .with_evidence(Evidence::new("knowledge", format!("CUDA {}.x minor-version compatibility from driver {} ({})", row.major, row.min_driver, row.source))),
            None => Finding::new(
                codes::DRIVER_TOO_OLD,
                Severity::Error,
                format!("Driver {driver} is older than CUDA {} needs ({} or newer)", req.cuda, req.min_driver),
                format!("{who} needs the CUDA {} runtime, which requires driver {} or newer; this machine has {driver}. CUDA calls fail with \"CUDA driver version is insufficient for CUDA runtime version\" (error 35).", req.cuda, req.min_driver),
            ),
        };
        out.push(
            finding
                .with_libraries(if ctx.platform == Platform::Windows {
                    ["nvcuda.dll"]
                } else {
                    ["libcuda.so.1"]
                })
                .with_evidence(Evidence::new(
                    "driver",
                    format!("installed driver {driver}"),
                ))
                .with_evidence(Evidence::new(
                    "knowledge",
                    format!(
                        "CUDA {} needs {} ({})",
                        req.cuda, req.min_driver, req.source
                    ),
                ))
                .with_fix(FixRef {
                    id: format!("install-driver-{}", req.min_driver),
                    kind: FixKind::Install,
                    summary: format!("Install NVIDIA driver {} or newer", req.min_driver),
                }),
        );
    }
    out
}

/// `sm_86` → (8, 6, suffix): the last digit is the minor version (`sm_100` → 10.0, `sm_120a`).
fn arch_version(digits_and_suffix: &str) -> Option<(u32, u32, Option<char>)> {
    let suffix = digits_and_suffix
        .chars()
        .last()
        .filter(|c| c.is_ascii_alphabetic());
    let digits = digits_and_suffix.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (major, minor) = digits.split_at(digits.len() - 1);
    Some((major.parse().ok()?, minor.parse().ok()?, suffix))
}

/// Whether a build with these `sm_XY` / `compute_XY` entries has code a GPU of compute
/// capability `cc` ("8.6") can run. SASS (`sm_XY`) runs on the same major with an equal or
/// higher minor — "a cubin generated for a certain compute capability is supported to run on any
/// GPU with the same major revision and same or higher minor revision" (CUDA programming guide,
/// binary compatibility; quoted in LLVM's libomptarget CUDA plugin) — except
/// architecture-specific `sm_XYa` code, which runs only on X.Y. PTX (`compute_XY`) is compiled by
/// the driver for any GPU of X.Y or newer.
pub fn build_runs_on(archs: &[String], cc: &str) -> bool {
    let mut parts = cc.split('.').map(|p| p.trim().parse::<u32>().ok());
    let (Some(Some(major)), Some(Some(minor))) = (parts.next(), parts.next()) else {
        return true; // an unreadable compute capability proves nothing
    };
    archs.iter().any(|a| {
        if let Some((m, n, suffix)) = a.strip_prefix("sm_").and_then(arch_version) {
            m == major && (n == minor || (suffix != Some('a') && n < minor))
        } else if let Some((m, n, _)) = a.strip_prefix("compute_").and_then(arch_version) {
            (m, n) <= (major, minor)
        } else {
            false
        }
    })
}

#[cfg(test)]
mod tests {
    use super::build_runs_on;

    fn runs(archs: &[&str], cc: &str) -> bool {
        let archs: Vec<String> = archs.iter().map(|s| s.to_string()).collect();
        build_runs_on(&archs, cc)
    }

    #[test]
    fn sass_runs_on_the_same_major_with_an_equal_or_higher_minor() {
        assert!(runs(&["sm_80"], "8.6"));
        assert!(runs(&["sm_86"], "8.6"));
        assert!(!runs(&["sm_86"], "8.0"));
        assert!(!runs(&["sm_80"], "9.0"));
        assert!(!runs(&["sm_35", "sm_50", "sm_60"], "8.6"));
        assert!(runs(&["sm_100"], "10.3"));
        assert!(!runs(&["sm_90a"], "9.1"));
        assert!(runs(&["sm_90a"], "9.0"));
    }

    #[test]
    fn ptx_runs_on_its_version_and_newer() {
        assert!(runs(&["compute_80"], "9.0"));
        assert!(runs(&["compute_90"], "12.0"));
        assert!(!runs(&["compute_90"], "8.6"));
        assert!(runs(&["garbage"], "not a version"));
    }
}

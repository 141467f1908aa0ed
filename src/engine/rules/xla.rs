//! XLA (TensorFlow, JAX) compiles PTX with `ptxas` and links `libdevice.10.bc` at run time:
//! which ptxas wins, none at all, one older than the build's CUDA (or than 11.1, which
//! miscompiles XLA code) — often because an older toolkit comes first on PATH — and a toolkit
//! without libdevice. XLA's order (`FindCudaExecutable` in
//! https://github.com/tensorflow/tensorflow/blob/v2.18.0/third_party/xla/xla/stream_executor/cuda/cuda_asm_compiler.cc):
//! `--xla_gpu_cuda_data_dir`/bin, then PATH (`PreferPtxasFromPath()` is true outside Google),
//! then its candidate CUDA roots — the pip `nvidia-cuda-nvcc` wheel beside TensorFlow's
//! libraries, /usr/local/cuda; from TensorFlow 2.18 it passes over a ptxas older than 11.8 and
//! the broken 12.3.103 (`FindPtxAsExecutable`). Checked on the real TensorFlow 2.18.0 by calling
//! that function (tests/integration/framework_loads_tensorflow.rs). JAX sets the data folder to
//! `CUDA_ROOT` when set, else the wheel's folder (jax-v0.4.35 jax/_src/lib/__init__.py
//! `_cuda_path`, jax/_src/compiler.py), so for JAX that comes first.

use super::RuleInput;
use crate::engine::context::{Platform, SystemContext};
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, PathEdit, Severity};
use crate::engine::fix::names_exist;
use crate::engine::inventory::{FrameworkKind, Inventory, PythonEnv, Toolkit};
use crate::engine::knowledge::version::compare;
use std::cmp::Ordering;

/// A ptxas the process would run, and where its version comes from.
struct Winner {
    path: String,
    /// The PATH folder it was found in (a fix can take that folder off PATH).
    path_dir: Option<String>,
    version: Option<String>,
    toolkit: Option<Toolkit>,
    how: String,
}

fn ptxas_name(p: Platform) -> &'static str {
    match p {
        Platform::Windows => "ptxas.exe",
        Platform::Linux => "ptxas",
    }
}

fn toolkit_of<'a>(ctx: &SystemContext, inv: &'a Inventory, dir: &str) -> Option<&'a Toolkit> {
    inv.toolkits.iter().find(|t| {
        t.bin_dirs
            .iter()
            .any(|b| ctx.platform.same_name(&ctx.platform.normalize(b), dir))
    })
}

fn xla_data_dir(ctx: &SystemContext) -> Option<String> {
    let flags = ctx.env.get("XLA_FLAGS")?;
    flags.split_whitespace().find_map(|f| {
        f.strip_prefix("--xla_gpu_cuda_data_dir=")
            .map(|d| d.trim_matches('"').to_string())
    })
}

fn winner(
    ctx: &SystemContext,
    inv: &Inventory,
    env: &PythonEnv,
    f: &crate::engine::inventory::Framework,
    searched: &mut Vec<String>,
) -> Option<Winner> {
    let pip = env.pip_ptxas.as_ref().map(|p| Winner {
        path: p.path.clone(),
        path_dir: None,
        version: p.version.clone(),
        toolkit: None,
        how: "the pip nvidia-cuda-nvcc wheel".into(),
    });
    let name = ptxas_name(ctx.platform);
    let mut dirs: Vec<(String, String)> = Vec::new();
    let cuda_root = ctx.env.get("CUDA_ROOT").filter(|v| !v.trim().is_empty());
    if f.kind == FrameworkKind::Jax
        && let Some(root) = cuda_root
    {
        // jax/_src/lib/__init__.py _cuda_path(): CUDA_ROOT, else the wheel; compiler.py sets
        // XLA's data folder to it, over XLA_FLAGS.
        dirs.push((
            ctx.platform.join(root.trim(), "bin"),
            "CUDA_ROOT (JAX makes it XLA's data folder)".into(),
        ));
    } else if f.kind == FrameworkKind::Jax && pip.is_some() {
        return pip;
    } else if let Some(d) = xla_data_dir(ctx) {
        dirs.push((
            ctx.platform.join(&d, "bin"),
            "XLA_FLAGS --xla_gpu_cuda_data_dir".into(),
        ));
    }
    for e in ctx.path_entries() {
        dirs.push((ctx.platform.normalize(&e), "PATH".into()));
    }
    let passes_over_old = f.kind == FrameworkKind::TensorFlow
        && f.version
            .as_deref()
            .and_then(|v| compare(v, "2.18"))
            .is_some_and(|o| o != Ordering::Less);
    for (dir, how) in dirs {
        searched.push(dir.clone());
        let path = ctx.platform.join(&dir, name);
        if !ctx.fs.is_file(&path) {
            continue;
        }
        let t = toolkit_of(ctx, inv, &dir).cloned();
        let version = t
            .as_ref()
            .and_then(|t| {
                t.ptxas
                    .as_ref()
                    .and_then(|p| p.version.clone())
                    .or_else(|| t.version.clone())
            })
            .or_else(|| {
                env.xla_ptxas
                    .iter()
                    .find(|p| ctx.platform.same_name(&p.path, &path))
                    .and_then(|p| p.version.clone())
            });
        let skipped = version
            .as_deref()
            .is_some_and(|v| compare(v, "11.8") == Some(Ordering::Less) || v == "12.3.103");
        if passes_over_old && skipped {
            continue;
        }
        let path_dir = (how == "PATH").then(|| dir.clone());
        return Some(Winner {
            path,
            path_dir,
            version,
            toolkit: t,
            how,
        });
    }
    if pip.is_some() {
        return pip;
    }
    if ctx.platform == Platform::Linux {
        let dir = "/usr/local/cuda/bin".to_string();
        searched.push(dir.clone());
        let path = ctx.platform.join(&dir, name);
        if ctx.fs.is_file(&path) {
            let t = toolkit_of(ctx, inv, &dir).cloned();
            let version = t.as_ref().and_then(|t| {
                t.ptxas
                    .as_ref()
                    .and_then(|p| p.version.clone())
                    .or_else(|| t.version.clone())
            });
            return Some(Winner {
                path,
                path_dir: None,
                version,
                toolkit: t,
                how: "the default /usr/local/cuda".into(),
            });
        }
    }
    None
}

/// The oldest ptxas a framework's own metadata accepts: the lower bound of its
/// `nvidia-cuda-nvcc-cu*` requirement (jax-cuda12-plugin 0.6.0: `>=12.6.85`, the ptxas without
/// the sm_90 miscompilation, openxla/xla#19927), with the wheel's name.
fn nvcc_floor(f: &crate::engine::inventory::Framework) -> Option<(String, String)> {
    let w = f
        .expects
        .wheels
        .iter()
        .find(|w| w.name.starts_with("nvidia-cuda-nvcc"))?;
    let spec = w.version.as_deref()?;
    spec.split(',').find_map(|part| {
        let v = ["==", ">="]
            .iter()
            .find_map(|op| part.trim().strip_prefix(op))?
            .trim();
        v.starts_with(|c: char| c.is_ascii_digit())
            .then(|| (v.to_string(), w.name.clone()))
    })
}

fn mm(v: &str) -> String {
    v.split('.').take(2).collect::<Vec<_>>().join(".")
}

pub fn check(input: &RuleInput) -> Vec<Finding> {
    let (ctx, inv) = (input.ctx, input.inventory);

    let mut out: Vec<Finding> = Vec::new();
    for (env, f) in inv.frameworks() {
        if !matches!(f.kind, FrameworkKind::TensorFlow | FrameworkKind::Jax)
            || f.cuda_build == Some(false)
        {
            continue;
        }
        let Some(cuda) = f.expects.cuda.clone() else {
            continue;
        };
        let who = format!(
            "{} {} in {}",
            f.kind.display_name(),
            f.version.as_deref().unwrap_or(""),
            env.root
        );
        let mut searched = Vec::new();
        let newest = inv
            .toolkits
            .iter()
            .filter(|t| t.ptxas.is_some())
            .max_by(|a, b| {
                compare(
                    a.version.as_deref().unwrap_or("0"),
                    b.version.as_deref().unwrap_or("0"),
                )
                .unwrap_or(Ordering::Equal)
            });
        let finding = match winner(ctx, inv, env, f, &mut searched) {
            None => {
                let mut f = Finding::new(
                    codes::PTXAS_NOT_FOUND,
                    xla_severity(f.kind),
                    format!("{who} cannot find ptxas"),
                    format!("XLA runs ptxas to compile GPU code. No {} was found in the pip nvidia-cuda-nvcc wheel, the XLA data folder or any PATH folder, so XLA fails with \"Couldn't invoke ptxas --version\" or falls back to slower code. A PATH or CUDA_HOME entry with a typo is a common cause (see the path findings).{}", ptxas_name(ctx.platform), consequence(f.kind)),
                )
                .with_libraries([ptxas_name(ctx.platform)]);
                for d in &searched {
                    f = f.with_evidence(Evidence::at(
                        "searched",
                        format!("{d}: no {}", ptxas_name(ctx.platform)),
                        d.clone(),
                    ));
                }
                match newest.and_then(|t| t.bin_dirs.first()) {
                    Some(bin) => f.with_fix(FixRef {
                        id: format!("path-prepend:{bin}"),
                        kind: FixKind::path(PathEdit::add("PATH", bin, true)),
                        summary: format!("Add {bin} (it has ptxas) to PATH"),
                    }),
                    None => f.with_fix(install_ptxas(
                        &cuda,
                        ctx.platform,
                        format!(
                            "install-nvcc-wheel-cu{}",
                            cuda.split('.').next().unwrap_or("")
                        ),
                    )),
                }
            }
            Some(w) => {
                let Some(v) = w.version.clone() else { continue };
                let pinned = nvcc_floor(f);
                let below_pin = pinned
                    .as_ref()
                    .is_some_and(|(need, _)| compare(&v, need) == Some(Ordering::Less));
                let too_old = compare(&mm(&v), &mm(&cuda)) == Some(Ordering::Less)
                    || compare(&v, "11.1") == Some(Ordering::Less)
                    || below_pin;
                if !too_old {
                    if let Some(t) = &w.toolkit
                        && t.libdevice.is_none()
                        && f.libdevice.is_none()
                    {
                        out.push(libdevice_missing(&who, f.kind, t));
                    }
                    continue;
                }
                let better = newest.filter(|t| {
                    t.version
                        .as_deref()
                        .is_some_and(|nv| compare(&mm(nv), &mm(&v)) == Some(Ordering::Greater))
                });
                let mut detail = format!(
                    "{who} was built for CUDA {cuda}; the ptxas it runs, {} (found through {}), is version {v}. An older ptxas cannot compile the PTX a newer build emits and ptxas before 11.1 miscompiles XLA code.",
                    w.path, w.how
                );
                if let Some(b) = better {
                    detail.push_str(&format!(" A newer toolkit, CUDA {}, is installed at {}, but a folder of the older toolkit comes first on PATH, so its ptxas wins.", b.version.as_deref().unwrap_or("?"), b.root));
                }
                // The wheel's ptxas, new enough, that XLA reaches once that PATH folder is gone.
                let wheel_after = w.path_dir.as_ref().and(env.pip_ptxas.as_ref()).filter(|p| {
                    p.version.as_deref().is_some_and(|pv| {
                        compare(&mm(pv), &mm(&cuda)) != Some(Ordering::Less)
                            && pinned
                                .as_ref()
                                .is_none_or(|(need, _)| compare(pv, need) != Some(Ordering::Less))
                    })
                });
                if let Some(p) = wheel_after {
                    detail.push_str(&format!(" The pip nvidia-cuda-nvcc wheel's ptxas {} ({}) is installed, but XLA searches PATH before it.", p.version.as_deref().unwrap_or("?"), p.path));
                }
                let summary = match &pinned {
                    Some((need, wheel)) if below_pin => {
                        detail.push_str(&format!(" Its own metadata asks for {wheel} >={need}: XLA needs ptxas {need} or newer."));
                        format!("{who} runs ptxas {v}; its XLA needs ptxas {need} or newer")
                    }
                    _ => format!("{who} runs ptxas {v}, older than CUDA {cuda}"),
                };
                detail.push_str(consequence(f.kind));
                let mut f =
                    Finding::new(codes::PTXAS_TOO_OLD, xla_severity(f.kind), summary, detail)
                        .with_libraries([ptxas_name(ctx.platform)])
                        .with_evidence(Evidence::at(
                            "file",
                            format!("ptxas {v} wins"),
                            w.path.clone(),
                        ));
                for d in &searched {
                    f = f.with_evidence(Evidence::at("searched", d.clone(), d.clone()));
                }
                if w.how.starts_with("CUDA_ROOT") {
                    f = f.with_fix(FixRef {
                        id: "env-unset:CUDA_ROOT".into(),
                        kind: FixKind::env("CUDA_ROOT", None),
                        summary: format!("Unset CUDA_ROOT (or point it at a CUDA {} toolkit or newer): JAX then hands XLA the ptxas of the pip nvidia-cuda-nvcc wheel", mm(&cuda)),
                    });
                }
                if let (Some(p), Some(dir)) = (wheel_after, &w.path_dir) {
                    f = f
                        .with_evidence(Evidence::at(
                            "file",
                            format!(
                                "the pip nvidia-cuda-nvcc wheel's ptxas {}",
                                p.version.as_deref().unwrap_or("?")
                            ),
                            p.path.clone(),
                        ))
                        .with_fix(FixRef {
                            id: format!("path-remove:{dir}"),
                            kind: FixKind::path(PathEdit {
                                variable: "PATH".into(),
                                add: None,
                                first: false,
                                remove: Some(dir.clone()),
                            }),
                            summary: format!(
                                "Remove {dir} from PATH for this process, so XLA runs the ptxas of the pip nvidia-cuda-nvcc wheel"
                            ),
                        });
                }
                match better.and_then(|b| b.bin_dirs.first().map(|bin| (b, bin))) {
                    Some((b, bin)) => f
                        .with_evidence(Evidence::at(
                            "file",
                            format!("newer ptxas (CUDA {})", b.version.as_deref().unwrap_or("?")),
                            b.ptxas.as_ref().map(|p| p.path.clone()).unwrap_or_default(),
                        ))
                        .with_fix(FixRef {
                            id: format!("path-prepend:{bin}"),
                            kind: FixKind::path(PathEdit::add("PATH", bin, true)),
                            summary: format!("Move {bin} before the older toolkit on PATH"),
                        }),
                    None if wheel_after.is_some() => f,
                    None => f.with_fix(install_ptxas(
                        &cuda,
                        ctx.platform,
                        format!("install-cuda-{}", mm(&cuda)),
                    )),
                }
            }
        };
        out.push(finding);
    }
    out.dedup_by(|a, b| a.code == b.code && a.summary == b.summary);
    out
}

/// The ptxas to install for a build made for CUDA `cuda`: the `nvidia-cuda-nvcc` wheel of that
/// major where PyPI has one for the platform (`-cu11`, `-cu12`; unsuffixed from 13), else the
/// toolkit from NVIDIA's archive as a manual step (no wheel carries CUDA 10's ptxas).
pub(crate) fn install_ptxas(cuda: &str, platform: Platform, id: String) -> FixRef {
    let major = cuda.split('.').next().unwrap_or("");
    let wheel = [
        format!("nvidia-cuda-nvcc-cu{major}"),
        format!("nvidia-cuda-nvcc~={major}.0"),
    ]
    .into_iter()
    .find(|name| {
        names_exist::parse_requirement(name)
            .and_then(|r| names_exist::pip_package_exists(&r, platform))
            == Some(true)
    });
    match wheel {
        Some(w) => FixRef {
            id,
            kind: FixKind::Install,
            summary: format!(
                "Install CUDA {} or newer, or pip install \"{w}\" (ptxas in the wheel)",
                mm(cuda)
            ),
        },
        None => FixRef {
            id: format!("install-cuda-{}", mm(cuda)),
            kind: FixKind::Manual,
            summary: format!(
                "Install the CUDA {} toolkit (it has ptxas) from NVIDIA's archive, \
                 https://developer.nvidia.com/cuda-toolkit-archive, and put its bin folder on PATH: \
                 no pip wheel carries the ptxas of CUDA {major}",
                mm(cuda)
            ),
        },
    }
}

/// How much a missing or old ptxas/libdevice costs: JAX runs everything through XLA (error);
/// TensorFlow starts and runs its prebuilt kernels, only XLA-compiled code fails (warning).
fn xla_severity(kind: FrameworkKind) -> Severity {
    match kind {
        FrameworkKind::TensorFlow => Severity::Warning,
        _ => Severity::Error,
    }
}

/// The consequence spelled out, for the framework at hand.
fn consequence(kind: FrameworkKind) -> &'static str {
    match kind {
        FrameworkKind::TensorFlow => {
            " TensorFlow still starts and runs its prebuilt GPU kernels; what XLA compiles (tf.function(jit_compile=True), models compiled with jit_compile) fails."
        }
        _ => " JAX compiles every computation with XLA, so GPU work fails.",
    }
}

fn libdevice_missing(who: &str, kind: FrameworkKind, t: &Toolkit) -> Finding {
    Finding::new(
        codes::LIBDEVICE_MISSING,
        xla_severity(kind),
        format!("CUDA {} at {} has no nvvm/libdevice/libdevice.10.bc", t.version.as_deref().unwrap_or("?"), t.root),
        format!("{who} uses this toolkit's ptxas; XLA also needs libdevice.10.bc from the same toolkit (\"libdevice not found at ./libdevice.10.bc\").{}", consequence(kind)),
    )
    .with_libraries(["libdevice.10.bc"])
    .with_evidence(Evidence::at("searched", "nvvm/libdevice missing", t.root.clone()))
    .with_fix(FixRef { id: format!("env-xla-data-dir:{}", t.root), kind: FixKind::unplanned_env(), summary: "Set XLA_FLAGS=--xla_gpu_cuda_data_dir=<a complete toolkit>".into() })
}

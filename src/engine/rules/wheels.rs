//! pip `nvidia-*` wheels and copies: wheel library folders that no framework in the environment
//! adds to its search (nothing loads them), and one CUDA component reaching one process from two
//! folders (a wheel or bundled copy and a toolkit copy found through PATH / LD_LIBRARY_PATH): a
//! warning only when the copies have different file names, so that both can really load.

use super::RuleInput;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::graph::load_list::{load_list, needed_names};
use crate::engine::graph::process::{self, PresenceProbe};
use crate::engine::inventory::FrameworkKind;
use crate::engine::knowledge::identify_library;
use std::collections::BTreeMap;

pub fn check(input: &RuleInput) -> Vec<Finding> {
    let (ctx, inv) = (input.ctx, input.inventory);

    let mut out = Vec::new();
    let probe = PresenceProbe::new(ctx);
    for env in &inv.python_envs {
        let users = env.frameworks.iter().any(|f| {
            !f.expects.wheels.is_empty()
                || !f.plugins.is_empty()
                || (f.kind == FrameworkKind::PyTorch
                    && ctx.platform == crate::engine::context::Platform::Linux)
        });
        if !env.nvidia_lib_dirs.is_empty() && !users {
            let mut f = Finding::new(
                codes::PIP_CUDA_WHEELS_NOT_SEARCHED,
                Severity::Warning,
                format!(
                    "pip nvidia-* libraries in {} are not searched by any loader",
                    env.root
                ),
                "The nvidia-* wheels put their libraries in site-packages/nvidia/*/{lib,bin}. No loader searches those folders by default; only frameworks that require the wheels (PyTorch on Linux, tensorflow[and-cuda], JAX's CUDA plugins) add them. Nothing installed here does, so these copies are never used.",
            );
            for d in &env.nvidia_lib_dirs {
                f = f.with_evidence(Evidence::at(
                    "file",
                    format!("{} wheel folder", d.component),
                    d.dir.clone(),
                ));
            }
            out.push(f.with_fix(FixRef { id: format!("manual-wheel-dirs:{}", env.root), kind: FixKind::Manual, summary: "Install a framework build that uses the wheels, or add their folders to the search path".into() }));
        }
        // Component -> folders it is loaded from in this environment's process.
        let mut seen: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        let mut add = |file: &str, path: String| {
            if let Some(id) = identify_library(file).filter(|id| id.component != "driver") {
                let dir = ctx.platform.parent(&path).unwrap_or_default();
                let v = seen.entry(id.component.clone()).or_default();
                if !v.iter().any(|(_, d)| ctx.platform.same_name(d, &dir)) {
                    v.push((path, dir));
                }
            }
        };
        for f in &env.frameworks {
            if let Some(dir) = &f.bundled_dir {
                for l in &f.bundled_libraries {
                    add(
                        ctx.platform.file_name(l),
                        ctx.platform.join(dir, ctx.platform.file_name(l)),
                    );
                }
            }
        }
        if users {
            for d in &env.nvidia_lib_dirs {
                for l in &d.libraries {
                    add(l, ctx.platform.join(&d.dir, l));
                }
            }
        }
        let loader = process::framework_loader(ctx, env, None);
        for f in env
            .frameworks
            .iter()
            .filter(|f| f.bundled_libraries.is_empty() && f.cuda_build != Some(false))
        {
            let Some(cuda) = f.expects.cuda.as_deref() else {
                continue;
            };
            // What the framework's own code loads (its load-list rows, or the guess where no row
            // and no readable entry library speaks for it). torch's list is its import tables,
            // which the closure rule reads; here its CUDA family stands for them, as before.
            let names: Vec<String> = if f.kind == FrameworkKind::PyTorch {
                needed_names(ctx.platform, cuda, f.expects.cudnn.as_deref())
            } else {
                load_list(ctx, f, &probe)
                    .into_iter()
                    .map(|l| l.name)
                    .collect()
            };
            for name in names {
                if let Some(p) = loader.resolve(&name, &probe).path {
                    add(&name, p);
                }
            }
        }
        for (component, copies) in seen {
            if copies.len() < 2 || component == "MSVC runtime" {
                continue;
            }
            // Copies under one file name do not both serve loads by name: ld.so and the
            // Windows loader hand every later load of that name the copy already in the
            // process (torch 2.11, JAX and CuPy 14 in one real venv beside /usr/local/cuda each
            // map the wheels' files and nothing else). Two such copies meet only when one
            // framework loads by full path after another loaded the other copy, in a process
            // that imports both: a note. Copies under different names (two majors:
            // libcudart.so.12 and libcudart.so.13) can both be in one process: a warning.
            let one_name = copies.windows(2).all(|pair| {
                ctx.platform.same_name(
                    ctx.platform.file_name(&pair[0].0),
                    ctx.platform.file_name(&pair[1].0),
                )
            });
            let (severity, summary, detail) = if one_name {
                (
                    Severity::Info,
                    format!(
                        "{component} is in {} folders reachable from {}",
                        copies.len(),
                        env.root
                    ),
                    format!(
                        "The frameworks in this environment could take {component} from {} different folders, under one file name. A process gives every load of that name the copy it already holds; two copies meet only when one framework loads its copy by full path after another framework loaded the other, in a process that imports both. Which copy each framework gets is in its dependency tree.",
                        copies.len()
                    ),
                )
            } else {
                (
                    Severity::Warning,
                    format!(
                        "Two copies of {component} can load into one process in {}",
                        env.root
                    ),
                    format!(
                        "The frameworks in this environment take {component} from {} different folders, under different file names (different majors), so both can be loaded into one process. Two builds of one CUDA library in one process can conflict (symbol clashes, version mismatch errors, crashes); keep one copy that every framework uses.",
                        copies.len()
                    ),
                )
            };
            let mut f = Finding::new(codes::DUPLICATE_LIBRARY, severity, summary, detail);
            for (path, _) in &copies {
                f = f.with_evidence(Evidence::at(
                    "file",
                    format!("{component} copy"),
                    path.clone(),
                ));
                f.libraries.push(ctx.platform.file_name(path).to_string());
            }
            out.push(f.with_fix(FixRef { id: format!("manual-one-copy:{component}"), kind: FixKind::Manual, summary: format!("Keep one {component}: align the frameworks' CUDA versions or remove the extra folder from PATH") }));
        }
    }
    out
}

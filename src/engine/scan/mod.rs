//! The scan: from a `SystemContext` to an [`Inventory`] (the rules then run over it in
//! [`crate::engine::diagnosis`]).
//!
//! Stages, each with its own time budget, reported on the shared [`Progress`] and checked for
//! cancellation between units of work:
//! 1. in parallel: CUDA toolkits then cuDNN ([`toolkits`], [`cudnn`]); the driver ([`driver`]);
//!    finding Python environments ([`python`]);
//! 2. reading the environments ([`frameworks`]), several at a time;
//! 3. conda toolkits and `zlibwapi.dll` copies.
//!
//! Everything goes through the context's file view ([`walker::Walker`]), so a fake machine scans
//! exactly like a real one. What could not be read is recorded in `Inventory::skipped`.

pub mod cudnn;
pub mod frameworks;
#[cfg(any(test, feature = "testing"))]
pub mod generated;
pub mod nvidia_driver;
pub mod pyfind;
pub mod pyparse;
pub mod python;
pub mod search_library;
pub mod toolkits;
pub mod tools;
pub mod version_clues;
pub mod walker;

pub use crate::engine::inventory::*;

use super::context::SystemContext;
use super::progress::Progress;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use walker::Walker;

/// How the scan behaves.
#[derive(Debug, Clone)]
pub struct ScanOptions {
    /// Time allowed to each step; past it the step stops and says what it skipped.
    pub step_budget: Duration,
    /// Run `python -c "import X"` for each framework found (live machine only).
    pub probe_imports: bool,
    /// Timeout of one import probe; a hung interpreter is killed.
    pub probe_timeout: Duration,
    /// Run `ptxas --version` when the binary does not reveal its version (live machine only).
    pub run_tools: bool,
    /// Environments read at once.
    pub parallelism: usize,
}

impl Default for ScanOptions {
    fn default() -> ScanOptions {
        ScanOptions {
            step_budget: Duration::from_secs(20),
            probe_imports: false,
            probe_timeout: Duration::from_secs(30),
            run_tools: false,
            parallelism: std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 8)),
        }
    }
}

/// Reads what is installed on `ctx`: toolkits, cuDNN, the driver, Python environments and
/// their frameworks. Stages report on `progress`; when it is cancelled the inventory holds what
/// was read so far.
pub fn inventory(ctx: &SystemContext, progress: &Progress, opts: &ScanOptions) -> Inventory {
    let mut inv = Inventory::default();
    if ctx.fs.has_files() {
        scan_files(ctx, progress, opts, &mut inv);
    } else {
        let mut w = Walker::new(ctx, progress, "driver", Instant::now() + opts.step_budget);
        inv.driver = nvidia_driver::scan(&mut w);
        inv.skipped.push(Skipped {
            path: "(every file)".into(),
            reason: "this context was rebuilt from a saved report, which holds no files".into(),
        });
    }
    inv
}

/// Per-environment results of stage 2.
type EnvResult = (
    Option<(PythonEnv, Vec<CudnnInstall>, Vec<Toolkit>)>,
    Vec<Skipped>,
);

fn scan_files(ctx: &SystemContext, progress: &Progress, opts: &ScanOptions, inv: &mut Inventory) {
    let budget = opts.step_budget;
    progress.stage(
        "Looking for CUDA toolkits, cuDNN, the driver and Python environments",
        3,
    );
    let ((toolkits, refs, cudnn_found, sk1), (drv, sk2), (candidates, sk3)) =
        std::thread::scope(|s| {
            let tk = s.spawn(|| {
                let mut w =
                    Walker::new(ctx, progress, "toolkits and cuDNN", Instant::now() + budget);
                let (t, r) = toolkits::scan(&mut w, opts.run_tools);
                let c = cudnn::scan(&mut w, &t);
                progress.tick();
                (t, r, c, w.skipped)
            });
            let dr = s.spawn(|| {
                let mut w = Walker::new(ctx, progress, "driver", Instant::now() + budget);
                let d = nvidia_driver::scan(&mut w);
                progress.tick();
                (d, w.skipped)
            });
            let mut w = Walker::new(
                ctx,
                progress,
                "finding Python environments",
                Instant::now() + budget,
            );
            let cands = pyfind::discover(&mut w);
            progress.tick();
            let c = (cands, w.skipped);
            let join_failed = |what: &str| Skipped {
                path: String::new(),
                reason: format!("the {what} step stopped unexpectedly"),
            };
            (
                tk.join().unwrap_or_else(|_| {
                    (
                        Vec::new(),
                        Vec::new(),
                        Vec::new(),
                        vec![join_failed("toolkits")],
                    )
                }),
                dr.join()
                    .unwrap_or_else(|_| (DriverInventory::default(), vec![join_failed("driver")])),
                c,
            )
        });
    inv.toolkits = toolkits;
    inv.toolkit_references = refs;
    inv.cudnn = cudnn_found;
    inv.driver = drv;
    inv.skipped.extend(sk1.into_iter().chain(sk2).chain(sk3));
    if progress.is_cancelled() {
        return;
    }

    progress.stage(
        &format!("Reading {} Python environments", candidates.len()),
        candidates.len(),
    );
    let results: Vec<Mutex<Option<EnvResult>>> =
        candidates.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let deadline = Instant::now() + budget;
    let workers = opts.parallelism.max(1).min(candidates.len().max(1));
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(c) = candidates.get(i) else { break };
                    let mut w = Walker::new(ctx, progress, "reading Python environments", deadline);
                    let env = if w.should_stop(&c.root) {
                        None
                    } else {
                        Some(read_one_env(&mut w, c, opts))
                    };
                    if let Ok(mut slot) = results[i].lock() {
                        *slot = Some((env, w.skipped));
                    }
                    progress.tick();
                }
            });
        }
    });
    for slot in results {
        let Some((read, skipped)) = slot.into_inner().ok().flatten() else {
            continue;
        };
        if let Some((env, cudnn_found, conda_toolkits)) = read {
            inv.python_envs.push(env);
            inv.cudnn.extend(cudnn_found);
            inv.toolkits.extend(conda_toolkits);
        }
        inv.skipped.extend(skipped);
    }
    if progress.is_cancelled() {
        return;
    }
    progress.stage("Looking for zlibwapi.dll", 1);
    let mut w = Walker::new(ctx, progress, "zlibwapi", Instant::now() + budget);
    inv.zlibwapi = cudnn::find_zlibwapi(&mut w, &inv.toolkits, &inv.cudnn);
    inv.skipped.extend(w.skipped);
    progress.tick();
}

/// Reads one environment: interpreter, packages, conda toolkit/cuDNN, optional import probes.
fn read_one_env(
    w: &mut Walker,
    c: &pyfind::Candidate,
    opts: &ScanOptions,
) -> (PythonEnv, Vec<CudnnInstall>, Vec<Toolkit>) {
    let mut env = python::read_env(w, c);
    let mut cudnn_found = frameworks::read_site_packages(w, &mut env, opts.run_tools);
    let mut conda_toolkits = Vec::new();
    let p = w.platform();
    let pkg = |name: &str| {
        env.conda_packages
            .iter()
            .find(|p| p.name == name)
            .and_then(|p| p.version.clone())
    };
    let toolkit_pkg = [
        "cudatoolkit",
        "cuda-cudart",
        "cuda-runtime",
        "cuda-toolkit",
        "cuda-nvcc",
        "cuda-version",
    ]
    .iter()
    .find_map(|n| pkg(n).map(|v| (*n, v)));
    if let Some((name, ver)) = toolkit_pkg {
        let found_by = FoundBy::CondaPackages {
            env: env.root.clone(),
        };
        if let Some(mut t) =
            toolkits::examine(w, &env.root, ToolkitKind::Conda, found_by, opts.run_tools)
        {
            let path = p.join(&p.join(&env.root, "conda-meta"), name);
            t.version_evidence.insert(
                0,
                VersionEvidence {
                    source: crate::engine::inventory::VersionSource::CondaMeta,
                    path,
                    version: ver,
                },
            );
            t.version = t.version_evidence.first().map(|e| e.version.clone());
            conda_toolkits.push(t);
        }
    }
    if let Some(ver) = pkg("cudnn").or_else(|| pkg("libcudnn")) {
        let (dirs, header) = match p {
            crate::engine::context::Platform::Windows => (
                vec![p.join(&env.root, r"Library\bin")],
                p.join(&env.root, r"Library\include\cudnn_version.h"),
            ),
            crate::engine::context::Platform::Linux => (
                vec![p.join(&env.root, "lib")],
                p.join(&env.root, "include/cudnn_version.h"),
            ),
        };
        let src = CudnnSource::Conda {
            env: env.root.clone(),
        };
        if let Some(mut inst) = cudnn::install(w, &env.root, src, &dirs, &[header]) {
            let path = p.join(&p.join(&env.root, "conda-meta"), "cudnn");
            inst.version_evidence.insert(
                0,
                VersionEvidence {
                    source: crate::engine::inventory::VersionSource::CondaMeta,
                    path,
                    version: ver,
                },
            );
            inst.version = inst.version_evidence.first().map(|e| e.version.clone());
            cudnn_found.push(inst);
        }
    }
    let live = matches!(w.ctx.source, crate::engine::context::ContextSource::Live);
    if opts.probe_imports
        && live
        && let Some(exe) = env.python_exe.as_deref().and_then(|e| w.host(e))
    {
        for f in env.frameworks.clone() {
            if w.should_stop(&env.root) {
                break;
            }
            env.import_probes.push(tools::probe_import(
                &w.ctx.session,
                &exe,
                f.kind.module(),
                opts.probe_timeout,
            ));
        }
    }
    (env, cudnn_found, conda_toolkits)
}

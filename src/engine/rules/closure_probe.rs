//! What really happened, beside what the emulation predicted: with `scan --probe` the framework
//! is imported in a child process (live machine only), which reports the shared objects it had
//! mapped (`/proc/self/maps`). A library of the predicted closure that the real process mapped
//! from another file, or an import that failed although the whole closure resolved, is a finding
//! of its own — the emulation is missing something this machine does.

use crate::engine::context::SystemContext;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, Severity};
use crate::engine::graph::DependencyGraph;
use crate::engine::inventory::{Framework, ImportProbe, ProbeOutcome, PythonEnv};
use crate::engine::loader::How;

/// Most disagreements listed in one finding.
const MAX_LISTED: usize = 12;

pub fn compare(
    ctx: &SystemContext,
    env: &PythonEnv,
    fw: &Framework,
    probe: &ImportProbe,
    graphs: &[DependencyGraph],
    predicted_errors: usize,
) -> Vec<Finding> {
    let name = fw.kind.display_name();
    let mut out = Vec::new();
    if probe.outcome == ProbeOutcome::Failed && predicted_errors == 0 && !graphs.is_empty() {
        let last = probe
            .stderr_tail
            .lines()
            .last()
            .unwrap_or_default()
            .to_string();
        out.push(
            Finding::new(
                codes::IMPORT_FAILED_UNPREDICTED,
                Severity::Error,
                format!("import {} fails, though every library of {name}'s closure resolves", probe.module),
                format!(
                    "The real import in the Python of {} failed: {last}. The loader emulation found \
                     every library {name} needs, so the cause is outside what it models (a preloaded \
                     library, LD_PRELOAD, a Python-level error): read the error below, or paste it \
                     into the Welcome step.",
                    env.root
                ),
            )
            .with_evidence(Evidence::at("environment", env.root.clone(), env.root.clone()))
            .with_evidence(Evidence::new("log", probe.stderr_tail.clone())),
        );
    }
    if probe.outcome != ProbeOutcome::Ok || probe.mapped.is_empty() {
        return out;
    }
    let p = ctx.platform;
    // name, predicted file, mapped file, and the load-list row (the edge) that asks for it.
    let mut disagreements: Vec<(String, String, String, String)> = Vec::new();
    for graph in graphs {
        for node in &graph.nodes {
            let Some(predicted) = node.path.as_deref() else {
                continue;
            };
            if node.how == How::Runtime {
                continue;
            }
            let real_file = resolve_links(ctx, predicted);
            let file = p.file_name(&real_file);
            let mapped: Vec<&String> = probe
                .mapped
                .iter()
                .filter(|m| p.file_name(m) == file)
                .collect();
            if mapped.is_empty() || mapped.iter().any(|m| **m == real_file) {
                continue;
            }
            if disagreements
                .iter()
                .any(|d| d.0 == node.name && d.1 == predicted)
            {
                continue;
            }
            let row = format!(
                "{}; read in the closure of {}, an entry library of {name}",
                crate::engine::graph::checks::edge_evidence(p, node).text,
                p.file_name(&graph.root)
            );
            disagreements.push((
                node.name.clone(),
                predicted.to_string(),
                mapped[0].clone(),
                row,
            ));
        }
    }
    if disagreements.is_empty() {
        return out;
    }
    let mut f = Finding::new(
        codes::LOADER_DISAGREES,
        Severity::Warning,
        format!(
            "The real import of {} mapped {} other than the scan predicted",
            probe.module,
            if disagreements.len() == 1 {
                "1 library from a file".to_string()
            } else {
                format!("{} libraries from files", disagreements.len())
            }
        ),
        format!(
            "import {} in the Python of {} succeeded, but the process loaded these libraries from \
             other files than the loader emulation resolved. Something outside the emulation put \
             them first (an earlier import that preloaded them, LD_PRELOAD, a framework's own \
             preload): check that the copies it uses are the versions {name} expects.",
            probe.module, env.root
        ),
    )
    .with_evidence(Evidence::at(
        "environment",
        env.root.clone(),
        env.root.clone(),
    ));
    for (name, predicted, real, row) in disagreements.iter().take(MAX_LISTED) {
        f = f
            .with_libraries([name.clone()])
            .with_evidence(Evidence::new("load-list", row.clone()))
            .with_evidence(Evidence::at("predicted", name.clone(), predicted.clone()))
            .with_evidence(Evidence::at("mapped", name.clone(), real.clone()));
    }
    out.push(f);
    out
}

/// A machine path with its symbolic links followed, as /proc/self/maps shows files. The probe
/// only runs on the live machine, where the host path is the machine path: every link on the
/// way (a venv's `lib64`) is resolved there; otherwise the last component's links are.
fn resolve_links(ctx: &SystemContext, path: &str) -> String {
    let live = ctx.source == crate::engine::context::ContextSource::Live;
    if let Some(real) = live
        .then(|| ctx.fs.file(path).ok())
        .flatten()
        .and_then(|host| std::fs::canonicalize(host).ok())
        .and_then(|p| p.to_str().map(str::to_string))
    {
        return real;
    }
    let mut current = path.to_string();
    for _ in 0..16 {
        match ctx.fs.read_link(&current) {
            Ok(target) if target != current => current = target,
            _ => break,
        }
    }
    current
}

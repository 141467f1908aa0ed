//! Findings from a dependency tree: a library that is not found (with every directory tried and
//! every copy elsewhere on the machine), one found only for the wrong machine (error 193 /
//! "wrong ELF class"), an unreadable candidate, an import the resolved DLL does not export
//! (error 127) or a symbol version the resolved .so does not define ("version `GLIBC_2.38' not
//! found"), and two copies of one library in one process. A miss deep in the tree is reported
//! against the root, naming the chain root → … → missing, since that is what fails to load.
//! Not wired into `rules::run_all`: these need a binary (the `tree` command and the GUI's
//! Dependencies step call [`check`]).

mod exports;

use crate::engine::context::{Platform, SystemContext};
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, Severity};
use crate::engine::graph::{DependencyGraph, Node};
use crate::engine::loader::locate::Locator;
use crate::engine::loader::{Attempt, How, Outcome};
use std::collections::BTreeMap;

/// CUDA components whose copies must not be mixed in one process (file-name stems).
const CUDA_STEMS: &[&str] = &[
    "cudart",
    "cublas",
    "cublaslt",
    "cufft",
    "curand",
    "cusolver",
    "cusparse",
    "cudnn",
    "nvrtc",
    "nvjitlink",
    "cupti",
    "cuda",
    "nvcuda",
];

/// All findings of one tree.
pub fn check(ctx: &SystemContext, graph: &DependencyGraph) -> Vec<Finding> {
    let mut findings = Vec::new();
    findings.extend(missing(ctx, graph));
    findings.extend(exports::check(ctx, graph));
    findings.extend(duplicates(graph));
    findings.extend(missing_assemblies(ctx, graph));
    crate::engine::findings::sort_by_severity(&mut findings);
    findings
}

/// `root → a → b → name` for a node.
pub fn chain_text(ctx: &SystemContext, graph: &DependencyGraph, index: usize) -> String {
    let p = ctx.platform;
    let mut parts = vec![p.file_name(&graph.root).to_string()];
    for i in graph.chain(index) {
        parts.push(graph.nodes[i].name.clone());
    }
    parts.join(" → ")
}

/// The evidence kind naming the edge that asks for a library: which binary needs it, and how.
pub const NEEDED_BY: &str = "needed by";

/// Why the tree holds `node`: the binary that asks for it and how — its import table
/// (`DT_NEEDED` on Linux), its delay-load table, or a run-time open with the knowledge row or
/// embedded name that says so (`runtime_loads.toml`). Evidence kind [`NEEDED_BY`], at the
/// asking binary's path.
pub fn edge_evidence(platform: Platform, node: &Node) -> Evidence {
    let parent = platform.file_name(&node.parent);
    let text = match &node.runtime {
        Some(r) if r.reason.contains("embedded in the binary") => {
            format!("{parent} may open {} at run time: {}", node.name, r.reason)
        }
        Some(r) => format!(
            "{parent} opens {} at run time: {} (runtime_loads.toml)",
            node.name, r.reason
        ),
        None if node.delay => format!("{parent}'s delay-load import table names {}", node.name),
        None => match platform {
            Platform::Linux => format!("{parent}'s import table (DT_NEEDED) names {}", node.name),
            Platform::Windows => format!("{parent}'s import table names {}", node.name),
        },
    };
    Evidence::at(NEEDED_BY, text, node.parent.clone())
}

/// One attempt in words, for evidence and text output.
pub fn attempt_text(a: &Attempt) -> String {
    let what = match &a.outcome {
        Outcome::Found => "found".to_string(),
        Outcome::NotFound => "not there".to_string(),
        Outcome::WrongMachine { found } => format!("skipped: built for {found}"),
        Outcome::Unreadable { message } => format!("cannot be loaded: {message}"),
    };
    format!("{} {} — {what}", a.source.as_str(), a.directory)
}

fn missing(ctx: &SystemContext, graph: &DependencyGraph) -> Vec<Finding> {
    let p = ctx.platform;
    let root_name = p.file_name(&graph.root).to_string();
    // Directories where the rest of the tree resolved: copies there are worth naming.
    let mut known_dirs: Vec<String> = graph
        .nodes
        .iter()
        .filter_map(|n| n.path.as_deref().and_then(|x| p.parent(x)))
        .collect();
    known_dirs.extend(p.parent(&graph.root));
    known_dirs.dedup();
    // The folders to look for copies in, worked out once for every missing name.
    let locator = std::cell::OnceCell::new();
    let copies = |name: &str, attempts: &[Attempt]| {
        // Folders the loader already found empty for this name need no second look.
        let empty: Vec<String> = attempts
            .iter()
            .filter(|a| a.outcome == Outcome::NotFound)
            .map(|a| a.directory.clone())
            .collect();
        locator
            .get_or_init(|| Locator::new(ctx, &known_dirs))
            .find_except(ctx, name, &empty)
    };
    let mut reported: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for (i, node) in graph.nodes.iter().enumerate() {
        if node.is_resolved() {
            continue;
        }
        let key = if p.case_insensitive() {
            node.name.to_lowercase()
        } else {
            node.name.clone()
        };
        if reported.contains(&key) {
            continue;
        }
        reported.push(key);
        let parents: Vec<String> = graph
            .nodes
            .iter()
            .filter(|n| !n.is_resolved() && p.same_name(&n.name, &node.name))
            .map(|n| p.file_name(&n.parent).to_string())
            .collect();
        out.push(missing_finding(
            ctx,
            graph,
            i,
            node,
            &root_name,
            &parents,
            copies(&node.name, &node.attempts),
        ));
    }
    out
}

fn missing_finding(
    ctx: &SystemContext,
    graph: &DependencyGraph,
    index: usize,
    node: &Node,
    root_name: &str,
    parents: &[String],
    copies: Vec<String>,
) -> Finding {
    let p = ctx.platform;
    let chain = chain_text(ctx, graph, index);
    let parent = p.file_name(&node.parent).to_string();
    let wrong: Vec<(&Attempt, &str)> = node
        .attempts
        .iter()
        .filter_map(|a| match &a.outcome {
            Outcome::WrongMachine { found } => Some((a, found.as_str())),
            _ => None,
        })
        .collect();
    let unreadable = node.attempts.iter().find_map(|a| match &a.outcome {
        Outcome::Unreadable { message } => Some((a, message.clone())),
        _ => None,
    });
    let want = &graph.root_info.machine;
    let (code, summary, mut detail) = if let Some((a, message)) = &unreadable {
        (
            codes::LIBRARY_UNREADABLE,
            format!("{} in {} cannot be loaded", node.name, a.directory),
            format!(
                "The loader stopped at a file that is not a usable library ({message}). Replace or remove it."
            ),
        )
    } else if !wrong.is_empty() {
        let code_text = match p {
            Platform::Windows => "Windows error 193 (ERROR_BAD_EXE_FORMAT)",
            Platform::Linux => "\"wrong ELF class\"",
        };
        (
            codes::LIBRARY_WRONG_MACHINE,
            format!(
                "{} exists only for the wrong machine ({}), {} needs {}-bit {}",
                node.name, wrong[0].1, parent, want.bits, want.arch
            ),
            format!(
                "The loader skipped every copy it found because it is built for another machine; \
                 this is {code_text}. Install the {}-bit {} build of {}.",
                want.bits, want.arch, node.name
            ),
        )
    } else {
        let os_text = match p {
            Platform::Windows => {
                "Windows reports error 126 (ERROR_MOD_NOT_FOUND), often naming the DLL you loaded rather than this one"
            }
            Platform::Linux => {
                "ld.so reports \"cannot open shared object file: No such file or directory\""
            }
        };
        (
            if node.runtime.is_some() {
                codes::RUNTIME_LIBRARY_NOT_FOUND
            } else {
                codes::LIBRARY_NOT_FOUND
            },
            match &node.runtime {
                // A run-time load does not stop the binary from loading: the call that opens it
                // fails later (and an optional one only costs a feature).
                Some(r) if r.required => format!(
                    "{} is not found: {} will fail when it opens it at run time",
                    node.name,
                    p.file_name(&node.parent)
                ),
                Some(_) => format!(
                    "{} is not found; {} may open it at run time, and only what needs it will fail",
                    node.name,
                    p.file_name(&node.parent)
                ),
                None => format!("{} is not found, so {root_name} cannot load", node.name),
            },
            format!("{os_text}."),
        )
    };
    let severity = match &node.runtime {
        Some(r) if r.required => Severity::Error,
        Some(r) if r.reason.contains("embedded in the binary") => Severity::Info,
        Some(_) => Severity::Warning,
        None if node.delay => Severity::Warning,
        None => Severity::Error,
    };
    if chain.matches(" → ").count() > 1 {
        detail = format!("{detail} It is needed deep in the tree: {chain}.");
    } else {
        detail = format!("{detail} {root_name} needs it directly.");
    }
    if let Some(r) = &node.runtime {
        detail = format!(
            "{detail} {parent} opens it at run time, so loading works until the first call that needs it: {}.",
            r.reason
        );
    }
    if node.delay {
        detail = format!(
            "{detail} It is a delay-load import: the failure comes at the first call into it."
        );
    }
    let others: Vec<&String> = parents.iter().filter(|x| **x != parent).collect();
    if !others.is_empty() {
        let list: Vec<&str> = others.iter().map(|s| s.as_str()).collect();
        detail = format!("{detail} Also needed by {}.", list.join(", "));
    }
    let mut f = Finding::new(code, severity, summary, detail)
        .with_libraries([node.name.clone()])
        .with_evidence(Evidence::new("chain", chain));
    for a in &node.attempts {
        f = f.with_evidence(Evidence::at(
            "attempt",
            attempt_text(a),
            a.directory.clone(),
        ));
    }
    if node.attempts.is_empty() && node.how != How::Loaded {
        f = f.with_evidence(Evidence::new("attempt", "no directory was searched"));
    }
    for copy in copies {
        let tried = node.attempts.iter().any(|a| {
            p.parent(&copy)
                .is_some_and(|d| p.same_path(&d, &a.directory))
        });
        let text = if tried {
            "a copy is here, but the loader could not use it"
        } else {
            "a copy is here, in a directory the loader does not search"
        };
        f = f.with_evidence(Evidence::at("file", text, copy));
    }
    f.with_evidence(edge_evidence(p, node))
}

/// The component stem of a library file name (`libcudart.so.12` → `cudart`,
/// `cublasLt64_12.dll` → `cublaslt`), if it is a CUDA component.
pub fn cuda_stem(platform: Platform, name: &str) -> Option<String> {
    let lower = name.to_lowercase();
    let stem = match platform {
        Platform::Linux => {
            let s = lower.strip_prefix("lib").unwrap_or(&lower);
            s.split(".so").next().unwrap_or(s).to_string()
        }
        Platform::Windows => {
            let s = lower.strip_suffix(".dll").unwrap_or(&lower);
            let s = s.split('_').next().unwrap_or(s);
            s.trim_end_matches(|c: char| c.is_ascii_digit()).to_string()
        }
    };
    CUDA_STEMS.contains(&stem.as_str()).then_some(stem)
}

fn duplicates(graph: &DependencyGraph) -> Vec<Finding> {
    let p = graph.platform;
    let mut groups: BTreeMap<String, Vec<&Node>> = BTreeMap::new();
    for node in graph.nodes.iter().filter(|n| n.path.is_some()) {
        let found_by = node.runtime.as_ref().map_or(node.how, |r| r.found_by);
        if found_by == How::Loaded {
            continue;
        }
        let file = p.file_name(node.path.as_deref().unwrap_or_default());
        let key = cuda_stem(p, file).unwrap_or_else(|| {
            let soname = node
                .path
                .as_deref()
                .and_then(|x| graph.info(x))
                .and_then(|i| i.soname.clone());
            soname.unwrap_or_else(|| file.to_lowercase())
        });
        let group = groups.entry(key).or_default();
        if !group.iter().any(|n| n.path == node.path) {
            group.push(node);
        }
    }
    let mut out = Vec::new();
    for (key, nodes) in groups.into_iter().filter(|(_, v)| v.len() > 1) {
        let mut f = Finding::new(
            codes::DUPLICATE_LIBRARY,
            Severity::Warning,
            format!(
                "{} copies of {key} are loaded into one process",
                nodes.len()
            ),
            "Two different files of one library end up in the same process (for example cudart from a pip \
             wheel and from the toolkit). Symbols bind to whichever loaded first, so versions mix: expect \
             error 127 / undefined symbols or wrong results. Keep one install on the search path.",
        );
        for n in nodes {
            let path = n.path.clone().unwrap_or_default();
            let text = format!(
                "{} {}needed by {} ({})",
                n.name,
                n.version
                    .as_ref()
                    .map(|v| format!("{v} "))
                    .unwrap_or_default(),
                p.file_name(&n.parent),
                n.how.as_str()
            );
            f = f
                .with_libraries([n.name.clone()])
                .with_evidence(Evidence::at("file", text, path));
        }
        out.push(f);
    }
    out
}

#[cfg(test)]
mod tests;

/// A side-by-side assembly the root's manifest names that is nowhere: Windows cannot build the
/// activation context and the program does not start (error 14001).
fn missing_assemblies(ctx: &SystemContext, graph: &DependencyGraph) -> Vec<Finding> {
    let root = ctx.platform.file_name(&graph.root);
    graph
        .assemblies
        .iter()
        .filter(|a| a.manifest.is_none())
        .map(|a| {
            let id = &a.identity;
            let mut f = Finding::new(
                "assembly-not-found",
                Severity::Error,
                format!(
                    "{root} needs the side-by-side assembly {} {} ({}), which is not installed",
                    id.name, id.version, id.arch
                ),
                "Windows builds a program's activation context from its manifest before the program runs. \
                 When an assembly the manifest names is neither in the WinSxS store nor beside the program, \
                 the program does not start: \"The application has failed to start because its side-by-side \
                 configuration is incorrect\" (error 14001). Install the redistributable that provides the \
                 assembly (Microsoft.VC80.CRT / VC90.CRT: the Visual C++ 2005 / 2008 redistributable of the \
                 same architecture), or put the private assembly's folder beside the program.",
            );
            for t in &a.tried {
                f = f.with_evidence(Evidence::at("file", "looked for the assembly's manifest", t.clone()));
            }
            f
        })
        .collect()
}

//! The tree entry point: the dependency tree of a binary given by path, relative path or bare
//! name (searched for as the chosen process would), its findings, and its report — or, for a
//! bare name the process would not find, the error finding with every place tried.

use crate::engine::Error;
use crate::engine::context::{Platform, SystemContext};
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, Severity};
use crate::engine::graph::{DependencyGraph, GraphError, GraphOptions, root};
use crate::engine::loader::Resolution;
use crate::engine::progress::Progress;
use crate::engine::report::{Report, RootResolution};

/// What to build the tree of, and in which process.
#[derive(Debug, Clone, Default)]
pub struct TreeRequest {
    /// An absolute path, a relative path or a bare name (`cublas64_11.dll`, `libcudnn.so.8`).
    pub binary: String,
    /// The process: loading context, depth, run-time loads.
    pub options: GraphOptions,
    /// Linux: the library that opens a bare name (its RPATH/RUNPATH take part).
    pub from: Option<String>,
    /// The folder a relative path is taken from when the caller knows it (on this computer,
    /// the command line's current folder). Without it a relative path is the loader's business:
    /// Windows searches for it as LoadLibrary does; Linux opens it from `--cwd`.
    pub relative_to: Option<String>,
}

/// A built tree, or a bare name the process would not find.
#[derive(Debug, Clone)]
pub enum TreeOutcome {
    Built {
        /// The binary as asked for.
        requested: String,
        graph: DependencyGraph,
        /// How a bare name was found (absent for a path).
        resolution: Option<Resolution>,
        findings: Vec<Finding>,
    },
    NotFound {
        name: String,
        resolution: Resolution,
        finding: Finding,
    },
}

/// Builds the tree `request` asks for; `progress` can cancel it.
pub fn tree(
    ctx: &SystemContext,
    request: &TreeRequest,
    progress: &Progress,
) -> Result<TreeOutcome, Error> {
    progress.stage("Resolving dependencies", 0);
    let arg = root_argument(ctx, request)?;
    let mut options = request.options.clone();
    options.cancel = Some(progress.clone());
    match root::build_for(ctx, &arg, &options, request.from.as_deref()) {
        Ok(root::Rooted::Built { graph, resolution }) => {
            let findings = crate::engine::graph::checks::check(ctx, &graph);
            Ok(TreeOutcome::Built {
                requested: request.binary.clone(),
                graph,
                resolution,
                findings,
            })
        }
        Ok(root::Rooted::NotFound(resolution)) => Ok(TreeOutcome::NotFound {
            finding: not_found_finding(ctx, &request.binary, &resolution),
            name: request.binary.clone(),
            resolution,
        }),
        Err(GraphError::Cancelled) => Err(Error::Cancelled),
        Err(e) => Err(Error::Tree(e)),
    }
}

impl TreeOutcome {
    /// The report of the JSON contract: `root`, `root_info`, `nodes` and, for a bare name,
    /// `root_resolution`.
    pub fn report(&self, ctx: &SystemContext) -> Report {
        match self {
            TreeOutcome::Built {
                requested,
                graph,
                resolution,
                findings,
            } => {
                let mut report = Report::new(ctx, findings.clone());
                report.root = Some(graph.root.clone());
                report.root_info = Some(crate::engine::report::RootInfo::of(ctx, graph));
                report.nodes = Some(graph.nodes.clone());
                report.root_resolution = resolution
                    .as_ref()
                    .map(|r| RootResolution::of(requested, r));
                report
            }
            TreeOutcome::NotFound {
                name,
                resolution,
                finding,
            } => {
                let mut report = Report::new(ctx, vec![finding.clone()]);
                report.root_resolution = Some(RootResolution::of(name, resolution));
                report
            }
        }
    }
}

/// The machine path (or bare name) the tree starts from. An absolute path is normalised; a
/// relative one is joined to `relative_to` when given, else left to the loader (Windows) or
/// taken from the process's current folder (`--cwd`, Linux).
fn root_argument(ctx: &SystemContext, request: &TreeRequest) -> Result<String, Error> {
    let p = ctx.platform;
    let binary = request.binary.as_str();
    if p.is_absolute(binary) {
        return Ok(p.normalize(binary));
    }
    if root::is_bare_name(p, binary) {
        return Ok(binary.to_string());
    }
    if let Some(dir) = &request.relative_to {
        return Ok(p.normalize(&p.join(dir, binary)));
    }
    match (p, request.options.windows.cwd.as_deref()) {
        (Platform::Windows, _) => Ok(binary.to_string()),
        (_, Some(dir)) if p.is_absolute(dir) => Ok(p.normalize(&p.join(dir, binary))),
        _ => Err(Error::Request(format!(
            "{binary} is relative: dlopen opens it from the process's current folder; give that folder with --cwd /abs/dir, or the binary as an absolute path"
        ))),
    }
}

/// A bare name the process would not find: an error finding with every place tried.
fn not_found_finding(ctx: &SystemContext, name: &str, r: &Resolution) -> Finding {
    let mut finding = Finding::new(
        codes::LIBRARY_NOT_FOUND,
        Severity::Error,
        format!("{name} is not found where this process looks"),
        format!(
            "Loading {name} by name fails: {}",
            match ctx.platform {
                Platform::Windows => "LoadLibrary reports error 126 (ERROR_MOD_NOT_FOUND).",
                Platform::Linux =>
                    "dlopen reports \"cannot open shared object file: No such file or directory\".",
            }
        ),
    )
    .with_libraries(vec![name.to_string()]);
    for a in &r.attempts {
        finding = finding.with_evidence(Evidence::at(
            "searched",
            crate::engine::graph::checks::attempt_text(a),
            a.directory.clone(),
        ));
    }
    finding
}

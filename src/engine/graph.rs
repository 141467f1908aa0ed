//! The dependency graph of one binary: every library it loads, where each resolved, how, and
//! what was tried — the `"nodes"` of `cuda-triage tree --json`.
//!
//! The walk follows the real loaders. Load-time imports are processed breadth-first, as glibc's
//! `_dl_map_object_deps` does (its order decides which RPATHs a library inherits and which copy
//! wins); a name already loaded (Linux: a requested name, soname or the same file; Windows: the
//! module name) is reused, shown as `how = "loaded"` and not expanded again, so cycles end.
//! Run-time loads (LoadLibrary/dlopen, see `loader::runtime`) come after the load-time closure,
//! from the object that opens them, with `how = "runtime"`; each new object brings its own
//! load-time closure. `max_depth` bounds how deep objects are expanded.
//!
//! The tree is a list of [`Node`]s in discovery order; `parent_node` indexes the list (root =
//! `None`), so front ends can nest it without re-resolving anything.

pub mod checks;
pub mod framework;
pub mod load_list;
pub mod probe;
pub mod process;
pub mod root;
mod walk;

pub use probe::FsProbe;

use crate::engine::binfmt::BinaryInfo;
use crate::engine::context::{Platform, SystemContext};
use crate::engine::loader::windows::WindowsOptions;
use crate::engine::loader::{Attempt, How};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Arc;

pub use crate::engine::binfmt::cache::Reader;

/// How deep objects are expanded unless told otherwise.
pub const DEFAULT_MAX_DEPTH: usize = 64;

/// Options of one graph walk.
#[derive(Debug, Clone)]
pub struct GraphOptions {
    /// Objects at this depth are listed but their dependencies are not (root = 0).
    pub max_depth: usize,
    /// Follow run-time loads (LoadLibrary/dlopen) from the knowledge table and embedded names.
    pub runtime: bool,
    /// The Windows loading context (ignored for Linux).
    pub windows: WindowsOptions,
    /// Linux: the process's main program (a framework's `python`), whose DT_RPATH ends every
    /// RPATH chain as in ld.so; `None` when the root is the program itself.
    pub main_program: Option<String>,
    /// Cancels the walk (the wizard's Cancel); the build then fails with [`GraphError::Cancelled`].
    pub cancel: Option<crate::engine::progress::Progress>,
}

impl Default for GraphOptions {
    fn default() -> Self {
        GraphOptions {
            max_depth: DEFAULT_MAX_DEPTH,
            runtime: true,
            windows: WindowsOptions::default(),
            main_program: None,
            cancel: None,
        }
    }
}

/// Extra facts about an edge that no import table shows: a run-time load.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuntimeEdge {
    /// A miss breaks ordinary work (error) rather than one feature (warning).
    pub required: bool,
    /// Why it is believed to be loaded (knowledge-table note and source, or embedded name).
    pub reason: String,
    /// The search step that found it (or `loaded`), since `how` says `runtime`.
    pub found_by: How,
}

/// One edge of the tree: a library name some binary needs, and how it resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    /// The name as the parent asks for it (`libcudnn.so.8`, `KERNEL32.dll`).
    pub name: String,
    /// Machine path where it resolved; `null` when missing (and for API sets).
    pub path: Option<String>,
    pub how: How,
    /// Machine path of the binary that needs it.
    pub parent: String,
    /// 1 for the root's direct dependencies.
    pub depth: usize,
    pub version: Option<String>,
    /// Architecture of the resolved file (`x86_64`, `i386`).
    pub machine: Option<String>,
    pub attempts: Vec<Attempt>,
    /// PE delay-load import: resolved at the first call, not at load time.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub delay: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<RuntimeEdge>,
    /// Index of the parent's node in `nodes` (`None` for the root's direct dependencies).
    #[serde(skip)]
    pub parent_node: Option<usize>,
    /// Whether this node's own dependencies are listed (false for reused and depth-capped ones).
    #[serde(skip)]
    pub expanded: bool,
}

impl Node {
    /// Whether the loader would succeed for this edge.
    pub fn is_resolved(&self) -> bool {
        self.path.is_some() || self.how == How::ApiSet
    }
}

/// Why a graph could not be built at all (the CLI's exit code 2).
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum GraphError {
    /// The root binary cannot be read; `message` names it.
    #[error("{message}")]
    Root { path: String, message: String },
    /// The loader would refuse the request itself (error 87).
    #[error("{message}")]
    InvalidParameter { message: String },
    /// The walk was cancelled through [`GraphOptions::cancel`].
    #[error("cancelled")]
    Cancelled,
    #[error("{path}: a {format} binary cannot be loaded on a {platform} machine")]
    WrongPlatform {
        path: String,
        format: &'static str,
        platform: &'static str,
    },
}

/// The resolved tree of one binary.
#[derive(Debug, Clone)]
pub struct DependencyGraph {
    pub platform: Platform,
    /// Machine path of the root binary.
    pub root: String,
    pub root_info: Arc<BinaryInfo>,
    pub nodes: Vec<Node>,
    /// Parsed binaries by machine path (root and every resolved node).
    pub infos: HashMap<String, Arc<BinaryInfo>>,
    /// Windows: the side-by-side assemblies the root's manifest depends on, where each was found.
    pub assemblies: Vec<crate::engine::loader::sxs::ResolvedAssembly>,
}

impl DependencyGraph {
    /// The facts of the binary at a machine path, if it was read.
    pub fn info(&self, path: &str) -> Option<&Arc<BinaryInfo>> {
        self.infos.get(path)
    }

    /// Node indices from the root's direct dependency down to `index`.
    pub fn chain(&self, index: usize) -> Vec<usize> {
        let mut chain = vec![index];
        let mut current = index;
        while let Some(parent) = self.nodes.get(current).and_then(|n| n.parent_node) {
            if chain.contains(&parent) {
                break;
            }
            chain.push(parent);
            current = parent;
        }
        chain.reverse();
        chain
    }

    /// Children of a node (`None` = the root), in order.
    pub fn children(&self, parent: Option<usize>) -> impl Iterator<Item = (usize, &Node)> {
        self.nodes
            .iter()
            .enumerate()
            .filter(move |(_, n)| n.parent_node == parent)
    }
}

/// Builds the tree of `root` (a machine path) with the engine's binary reader.
pub fn build(
    ctx: &SystemContext,
    root: &str,
    opts: &GraphOptions,
) -> Result<DependencyGraph, GraphError> {
    // Embedded names only matter for run-time edges; without them, read headers and tables only.
    let reader: Reader = if opts.runtime {
        Reader::NAMES
    } else {
        Reader::HEADERS
    };
    build_with(ctx, root, opts, reader)
}

/// Builds the tree with a given reader (tests pass one that fabricates binaries).
pub fn build_with(
    ctx: &SystemContext,
    root: &str,
    opts: &GraphOptions,
    reader: Reader,
) -> Result<DependencyGraph, GraphError> {
    walk::walk(ctx, root, opts, reader)
}

//! Dependency trees as the front ends show them: the graph and its nodes, how each library
//! resolved (and every place tried), the loading context a tree is built in, and the text
//! rendering of `cuda-triage tree`. Trees are built by [`tree`](super::tree).

use crate::engine::context::SystemContext;

pub use crate::engine::binfmt::{BinaryInfo, Format, Machine};
pub use crate::engine::graph::checks::attempt_text;
pub use crate::engine::graph::framework::preset_label;
pub use crate::engine::graph::{DEFAULT_MAX_DEPTH, DependencyGraph, GraphOptions, Node};
pub use crate::engine::loader::windows::{Preset, WindowsOptions, parse_flags};
pub use crate::engine::loader::{How, Outcome, Resolution};
pub use crate::engine::report::text_tree::render_tree;

/// One full build of `root`'s tree in `ctx` — the walk, then its findings — as `tree --bench`
/// times it; the number of nodes, or `None` when the tree could not be built.
pub fn build_and_check(ctx: &SystemContext, root: &str, options: &GraphOptions) -> Option<usize> {
    let graph = crate::engine::graph::build(ctx, root, options).ok()?;
    let _ = crate::engine::graph::checks::check(ctx, &graph);
    Some(graph.nodes.len())
}

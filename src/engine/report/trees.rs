//! The dependency trees a report carries: the `tree` command's `root`/`nodes` keys and the
//! wizard's `trees` list. Rendered as indented text lines (one per library: name, how it
//! resolved, where, or what was tried) for the Markdown and HTML reports.

use super::Report;
use crate::engine::graph::Node;
use crate::engine::loader::Outcome;

/// One tree: its root binary and its rendered lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeText {
    pub root: String,
    pub nodes: usize,
    pub missing: usize,
    pub lines: Vec<String>,
}

/// Every tree in a document.
pub fn trees(doc: &Report) -> Vec<TreeText> {
    let mut out = Vec::new();
    if let (Some(root), Some(nodes)) = (&doc.root, &doc.nodes) {
        out.push(render(root, nodes));
    }
    for t in doc.trees.iter().flatten() {
        out.push(render(&t.root, &t.nodes));
    }
    out
}

fn render(root: &str, nodes: &[Node]) -> TreeText {
    // Children of each node: the first node at depth-1 whose path is the child's parent.
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len() + 1];
    for (i, n) in nodes.iter().enumerate() {
        let slot = if n.depth <= 1 {
            0
        } else {
            match nodes
                .iter()
                .position(|p| p.depth + 1 == n.depth && p.path.as_deref() == Some(&n.parent))
            {
                Some(p) => p + 1,
                None => 0,
            }
        };
        children[slot].push(i);
    }
    let mut lines = vec![root.to_string()];
    let mut stack: Vec<(usize, usize)> = children[0].iter().rev().map(|&c| (c, 1)).collect();
    let mut seen = vec![false; nodes.len()];
    while let Some((i, level)) = stack.pop() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        let n = &nodes[i];
        let indent = "  ".repeat(level);
        let how = n.how.as_str();
        match &n.path {
            Some(path) => {
                let version = n
                    .version
                    .as_deref()
                    .filter(|v| !v.is_empty())
                    .map(|v| format!(" {v}"))
                    .unwrap_or_default();
                lines.push(format!("{indent}{} [{how}] {path}{version}", n.name));
            }
            None => {
                lines.push(format!("{indent}{} NOT FOUND [{how}]", n.name));
                for a in &n.attempts {
                    lines.push(format!(
                        "{indent}  tried {} {}: {}",
                        a.source.as_str(),
                        a.directory,
                        outcome_text(&a.outcome)
                    ));
                }
            }
        }
        for &c in children[i + 1].iter().rev() {
            stack.push((c, level + 1));
        }
    }
    let missing = nodes.iter().filter(|n| !n.is_resolved()).count();
    TreeText {
        root: root.to_string(),
        nodes: nodes.len(),
        missing,
        lines,
    }
}

/// An attempt's outcome as its JSON spelling reads (`wrong machine`).
fn outcome_text(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Found => "found",
        Outcome::NotFound => "not found",
        Outcome::WrongMachine { .. } => "wrong machine",
        Outcome::Unreadable { .. } => "unreadable",
    }
}

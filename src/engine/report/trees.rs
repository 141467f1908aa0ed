//! The dependency trees a report carries, read back from its JSON: the `tree` command's
//! `root`/`nodes` keys and the wizard's `trees` list. Rendered as indented text lines (one per
//! library: name, how it resolved, where, or what was tried) for the Markdown and HTML reports.

use super::Report;
use serde_json::Value;

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
    let extra = doc.keys();
    let mut out = Vec::new();
    if let (Some(root), Some(nodes)) = (extra.get("root"), extra.get("nodes")) {
        out.push(render(root, nodes));
    }
    for t in extra
        .get("trees")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let (Some(root), Some(nodes)) = (t.get("root"), t.get("nodes")) {
            out.push(render(root, nodes));
        }
    }
    out
}

fn field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn render(root: &Value, nodes: &Value) -> TreeText {
    let root = root.as_str().unwrap_or("?").to_string();
    let nodes: Vec<&Value> = nodes
        .as_array()
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let depth = |n: &Value| n.get("depth").and_then(Value::as_u64).unwrap_or(1) as usize;
    // Children of each node: the first node at depth-1 whose path is the child's parent.
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len() + 1];
    for (i, n) in nodes.iter().enumerate() {
        let d = depth(n);
        let parent = field(n, "parent");
        let slot = if d <= 1 {
            0
        } else {
            match nodes.iter().position(|p| {
                depth(p) + 1 == d && p.get("path").and_then(Value::as_str) == Some(parent)
            }) {
                Some(p) => p + 1,
                None => 0,
            }
        };
        children[slot].push(i);
    }
    let mut lines = vec![root.clone()];
    let mut stack: Vec<(usize, usize)> = children[0].iter().rev().map(|&c| (c, 1)).collect();
    let mut seen = vec![false; nodes.len()];
    while let Some((i, level)) = stack.pop() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        let n = nodes[i];
        let indent = "  ".repeat(level);
        let how = field(n, "how");
        match n.get("path").and_then(Value::as_str) {
            Some(path) => {
                let version = field(n, "version");
                lines.push(format!(
                    "{indent}{} [{how}] {path}{}",
                    field(n, "name"),
                    if version.is_empty() {
                        String::new()
                    } else {
                        format!(" {version}")
                    }
                ));
            }
            None => {
                lines.push(format!("{indent}{} NOT FOUND [{how}]", field(n, "name")));
                for a in n
                    .get("attempts")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    lines.push(format!(
                        "{indent}  tried {} {}: {}",
                        field(a, "source"),
                        field(a, "directory"),
                        outcome_text(a.get("outcome"))
                    ));
                }
            }
        }
        for &c in children[i + 1].iter().rev() {
            stack.push((c, level + 1));
        }
    }
    let missing = nodes
        .iter()
        .filter(|n| n.get("path").is_none_or(Value::is_null) && field(n, "how") != "api_set")
        .count();
    TreeText {
        root,
        nodes: nodes.len(),
        missing,
        lines,
    }
}

fn outcome_text(outcome: Option<&Value>) -> String {
    match outcome {
        Some(Value::String(s)) => s.replace('_', " "),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => format!("{} ({s})", k.replace('_', " ")),
                _ => k.replace('_', " "),
            })
            .collect::<Vec<_>>()
            .join(", "),
        _ => String::new(),
    }
}

//! Text rendering of a dependency tree in libtree's spirit: one line per edge, indented with
//! box-drawing guides, the reason in brackets (`[runpath]`, `[ld_so_cache]`, `[known_dll]`,
//! `[runtime]`), the resolved path dimmed, and a miss in red with every directory tried.
//! Colour only when asked (a terminal without NO_COLOR).

use super::text::paint;
use crate::engine::graph::checks::attempt_text;
use crate::engine::graph::{DependencyGraph, Node};
use crate::engine::loader::{How, Outcome};

const RED: &str = "1;31";
const YELLOW: &str = "33";
const DIM: &str = "2";
const BOLD: &str = "1";
const CYAN: &str = "36";
const MAGENTA: &str = "35";

/// The whole tree as text, ending with a newline.
pub fn render_tree(graph: &DependencyGraph, colour: bool) -> String {
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); graph.nodes.len() + 1];
    for (i, n) in graph.nodes.iter().enumerate() {
        let slot = n.parent_node.map_or(0, |p| p + 1);
        if let Some(list) = children.get_mut(slot) {
            list.push(i);
        }
    }
    let info = &graph.root_info;
    let mut out = format!(
        "{} {}\n",
        paint(&graph.root, BOLD, colour),
        paint(
            &format!("({}, {}-bit)", info.machine.arch, info.machine.bits),
            DIM,
            colour
        )
    );
    for a in &graph.assemblies {
        let id = &a.identity;
        let place = match (&a.manifest, &a.store) {
            (Some(m), Some(store)) => format!("{store}: {m}"),
            _ => format!(
                "NOT FOUND (the program would not start); tried {}",
                a.tried.join(", ")
            ),
        };
        out.push_str(&paint(
            &format!(
                "  manifest needs {} {} ({}) → {place}\n",
                id.name, id.version, id.arch
            ),
            DIM,
            colour,
        ));
    }
    if let Some(clr) = &info.clr {
        let is_dll = !graph.root.to_ascii_lowercase().ends_with(".exe");
        out.push_str(&paint(
            &format!(
                "  .NET {} ({}): runs {}\n",
                clr.runtime,
                clr.platform,
                clr.runs_as(is_dll)
            ),
            DIM,
            colour,
        ));
    }
    // Iterative depth-first walk: (node, prefix of its line, is it the last child).
    let mut stack: Vec<(usize, String, bool)> = Vec::new();
    let push_children = |stack: &mut Vec<(usize, String, bool)>, slot: usize, prefix: &str| {
        let list = &children[slot];
        for (k, &child) in list.iter().enumerate().rev() {
            stack.push((child, prefix.to_string(), k + 1 == list.len()));
        }
    };
    push_children(&mut stack, 0, "");
    while let Some((i, prefix, last)) = stack.pop() {
        let node = &graph.nodes[i];
        let branch = if last { "└── " } else { "├── " };
        out.push_str(&format!("{prefix}{branch}{}\n", node_line(node, colour)));
        let inner = format!("{prefix}{}", if last { "    " } else { "│   " });
        if !node.is_resolved() {
            for a in &node.attempts {
                out.push_str(&format!(
                    "{inner}{}\n",
                    paint(&format!("┊ tried {}", attempt_text(a)), DIM, colour)
                ));
            }
        } else {
            for a in &node.attempts {
                if let Outcome::WrongMachine { .. } = a.outcome {
                    out.push_str(&format!(
                        "{inner}{}\n",
                        paint(&format!("┊ {}", attempt_text(a)), YELLOW, colour)
                    ));
                }
            }
        }
        push_children(&mut stack, i + 1, &inner);
    }
    out
}

fn node_line(node: &Node, colour: bool) -> String {
    let how = match &node.runtime {
        Some(r) => format!("runtime, {}", r.found_by.as_str()),
        None => node.how.as_str().to_string(),
    };
    let delay = if node.delay { ", delay-load" } else { "" };
    let tag = format!("[{how}{delay}]");
    let version = node
        .version
        .as_ref()
        .map(|v| format!(" {}", paint(v, CYAN, colour)))
        .unwrap_or_default();
    if !node.is_resolved() {
        let optional = node.runtime.as_ref().is_some_and(|r| !r.required);
        let (text, code) = if optional {
            ("not found (optional run-time load)", YELLOW)
        } else {
            ("not found", RED)
        };
        return format!(
            "{} {}",
            paint(&node.name, code, colour),
            paint(&format!("{text} {tag}"), code, colour)
        );
    }
    let found_by = node.runtime.as_ref().map_or(node.how, |r| r.found_by);
    let name_code = match (node.how, found_by) {
        (How::Runtime, _) => MAGENTA,
        (_, How::Loaded) | (_, How::ApiSet) => DIM,
        _ => BOLD,
    };
    let path = node
        .path
        .as_ref()
        .map(|p| format!(" {}", paint(p, DIM, colour)))
        .unwrap_or_default();
    format!(
        "{} {}{path}{version}",
        paint(&node.name, name_code, colour),
        paint(&tag, YELLOW, colour)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::binfmt::{BinaryInfo, Format, Machine};
    use crate::engine::context::Platform;
    use crate::engine::graph::DependencyGraph;
    use crate::engine::loader::{Attempt, How};
    use std::sync::Arc;

    fn node(name: &str, path: Option<&str>, how: How, parent: Option<usize>) -> Node {
        Node {
            name: name.into(),
            path: path.map(String::from),
            how,
            parent: "/r".into(),
            depth: parent.map_or(1, |_| 2),
            version: None,
            machine: None,
            attempts: vec![Attempt {
                directory: "/x".into(),
                source: How::Runpath,
                outcome: Outcome::NotFound,
            }],
            delay: false,
            runtime: None,
            parent_node: parent,
            expanded: true,
        }
    }

    #[test]
    fn renders_guides_reasons_and_misses() {
        let info = BinaryInfo::empty(
            Format::Elf,
            Machine {
                arch: "x86_64".into(),
                bits: 64,
            },
        );
        let graph = DependencyGraph {
            platform: Platform::Linux,
            root: "/r/app".into(),
            root_info: Arc::new(info),
            nodes: vec![
                node("liba.so", Some("/r/liba.so"), How::Runpath, None),
                node("libb.so", None, How::Default, Some(0)),
                node("libc.so.6", Some("/lib/libc.so.6"), How::LdSoCache, None),
            ],
            infos: Default::default(),
            assemblies: Vec::new(),
        };
        let text = render_tree(&graph, false);
        assert_eq!(
            text,
            "/r/app (x86_64, 64-bit)\n\
             ├── liba.so [runpath] /r/liba.so\n\
             │   └── libb.so not found [default]\n\
             │       ┊ tried runpath /x — not there\n\
             └── libc.so.6 [ld_so_cache] /lib/libc.so.6\n"
        );
        assert!(render_tree(&graph, true).contains("\x1b[1;31m"));
    }
}

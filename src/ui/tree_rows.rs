//! The rows the Dependencies step shows: the graph's nodes flattened in tree order, filtered by
//! a search text and an "only problems" switch, minus the children of collapsed nodes. Pure data,
//! computed once per change (not per frame), so a 5,000-node tree scrolls smoothly.

use crate::engine::api::graph::{DependencyGraph, Node, Outcome};
use std::collections::{HashMap, HashSet};

/// One visible row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub node: usize,
    /// Indentation level (0 = a direct dependency of the root).
    pub level: usize,
    pub has_children: bool,
}

/// What the rows are filtered by.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowFilter {
    pub search: String,
    pub only_problems: bool,
    pub collapsed: HashSet<usize>,
}

/// Whether a node is a problem worth showing under "only problems".
pub fn is_problem(node: &Node) -> bool {
    !node.is_resolved()
        || node.attempts.iter().any(|a| {
            matches!(
                a.outcome,
                Outcome::WrongMachine { .. } | Outcome::Unreadable { .. }
            )
        })
}

/// The visible rows, in depth-first tree order.
pub fn visible_rows(graph: &DependencyGraph, filter: &RowFilter) -> Vec<Row> {
    let mut children: HashMap<Option<usize>, Vec<usize>> = HashMap::new();
    for (index, node) in graph.nodes.iter().enumerate() {
        children.entry(node.parent_node).or_default().push(index);
    }
    let needle = filter.search.trim().to_lowercase();
    let filtering = filter.only_problems || !needle.is_empty();
    // With a filter, a node shows when it matches or a descendant does (so its chain is visible).
    let mut keep = vec![!filtering; graph.nodes.len()];
    if filtering {
        for (index, node) in graph.nodes.iter().enumerate() {
            let text_ok = needle.is_empty()
                || node.name.to_lowercase().contains(&needle)
                || node
                    .path
                    .as_deref()
                    .is_some_and(|p| p.to_lowercase().contains(&needle));
            if text_ok && (!filter.only_problems || is_problem(node)) {
                for ancestor in graph.chain(index) {
                    keep[ancestor] = true;
                }
            }
        }
    }
    let mut rows = Vec::new();
    let mut stack: Vec<(usize, usize)> = children
        .get(&None)
        .map(|c| c.iter().rev().map(|&i| (i, 0)).collect())
        .unwrap_or_default();
    let mut visited = HashSet::new();
    while let Some((index, level)) = stack.pop() {
        if !visited.insert(index) || !keep[index] {
            continue;
        }
        let kids = children.get(&Some(index)).map(Vec::as_slice).unwrap_or(&[]);
        rows.push(Row {
            node: index,
            level,
            has_children: !kids.is_empty(),
        });
        if !filter.collapsed.contains(&index) {
            stack.extend(kids.iter().rev().map(|&k| (k, level + 1)));
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::api::Platform;
    use crate::engine::api::graph::How;
    use crate::engine::api::graph::{BinaryInfo, Format, Machine};
    use std::sync::Arc;

    fn node(name: &str, parent: Option<usize>, found: bool) -> Node {
        Node {
            name: name.into(),
            path: found.then(|| format!("/lib/{name}")),
            how: How::Default,
            parent: String::new(),
            depth: 1,
            version: None,
            machine: None,
            attempts: Vec::new(),
            delay: false,
            runtime: None,
            parent_node: parent,
            expanded: true,
        }
    }

    fn graph(nodes: Vec<Node>) -> DependencyGraph {
        let info = BinaryInfo::empty(
            Format::Elf,
            Machine {
                arch: "x86_64".into(),
                bits: 64,
            },
        );
        DependencyGraph {
            platform: Platform::Linux,
            root: "/app".into(),
            root_info: Arc::new(info),
            nodes,
            infos: Default::default(),
            assemblies: Vec::new(),
        }
    }

    #[test]
    fn tree_order_filters_and_collapse() {
        // a -> b -> c(missing); d
        let g = graph(vec![
            node("a", None, true),
            node("d", None, true),
            node("b", Some(0), true),
            node("c", Some(2), false),
        ]);
        let all = visible_rows(&g, &RowFilter::default());
        let order: Vec<usize> = all.iter().map(|r| r.node).collect();
        assert_eq!(order, vec![0, 2, 3, 1]);
        assert_eq!(all[2].level, 2);
        let problems = visible_rows(
            &g,
            &RowFilter {
                only_problems: true,
                ..Default::default()
            },
        );
        assert_eq!(
            problems.iter().map(|r| r.node).collect::<Vec<_>>(),
            vec![0, 2, 3],
            "the miss and its chain"
        );
        let search = visible_rows(
            &g,
            &RowFilter {
                search: "D".into(),
                ..Default::default()
            },
        );
        assert_eq!(search.iter().map(|r| r.node).collect::<Vec<_>>(), vec![1]);
        let collapsed = visible_rows(
            &g,
            &RowFilter {
                collapsed: [0].into(),
                ..Default::default()
            },
        );
        assert_eq!(
            collapsed.iter().map(|r| r.node).collect::<Vec<_>>(),
            vec![0, 1]
        );
    }

    #[test]
    fn five_thousand_nodes_flatten() {
        let mut nodes = vec![node("root-dep", None, true)];
        nodes.extend(
            (1..5000).map(|i| node(&format!("lib{i}.so"), Some((i - 1) / 10), i % 997 != 0)),
        );
        let g = graph(nodes);
        assert_eq!(visible_rows(&g, &RowFilter::default()).len(), 5000);
        let problems = visible_rows(
            &g,
            &RowFilter {
                only_problems: true,
                ..Default::default()
            },
        );
        assert!(problems.iter().any(|r| g.nodes[r.node].name == "lib997.so"));
        assert!(problems.len() < 100);
    }
}

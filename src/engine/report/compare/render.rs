//! Comparisons as a person reads them: plain text for the terminal and the GUI, Markdown for a
//! file or an issue (`report --compare A B -o diff.md`). Each component line gives both versions
//! and, when the sides have it at different places, both paths.

use super::{Comparison, ComponentDiff, Group, OneSided};
use crate::engine::report::markdown::{code_span, escape};

const NO_DIFFERENCE: &str = "No difference that matters for loading GPU libraries.";

fn or_dash(v: &Option<String>) -> &str {
    v.as_deref().unwrap_or("—")
}

/// The paths of a component whose sides sit at different places, as two indented lines.
fn text_paths(d: &ComponentDiff, indent: &str) -> String {
    match &d.note {
        Some(_) => format!(
            "{indent}A at {}\n{indent}B at {}\n",
            or_dash(&d.a_path),
            or_dash(&d.b_path)
        ),
        None => String::new(),
    }
}

fn text_note(d: &ComponentDiff) -> String {
    d.note
        .as_ref()
        .map(|n| format!(" ({n})"))
        .unwrap_or_default()
}

/// Two reports compared, as text.
pub fn render_text(a_label: &str, b_label: &str, c: &Comparison) -> String {
    let mut out = format!("A: {a_label}\nB: {b_label}\n\nComponents:\n");
    for d in &c.components {
        out.push_str(&format!(
            "  {:<10} {}: A {} / B {}{}\n",
            d.status.word(),
            d.label,
            or_dash(&d.a),
            or_dash(&d.b),
            text_note(d)
        ));
        out.push_str(&text_paths(d, "             "));
    }
    if !c.env.is_empty() {
        out.push_str("\nEnvironment that differs:\n");
        for e in &c.env {
            out.push_str(&format!(
                "  {}\n    A: {}\n    B: {}\n",
                e.name,
                e.a.as_deref().unwrap_or("(unset)"),
                e.b.as_deref().unwrap_or("(unset)")
            ));
        }
    }
    for (title, list) in [("Only on A", &c.only_a), ("Only on B", &c.only_b)] {
        if !list.is_empty() {
            out.push_str(&format!("\n{title}:\n"));
            for f in list {
                out.push_str(&format!("  {}: {} [{}]\n", f.severity, f.summary, f.code));
            }
        }
    }
    if !c.differs() {
        out.push_str(&format!("\n{NO_DIFFERENCE}\n"));
    }
    out
}

/// Many reports grouped, as text.
pub fn render_groups_text(groups: &[Group]) -> String {
    let total: usize = groups.iter().map(|g| g.members.len()).sum();
    let mut out = format!("{total} report(s) in {} group(s)\n", groups.len());
    for (k, g) in groups.iter().enumerate() {
        out.push_str(&format!(
            "\nGroup {} ({} machine(s)): {}\n",
            k + 1,
            g.members.len(),
            g.members.join(", ")
        ));
        if let Some(c) = &g.versus_largest {
            for d in c.components.iter().filter(|d| d.differs()) {
                out.push_str(&format!(
                    "  differs from group 1 in {}: {} vs {}{}\n",
                    d.label,
                    or_dash(&d.a),
                    or_dash(&d.b),
                    text_note(d)
                ));
                out.push_str(&text_paths(d, "    "));
            }
            for f in &c.only_b {
                out.push_str(&format!(
                    "  only here: {}: {} [{}]\n",
                    f.severity, f.summary, f.code
                ));
            }
            for f in &c.only_a {
                out.push_str(&format!(
                    "  not here: {}: {} [{}]\n",
                    f.severity, f.summary, f.code
                ));
            }
        }
    }
    out
}

/// A version and, when the sides differ in place, the path as a code span.
fn md_cell(version: &Option<String>, path: &Option<String>, show_path: bool) -> String {
    let version = version.as_deref().map(escape).unwrap_or_else(|| "—".into());
    match path {
        Some(p) if show_path => format!("{version} at {}", code_span(p)),
        _ => version,
    }
}

fn md_status(d: &ComponentDiff) -> String {
    let word = d.status.word();
    let word = if d.differs() {
        format!("**{word}**")
    } else {
        word.to_string()
    };
    match &d.note {
        Some(n) => format!("{word} ({})", escape(n)),
        None => word,
    }
}

fn md_components(list: &[&ComponentDiff]) -> String {
    let mut out = String::from("| Status | Component | A | B |\n|---|---|---|---|\n");
    for d in list {
        let show = d.note.is_some();
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            md_status(d),
            escape(&d.label),
            md_cell(&d.a, &d.a_path, show),
            md_cell(&d.b, &d.b_path, show)
        ));
    }
    out
}

fn md_findings(list: &[OneSided]) -> String {
    list.iter()
        .map(|f| {
            format!(
                "- {}: {} {}\n",
                escape(&f.severity),
                escape(&f.summary),
                code_span(&f.code)
            )
        })
        .collect()
}

/// Two reports compared, as Markdown (ready to paste into an issue).
pub fn render_markdown(a_label: &str, b_label: &str, c: &Comparison) -> String {
    let mut out = format!(
        "# CUDA Triage comparison\n\n- **A:** {}\n- **B:** {}\n\n## Components\n\n",
        code_span(a_label),
        code_span(b_label)
    );
    out.push_str(&md_components(&c.components.iter().collect::<Vec<_>>()));
    if !c.env.is_empty() {
        out.push_str("\n## Environment that differs\n\n| Variable | A | B |\n|---|---|---|\n");
        for e in &c.env {
            let cell = |v: &Option<String>| v.as_deref().map(code_span).unwrap_or("(unset)".into());
            out.push_str(&format!(
                "| {} | {} | {} |\n",
                code_span(&e.name),
                cell(&e.a),
                cell(&e.b)
            ));
        }
    }
    for (title, list) in [("Only on A", &c.only_a), ("Only on B", &c.only_b)] {
        if !list.is_empty() {
            out.push_str(&format!("\n## {title}\n\n{}", md_findings(list)));
        }
    }
    if !c.differs() {
        out.push_str(&format!("\n{NO_DIFFERENCE}\n"));
    }
    out
}

/// Many reports grouped, as Markdown.
pub fn render_groups_markdown(groups: &[Group]) -> String {
    let total: usize = groups.iter().map(|g| g.members.len()).sum();
    let mut out = format!(
        "# CUDA Triage comparison\n\n{total} report(s) in {} group(s).\n",
        groups.len()
    );
    for (k, g) in groups.iter().enumerate() {
        out.push_str(&format!(
            "\n## Group {} ({} machine(s))\n\n",
            k + 1,
            g.members.len()
        ));
        for m in &g.members {
            out.push_str(&format!("- {}\n", code_span(m)));
        }
        let Some(c) = &g.versus_largest else {
            continue;
        };
        let differing: Vec<&ComponentDiff> = c.components.iter().filter(|d| d.differs()).collect();
        if !differing.is_empty() {
            out.push_str("\nHow it differs from group 1 (A is group 1):\n\n");
            out.push_str(&md_components(&differing));
        }
        for (title, list) in [("Only here", &c.only_b), ("Not here", &c.only_a)] {
            if !list.is_empty() {
                out.push_str(&format!("\n{title}:\n\n{}", md_findings(list)));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::Status;
    use super::*;

    fn relocated() -> Comparison {
        Comparison {
            components: vec![ComponentDiff {
                kind: super::super::ComponentKind::CudaToolkit,
                label: "CUDA toolkit".into(),
                a: Some("12.4.1".into()),
                b: Some("12.4.1".into()),
                status: Status::Relocated,
                a_path: Some("/usr/local/cuda-12.4".into()),
                b_path: Some("/opt/cuda|<x>".into()),
                note: Some("same version, different path".into()),
            }],
            env: Vec::new(),
            only_a: Vec::new(),
            only_b: Vec::new(),
        }
    }

    #[test]
    fn a_relocated_component_shows_both_paths_in_text_and_markdown() {
        let c = relocated();
        let text = render_text("a.json", "b.json", &c);
        assert!(
            text.contains(
                "relocated  CUDA toolkit: A 12.4.1 / B 12.4.1 (same version, different path)"
            ),
            "{text}"
        );
        assert!(text.contains("A at /usr/local/cuda-12.4"), "{text}");
        assert!(!text.contains("No difference"), "{text}");
        let md = render_markdown("a.json", "b.json", &c);
        assert!(
            md.contains("| **relocated** (same version, different path) | CUDA toolkit | 12.4.1 at `/usr/local/cuda-12.4` | 12.4.1 at `/opt/cuda\\|<x>` |"),
            "{md}"
        );
    }

    #[test]
    fn an_empty_group_list_renders() {
        assert!(render_groups_markdown(&[]).contains("0 report(s) in 0 group(s)"));
        assert!(render_groups_text(&[]).contains("0 report(s)"));
    }
}

//! The Markdown report, ready to paste into a GitHub issue: findings first, then a versions
//! table, then the long parts (pasted-error triage, GPU test, dependency trees, the loading
//! environment) folded into `<details>`. Text outside code is escaped so a path such as
//! `<home>\envs` or `a|b` renders as written; the whole stays within GitHub's 65,536-character
//! issue-body limit, cut at a section boundary with a note pointing at the JSON report.

use super::Report;
use super::components::{components, header_facts, json_lines, severity_counts};
use super::trees::trees;
use crate::engine::findings::Severity;

/// GitHub's limit on an issue or comment body, in characters.
pub const GITHUB_BODY_LIMIT: usize = 65_536;

const CUT_NOTE: &str = "\n\n---\n*This report was cut to fit GitHub's 65,536-character limit. \
The JSON report (`cuda-triage report -o report.json`) has everything.*\n";

/// Escapes text for Markdown outside code: HTML-significant characters, table pipes, emphasis.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '|' => out.push_str("\\|"),
            '*' | '_' | '`' | '[' | ']' | '\\' | '#' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

/// Text as an inline code span (paths read as they are, backslashes and all); a pipe is escaped
/// so the span can sit in a table cell.
pub fn code_span(text: &str) -> String {
    let longest_run = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest_run + 1);
    let body = text.replace(['\n', '\r'], " ").replace('|', "\\|");
    let pad = if body.starts_with('`') || body.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{body}{pad}{fence}")
}

/// Escapes text for HTML inside Markdown (a `<summary>`): no Markdown escapes apply there.
fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn looks_like_path(text: &str) -> bool {
    text.contains('\\') || text.contains('/')
}

/// Text inside a fenced code block: only a fence inside it needs breaking.
fn code_block(lines: &[String]) -> String {
    let body = lines.join("\n").replace("```", "``\u{200b}`");
    format!("```text\n{body}\n```\n")
}

fn icon(s: Severity) -> &'static str {
    match s {
        Severity::Error => "✗",
        Severity::Warning => "⚠",
        Severity::Info => "ℹ",
    }
}

/// The whole report as Markdown.
pub fn render(doc: &Report) -> String {
    // Chunks in order of importance; the report is cut between chunks (one finding is one chunk).
    let mut chunks = vec![header(doc)];
    chunks.extend(findings(doc));
    chunks.push(versions(doc));
    chunks.extend(details(doc));
    let mut out = String::new();
    let mut used = 0;
    for chunk in chunks {
        let len = chunk.chars().count();
        if used + len + CUT_NOTE.chars().count() > GITHUB_BODY_LIMIT {
            out.push_str(CUT_NOTE);
            return out;
        }
        used += len;
        out.push_str(&chunk);
    }
    out
}

fn header(doc: &Report) -> String {
    let facts = header_facts(doc);
    let (e, w, i) = severity_counts(doc);
    format!(
        "# CUDA Triage report\n\n{}\n\n**{e} error(s), {w} warning(s), {i} note(s)**\n\n",
        escape(&facts.join(" · "))
    )
}

fn findings(doc: &Report) -> Vec<String> {
    let mut chunks = vec![String::from("## Findings\n\n")];
    if doc.findings.is_empty() {
        chunks[0].push_str("No problems found.\n\n");
        return chunks;
    }
    for f in &doc.findings {
        let mut out = String::new();
        out.push_str(&format!(
            "### {} {}: {} (`{}`)\n\n{}\n\n",
            icon(f.severity),
            f.severity.as_str(),
            escape(&f.summary),
            f.code.replace('`', ""),
            escape(&f.detail)
        ));
        if !f.libraries.is_empty() {
            let libs: Vec<String> = f.libraries.iter().map(|l| escape(l)).collect();
            out.push_str(&format!("Libraries: {}\n\n", libs.join(", ")));
        }
        for fix in &f.fixes {
            out.push_str(&format!("- Fix: {}\n", escape(&fix.summary)));
        }
        if !f.fixes.is_empty() {
            out.push('\n');
        }
        if !f.evidence.is_empty() {
            out.push_str("<details><summary>Evidence</summary>\n\n");
            for e in &f.evidence {
                let path = e
                    .path
                    .as_ref()
                    .map(|p| format!(" — {}", code_span(p)))
                    .unwrap_or_default();
                out.push_str(&format!(
                    "- {}: {}{path}\n",
                    escape(&e.kind),
                    escape(&e.text)
                ));
            }
            out.push_str("\n</details>\n\n");
        }
        chunks.push(out);
    }
    chunks
}

fn versions(doc: &Report) -> String {
    let parts = components(doc);
    let mut out = String::from("## Versions\n\n");
    if parts.is_empty() {
        out.push_str("Nothing versioned was found.\n\n");
        return out;
    }
    out.push_str("| Component | Version | Where / expects |\n|---|---|---|\n");
    for c in parts {
        out.push_str(&format!(
            "| {} | {} | {} |\n",
            escape(&c.label()),
            escape(c.version.as_deref().unwrap_or("?")),
            if looks_like_path(&c.detail) {
                code_span(&c.detail)
            } else {
                escape(&c.detail)
            }
        ));
    }
    out.push('\n');
    out
}

fn folded(title: &str, body: &str) -> String {
    format!(
        "<details><summary>{}</summary>\n\n{body}\n</details>\n\n",
        escape_html(title)
    )
}

fn details(doc: &Report) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(identified) = &doc.identified {
        let lines: Vec<String> = identified
            .iter()
            .map(|i| format!("{}: {} {}", i.file, i.component, i.version))
            .collect();
        out.push(folded(
            "Libraries named in the pasted error",
            &code_block(&lines),
        ));
    }
    if let Some(gpu) = &doc.gpu {
        out.push(folded("GPU test", &code_block(&json_lines(gpu))));
    }
    if let Some(fixes) = &doc.fixes_applied {
        out.push(folded("Fixes applied", &code_block(&json_lines(fixes))));
    }
    for t in trees(doc) {
        out.push(folded(
            &format!(
                "Dependency tree of {} ({} libraries, {} missing)",
                t.root, t.nodes, t.missing
            ),
            &code_block(&t.lines),
        ));
    }
    if !doc.machine.env.is_empty() {
        let lines: Vec<String> = doc
            .machine
            .env
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        out.push(folded("Loading-related environment", &code_block(&lines)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(findings: usize) -> Report {
        let finding = |i: usize| {
            serde_json::json!({
                "code": "library-missing", "severity": "error",
                "summary": format!("cublas64_11.dll is not on this machine ({i})"),
                "detail": "TensorFlow 2.10 loads it at start-up; ".repeat(20),
                "evidence": [{"kind": "searched", "text": "C:\\Windows\\system32: not there", "path": "C:\\Windows\\system32"}]
            })
        };
        serde_json::from_value(serde_json::json!({
            "schema": "cuda-triage/1",
            "machine": {"platform": "windows", "wsl": false, "source": {"kind": "live"}, "env": {"PATH": "C:\\a|b"}},
            "findings": (0..findings).map(finding).collect::<Vec<_>>(),
        }))
        .unwrap()
    }

    #[test]
    fn a_long_report_is_cut_at_githubs_limit_with_a_note() {
        let md = render(&document(400));
        assert!(
            md.chars().count() <= GITHUB_BODY_LIMIT,
            "{}",
            md.chars().count()
        );
        assert!(md.ends_with(CUT_NOTE));
        assert!(md.starts_with("# CUDA Triage report"));
        assert!(md.contains("## Findings"));
        assert!(md.matches("### ✗").count() > 50, "as many findings as fit");
    }

    #[test]
    fn a_short_report_is_whole() {
        let md = render(&document(2));
        assert!(!md.contains("was cut"));
        assert!(md.contains("## Versions"));
        assert!(
            md.contains("PATH=C:\\a|b"),
            "code blocks keep text as it is"
        );
    }

    #[test]
    fn text_outside_code_is_escaped_and_code_spans_survive_pipes_and_backticks() {
        assert_eq!(escape("<b>a|b</b>"), "&lt;b&gt;a\\|b&lt;/b&gt;");
        assert_eq!(code_span("a|b"), "`a\\|b`");
        assert_eq!(code_span("x`y"), "``x`y``");
    }
}

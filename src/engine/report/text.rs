//! Plain-text rendering of a report for a terminal: the machine summary and the findings (the
//! command line's output without `--json`), with ANSI colour when asked. Beside the Markdown and
//! HTML renderers; [`text_tree`](super::text_tree) renders a dependency tree the same way.

use crate::engine::findings::{Finding, Severity};
use crate::engine::report::Report;

/// Wraps `text` in an ANSI colour `code` when `colour` is on.
pub fn paint(text: &str, code: &str, colour: bool) -> String {
    if colour {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

pub fn severity_label(severity: Severity, colour: bool) -> String {
    match severity {
        Severity::Error => paint("error", "1;31", colour),
        Severity::Warning => paint("warning", "1;33", colour),
        Severity::Info => paint("info", "1;36", colour),
    }
}

/// Renders the machine summary and findings of a document as plain text.
pub fn render_text(doc: &Report, colour: bool) -> String {
    let m = &doc.machine;
    let mut out = String::new();
    out.push_str(&format!(
        "Machine: {}{} ({})\n",
        m.platform.as_str(),
        m.placement(),
        m.source.describe()
    ));
    for line in super::runs_in_lines(m) {
        out.push_str(&format!("         {line}\n"));
    }
    match &m.driver {
        Some(d) => out.push_str(&format!(
            "Driver:  {}{}\n",
            d.version,
            d.cuda
                .as_ref()
                .map(|c| format!(", supports CUDA up to {c}"))
                .unwrap_or_default()
        )),
        None => out.push_str("Driver:  none found\n"),
    }
    for gpu in &m.gpus {
        let cc = gpu
            .compute_capability
            .as_ref()
            .map(|c| format!(", compute capability {c}"))
            .unwrap_or_default();
        let mem = gpu
            .memory_mib
            .map(|mib| format!(", {mib} MiB"))
            .unwrap_or_default();
        out.push_str(&format!("GPU:     {}{cc}{mem}\n", gpu.name));
    }
    if let Some(r) = &m.renderer {
        out.push_str(&format!("Window:  drawn with {}\n", r.summary()));
    }
    out.push('\n');
    out.push_str(&render_findings(&doc.findings, colour));
    out
}

pub fn render_findings(findings: &[Finding], colour: bool) -> String {
    if findings.is_empty() {
        return "No problems found.\n".to_string();
    }
    let mut out = String::new();
    for f in findings {
        out.push_str(&format!(
            "{}: {} [{}]\n",
            severity_label(f.severity, colour),
            f.summary,
            f.code
        ));
        for line in textwrap(&f.detail, 92) {
            out.push_str(&format!("    {line}\n"));
        }
        for e in &f.evidence {
            let path = e
                .path
                .as_ref()
                .map(|p| format!(" ({p})"))
                .unwrap_or_default();
            out.push_str(&format!("    - {}: {}{path}\n", e.kind, e.text));
        }
        for fix in &f.fixes {
            out.push_str(&format!("    fix {}: {}\n", fix.id, fix.summary));
        }
        out.push('\n');
    }
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let warnings = findings
        .iter()
        .filter(|f| f.severity == Severity::Warning)
        .count();
    out.push_str(&format!(
        "{errors} error(s), {warnings} warning(s), {} note(s)\n",
        findings.len() - errors - warnings
    ));
    out
}

/// Greedy word wrap for plain-language details.
fn textwrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

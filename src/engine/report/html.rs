//! The HTML report: one self-contained file — no script, nothing fetched, an inline style sheet
//! that prints well — with findings first, the versions table, and the long parts (trees, GPU
//! test, environment) in collapsible `<details>`. Every string from the machine is escaped: a
//! folder named `<script>alert(1)</script>` on PATH renders as text.

use super::Report;
use super::components::{components, header_facts, json_lines, severity_counts};
use super::trees::trees;
use crate::engine::findings::Severity;

/// Escapes text for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:60rem;\
margin:2rem auto;padding:0 1rem;color:#1b1b1b;line-height:1.45}\
h1{font-size:1.6rem}h2{border-bottom:1px solid #ccc;padding-bottom:.2rem;margin-top:2rem}\
.finding{border-left:.3rem solid #888;padding:.2rem .8rem;margin:1rem 0;break-inside:avoid}\
.error{border-color:#c62828}.warning{border-color:#ef8f00}.info{border-color:#1565c0}\
.sev{font-weight:bold;text-transform:uppercase;font-size:.8rem}\
code,pre{font-family:ui-monospace,Consolas,monospace;font-size:.85rem}\
pre{background:#f4f4f4;padding:.6rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}\
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.25rem .5rem;\
text-align:left;vertical-align:top}th{background:#eee}\
details{margin:.6rem 0}summary{cursor:pointer;font-weight:600}\
@media print{details{display:block}details>*{display:block}body{margin:0}}";

/// The whole report as one HTML page.
pub fn render(doc: &Report) -> String {
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <title>CUDA Triage report</title>\n<style>",
    );
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n");
    out.push_str(&header(doc));
    out.push_str(&findings(doc));
    out.push_str(&versions(doc));
    out.push_str(&details(doc));
    out.push_str("</body>\n</html>\n");
    out
}

fn header(doc: &Report) -> String {
    let facts = header_facts(doc);
    let (e, w, i) = severity_counts(doc);
    format!(
        "<h1>CUDA Triage report</h1>\n<p>{}</p>\n<p><strong>{e} error(s), {w} warning(s), {i} note(s)</strong></p>\n",
        escape(&facts.join(" · "))
    )
}

fn findings(doc: &Report) -> String {
    let mut out = String::from("<h2>Findings</h2>\n");
    if doc.findings.is_empty() {
        out.push_str("<p>No problems found.</p>\n");
    }
    for f in &doc.findings {
        let class = f.severity.as_str();
        let icon = match f.severity {
            Severity::Error => "✗",
            Severity::Warning => "⚠",
            Severity::Info => "ℹ",
        };
        out.push_str(&format!(
            "<section class=\"finding {class}\">\n<p><span class=\"sev\">{icon} {class}</span> \
             <strong>{}</strong> <code>{}</code></p>\n<p>{}</p>\n",
            escape(&f.summary),
            escape(&f.code),
            escape(&f.detail)
        ));
        if !f.libraries.is_empty() {
            let libs: Vec<String> = f
                .libraries
                .iter()
                .map(|l| format!("<code>{}</code>", escape(l)))
                .collect();
            out.push_str(&format!("<p>Libraries: {}</p>\n", libs.join(", ")));
        }
        if !f.fixes.is_empty() {
            out.push_str("<ul>\n");
            for fix in &f.fixes {
                out.push_str(&format!("<li>Fix: {}</li>\n", escape(&fix.summary)));
            }
            out.push_str("</ul>\n");
        }
        if !f.evidence.is_empty() {
            out.push_str("<details><summary>Evidence</summary>\n<ul>\n");
            for e in &f.evidence {
                let path = e
                    .path
                    .as_ref()
                    .map(|p| format!(" — <code>{}</code>", escape(p)))
                    .unwrap_or_default();
                out.push_str(&format!(
                    "<li>{}: {}{path}</li>\n",
                    escape(&e.kind),
                    escape(&e.text)
                ));
            }
            out.push_str("</ul>\n</details>\n");
        }
        out.push_str("</section>\n");
    }
    out
}

fn versions(doc: &Report) -> String {
    let mut out = String::from("<h2>Versions</h2>\n");
    let parts = components(doc);
    if parts.is_empty() {
        out.push_str("<p>Nothing versioned was found.</p>\n");
        return out;
    }
    out.push_str("<table>\n<tr><th>Component</th><th>Version</th><th>Where / expects</th></tr>\n");
    for c in parts {
        out.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            escape(&c.label()),
            escape(c.version.as_deref().unwrap_or("?")),
            escape(&c.detail)
        ));
    }
    out.push_str("</table>\n");
    out
}

fn folded(title: &str, lines: &[String]) -> String {
    format!(
        "<details><summary>{}</summary>\n<pre>{}</pre>\n</details>\n",
        escape(title),
        escape(&lines.join("\n"))
    )
}

fn details(doc: &Report) -> String {
    let mut out = String::from("<h2>Details</h2>\n");
    if let Some(gpu) = &doc.gpu {
        out.push_str(&folded("GPU test", &json_lines(gpu)));
    }
    if let Some(fixes) = &doc.fixes_applied {
        out.push_str(&folded("Fixes applied", &json_lines(fixes)));
    }
    if let Some(identified) = &doc.identified {
        out.push_str(&folded(
            "Libraries named in the pasted error",
            &json_lines(identified),
        ));
    }
    for t in trees(doc) {
        out.push_str(&folded(
            &format!(
                "Dependency tree of {} ({} libraries, {} missing)",
                t.root, t.nodes, t.missing
            ),
            &t.lines,
        ));
    }
    let env: Vec<String> = doc
        .machine
        .env
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if !env.is_empty() {
        out.push_str(&folded("Loading-related environment", &env));
    }
    if let Some(inventory) = &doc.inventory {
        out.push_str(&folded(
            "Inventory (as in the JSON report)",
            &json_lines(inventory),
        ));
    }
    out
}

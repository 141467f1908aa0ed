//! The fleet view as a person reads it: text for the terminal, Markdown for a ticket, one
//! self-contained HTML page (escaped, no script). Text and Markdown show the columns where
//! machines differ as the matrix and list the shared facts once; HTML shows every column,
//! differing ones first. A minority value is marked `≠` (HTML: also shaded).

use super::{Cell, Column, FindingSpread, Fleet, Row};
use crate::engine::report::html::escape as html_escape;
use crate::engine::report::markdown::{code_span, escape as md_escape};

/// The mark before a value fewer machines have.
pub const MINORITY_MARK: &str = "≠";

/// How many machine names a line lists before "… (N more)".
const NAMES_SHOWN: usize = 12;

/// "node03, node07, … (5 more)".
pub fn names(members: &[String]) -> String {
    let shown: Vec<&str> = members
        .iter()
        .take(NAMES_SHOWN)
        .map(String::as_str)
        .collect();
    match members.len().saturating_sub(NAMES_SHOWN) {
        0 => shown.join(", "),
        more => format!("{}, … ({more} more)", shown.join(", ")),
    }
}

/// A cell as text: its value (— when absent), marked when it is a minority value.
pub fn cell_text(cell: &Cell) -> String {
    let value = cell.value.as_deref().unwrap_or("—");
    if cell.minority {
        format!("{MINORITY_MARK} {value}")
    } else {
        value.to_string()
    }
}

/// "error library-missing on 7 of 64 machine(s): node03, node07, …".
pub fn spread_line(s: &FindingSpread) -> String {
    spread_item(s, Markup::Text)
}

/// The markup a list after the matrix is written in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Markup {
    Text,
    Markdown,
    Html,
}

impl Markup {
    fn escape(self, text: &str) -> String {
        match self {
            Markup::Text => text.to_string(),
            Markup::Markdown => md_escape(text),
            Markup::Html => html_escape(text),
        }
    }

    fn code(self, text: &str) -> String {
        match self {
            Markup::Text => text.to_string(),
            Markup::Markdown => code_span(text),
            Markup::Html => format!("<code>{}</code>", html_escape(text)),
        }
    }

    /// A titled list of items already in this markup (nothing when there are none).
    fn section(self, title: &str, items: &[String]) -> String {
        if items.is_empty() {
            return String::new();
        }
        let (head, item, tail) = match self {
            Markup::Text => (format!("\n{title}:\n"), "  ", "\n"),
            Markup::Markdown => (format!("\n## {title}\n\n"), "- ", "\n"),
            Markup::Html => (format!("<h2>{title}</h2>\n<ul>\n"), "<li>", "</li>\n"),
        };
        let mut out = head;
        for i in items {
            out.push_str(&format!("{item}{i}{tail}"));
        }
        if self == Markup::Html {
            out.push_str("</ul>\n");
        }
        out
    }
}

/// One finding and its machines; Markdown and HTML add its summary on a line of its own.
fn spread_item(s: &FindingSpread, markup: Markup) -> String {
    let summary = match markup {
        Markup::Text => String::new(),
        Markup::Markdown => format!("  \n  {}", md_escape(&s.summary)),
        Markup::Html => format!("<br>{}", html_escape(&s.summary)),
    };
    format!(
        "{} {} on {} of {} machine(s): {}{summary}",
        s.severity.as_str(),
        markup.code(&s.code),
        s.count,
        s.total,
        markup.escape(&names(&s.machines))
    )
}

/// The lists after the matrix: each finding with its machines, the facts every machine shares,
/// the reports that could not be read.
fn lists(fleet: &Fleet, markup: Markup) -> String {
    let findings: Vec<String> = fleet
        .findings
        .iter()
        .map(|s| spread_item(s, markup))
        .collect();
    let shared: Vec<String> = fleet
        .columns
        .iter()
        .filter(|c| !c.differs)
        .map(|c| {
            markup.escape(&format!(
                "{}: {}",
                c.title,
                c.majority.as_deref().unwrap_or("—")
            ))
        })
        .collect();
    let unreadable: Vec<String> = fleet
        .unreadable
        .iter()
        .map(|u| format!("{}: {}", markup.code(&u.path), markup.escape(&u.error)))
        .collect();
    [
        markup.section("Findings", &findings),
        markup.section("The same on every machine", &shared),
        markup.section("Reports not read", &unreadable),
    ]
    .concat()
}

/// "64 machine(s) in 3 group(s); they differ in 4 of 12 columns".
fn headline(fleet: &Fleet) -> String {
    format!(
        "{} machine(s) in {} group(s); they differ in {} of {} column(s)",
        fleet.machines,
        fleet.rows.len(),
        fleet.differing().count(),
        fleet.columns.len()
    )
}

fn row_title(k: usize, row: &Row) -> String {
    format!(
        "Group {} ({} machine(s)): {}",
        k + 1,
        row.members.len(),
        names(&row.members)
    )
}

/// The fleet as text.
pub fn render_text(fleet: &Fleet) -> String {
    let mut out = format!("{}\n", headline(fleet));
    for (k, row) in fleet.rows.iter().enumerate() {
        out.push_str(&format!("\n{}\n", row_title(k, row)));
        for (i, column) in fleet.differing() {
            out.push_str(&format!(
                "  {}: {}\n",
                column.title,
                cell_text(&row.cells[i])
            ));
        }
    }
    out.push_str(&lists(fleet, Markup::Text));
    out
}

/// The fleet as Markdown (a ticket or an issue).
pub fn render_markdown(fleet: &Fleet) -> String {
    let mut out = format!("# CUDA Triage fleet\n\n{}.\n", headline(fleet));
    let differing: Vec<(usize, &Column)> = fleet.differing().collect();
    if !differing.is_empty() {
        out.push_str("\n## What differs, and where\n\n| Machines |");
        for (_, c) in &differing {
            out.push_str(&format!(" {} |", md_escape(&c.title)));
        }
        out.push_str(&format!("\n|---|{}\n", "---|".repeat(differing.len())));
        for row in &fleet.rows {
            out.push_str(&format!(
                "| {} ({}) |",
                md_escape(&names(&row.members)),
                row.members.len()
            ));
            for (i, _) in &differing {
                let cell = &row.cells[*i];
                let text = md_escape(&cell_text(cell));
                if cell.minority {
                    out.push_str(&format!(" **{text}** |"));
                } else {
                    out.push_str(&format!(" {text} |"));
                }
            }
            out.push('\n');
        }
    }
    out.push_str(&lists(fleet, Markup::Markdown));
    out
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:1.5rem;color:#1b1b1b}\
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem .45rem;text-align:left;\
vertical-align:top;font-size:.85rem}th{background:#eee}th.same{background:#f7f7f7;color:#666}\
td.odd{background:#ffe0b2;font-weight:bold}tr.error td:first-child{border-left:.3rem solid #c62828}\
li{margin:.3rem 0}code{font-family:ui-monospace,Consolas,monospace}";

/// The fleet as one self-contained HTML page: every column, differing ones first.
pub fn render_html(fleet: &Fleet) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>CUDA Triage fleet</title><style>{STYLE}</style></head><body>\n\
         <h1>CUDA Triage fleet</h1>\n<p>{}.</p>\n<table><thead><tr><th>Machines</th>",
        html_escape(&headline(fleet))
    );
    for c in &fleet.columns {
        let class = if c.differs { "" } else { " class=\"same\"" };
        out.push_str(&format!("<th{class}>{}</th>", html_escape(&c.title)));
    }
    out.push_str("</tr></thead><tbody>\n");
    for row in &fleet.rows {
        let class = if row.has_error {
            " class=\"error\""
        } else {
            ""
        };
        out.push_str(&format!(
            "<tr{class}><td>{} ({})</td>",
            html_escape(&names(&row.members)),
            row.members.len()
        ));
        for cell in &row.cells {
            let class = if cell.minority { " class=\"odd\"" } else { "" };
            out.push_str(&format!(
                "<td{class}>{}</td>",
                html_escape(&cell_text(cell))
            ));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table>\n");
    out.push_str(&lists(fleet, Markup::Html));
    out.push_str("</body></html>\n");
    out
}

//! The report formats, one descriptor row each ([`FormatSpec`]: label, file extensions,
//! renderer), and how a file name picks one: `.md`/`.markdown` is Markdown, `.html`/`.htm` is
//! HTML, anything else is the JSON contract (the only one `open` reads back). [`ReportFormat::ALL`]
//! drives the wizard's Save buttons and the CLI's `--format` values (its first extension, the
//! others as aliases).

use super::{Report, html, markdown};
use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReportFormat {
    Json,
    Markdown,
    Html,
}

/// What a format is: its name for people, the file extensions that ask for it (the first is the
/// one a saved file gets and the CLI's `--format` value; the others are aliases), its renderer.
pub struct FormatSpec {
    pub label: &'static str,
    pub extensions: &'static [&'static str],
    pub render: fn(&Report) -> String,
}

fn render_json(doc: &Report) -> String {
    doc.to_json_pretty() + "\n"
}

impl ReportFormat {
    /// Every format, in the order the wizard offers them (one "Save … report" button each) and
    /// the CLI lists them.
    pub const ALL: [ReportFormat; 3] = [
        ReportFormat::Json,
        ReportFormat::Markdown,
        ReportFormat::Html,
    ];

    /// The format's descriptor row.
    pub fn spec(self) -> &'static FormatSpec {
        match self {
            ReportFormat::Json => &FormatSpec {
                label: "JSON",
                extensions: &["json"],
                render: render_json,
            },
            ReportFormat::Markdown => &FormatSpec {
                label: "Markdown",
                extensions: &["md", "markdown"],
                render: markdown::render,
            },
            ReportFormat::Html => &FormatSpec {
                label: "HTML",
                extensions: &["html", "htm"],
                render: html::render,
            },
        }
    }

    /// The format one of its extensions (or `--format` names) names, ignoring case.
    pub fn from_extension(ext: &str) -> Option<ReportFormat> {
        ReportFormat::ALL.into_iter().find(|f| {
            f.spec()
                .extensions
                .iter()
                .any(|e| e.eq_ignore_ascii_case(ext))
        })
    }

    /// The format a file name asks for (JSON when the extension says nothing else).
    pub fn from_path(path: &Path) -> ReportFormat {
        path.extension()
            .and_then(|e| e.to_str())
            .and_then(ReportFormat::from_extension)
            .unwrap_or(ReportFormat::Json)
    }

    /// The extension a saved file gets (also the CLI's `--format` value).
    pub fn extension(self) -> &'static str {
        self.spec().extensions.first().copied().unwrap_or_default()
    }

    pub fn label(self) -> &'static str {
        self.spec().label
    }

    /// The document rendered in this format.
    pub fn render(self, doc: &Report) -> String {
        (self.spec().render)(doc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_picks_the_format() {
        assert_eq!(
            ReportFormat::from_path(Path::new("r.MD")),
            ReportFormat::Markdown
        );
        assert_eq!(
            ReportFormat::from_path(Path::new("r.htm")),
            ReportFormat::Html
        );
        assert_eq!(
            ReportFormat::from_path(Path::new("r.json")),
            ReportFormat::Json
        );
        assert_eq!(
            ReportFormat::from_path(Path::new("report")),
            ReportFormat::Json
        );
    }
}

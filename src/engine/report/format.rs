//! The three report formats and how a file name picks one: `.md`/`.markdown` is Markdown,
//! `.html`/`.htm` is HTML, anything else is the JSON contract (the only one `open` reads back).

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

impl ReportFormat {
    /// Every format, in the order the wizard offers them (one "Save … report" button each).
    pub const ALL: [ReportFormat; 3] = [
        ReportFormat::Json,
        ReportFormat::Markdown,
        ReportFormat::Html,
    ];

    /// The format a file name asks for (JSON when the extension says nothing else).
    pub fn from_path(path: &Path) -> ReportFormat {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        match ext.as_str() {
            "md" | "markdown" => ReportFormat::Markdown,
            "html" | "htm" => ReportFormat::Html,
            _ => ReportFormat::Json,
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            ReportFormat::Json => "json",
            ReportFormat::Markdown => "md",
            ReportFormat::Html => "html",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            ReportFormat::Json => "JSON",
            ReportFormat::Markdown => "Markdown",
            ReportFormat::Html => "HTML",
        }
    }

    /// The document rendered in this format.
    pub fn render(self, doc: &Report) -> String {
        match self {
            ReportFormat::Json => doc.to_json_pretty() + "\n",
            ReportFormat::Markdown => markdown::render(doc),
            ReportFormat::Html => html::render(doc),
        }
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

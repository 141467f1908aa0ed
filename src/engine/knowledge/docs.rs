//! `finding_docs.toml`: the public documentation each finding relies on (Microsoft's DLL
//! search order, ld.so(8), NVIDIA's installation guides and release notes, each framework's
//! install page), matched by finding code, platform and the framework the summary names.

use crate::engine::context::Platform;
use crate::engine::loader::glob_match;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocRow {
    /// Finding-code globs.
    pub codes: Vec<String>,
    /// `windows` / `linux`; absent for both.
    pub platform: Option<String>,
    /// Applies only when the summary names this (a framework).
    pub mentions: Option<String>,
    pub title: String,
    pub url: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocTables {
    #[serde(default, rename = "doc")]
    pub docs: Vec<DocRow>,
}

impl DocTables {
    /// The pages behind a finding, each once, in table order.
    pub fn for_finding(&self, code: &str, summary: &str, platform: Platform) -> Vec<&DocRow> {
        let mut out: Vec<&DocRow> = Vec::new();
        for row in &self.docs {
            let applies = row.codes.iter().any(|g| glob_match(g, code, false))
                && row
                    .platform
                    .as_deref()
                    .is_none_or(|p| p == platform.as_str())
                && row.mentions.as_deref().is_none_or(|m| summary.contains(m));
            if applies && !out.iter().any(|o| o.url == row.url) {
                out.push(row);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_link_the_pages_they_rely_on() {
        let t = &crate::engine::knowledge::knowledge().docs;
        assert!(!t.docs.is_empty());
        let titles = |code, summary, p| -> Vec<&str> {
            t.for_finding(code, summary, p)
                .iter()
                .map(|d| d.title.as_str())
                .collect()
        };
        let python = titles(
            "python-ignores-path",
            "Python 3.11 ignores PATH: ONNX Runtime cannot find cudart64_110.dll",
            Platform::Windows,
        );
        assert_eq!(
            python,
            [
                "Python: os.add_dll_directory",
                "Windows: dynamic-link library search order",
                "ONNX Runtime: CUDA execution provider requirements"
            ]
        );
        let linux = titles(
            "library-not-found",
            "PyTorch 2.5.1: libcudnn.so.9 not found",
            Platform::Linux,
        );
        assert_eq!(
            linux,
            [
                "ld.so(8): how the dynamic linker searches",
                "PyTorch: get started locally"
            ]
        );
        assert!(t.docs.iter().all(|d| d.url.starts_with("https://")));
    }
}

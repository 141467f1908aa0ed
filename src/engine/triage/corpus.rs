//! The error corpus: real error lines from public reports, each with its source and what triage
//! must make of it (identified libraries with component and version family, and/or finding
//! codes). [`run`] triages every entry and reports the hit rate and the misses — how
//! `why --corpus FILE` measures the catalog, and how the integration tests keep it from
//! regressing. An entry without any expectation is a miss, never a free hit.

use super::{Identified, triage};
use serde::{Deserialize, Serialize};

/// One library an entry must identify.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct ExpectedLibrary {
    pub file: String,
    pub component: String,
    pub version: String,
}

/// One corpus entry: the text as the source printed it and what must come out of it.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct CorpusEntry {
    /// Where the text was reported (issue, forum thread, documentation page).
    pub source: String,
    pub text: String,
    #[serde(default)]
    pub identified: Vec<ExpectedLibrary>,
    /// Finding codes the text alone must produce (e.g. `log-tf-dso-load-failed`).
    #[serde(default)]
    pub findings: Vec<String>,
}

#[derive(Deserialize)]
struct CorpusFile {
    #[serde(default)]
    entry: Vec<CorpusEntry>,
}

/// An entry triage did not fully explain.
#[derive(Debug, Clone, Serialize)]
pub struct CorpusMiss {
    /// 1-based position in the file.
    pub index: usize,
    pub source: String,
    pub text: String,
    /// Each expectation that was not met, in words.
    pub missing: Vec<String>,
}

/// The measurement: hits out of total, and every miss.
#[derive(Debug, Clone, Serialize)]
pub struct CorpusReport {
    pub total: usize,
    pub hits: usize,
    /// Percentage of entries fully met (0 for an empty corpus).
    pub hit_rate: f64,
    pub misses: Vec<CorpusMiss>,
}

/// A corpus file that does not parse.
#[derive(Debug, thiserror::Error)]
#[error("corpus is not valid: {0}")]
pub struct CorpusError(toml::de::Error);

/// Reads a corpus file (TOML, `[[entry]]` tables).
pub fn parse(text: &str) -> Result<Vec<CorpusEntry>, CorpusError> {
    toml::from_str::<CorpusFile>(text)
        .map(|f| f.entry)
        .map_err(CorpusError)
}

/// What an entry's expectations lack in the triage of its text (empty: a hit).
pub fn unmet(entry: &CorpusEntry) -> Vec<String> {
    if entry.identified.is_empty() && entry.findings.is_empty() {
        return vec!["the entry states no expectation".to_string()];
    }
    let t = triage(&entry.text);
    let mut missing = Vec::new();
    for want in &entry.identified {
        let got = t
            .identified
            .iter()
            .find(|i| i.file.eq_ignore_ascii_case(&want.file));
        match got {
            Some(Identified {
                component, version, ..
            }) if *component == want.component && *version == want.version => {}
            Some(i) => missing.push(format!(
                "{} identified as {} {}, expected {} {}",
                want.file, i.component, i.version, want.component, want.version
            )),
            None => missing.push(format!("{} not identified", want.file)),
        }
    }
    for code in &entry.findings {
        if !t.findings.iter().any(|f| &f.code == code) {
            missing.push(format!("no finding {code}"));
        }
    }
    missing
}

/// Triages every entry and counts the hits.
pub fn run(entries: &[CorpusEntry]) -> CorpusReport {
    let misses: Vec<CorpusMiss> = entries
        .iter()
        .enumerate()
        .filter_map(|(i, e)| {
            let missing = unmet(e);
            (!missing.is_empty()).then(|| CorpusMiss {
                index: i + 1,
                source: e.source.clone(),
                text: super::extract::clip(&e.text),
                missing,
            })
        })
        .collect();
    let total = entries.len();
    let hits = total - misses.len();
    let hit_rate = if total == 0 {
        0.0
    } else {
        (hits as f64 * 1000.0 / total as f64).round() / 10.0
    };
    CorpusReport {
        total,
        hits,
        hit_rate,
        misses,
    }
}

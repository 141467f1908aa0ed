//! One machine of a fleet as the matrix shows it: its label and a value per fact — platform,
//! NVIDIA driver, GPUs with their compute capability, CUDA toolkits, cuDNN copies, each
//! framework with its build, and each finding code with its severity. The facts are read from
//! the report's components (the same list `report --compare` matches), so both views agree.
//! Several of a kind share a cell: distinct values joined by `; `, repeated ones counted.

use crate::engine::findings::Severity;
use crate::engine::report::Report;
use crate::engine::report::components::{Component, ComponentKind, components};
use std::collections::BTreeMap;

/// Whether a column is a fact of the machine or a finding code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ColumnKind {
    Fact,
    Finding,
}

/// A column's identity: what it holds and its title.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ColumnKey {
    pub kind: ColumnKind,
    /// The order facts are shown in when nothing differs (platform, driver, GPU, ...).
    pub rank: u8,
    /// `driver`, `gpu`, `framework:torch`, `finding:library-missing`.
    pub key: String,
    pub title: String,
}

/// A finding a machine has: its worst severity there and one summary of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindingSeen {
    pub severity: Severity,
    pub summary: String,
}

/// What the fleet view keeps of one report (the report itself is dropped once read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineFacts {
    /// The report's `label` (host or node name the admin chose), else its file name.
    pub label: String,
    /// The report file it came from.
    pub path: String,
    pub facts: BTreeMap<ColumnKey, String>,
    /// Finding code -> what was seen.
    pub findings: BTreeMap<String, FindingSeen>,
}

impl MachineFacts {
    /// Whether any finding of this machine is an error.
    pub fn has_error(&self) -> bool {
        self.findings
            .values()
            .any(|f| f.severity == Severity::Error)
    }
}

fn fact(rank: u8, key: &str, title: &str) -> ColumnKey {
    ColumnKey {
        kind: ColumnKind::Fact,
        rank,
        key: key.to_string(),
        title: title.to_string(),
    }
}

/// The finding column of a code.
pub fn finding_column(code: &str) -> ColumnKey {
    ColumnKey {
        kind: ColumnKind::Finding,
        rank: 0,
        key: format!("finding:{code}"),
        title: code.to_string(),
    }
}

/// A framework's build as its component tells it: "expects CUDA 12.4, cuDNN 9", "CPU-only build".
fn framework_value(c: &Component) -> String {
    let build = c.detail.split("; loads").next().unwrap_or_default();
    format!("{} ({build})", c.version.as_deref().unwrap_or("?"))
}

/// The column and cell text of one component (none for Python environments and GPU-test libraries,
/// whose paths differ on every machine).
fn component_fact(c: &Component) -> Option<(ColumnKey, String)> {
    let version = || c.version.clone().unwrap_or_else(|| "?".into());
    match c.kind {
        ComponentKind::Driver => Some((fact(1, "driver", "NVIDIA driver"), version())),
        ComponentKind::Gpu => Some((
            fact(2, "gpu", "GPU (compute capability)"),
            format!("{} ({})", c.detail, version()),
        )),
        ComponentKind::CudaToolkit => Some((fact(3, "cuda-toolkit", "CUDA toolkits"), version())),
        ComponentKind::Cudnn => Some((fact(4, "cudnn", "cuDNN"), version())),
        ComponentKind::Framework => {
            let package = c.name.split(" (").next().unwrap_or_default();
            Some((
                fact(5, &format!("framework:{package}"), package),
                framework_value(c),
            ))
        }
        ComponentKind::Python | ComponentKind::GpuLibrary => None,
    }
}

/// A cell's values, sorted, each once, with how many there are when more than one: two GPUs of
/// one model read `2 × NVIDIA A100-SXM4-80GB, 81920 MiB (8.0)`, so a node that lost one differs.
pub(super) fn counted(mut list: Vec<String>) -> String {
    list.sort();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < list.len() {
        let same = list[i..].iter().take_while(|v| **v == list[i]).count();
        out.push(match same {
            1 => list[i].clone(),
            n => format!("{n} × {}", list[i]),
        });
        i += same;
    }
    out.join("; ")
}

/// The facts of one report, labelled `label`.
pub fn machine_facts(label: String, path: String, doc: &Report) -> MachineFacts {
    let mut values: BTreeMap<ColumnKey, Vec<String>> = BTreeMap::new();
    let m = &doc.machine;
    values
        .entry(fact(0, "platform", "Platform"))
        .or_default()
        .push(format!("{}{}", m.platform.as_str(), m.placement()));
    for (key, value) in components(doc).iter().filter_map(component_fact) {
        values.entry(key).or_default().push(value);
    }
    let facts = values
        .into_iter()
        .map(|(key, list)| (key, counted(list)))
        .collect();
    let mut findings: BTreeMap<String, FindingSeen> = BTreeMap::new();
    for f in &doc.findings {
        let seen = findings
            .entry(f.code.clone())
            .or_insert_with(|| FindingSeen {
                severity: f.severity,
                summary: f.summary.clone(),
            });
        if f.severity < seen.severity {
            *seen = FindingSeen {
                severity: f.severity,
                summary: f.summary.clone(),
            };
        }
    }
    MachineFacts {
        label,
        path,
        facts,
        findings,
    }
}

//! Comparing reports: what differs between two machines ("works on A, fails on B"), and, for
//! many, which machines are alike. Per component — match, compatible (same major.minor, or the
//! same driver branch), mismatch, missing — then the loading-related environment, then findings
//! present on one side only. Volatile fields (capture time, tool version, source path, finding
//! order) are ignored.

use super::Document;
use super::components::{Component, components};
use serde::Serialize;
use std::collections::BTreeMap;

/// How one component compares between two machines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Match,
    Compatible,
    Mismatch,
    Missing,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ComponentDiff {
    pub kind: String,
    pub label: String,
    pub a: Option<String>,
    pub b: Option<String>,
    pub status: Status,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnvDiff {
    pub name: String,
    pub a: Option<String>,
    pub b: Option<String>,
}

/// A finding one side has and the other lacks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OneSided {
    pub code: String,
    pub severity: String,
    pub summary: String,
}

/// Two reports compared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Comparison {
    pub components: Vec<ComponentDiff>,
    pub env: Vec<EnvDiff>,
    pub only_a: Vec<OneSided>,
    pub only_b: Vec<OneSided>,
}

impl Comparison {
    /// Whether anything differs (compatible versions count as no difference).
    pub fn differs(&self) -> bool {
        self.components
            .iter()
            .any(|c| matches!(c.status, Status::Mismatch | Status::Missing))
            || !self.env.is_empty()
            || !self.only_a.is_empty()
            || !self.only_b.is_empty()
    }
}

/// The word before " (" — a framework's package, a Python environment's kind.
fn family(c: &Component) -> String {
    match c.kind {
        "framework" => c.name.split(" (").next().unwrap_or("").to_string(),
        _ => c.kind.to_string(),
    }
}

fn major_minor(v: &str) -> String {
    v.split('.').take(2).collect::<Vec<_>>().join(".")
}

fn status(kind: &str, a: &Option<String>, b: &Option<String>) -> Status {
    match (a, b) {
        (Some(x), Some(y)) if x == y => Status::Match,
        (None, None) => Status::Match,
        (Some(x), Some(y)) => {
            let same = if kind == "driver" {
                x.split('.').next() == y.split('.').next()
            } else {
                major_minor(x) == major_minor(y)
            };
            if same {
                Status::Compatible
            } else {
                Status::Mismatch
            }
        }
        _ => Status::Mismatch,
    }
}

fn diff(kind: &str, label: String, a: Option<&Component>, b: Option<&Component>) -> ComponentDiff {
    let (va, vb) = (
        a.map(|c| c.version.clone().unwrap_or_else(|| "?".into())),
        b.map(|c| c.version.clone().unwrap_or_else(|| "?".into())),
    );
    let status = if a.is_none() || b.is_none() {
        Status::Missing
    } else {
        status(kind, &va, &vb)
    };
    ComponentDiff {
        kind: kind.to_string(),
        label,
        a: va,
        b: vb,
        status,
    }
}

/// Pairs components of the two sides: same kind and name first, then leftovers of the same
/// family in order (toolkit 11.8 on A against 12.1 on B), the rest missing on one side.
fn pair_components(a: &[Component], b: &[Component]) -> Vec<ComponentDiff> {
    let mut used_b = vec![false; b.len()];
    let mut pending_a = Vec::new();
    let mut out = Vec::new();
    for ca in a {
        match (0..b.len()).find(|&j| !used_b[j] && b[j].kind == ca.kind && b[j].name == ca.name) {
            Some(j) => {
                used_b[j] = true;
                out.push(diff(ca.kind, ca.label(), Some(ca), Some(&b[j])));
            }
            None => pending_a.push(ca),
        }
    }
    for ca in pending_a {
        match (0..b.len())
            .find(|&j| !used_b[j] && b[j].kind == ca.kind && family(&b[j]) == family(ca))
        {
            Some(j) => {
                used_b[j] = true;
                out.push(diff(ca.kind, ca.label(), Some(ca), Some(&b[j])));
            }
            None => out.push(diff(ca.kind, ca.label(), Some(ca), None)),
        }
    }
    for (j, cb) in b.iter().enumerate() {
        if !used_b[j] {
            out.push(diff(cb.kind, cb.label(), None, Some(cb)));
        }
    }
    out
}

fn one_sided(from: &Document, other: &Document) -> Vec<OneSided> {
    let mut out: Vec<OneSided> = from
        .findings
        .iter()
        .filter(|f| {
            !other
                .findings
                .iter()
                .any(|g| g.code == f.code && g.summary == f.summary)
        })
        .map(|f| OneSided {
            code: f.code.clone(),
            severity: f.severity.as_str().to_string(),
            summary: f.summary.clone(),
        })
        .collect();
    out.sort_by(|x, y| (&x.code, &x.summary).cmp(&(&y.code, &y.summary)));
    out.dedup();
    out
}

/// Compares two reports.
pub fn compare(a: &Document, b: &Document) -> Comparison {
    let components = pair_components(&components(a), &components(b));
    let mut names: Vec<&String> = a.machine.env.keys().chain(b.machine.env.keys()).collect();
    names.sort();
    names.dedup();
    let env = names
        .into_iter()
        .filter(|n| a.machine.env.get(*n) != b.machine.env.get(*n))
        .map(|n| EnvDiff {
            name: n.clone(),
            a: a.machine.env.get(n).cloned(),
            b: b.machine.env.get(n).cloned(),
        })
        .collect();
    Comparison {
        components,
        env,
        only_a: one_sided(a, b),
        only_b: one_sided(b, a),
    }
}

/// Machines grouped by what they have: identical groups share versions and finding codes.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    pub members: Vec<String>,
    /// How the group differs from the largest group (empty for the largest itself).
    pub versus_largest: Option<Comparison>,
}

/// What decides that two machines are alike: component versions and finding codes.
fn fingerprint(doc: &Document) -> String {
    let mut parts: Vec<String> = components(doc)
        .iter()
        .map(|c| {
            format!(
                "{}:{}={}",
                c.kind,
                family(c),
                c.version.as_deref().unwrap_or("?")
            )
        })
        .collect();
    parts.sort();
    let mut codes: Vec<&str> = doc.findings.iter().map(|f| f.code.as_str()).collect();
    codes.sort();
    codes.dedup();
    format!("{}|{}", parts.join(","), codes.join(","))
}

/// Groups many reports (label, document), largest group first.
pub fn group(reports: &[(String, Document)]) -> Vec<Group> {
    let mut by_print: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, (_, doc)) in reports.iter().enumerate() {
        by_print.entry(fingerprint(doc)).or_default().push(i);
    }
    let mut groups: Vec<Vec<usize>> = by_print.into_values().collect();
    groups.sort_by(|x, y| y.len().cmp(&x.len()).then(x[0].cmp(&y[0])));
    let Some(largest) = groups.first().map(|g| g[0]) else {
        return Vec::new();
    };
    groups
        .iter()
        .enumerate()
        .map(|(k, members)| Group {
            members: members.iter().map(|&i| reports[i].0.clone()).collect(),
            versus_largest: (k > 0).then(|| compare(&reports[largest].1, &reports[members[0]].1)),
        })
        .collect()
}

/// Two reports compared, as text.
pub fn render_text(a_label: &str, b_label: &str, c: &Comparison) -> String {
    let mut out = format!("A: {a_label}\nB: {b_label}\n\nComponents:\n");
    for d in &c.components {
        let word = match d.status {
            Status::Match => "match",
            Status::Compatible => "compatible",
            Status::Mismatch => "MISMATCH",
            Status::Missing => "MISSING",
        };
        out.push_str(&format!(
            "  {word:<10} {}: A {} / B {}\n",
            d.label,
            d.a.as_deref().unwrap_or("—"),
            d.b.as_deref().unwrap_or("—")
        ));
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
        out.push_str("\nNo difference that matters for loading GPU libraries.\n");
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
            for d in c
                .components
                .iter()
                .filter(|d| matches!(d.status, Status::Mismatch | Status::Missing))
            {
                out.push_str(&format!(
                    "  differs from group 1 in {}: {} vs {}\n",
                    d.label,
                    d.a.as_deref().unwrap_or("—"),
                    d.b.as_deref().unwrap_or("—")
                ));
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

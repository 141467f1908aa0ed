//! Comparing reports: what differs between two machines ("works on A, fails on B"), and, for
//! many, which machines are alike. Per component — match, compatible (same major.minor, or the
//! same driver branch), relocated (same version at a different path), mismatch, missing — with
//! where each side has it, then the loading-related environment, then findings present on one
//! side only. Volatile fields (capture time, tool version, source path, finding order) are
//! ignored. [`render`] writes the result as text or Markdown.

mod render;

pub use render::{render_groups_markdown, render_groups_text, render_markdown, render_text};

use super::Report;
use super::components::{Component, ComponentKind, components};
use serde::Serialize;
use std::collections::BTreeMap;

/// How one component compares between two machines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Same version at the same path.
    Match,
    /// Versions that differ but stay compatible (same major.minor; same driver branch).
    Compatible,
    /// Same version, found at a different path (another install root, a library mapped from
    /// another folder).
    Relocated,
    Mismatch,
    Missing,
}

impl Status {
    /// The word the text and Markdown renderings show.
    pub fn word(self) -> &'static str {
        match self {
            Status::Match => "match",
            Status::Compatible => "compatible",
            Status::Relocated => "relocated",
            Status::Mismatch => "MISMATCH",
            Status::Missing => "MISSING",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ComponentDiff {
    pub kind: ComponentKind,
    pub label: String,
    /// The version on each side (`?` when unknown, null when the side lacks the component).
    pub a: Option<String>,
    pub b: Option<String>,
    pub status: Status,
    /// Where each side has it (null for the driver and GPUs, or a side that lacks it).
    pub a_path: Option<String>,
    pub b_path: Option<String>,
    /// Set when both sides have it at different paths.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl ComponentDiff {
    /// Whether this difference matters for loading: another version, a side without it, or the
    /// same or a compatible version from another place.
    pub fn differs(&self) -> bool {
        match self.status {
            Status::Match => false,
            Status::Compatible => self.note.is_some(),
            Status::Relocated | Status::Mismatch | Status::Missing => true,
        }
    }
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
    /// Whether anything differs (compatible versions at the same path count as no difference).
    pub fn differs(&self) -> bool {
        self.components.iter().any(ComponentDiff::differs)
            || !self.env.is_empty()
            || !self.only_a.is_empty()
            || !self.only_b.is_empty()
    }
}

/// The word before " (" — a framework's package, a Python environment's kind.
fn family(c: &Component) -> String {
    match c.kind {
        ComponentKind::Framework => c.name.split(" (").next().unwrap_or("").to_string(),
        other => other.as_str().to_string(),
    }
}

fn major_minor(v: &str) -> String {
    v.split('.').take(2).collect::<Vec<_>>().join(".")
}

fn status(kind: ComponentKind, a: &Option<String>, b: &Option<String>) -> Status {
    match (a, b) {
        (Some(x), Some(y)) if x == y => Status::Match,
        (None, None) => Status::Match,
        (Some(x), Some(y)) => {
            let same = if kind == ComponentKind::Driver {
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

/// A path as compared: without a trailing separator; a Windows path (a backslash or a drive
/// letter) also without case and with one kind of separator.
fn path_key(path: &str) -> String {
    let trimmed = path.trim_end_matches(['/', '\\']);
    let trimmed = if trimmed.is_empty() { path } else { trimmed };
    let windows = trimmed.contains('\\') || trimmed.as_bytes().get(1) == Some(&b':');
    if windows {
        trimmed.replace('/', "\\").to_lowercase()
    } else {
        trimmed.to_string()
    }
}

/// Whether both sides name a path and the paths differ (an unknown side differs from nothing).
fn paths_differ(a: &Option<String>, b: &Option<String>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => path_key(x) != path_key(y),
        _ => false,
    }
}

fn diff(
    kind: ComponentKind,
    label: String,
    a: Option<&Component>,
    b: Option<&Component>,
) -> ComponentDiff {
    let (va, vb) = (
        a.map(|c| c.version.clone().unwrap_or_else(|| "?".into())),
        b.map(|c| c.version.clone().unwrap_or_else(|| "?".into())),
    );
    let (a_path, b_path) = (
        a.and_then(|c| c.path.clone()),
        b.and_then(|c| c.path.clone()),
    );
    let moved = paths_differ(&a_path, &b_path);
    let status = match (a.is_none() || b.is_none(), status(kind, &va, &vb)) {
        (true, _) => Status::Missing,
        (false, Status::Match) if moved => Status::Relocated,
        (false, s) => s,
    };
    let note = moved.then(|| match status {
        Status::Relocated => "same version, different path".to_string(),
        _ => "different path".to_string(),
    });
    ComponentDiff {
        kind,
        label,
        a: va,
        b: vb,
        status,
        a_path,
        b_path,
        note,
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

fn one_sided(from: &Report, other: &Report) -> Vec<OneSided> {
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
pub fn compare(a: &Report, b: &Report) -> Comparison {
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

/// Machines grouped by what they have: a group shares component versions and paths, and
/// finding codes.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    pub members: Vec<String>,
    /// How the group differs from the largest group (empty for the largest itself).
    pub versus_largest: Option<Comparison>,
}

/// What decides that two machines are alike: component versions and paths, and finding codes.
fn fingerprint(doc: &Report) -> String {
    let mut parts: Vec<String> = components(doc)
        .iter()
        .map(|c| {
            format!(
                "{}:{}={}@{}",
                c.kind.as_str(),
                family(c),
                c.version.as_deref().unwrap_or("?"),
                c.path.as_deref().map(path_key).unwrap_or_default()
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
pub fn group(reports: &[(String, Report)]) -> Vec<Group> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn toolkit(version: &str, root: &str) -> Component {
        Component {
            kind: ComponentKind::CudaToolkit,
            name: root.into(),
            version: Some(version.into()),
            detail: root.into(),
            path: Some(root.into()),
        }
    }

    fn one(a: Component, b: Component) -> ComponentDiff {
        let mut pairs = pair_components(&[a], &[b]);
        assert_eq!(pairs.len(), 1, "{pairs:?}");
        pairs.remove(0)
    }

    #[test]
    fn same_version_at_another_root_is_relocated_not_a_match() {
        let d = one(
            toolkit("12.4.1", "/usr/local/cuda-12.4"),
            toolkit("12.4.1", "/opt/cuda-12.4"),
        );
        assert_eq!(d.status, Status::Relocated);
        assert_eq!(d.note.as_deref(), Some("same version, different path"));
        assert_eq!(d.b_path.as_deref(), Some("/opt/cuda-12.4"));
        assert!(d.differs());
    }

    #[test]
    fn windows_paths_compare_without_case_or_a_trailing_separator() {
        let d = one(
            toolkit("12.1", r"C:\Program Files\CUDA\v12.1"),
            toolkit("12.1", r"c:\program files\cuda\v12.1\"),
        );
        assert_eq!(d.status, Status::Match, "{d:?}");
        assert!(!d.differs());
    }

    #[test]
    fn compatible_versions_differ_only_when_their_paths_do() {
        let same = one(
            toolkit("12.4.1", "/usr/local/cuda"),
            toolkit("12.4.0", "/usr/local/cuda"),
        );
        assert_eq!(same.status, Status::Compatible);
        assert!(!same.differs());
        let moved = one(
            toolkit("12.4.1", "/usr/local/cuda"),
            toolkit("12.4.0", "/opt/cuda"),
        );
        assert_eq!(moved.status, Status::Compatible);
        assert_eq!(moved.note.as_deref(), Some("different path"));
        assert!(moved.differs());
    }
}

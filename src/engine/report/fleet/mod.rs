//! Many machines at once: the reports of a lab or a cluster (collected by Ansible or Slurm, see
//! `assets/fleet/`) as one matrix of machines × facts — platform, driver, GPUs and their compute
//! capability, CUDA toolkits, cuDNN, each framework and its build, each finding code. Machines
//! whose every cell agrees form one row; the columns where machines differ come first; in each
//! column the value fewer machines have is marked; and each finding says on how many machines,
//! and which, it was seen. The CLI (`cuda-triage fleet`) and the wizard only render this model.

mod facts;
mod load;
mod render;

pub use facts::{ColumnKind, MachineFacts};
pub use load::{ReadOptions, Unreadable, read_all, read_one, report_paths};
pub use render::{
    MINORITY_MARK, cell_text, names, render_html, render_markdown, render_text, spread_line,
};

use crate::engine::findings::Severity;
use facts::{ColumnKey, finding_column};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// One column of the matrix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Column {
    pub kind: ColumnKind,
    /// `driver`, `gpu`, `cuda-toolkit`, `cudnn`, `framework:torch`, `finding:library-missing`.
    pub key: String,
    pub title: String,
    /// Whether machines differ in it (more than one value, absence counting as one).
    pub differs: bool,
    /// The value most machines have (null: most machines lack it).
    pub majority: Option<String>,
}

/// One cell: the value (null: the machine lacks it) and whether it is a minority value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cell {
    pub value: Option<String>,
    pub minority: bool,
}

/// Machines whose every cell agrees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    pub members: Vec<String>,
    /// One cell per column, in the columns' order.
    pub cells: Vec<Cell>,
    /// Whether its machines have an error finding.
    pub has_error: bool,
}

/// A finding code and the machines that have it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FindingSpread {
    pub code: String,
    /// Its worst severity on any machine.
    pub severity: Severity,
    /// One of its summaries, as a machine with that severity words it.
    pub summary: String,
    pub machines: Vec<String>,
    pub count: usize,
    pub total: usize,
}

/// The fleet view of a set of reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fleet {
    /// How many reports were read.
    pub machines: usize,
    /// Differing columns first (facts before findings), then the ones every machine shares.
    pub columns: Vec<Column>,
    /// Largest group of identical machines first.
    pub rows: Vec<Row>,
    /// Errors first, then the findings fewest machines have.
    pub findings: Vec<FindingSpread>,
    pub unreadable: Vec<Unreadable>,
}

impl Fleet {
    /// Whether any machine has an error finding (the CLI then exits 1).
    pub fn has_error(&self) -> bool {
        self.rows.iter().any(|r| r.has_error)
    }

    /// The columns in which machines differ.
    pub fn differing(&self) -> impl Iterator<Item = (usize, &Column)> {
        self.columns.iter().enumerate().filter(|(_, c)| c.differs)
    }
}

/// Reads the reports that `inputs` name (folders and files) and builds their fleet view.
pub fn fleet_of(inputs: &[PathBuf], options: ReadOptions) -> Fleet {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
    let (paths, listing_failed) = match report_paths(inputs) {
        Ok(paths) => (paths, None),
        Err(u) => (Vec::new(), Some(u)),
    };
    let (machines, mut unreadable) = read_all(&paths, threads, options);
    unreadable.extend(listing_failed);
    let mut fleet = build(&machines);
    fleet.unreadable = unreadable;
    fleet
}

/// The value each machine has in a column.
fn cell_value(m: &MachineFacts, key: &ColumnKey) -> Option<String> {
    match key.key.strip_prefix("finding:") {
        Some(code) if key.kind == ColumnKind::Finding => m
            .findings
            .get(code)
            .map(|f| f.severity.as_str().to_string()),
        _ => m.facts.get(key).cloned(),
    }
}

/// The most frequent value of a column (the first seen among equals) and how many distinct ones.
fn majority(values: &[Option<String>]) -> (Option<String>, usize) {
    let mut counts: HashMap<&Option<String>, (usize, usize)> = HashMap::new();
    for (i, v) in values.iter().enumerate() {
        counts.entry(v).or_insert((0, i)).0 += 1;
    }
    let best = counts
        .iter()
        .max_by(|a, b| (a.1.0, std::cmp::Reverse(a.1.1)).cmp(&(b.1.0, std::cmp::Reverse(b.1.1))))
        .map(|(v, _)| (*v).clone())
        .unwrap_or(None);
    (best, counts.len())
}

/// The fleet view of machines already read.
pub fn build(machines: &[MachineFacts]) -> Fleet {
    let mut keys: Vec<ColumnKey> = machines
        .iter()
        .flat_map(|m| {
            m.facts
                .keys()
                .cloned()
                .chain(m.findings.keys().map(|code| finding_column(code)))
        })
        .collect();
    keys.sort();
    keys.dedup();
    // Column-major values: one vector per column, one entry per machine.
    let mut columns: Vec<(ColumnKey, Vec<Option<String>>, Column)> = keys
        .into_iter()
        .map(|key| {
            let values: Vec<Option<String>> =
                machines.iter().map(|m| cell_value(m, &key)).collect();
            let (majority, distinct) = majority(&values);
            let column = Column {
                kind: key.kind,
                key: key.key.clone(),
                title: key.title.clone(),
                differs: distinct > 1,
                majority,
            };
            (key, values, column)
        })
        .collect();
    columns.sort_by_key(|(key, _, c)| (!c.differs, key.clone()));
    let rows = group_rows(machines, &columns);
    let findings = spreads(machines);
    Fleet {
        machines: machines.len(),
        columns: columns.into_iter().map(|(_, _, c)| c).collect(),
        rows,
        findings,
        unreadable: Vec::new(),
    }
}

/// Machines with identical cells, as rows; largest first, then in the order read.
fn group_rows(
    machines: &[MachineFacts],
    columns: &[(ColumnKey, Vec<Option<String>>, Column)],
) -> Vec<Row> {
    let mut by_cells: HashMap<Vec<&Option<String>>, usize> = HashMap::new();
    let mut rows: Vec<Row> = Vec::new();
    for (i, m) in machines.iter().enumerate() {
        let cells: Vec<&Option<String>> = columns.iter().map(|(_, values, _)| &values[i]).collect();
        match by_cells.get(&cells) {
            Some(&row) => rows[row].members.push(m.label.clone()),
            None => {
                by_cells.insert(cells.clone(), rows.len());
                rows.push(Row {
                    members: vec![m.label.clone()],
                    cells: cells
                        .iter()
                        .zip(columns)
                        .map(|(value, (_, _, column))| Cell {
                            value: (*value).clone(),
                            minority: column.differs && **value != column.majority,
                        })
                        .collect(),
                    has_error: m.has_error(),
                });
            }
        }
    }
    rows.sort_by_key(|r| std::cmp::Reverse(r.members.len()));
    rows
}

/// Each finding code with the machines that have it.
fn spreads(machines: &[MachineFacts]) -> Vec<FindingSpread> {
    let mut by_code: BTreeMap<&str, (facts::FindingSeen, Vec<String>)> = BTreeMap::new();
    for m in machines {
        for (code, seen) in &m.findings {
            let entry = by_code
                .entry(code.as_str())
                .or_insert_with(|| (seen.clone(), Vec::new()));
            if seen.severity < entry.0.severity {
                entry.0 = seen.clone();
            }
            entry.1.push(m.label.clone());
        }
    }
    let mut out: Vec<(facts::FindingSeen, FindingSpread)> = by_code
        .into_iter()
        .map(|(code, (seen, labels))| {
            let spread = FindingSpread {
                code: code.to_string(),
                severity: seen.severity,
                summary: seen.summary.clone(),
                count: labels.len(),
                total: machines.len(),
                machines: labels,
            };
            (seen, spread)
        })
        .collect();
    out.sort_by(|(a, x), (b, y)| {
        (a.severity, x.count, &x.code).cmp(&(b.severity, y.count, &y.code))
    });
    out.into_iter().map(|(_, s)| s).collect()
}

#[cfg(test)]
mod tests;

//! The JSON contract (`"schema": "cuda-triage/1"`): one typed [`Report`] shared by every command.
//! `machine` and `findings` are always there; each command fills its own top-level keys
//! (`tree` fills `root` and `nodes`, `why` fills `identified`, ...).
//! Saved reports are the same type and can be reopened anywhere.
//!
//! A saved report also carries `tool`, `captured_at`, `redacted` and `snapshot` ([`capture`]);
//! it is written as JSON, Markdown ([`markdown`]) or HTML ([`html`]), redacted by default
//! ([`redact`], [`redact_check`]), compared with others ([`compare`]) and, for a lab or a cluster,
//! laid side by side with many others ([`fleet`]).

pub mod capture;
pub mod compare;
pub mod components;
pub mod fleet;
pub mod format;
pub mod html;
pub mod markdown;
mod placement;
pub mod redact;
pub mod redact_check;
pub mod reopen;
mod root_info;
pub mod text;
pub mod text_tree;
pub mod trees;

#[cfg(test)]
mod tests;

pub use format::ReportFormat;

pub use root_info::{RootInfo, RootResolution};

pub use placement::runs_in_lines;

use super::context::{MachineSummary, SystemContext};
use super::findings::Finding;
use super::gpu::results::GpuReport;
use super::gpu::sets::LibrarySet;
use super::graph::Node;
use super::inventory::Inventory;
use super::triage::Identified;
use super::triage::extract::{ErrorCode, MissingSymbol};
use crate::engine::fix::operations::{ApplyReport, OfferedFix};
use crate::engine::fix::plan::PlanView;
use capture::{AppliedFix, ContextSnapshot, ToolInfo};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;

/// The schema identifier every document carries; bumped only on incompatible change.
pub const SCHEMA: &str = "cuda-triage/1";

/// A report of the contract: `machine` and `findings` always; each command fills its own keys.
/// Written as `schema`, `machine`, `findings`, then the command's keys in alphabetical order with
/// their objects' keys sorted too ([`Serialize`] below) — the byte layout the contract has always
/// had; golden files in tests/fixtures/golden hold it.
#[derive(Debug, Clone, Deserialize)]
pub struct Report {
    pub schema: String,
    pub machine: MachineSummary,
    pub findings: Vec<Finding>,
    /// `fix apply`: what was written, and its verification.
    #[serde(default)]
    pub apply: Option<ApplyReport>,
    /// A saved report: when it was captured (RFC 3339, UTC).
    #[serde(default)]
    pub captured_at: Option<String>,
    /// `why`: error codes and status names found in the text.
    #[serde(default)]
    pub codes: Option<Vec<ErrorCode>>,
    /// `fix list`: the fixes offered, one row each.
    #[serde(default)]
    pub fixes: Option<Vec<OfferedFix>>,
    /// A saved report: the fixes this tool applied on the machine (its journal).
    #[serde(default)]
    pub fixes_applied: Option<Vec<AppliedFix>>,
    /// `gpu-test`: the live GPU test.
    #[serde(default)]
    pub gpu: Option<GpuReport>,
    /// `gpu-test --sets`: the library sets the scan offers.
    #[serde(default)]
    pub gpu_sets: Option<Vec<LibrarySet>>,
    /// `why`: the libraries named in the text.
    #[serde(default)]
    pub identified: Option<Vec<Identified>>,
    /// A saved report: the name the admin gave the machine (`report --label`), its one
    /// identity in a redacted report; the fleet view shows it.
    #[serde(default)]
    pub label: Option<String>,
    /// `scan`: what was found installed.
    #[serde(default)]
    pub inventory: Option<Inventory>,
    /// `tree`: every library of the tree.
    #[serde(default)]
    pub nodes: Option<Vec<Node>>,
    /// `fix show` / `fix apply`: the plan and its preview.
    #[serde(default)]
    pub plan: Option<PlanView>,
    /// A saved report: whether user names and home folders were replaced.
    #[serde(default)]
    pub redacted: Option<bool>,
    /// The wizard's stand-in for a report that could not be redacted (never saved).
    #[serde(default)]
    pub redaction_failed: Option<String>,
    /// `tree`: the root binary's machine path.
    #[serde(default)]
    pub root: Option<String>,
    /// `tree`: the root's own identity.
    #[serde(default)]
    pub root_info: Option<RootInfo>,
    /// `tree NAME`: how a bare name was searched for.
    #[serde(default)]
    pub root_resolution: Option<RootResolution>,
    /// A saved report: what the rules read, so it reopens anywhere.
    #[serde(default)]
    pub snapshot: Option<ContextSnapshot>,
    /// `why`: symbols the loader could not find.
    #[serde(default)]
    pub symbols: Option<Vec<MissingSymbol>>,
    /// A saved report: the tool that wrote it.
    #[serde(default)]
    pub tool: Option<ToolInfo>,
    /// A saved report: the dependency trees it carries.
    #[serde(default)]
    pub trees: Option<Vec<SavedTree>>,
    /// `why`: library-like names the tables do not know.
    #[serde(default)]
    pub unrecognized: Option<Vec<String>>,
    /// Keys this version does not know (a newer tool's), kept so a reopened report saves whole.
    #[serde(flatten)]
    pub unknown: serde_json::Map<String, Value>,
}

/// Writes the optional keys that are set, each with the value of its field.
macro_rules! optional_keys {
    ($report:expr, $out:expr, $($key:ident),* $(,)?) => {
        $(
            if let Some(value) = &$report.$key {
                $out.insert(
                    stringify!($key).to_string(),
                    serde_json::to_value(value)?,
                );
            }
        )*
    };
}

impl Report {
    /// The command-specific keys that are set, as JSON values in the contract's order (what
    /// [`Serialize`] writes after `schema`, `machine` and `findings`).
    fn keys(&self) -> Result<serde_json::Map<String, Value>, serde_json::Error> {
        // A `serde_json::Map` is sorted by key, and so is every object inside a `Value`.
        let mut keys = self.unknown.clone();
        optional_keys!(
            self,
            keys,
            apply,
            captured_at,
            codes,
            fixes,
            fixes_applied,
            gpu,
            gpu_sets,
            identified,
            inventory,
            label,
            nodes,
            plan,
            redacted,
            redaction_failed,
            root,
            root_info,
            root_resolution,
            snapshot,
            symbols,
            tool,
            trees,
            unrecognized,
        );
        Ok(keys)
    }
}

impl Serialize for Report {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let keys = self.keys().map_err(serde::ser::Error::custom)?;
        let mut map = serializer.serialize_map(Some(3 + keys.len()))?;
        map.serialize_entry("schema", &self.schema)?;
        map.serialize_entry("machine", &self.machine)?;
        map.serialize_entry("findings", &self.findings)?;
        for (key, value) in &keys {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// A dependency tree a saved report carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedTree {
    pub nodes: Vec<Node>,
    pub root: String,
}

/// A saved report that could not be reopened.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{path}: cannot read report: {message}")]
    Read { path: String, message: String },
    #[error("{path}: not a CUDA Triage report: {message}")]
    Invalid { path: String, message: String },
    #[error(
        "{path}: report schema \"{found}\" is not supported (this version reads \"{SCHEMA}\"); \
         it was written by a newer or different tool"
    )]
    Schema { path: String, found: String },
}

impl Report {
    /// A report of `ctx` with `findings` and no command-specific key yet.
    pub fn new(ctx: &SystemContext, findings: Vec<Finding>) -> Report {
        Report::for_machine(ctx.summary(), findings)
    }

    /// A report of a machine known only by its summary (a stand-in report, a reopened one).
    pub fn for_machine(machine: MachineSummary, findings: Vec<Finding>) -> Report {
        Report {
            schema: SCHEMA.to_string(),
            machine,
            findings,
            apply: None,
            captured_at: None,
            codes: None,
            fixes: None,
            fixes_applied: None,
            gpu: None,
            gpu_sets: None,
            identified: None,
            inventory: None,
            label: None,
            nodes: None,
            plan: None,
            redacted: None,
            redaction_failed: None,
            root: None,
            root_info: None,
            root_resolution: None,
            snapshot: None,
            symbols: None,
            tool: None,
            trees: None,
            unrecognized: None,
            unknown: Default::default(),
        }
    }

    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// Reads a saved report, checking its schema.
    pub fn load(path: &Path) -> Result<Report, ReportError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ReportError::Read {
            path: shown.clone(),
            message: e.to_string(),
        })?;
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| ReportError::Invalid {
                path: shown.clone(),
                message: e.to_string(),
            })?;
        match value.get("schema").and_then(|s| s.as_str()) {
            Some(SCHEMA) => {}
            Some(other) => {
                return Err(ReportError::Schema {
                    path: shown,
                    found: other.to_string(),
                });
            }
            None => {
                return Err(ReportError::Invalid {
                    path: shown,
                    message: "no \"schema\" key".into(),
                });
            }
        }
        serde_json::from_value(value).map_err(|e| ReportError::Invalid {
            path: shown,
            message: e.to_string(),
        })
    }
}

//! The JSON contract (`"schema": "cuda-triage/1"`): one document type shared by every command.
//! `machine` and `findings` are always there; each command adds its own top-level keys
//! (`tree` adds `root` and `nodes`, `why` adds `identified`, ...) through `extra`.
//! Saved reports are the same document and can be reopened anywhere.
//!
//! A saved report also carries `tool`, `captured_at`, `redacted` and `snapshot` ([`capture`]);
//! it is written as JSON, Markdown ([`markdown`]) or HTML ([`html`]), redacted by default
//! ([`redact`], [`redact_check`]), and compared with others ([`compare`]).

pub mod capture;
pub mod compare;
pub mod components;
pub mod format;
pub mod html;
pub mod markdown;
pub mod redact;
pub mod redact_check;
pub mod reopen;
pub mod trees;

pub use format::ReportFormat;

use super::context::{MachineSummary, SystemContext};
use super::findings::Finding;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The schema identifier every document carries; bumped only on incompatible change.
pub const SCHEMA: &str = "cuda-triage/1";

/// A JSON document of the contract.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Document {
    pub schema: String,
    pub machine: MachineSummary,
    pub findings: Vec<Finding>,
    /// Keys a command adds next to `machine` and `findings`.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
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

impl Document {
    pub fn new(ctx: &SystemContext, findings: Vec<Finding>) -> Document {
        Document {
            schema: SCHEMA.to_string(),
            machine: ctx.summary(),
            findings,
            extra: Default::default(),
        }
    }

    /// Adds a command-specific top-level key.
    pub fn with(mut self, key: &str, value: impl Serialize) -> Document {
        let value = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
        self.extra.insert(key.to_string(), value);
        self
    }

    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// Reads a saved report, checking its schema.
    pub fn load(path: &Path) -> Result<Document, ReportError> {
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

//! What turns a command's document into a saved report: the tool and its version, the capture
//! time, the snapshot of the context the engine used (platform, the whole environment of the
//! diagnosed process, the registry view, driver and GPU facts), and redaction — which fails rather
//! than hand out the document unredacted ([`RedactError`]).
//!
//! Keys added next to `machine` and `findings`: `tool`, `captured_at`, `redacted`, `snapshot`.

use super::Report;
use super::redact::{Identity, Redactor};
use super::redact_check::{self, RedactError};
use crate::engine::context::recorded::FsRecording;
use crate::engine::context::{DriverFacts, GpuFacts, Platform, RegistryView, SystemContext};
use crate::engine::fix::journal::{Journal, JournalState};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Which program wrote a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolInfo {
    pub name: String,
    pub version: String,
}

impl ToolInfo {
    pub fn this_build() -> ToolInfo {
        ToolInfo {
            name: env!("CARGO_PKG_NAME").to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}

/// The context the engine diagnosed, as a report keeps it (the `"snapshot"` key): enough to
/// rebuild the environment, registry and driver facts the rules read.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ContextSnapshot {
    pub platform: Platform,
    pub wsl: bool,
    /// Every variable of the diagnosed process (values outside the allow-list are `<set>` when
    /// the report is redacted).
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub registry: RegistryView,
    #[serde(default)]
    pub driver: Option<DriverFacts>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver_note: Option<String>,
    #[serde(default)]
    pub gpus: Vec<GpuFacts>,
    /// What the engine asked of the machine's files while the report was captured (present
    /// when the context recorded them: `report` from the command line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<FsRecording>,
}

impl ContextSnapshot {
    /// The snapshot of a context; when the context was recording ([`start_recording`]), what
    /// it saw is kept under `files`.
    pub fn of(ctx: &SystemContext) -> ContextSnapshot {
        ContextSnapshot {
            platform: ctx.platform,
            wsl: ctx.wsl,
            env: ctx
                .env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            registry: ctx.registry.clone(),
            driver: ctx.driver.clone(),
            driver_note: ctx.driver_note.clone(),
            gpus: ctx.gpus.clone(),
            files: ctx.fs.recording(),
        }
    }
}

/// Starts recording what the engine reads of a context's files (before the scan of a report).
pub fn start_recording(ctx: &mut SystemContext) {
    ctx.fs.start_recording();
}

/// Turns a scan's document, with the snapshot its scan attached, into a report: the tool and
/// capture time added, then redacted unless asked not to, with the identity read from the
/// snapshot (its environment) and this host. `now` is the capture time (seconds since the Unix
/// epoch). Loads nothing: the wizard calls it on its UI thread.
pub fn finish_captured(doc: Report, redact: bool, now_unix: u64) -> Result<Report, RedactError> {
    let mut doc = doc;
    doc.tool = Some(ToolInfo::this_build());
    doc.captured_at = Some(rfc3339_utc(now_unix));
    doc.redacted = Some(redact);
    if redact {
        let identity = identity_of_report(&doc);
        self::redact(doc, &identity)
    } else {
        Ok(doc)
    }
}

/// The identifying values of a saved report: its snapshot's and summary's environment (aliases
/// already, when it was redacted) and this host's. For redacting a reopened report again.
pub fn identity_of_report(doc: &Report) -> Identity {
    let vars = doc
        .snapshot
        .iter()
        .flat_map(|s| s.env.iter())
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .chain(
            doc.machine
                .env
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str())),
        );
    Identity::from_env(vars).merge(Identity::of_host())
}

/// Redacts a document with an identity: its JSON form is walked, the enum tags redaction met are
/// put back, and it must read back whole — else an error, never the document unredacted.
pub fn redact(doc: Report, identity: &Identity) -> Result<Report, RedactError> {
    let original = serde_json::to_value(&doc).map_err(RedactError::Serialize)?;
    let mut value = original.clone();
    let changed = Redactor::new(identity).redact_document(&mut value);
    redact_check::keep_readable(&original, &mut value, &changed)?;
    serde_json::from_value(value).map_err(|error| RedactError::Unreadable {
        part: "document".into(),
        error,
    })
}

/// What a report written without redaction adds, in words (for `--no-redact` and the GUI toggle),
/// read from the document's snapshot: its environment and registry, and this host.
pub fn unredacted_additions_of_report(doc: &Report) -> String {
    let kinds = identity_of_report(doc).describe();
    let env = doc
        .snapshot
        .iter()
        .flat_map(|s| s.env.keys().map(String::as_str));
    let registry_env = doc
        .snapshot
        .iter()
        .flat_map(|s| s.registry.keys())
        .filter(|(key, _)| key.to_ascii_lowercase().ends_with("\\environment"))
        .flat_map(|(_, values)| values.keys().map(String::as_str));
    let hidden = env
        .chain(registry_env)
        .filter(|k| !super::redact::env_allowed(k))
        .count();
    let mut parts: Vec<String> = kinds.iter().map(|k| format!("the {k}")).collect();
    parts.push(format!(
        "the values of {hidden} environment variable(s) outside the loading-related allow-list \
         (tokens and passwords among them, if set)"
    ));
    parts.push("GPU UUIDs".to_string());
    format!(
        "Without redaction the report also contains: {}.",
        parts.join(", ")
    )
}

/// One fix this tool applied on the machine (the report's `"fixes_applied"` key): what, when,
/// in what state — never the before-images, which may hold the user's files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppliedFix {
    /// The journal's id (what `fix undo` takes).
    pub id: String,
    pub fix_id: String,
    /// The code of the finding it fixed.
    pub finding: String,
    pub summary: String,
    /// RFC 3339, UTC.
    pub applied_at: String,
    pub state: JournalState,
}

impl AppliedFix {
    /// The row of one journal.
    pub fn of(journal: &Journal) -> AppliedFix {
        AppliedFix {
            id: journal.id.clone(),
            fix_id: journal.fix_id.clone(),
            finding: journal.finding.clone(),
            summary: journal.summary.clone(),
            applied_at: rfc3339_utc(journal.created),
            state: journal.state,
        }
    }
}

/// The rows of journals already read (the wizard's Fix history, read by its jobs).
pub fn fixes_applied_of(history: &[Journal]) -> Vec<AppliedFix> {
    history.iter().map(AppliedFix::of).collect()
}

/// The fixes applied on this computer, from the fix journal. The journal is only read: an
/// interrupted fix shows as `applying` and is left for `fix` to roll back.
pub fn fixes_applied() -> Vec<AppliedFix> {
    fixes_applied_of(&crate::engine::fix::operations::read_history())
}

/// The current time as seconds since the Unix epoch.
pub fn now_unix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// `2026-11-24T02:50:00Z` from seconds since the Unix epoch (proleptic Gregorian, UTC).
pub fn rfc3339_utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3_600,
        rem % 3_600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_times_are_rfc3339() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339_utc(1_795_920_645), "2026-11-29T02:50:45Z");
    }
}

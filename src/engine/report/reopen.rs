//! Reopening a saved report: this build's rules run again on the report's snapshot — its
//! environment, registry, driver facts and recorded file view — against its inventory, so a
//! report written elsewhere (or by an older build) is diagnosed as this build would. A report
//! without recorded files (the wizard's, or an older one) keeps the findings saved in it.

use super::Report;
use super::capture::ContextSnapshot;
use crate::engine::context::{EnvVars, FsView, SystemContext};
use crate::engine::findings::sort_by_severity;
use crate::engine::inventory::Inventory;

use crate::engine::finding_codes::GPU_TEST_PREFIX;

/// A reopened report, and why its findings are the saved ones when they could not be re-run.
pub struct Reopened {
    pub document: Report,
    /// Set when the saved findings are shown as they were (no snapshot, no recorded files...).
    pub note: Option<String>,
}

/// Why a report's machine cannot be rebuilt to diagnose again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoSnapshot {
    #[error("the report has no snapshot of its machine")]
    Missing,
    #[error("the report did not record the machine's files")]
    NoFiles,
}

/// The context a report's snapshot describes (an error without a snapshot or recorded files).
/// The context keeps the source the report was captured from, so rules word their evidence as
/// they did then ("the machine file has no [driver] section").
pub fn snapshot_context(doc: &Report) -> Result<SystemContext, NoSnapshot> {
    let snapshot: ContextSnapshot = doc.snapshot.clone().ok_or(NoSnapshot::Missing)?;
    let files = snapshot.files.ok_or(NoSnapshot::NoFiles)?;
    Ok(SystemContext {
        platform: snapshot.platform,
        wsl: snapshot.wsl,
        fs: FsView::recorded(snapshot.platform, files),
        env: EnvVars::new(snapshot.platform, snapshot.env),
        registry: snapshot.registry,
        driver: snapshot.driver,
        gpus: snapshot.gpus,
        driver_note: snapshot.driver_note,
        source: doc.machine.source.clone(),
        session: crate::engine::context::SessionEnvironment::default(),
    })
}

/// Runs this build's rules on a saved report.
pub fn rediagnose(mut doc: Report) -> Reopened {
    let ctx = match snapshot_context(&doc) {
        Ok(ctx) => ctx,
        Err(why) => {
            return Reopened {
                document: doc,
                note: Some(format!("{why}: showing the findings saved in it")),
            };
        }
    };
    let inventory: Inventory = match doc.inventory.clone() {
        Some(inv) => inv,
        None => {
            return Reopened {
                document: doc,
                note: Some("the report has no inventory: showing the findings saved in it".into()),
            };
        }
    };
    // The GPU test's findings came from running the GPU, not from rules: they stay as saved.
    doc.findings.retain(|f| f.code.starts_with(GPU_TEST_PREFIX));
    let mut findings = crate::engine::rules::run_all(&ctx, &inventory);
    findings.append(&mut doc.findings);
    sort_by_severity(&mut findings);
    doc.findings = findings;
    Reopened {
        document: doc,
        note: None,
    }
}

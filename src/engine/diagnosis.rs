//! A machine's diagnosis: the scan's inventory, then every rule family over it, findings sorted
//! by severity. The scan reads, the rules judge; neither imports the other.

use crate::engine::context::SystemContext;
use crate::engine::findings::{Finding, sort_by_severity};
use crate::engine::inventory::Inventory;
use crate::engine::progress::Progress;
use crate::engine::rules;
use crate::engine::scan::{self, ScanOptions};

/// What a diagnosis produced.
#[derive(Debug, Clone)]
pub struct Diagnosis {
    pub findings: Vec<Finding>,
    pub inventory: Inventory,
    /// Set when the scan was cancelled before every stage ran (no rule has run then).
    pub cancelled: bool,
}

/// Diagnoses `ctx` with the scan's default options.
pub fn run(ctx: &SystemContext, progress: &Progress) -> Diagnosis {
    run_with(ctx, progress, &ScanOptions::default())
}

/// Scans `ctx`, then runs the rules over what was found; stops early when `progress` is
/// cancelled.
pub fn run_with(ctx: &SystemContext, progress: &Progress, opts: &ScanOptions) -> Diagnosis {
    let inventory = scan::inventory(ctx, progress, opts);
    if progress.is_cancelled() {
        return Diagnosis {
            findings: Vec::new(),
            inventory,
            cancelled: true,
        };
    }
    progress.stage("Checking findings", 1);
    let mut findings = rules::run_all(ctx, &inventory);
    progress.tick();
    sort_by_severity(&mut findings);
    Diagnosis {
        findings,
        inventory,
        cancelled: false,
    }
}

//! The scan: from a `SystemContext` to findings. Today it reports the machine facts (platform,
//! driver, GPUs, loader-relevant environment) and runs the rule families; the inventory of
//! toolkits, cuDNN and Python environments lands with the scan-and-diagnosis issue.

use super::context::SystemContext;
use super::findings::{Finding, sort_by_severity};
use super::progress::Progress;
use super::rules;

/// What a scan produced.
#[derive(Debug, Clone)]
pub struct ScanResult {
    pub findings: Vec<Finding>,
    /// Set when the scan was cancelled before every stage ran.
    pub cancelled: bool,
}

/// Runs the scan, reporting stages on `progress` and stopping early when it is cancelled.
pub fn run(ctx: &SystemContext, progress: &Progress) -> ScanResult {
    progress.stage("Checking the NVIDIA driver", 1);
    if progress.is_cancelled() {
        return ScanResult {
            findings: Vec::new(),
            cancelled: true,
        };
    }
    let mut findings = rules::run_all(ctx);
    progress.tick();
    sort_by_severity(&mut findings);
    ScanResult {
        findings,
        cancelled: false,
    }
}

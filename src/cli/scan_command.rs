//! `scan`: this computer (or the `--machine` file) scanned to the end, its report emitted.

use super::args::{Common, ScanArgs};
use super::load::load_context;
use super::output::emit;
use crate::engine::api::{self, Progress, Report, SystemContext};

/// Runs a scan to the end and returns its report (findings plus `inventory`).
pub fn scan_document_with(ctx: &SystemContext, opts: &api::ScanOptions) -> anyhow::Result<Report> {
    // Only a cancelled scan has no report, and nothing cancels the command line's.
    api::scan(ctx, opts, &Progress::new()).ok_or_else(|| anyhow::anyhow!("the scan was cancelled"))
}

/// Scans and emits the report (JSON with `--json`); the exit code the findings say.
pub fn scan_command(common: &Common, args: &ScanArgs) -> anyhow::Result<i32> {
    let opts = api::ScanOptions {
        probe_imports: args.probe,
        run_tools: args.probe,
        ..Default::default()
    };
    let ctx = load_context(common)?;
    Ok(emit(&scan_document_with(&ctx, &opts)?, common.json))
}

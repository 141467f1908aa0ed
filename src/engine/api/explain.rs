//! The pasted-text entry point (`why`, the Welcome step's box): what the text names, and the
//! findings the machine gives for it. Both front ends show the same report.

use crate::engine::context::SystemContext;
use crate::engine::report::Report;
use crate::engine::triage::{self, Triage};

/// Pasted text, explained.
#[derive(Debug, Clone)]
pub struct Explained {
    /// What the catalog recognised in the text (libraries, symbols, error codes).
    pub triage: Triage,
    /// Machine, findings, `identified`, `unrecognized`, `symbols` and `codes`.
    pub report: Report,
}

/// Explains `text` (an error message, a log, a library name) on the machine `ctx`.
pub fn explain(ctx: &SystemContext, text: &str) -> Explained {
    let triage = triage::triage(text);
    let mut report = Report::new(ctx, triage::all_findings(ctx, &triage));
    report.identified = Some(triage.identified.clone());
    report.unrecognized = Some(triage.unrecognized.clone());
    report.symbols = Some(triage.symbols.clone());
    report.codes = Some(triage.codes.clone());
    Explained { triage, report }
}

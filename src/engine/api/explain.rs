//! The pasted-text entry point (`why`, the Welcome step's box): what the text names, and the
//! findings the machine gives for it. Both front ends show the same report. Also the pages a
//! finding relies on (the wizard's "Docs:" links) and `why --corpus`'s measurement.

use crate::engine::context::{Platform, SystemContext};
use crate::engine::findings::Finding;
use crate::engine::report::Report;
use crate::engine::triage;

pub use crate::engine::knowledge::docs::DocRow;
pub use crate::engine::triage::corpus;
pub use crate::engine::triage::{MAX_TEXT, Triage};

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

/// The documentation pages behind `finding` on `platform`, each once, in table order.
pub fn docs_for(finding: &Finding, platform: Platform) -> Vec<&'static DocRow> {
    crate::engine::knowledge::knowledge().docs.for_finding(
        &finding.code,
        &finding.summary,
        platform,
    )
}

//! Fixes, for both front ends (`cuda-triage fix list | show | apply | undo | history` and the
//! wizard's Fix step): the fixes a scan's findings offer and the scopes each can take, the plan
//! of one with its preview, applying it on this computer (journaled, then verified), undo, the
//! history (read-only for reports and the wizard, recovering for the CLI), recovery of an
//! interrupted fix. (The environment the wizard diagnoses after a fix is its `Source`'s session.) The work is done in
//! `engine::fix::operations`; this is the part of it the front ends name.

pub use crate::engine::fix::host::{Feedback, LineSink};
pub use crate::engine::fix::journal::{Journal, JournalState};
pub use crate::engine::fix::operations::{
    ApplyOutcome, ApplyReport, OfferedFix, apply, history, list, offered, plan, read_history,
    recover, scopes, undo,
};
pub use crate::engine::fix::plan::PlanView;
pub use crate::engine::fix::planner::PlanOptions;
pub use crate::engine::fix::verify::Verification;
pub use crate::engine::fix::{FixError, FixPlan, Scope};

/// What undoing a fix did, in the words both front ends print (`fix undo` and the wizard's Undo
/// log): the journal and what the fix did.
pub fn undone_words(journal: &Journal) -> String {
    format!(
        "Undid {} ({}): every file and value is back as it was.",
        journal.id, journal.summary
    )
}

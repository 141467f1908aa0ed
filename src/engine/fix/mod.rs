//! The fix engine: a finding's typed fix becomes a [`plan::FixPlan`] — operations with their
//! scope and an exact preview (diff, registry before/after) — which is applied through the one
//! [`host::Host`] interface (a dry run is the same code with writes off), journaled first so it
//! can be undone byte for byte and an interrupted run rolled back at the next start, and then
//! verified by re-reading what was written and rescanning.
//!
//! Layout: `kinds` (one module per fix kind: its plan, scopes, verification, the names it must
//! find, whether only the user can take it), `pathlist` (entry-by-entry list edits), `rcblock`
//! (the marked block in shell files), `shell` (sh / cmd / PowerShell lines), `planner`,
//! `envscripts`, `copy`, `dllhook`, and `packages` with `pip` and `conda` (pins, their commands
//! streamed through `installer_process`) (the operations the kinds plan), `plan` (the data and its
//! preview), `host`, `atomic` and `registry` (writes), `journal` and `apply` (apply, undo,
//! recover), `verify`, `operations` (the calls the front ends make: list, plan, apply, undo, history).

pub mod apply;
pub mod atomic;
pub mod conda;
pub mod copy;
pub mod dllhook;
pub mod envscripts;
pub mod host;
pub mod installer_process;
pub mod journal;
pub mod kinds;
pub mod names_exist;
pub mod operations;
pub mod packages;
pub mod pathlist;
pub mod pip;
pub mod plan;
pub mod planner;
pub mod rcblock;
pub mod registry;
pub mod shell;
pub mod verify;

pub use plan::{FixPlan, Operation, Scope};

/// Why a fix cannot be planned, applied or undone. Nothing has changed when one is returned.
#[derive(Debug, thiserror::Error)]
pub enum FixError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} cannot be changed: {why}; nothing was changed")]
    ReadOnly { path: String, why: String },
    #[error(
        "{0} changed since the preview (or since the fix was applied); nothing was changed — look again"
    )]
    Changed(String),
    #[error("no plan: {0}")]
    NotPlannable(String),
    #[error("{0}")]
    NeedsInput(String),
    #[error("{0}")]
    Refused(String),
}

#[cfg(test)]
mod tests;

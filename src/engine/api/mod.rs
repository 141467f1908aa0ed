//! The engine's entry points: what the command line and the wizard call, and nothing else of the
//! pipeline. Each takes a machine ([`Source`], loaded once with [`load`]), its options and, for
//! long work, a [`Progress`] that reports and cancels; each returns a typed result that turns
//! into the report of the JSON contract ([`Report`]).
//!
//! ```text
//! Source ─load→ SystemContext ─┬─ scan     → Report    (findings, inventory)
//!                              ├─ suggestions → the binaries whose trees matter
//!                              ├─ tree     → TreeOutcome (graph or not-found, findings)
//!                              ├─ explain  → Explained (pasted error text → findings)
//!                              └─ gpu_sets → the library sets the GPU test can take
//! Report (with its snapshot) ─ report::build → the saved report; report::open, compare_with,
//!                              with_gpu_test (the one place GPU results join a document)
//! ```
//!
//! Fixes ([`fix`]), the GPU test ([`gpu`]) and the trees' data ([`graph`]) have their own
//! modules here. The front ends (`src/cli`, `src/ui`) name nothing of the engine outside this
//! module: a unit test (`tests::the_front_ends_reach_the_engine_only_through_api`) reads their
//! source and fails on any other `crate::engine::` path.

pub mod explain;
pub mod fix;
pub mod gpu;
pub mod graph;
pub mod report;
mod scan;
mod source;
mod tree;

#[cfg(test)]
mod tests;

pub use crate::engine::Error;
pub use crate::engine::atomic_file::write_atomically;
pub use crate::engine::context::{
    ContextSource, Platform, RendererFailure, SystemContext, WindowRenderer,
};
pub use crate::engine::finding_codes::GPU_TEST_PREFIX;
pub use crate::engine::findings::{Finding, FixKind, FixRef, Severity, has_errors};
pub use crate::engine::inventory::{Framework, FrameworkKind, Inventory, ProbeOutcome, PythonKind};
pub use crate::engine::progress::Progress;
pub use crate::engine::report::{Report, ReportError, ReportFormat, SCHEMA, SavedTree};
pub use crate::engine::scan::ScanOptions;
pub use crate::engine::suggest::BinarySuggestion;
pub use explain::{Explained, explain};
pub use scan::{gpu_sets, scan, suggestions};
pub use source::{Driver, Machine, SessionEnvironment, Source, load};
pub use tree::{TreeOutcome, TreeRequest, tree};

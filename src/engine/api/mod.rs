//! The engine's entry points: what the command line and the wizard call, and nothing else of the
//! pipeline. Each takes a machine ([`Source`], loaded once with [`load`]), its options and, for
//! long work, a [`Progress`](crate::engine::progress::Progress) that reports and cancels; each
//! returns a typed result that turns into the report of the JSON contract
//! ([`Report`](crate::engine::report::Report)).
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
//! Fixes (`engine::fix::planner`/`session`) are their own entry points already; they take the
//! same context.

mod explain;
pub mod report;
mod scan;
mod source;
mod tree;

pub use explain::{Explained, explain};
pub use scan::{gpu_sets, scan, suggestions};
pub use source::{Driver, Source, load};
pub use tree::{TreeOutcome, TreeRequest, tree};

//! The diagnosis engine: no GUI and no CLI code in here. Front ends call [`api`] (the entry
//! points); everything flows one way: `SystemContext` → scan → rules → findings → report (the
//! layers are drawn in the crate's header, `lib.rs`).

pub mod api;
pub mod atomic_file;
pub mod binfmt;
pub mod context;
pub mod diagnosis;
pub mod error;
pub mod finding_codes;
pub mod findings;
pub mod fix;
pub mod gpu;
pub mod graph;
pub mod inventory;
pub mod knowledge;
pub mod loader;
pub mod progress;
pub mod report;
pub mod rules;
pub mod scan;
pub mod suggest;
pub mod triage;

pub use error::Error;

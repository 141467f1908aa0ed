//! The diagnosis engine: no GUI and no CLI code in here. Everything flows one way:
//! `SystemContext` → scan → findings → report; front ends only render what it returns.

pub mod api;
pub mod atomic_file;
pub mod binfmt;
pub mod context;
pub mod error;
pub mod findings;
pub mod fix;
pub mod gpu;
pub mod graph;
pub mod knowledge;
pub mod loader;
pub mod progress;
pub mod report;
pub mod rules;
pub mod scan;
pub mod suggest;
pub mod triage;

pub use error::Error;

//! The binary-format parsers of cuda-triage, compiled on their own for fuzzing: the module is
//! included by path, so the fuzz build needs only pelite, goblin, regex and serde.

#[path = "../../../src/engine/binfmt/mod.rs"]
pub mod binfmt;

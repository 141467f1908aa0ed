//! CUDA Triage finds out why NVIDIA GPU libraries will not load, and fixes it.
//!
//! One crate, one binary (`cuda-triage`): a desktop wizard (egui/eframe) and a command line
//! (clap) over one engine. Data flows one way:
//!
//! ```text
//! SystemContext (live machine | machine file | saved report)
//!   → scan → findings → report (JSON contract "cuda-triage/1")
//! ```
//!
//! * [`engine`] is the diagnosis core. It sees a machine only through
//!   [`engine::context::SystemContext`], so a Windows machine can be diagnosed on Linux and every
//!   rule can be tested against a machine file. No GUI or CLI code lives there.
//! * [`gpu`] talks to the NVIDIA driver (NVML facts; the live GPU test).
//! * [`cli`] parses arguments, runs engine work and prints text or JSON with exit codes
//!   0 (no error finding), 1 (at least one), 2 (the tool failed).
//! * [`ui`] is the wizard: plain-data state, one file per step, work on worker threads.

pub mod cli;
pub mod engine;
pub mod ui;

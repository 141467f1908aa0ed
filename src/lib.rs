//! CUDA Triage finds out why NVIDIA GPU libraries will not load, and fixes it.
//!
//! One crate, one binary (`cuda-triage`): a desktop wizard (egui/eframe) and a command line
//! (clap) over one engine. Layers read top-down; each uses only those below it:
//!
//! ```text
//! cli  ui                        front ends: choose arguments, render, exit codes / windows
//!  └──┴─→ engine::api            entry points: load(Source), scan, suggestions, gpu_sets,
//!                                tree, explain, api::fix, api::gpu, api::report — the only part
//!                                of the engine the front ends name (a unit test holds them to it)
//!          ├─→ diagnosis         scan → rules → findings (sorted)
//!          │    ├─→ scan         reads the machine into an Inventory
//!          │    └─→ rules        judge the inventory (rule families → findings)
//!          ├─→ triage            pasted text → identified libraries → findings
//!          ├─→ fix               plans, journal, apply, verify, undo
//!          ├─→ report            the typed Report (JSON contract), Markdown, HTML, compare,
//!          │                     fleet (many machines' reports as one matrix)
//!          ├─→ gpu               the live GPU test (child process), library sets, NVML
//!          └─→ graph             dependency trees (walk, checks, processes) over
//!               loader           each platform's loader emulation (Windows, ld.so, SxS)
//!               binfmt           PE/ELF readers;  inventory, knowledge (data tables)
//!               context          SystemContext: live | machine file | saved report
//! ```
//!
//! * [`engine`] is the diagnosis core. It sees a machine only through
//!   [`engine::context::SystemContext`], so a Windows machine can be diagnosed on Linux and every
//!   rule can be tested against a machine file. No GUI or CLI code lives there; the NVML query
//!   reaches the context through [`engine::api::load`], not by the context calling the GPU module.
//! * [`cli`] parses arguments, calls the entry points and prints text or JSON with exit codes
//!   0 (no error finding), 1 (at least one), 2 (the tool failed: one place, `cli::dispatch::run`).
//! * [`ui`] is the wizard: plain-data state, one file per step, work on worker threads.
// Tests may unwrap and expect: a panic there is the failure report (Cargo.toml's [lints] warns
// elsewhere; integration tests and benches allow them at their roots).
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

pub mod cli;
pub mod engine;
pub mod ui;

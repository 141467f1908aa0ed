//! Integration tests, one binary (ripgrep's habit): the built CLI, machine files, the GUI
//! driven through egui_kittest, and the binary-format parsers on built fixtures and real
//! NVIDIA libraries (`fixtures_build` and `wheels` are shared helpers for such tests).
//!
//! The layout rule (README, "Run the tests"): one module per area here, `<area>.rs` (a folder
//! `<area>/` when it grows), helpers included; unit tests stay in `src/`, in the tested file's
//! `#[cfg(test)] mod tests` or, when they outgrow it, in `foo/tests.rs` / `foo/tests/` — never
//! a `foo_tests.rs` sibling; benchmarks are `tests/bench/`.
//!
//! The binary also builds for Windows (`x86_64-pc-windows-gnu`): `gui_walk_wine` runs the
//! wizard walk inside a Wine prefix from that build. The modules that test POSIX things
//! (permissions, symlinks, signals, chroot) are Unix-only.

// Tests and benchmarks may unwrap: a panic here is the failure report (Cargo.toml, [lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod binfmt;
mod cli;
mod closure_installs;
mod closure_symbols;
mod closure_windows;
mod closure_windows_python37;
mod conda_scripts;
#[cfg(unix)]
mod fix;
#[cfg(unix)]
mod fix_names;
mod fix_situations;
mod fixtures_build;
#[cfg(unix)]
mod fleet_ansible;
#[cfg(unix)]
mod fleet_daemons;
#[cfg(unix)]
mod fleet_slurm;
mod fleet_view;
#[cfg(unix)]
mod framework_loads;
mod framework_loads_audit;
#[cfg(unix)]
mod framework_loads_cudnn_swap;
#[cfg(unix)]
mod framework_loads_cupy_nvcc;
#[cfg(unix)]
mod framework_loads_ort_cudnn8;
#[cfg(unix)]
mod framework_loads_preload;
#[cfg(unix)]
mod framework_loads_tensorflow;
#[cfg(unix)]
mod framework_loads_torch_cu121;
mod frameworks_cupy;
mod frameworks_jax;
mod frameworks_onnxruntime;
mod frameworks_tensorflow;
mod frameworks_torch;
#[cfg(unix)]
mod frameworks_torch_rpath;
mod gpu_device_runs;
#[cfg(unix)]
mod gpu_libraries;
mod gpu_sets;
mod gpu_test;
mod gui;
mod gui_dependencies;
mod gui_findings;
mod gui_fix;
mod gui_fleet;
mod gui_help;
mod gui_marks;
mod gui_report;
mod gui_scaling;
mod gui_walk;
mod gui_walk_wine;
mod gui_welcome;
mod gui_window;
#[cfg(unix)]
mod knowledge_generated;
#[cfg(unix)]
mod oracle_chroot;
#[cfg(unix)]
mod oracle_import_windows;
mod oracle_linux;
mod oracle_support;
mod oracle_wheels;
mod oracle_windows;
mod oracle_wine;
mod release_files;
mod release_machines;
mod report_golden;
mod reports;
#[cfg(unix)]
mod reports_compare;
mod scan_inventory;
#[cfg(unix)]
mod scan_resilience;
mod situations;
mod situations_containers;
mod situations_linux;
mod suggestions;
mod support;
mod tree;
mod tree_bare_names;
mod wheel;
mod wheels;
mod why;
mod why_corpus;
mod windows_exe;
mod windows_fix;
mod windows_fix_situations;
mod windows_live;
mod windows_sxs;
#[cfg(unix)]
mod wine_python;
mod wine_support;
mod xvfb;

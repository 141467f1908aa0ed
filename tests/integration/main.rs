//! Integration tests, one binary (ripgrep's habit): the built CLI, machine files, the GUI
//! driven through egui_kittest, and the binary-format parsers on built fixtures and real
//! NVIDIA libraries (`fixtures_build` and `wheels` are shared helpers for such tests).

mod binfmt;
mod cli;
mod closure_installs;
mod closure_symbols;
mod closure_windows;
mod fix;
mod fix_situations;
mod fixtures_build;
mod frameworks_cupy;
mod frameworks_jax;
mod frameworks_onnxruntime;
mod frameworks_tensorflow;
mod frameworks_torch;
mod gpu_libraries;
mod gpu_sets;
mod gpu_test;
mod gui;
mod gui_dependencies;
mod gui_fix;
mod gui_marks;
mod gui_report;
mod gui_welcome;
mod oracle_chroot;
mod oracle_linux;
mod oracle_support;
mod oracle_wheels;
mod oracle_windows;
mod oracle_wine;
mod release_files;
mod release_machines;
mod report_golden;
mod reports;
mod reports_compare;
mod scan_inventory;
mod scan_resilience;
mod situations;
mod situations_linux;
mod suggestions;
mod support;
mod tree;
mod tree_bare_names;
mod wheels;
mod why;
mod why_corpus;

//! Integration tests, one binary (ripgrep's habit): the built CLI, machine files, the GUI
//! driven through egui_kittest, and the binary-format parsers on built fixtures and real
//! NVIDIA libraries (`fixtures_build` and `wheels` are shared helpers for such tests).

mod binfmt;
mod cli;
mod fix;
mod fix_situations;
mod fixtures_build;
mod gpu_libraries;
mod gpu_sets;
mod gpu_test;
mod gui;
mod gui_dependencies;
mod gui_fix;
mod oracle_chroot;
mod oracle_linux;
mod oracle_support;
mod oracle_wheels;
mod oracle_windows;
mod scan_inventory;
mod scan_resilience;
mod situations;
mod situations_linux;
mod support;
mod tree;
mod wheels;
mod why;

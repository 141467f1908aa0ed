//! Integration tests, one binary (ripgrep's habit): the built CLI, machine files, and the GUI
//! driven through egui_kittest.

mod cli;
mod gui;
mod scan_inventory;
mod scan_resilience;
mod support;
mod why;

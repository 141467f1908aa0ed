//! Integration tests, one binary (ripgrep's habit): the built CLI, machine files, and the GUI
//! driven through egui_kittest.

mod cli;
mod gui;
mod oracle_linux;
mod oracle_support;
mod oracle_wheels;
mod oracle_windows;
mod support;
mod tree;

//! Integration tests, one binary (ripgrep's habit): the built CLI, machine files, and the GUI
//! driven through egui_kittest.

mod cli;
mod gpu_test;
mod gui;
mod support;

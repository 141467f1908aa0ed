//! `cuda-triage`: with no subcommand, the wizard (or a text scan where there is no display);
//! with one, the command line. On Windows it is a GUI program (a double-click opens no console
//! window) that prints to the console of cmd or PowerShell when started from one.
// Tests may unwrap and expect: a panic there is the failure report (Cargo.toml's [lints] warns
// elsewhere; integration tests and benches allow them at their roots).
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]
#![cfg_attr(windows, windows_subsystem = "windows")]

use clap::Parser;
use cuda_triage::cli::args::CliCommand;
use cuda_triage::cli::{Cli, dispatch};
use cuda_triage::ui::{self, TriageApp, worker::Source};

fn main() {
    cuda_triage::ui::first_frame::mark_start();
    let can_print = cuda_triage::cli::console::attach_parent_console();
    let cli = Cli::parse();
    let target = cli
        .common
        .machine
        .clone()
        .map_or_else(Source::live, Source::machine_file);
    let gui_app = match &cli.command {
        None if ui::display_available() && !cli.common.json => Some(TriageApp::new(target)),
        Some(CliCommand::Open { report })
            if report.is_dir() && ui::display_available() && !cli.common.json =>
        {
            Some(TriageApp::with_fleet(target, vec![report.clone()]))
        }
        Some(CliCommand::Open { report }) if ui::display_available() && !cli.common.json => {
            match cuda_triage::engine::api::report::open(report) {
                Ok(reopened) => Some(TriageApp::with_reopened(
                    target,
                    reopened,
                    &report.display().to_string(),
                )),
                Err(_) => None, // the CLI path reports the error
            }
        }
        _ => None,
    };
    if let Some(app) = gui_app {
        match ui::run(app) {
            Ok(()) => return,
            Err(e) if !can_print => {
                // Double-clicked and no window: a message box is the only way to say so.
                rfd::MessageDialog::new()
                    .set_level(rfd::MessageLevel::Error)
                    .set_title("CUDA Triage")
                    .set_description(format!(
                        "Could not open a window: {}\n\nRun `cuda-triage scan` from a terminal for a text scan.",
                        window_error_text(&e)
                    ))
                    .show();
                std::process::exit(2);
            }
            Err(e) => eprintln!(
                "cuda-triage: could not open a window ({e}); printing a text scan instead."
            ),
        }
    }
    cuda_triage::cli::console::quiet_broken_pipe();
    std::process::exit(dispatch::run(cli));
}

/// The window's error for the message box: each renderer tried on a line of its own.
fn window_error_text(e: &ui::renderer::WindowError) -> String {
    match e {
        ui::renderer::WindowError::NoRenderer(tried) if !tried.is_empty() => format!(
            "no renderer could draw it. Tried, in order:\n• {}",
            tried.join("\n• ")
        ),
        e => e.to_string(),
    }
}

//! Subcommand handlers: each loads the context, asks the engine, and hands the document to
//! `output`. A capability that has not landed yet says so plainly and exits 2.

use super::args::{Cli, Command, Common, FixAction, ReportFormat};
use super::output::{EXIT_FAILED, emit, exit_code, fail, render_text};
use crate::engine::context::{SystemContext, live, machine_file};
use crate::engine::progress::Progress;
use crate::engine::report::Document;
use crate::engine::scan;

/// Loads the context a command works on: the machine file when given, else this computer.
pub fn load_context(common: &Common) -> Result<SystemContext, String> {
    match &common.machine {
        Some(path) => machine_file::load(path).map_err(|e| e.to_string()),
        None => Ok(live::load()),
    }
}

/// Runs a scan and wraps it in a document.
pub fn scan_document(ctx: &SystemContext) -> Document {
    let result = scan::run(ctx, &Progress::new());
    Document::new(ctx, result.findings)
}

/// Runs one parsed command line; returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    let common = cli.common;
    let Some(command) = cli.command else {
        return scan_command(&common);
    };
    match command {
        Command::Scan => scan_command(&common),
        Command::Report { output, format } => report_command(&common, output, format),
        Command::Open { report } => open_command(&common, &report),
        Command::Why { .. } => not_yet(
            "why",
            "error-text and library triage comes with the scan-and-diagnosis work",
            common.json,
        ),
        Command::Tree { .. } => not_yet(
            "tree",
            "the dependency tree comes with the dependency-tree work",
            common.json,
        ),
        Command::GpuTest(args) => super::gpu_command::gpu_test_command(&common, &args),
        Command::Fix { action } => {
            let what = match action {
                FixAction::List => "fix list",
                FixAction::Show { .. } => "fix show",
                FixAction::Apply { .. } => "fix apply",
                FixAction::Undo => "fix undo",
            };
            not_yet(
                what,
                "one-click fixes come with the fixes work",
                common.json,
            )
        }
    }
}

fn not_yet(command: &str, why: &str, json: bool) -> i32 {
    fail(
        &format!("`{command}` is not available yet in this version: {why}."),
        json,
    )
}

fn scan_command(common: &Common) -> i32 {
    match load_context(common) {
        Ok(ctx) => emit(&scan_document(&ctx), common.json),
        Err(e) => fail(&e, common.json),
    }
}

fn report_command(
    common: &Common,
    output: Option<std::path::PathBuf>,
    format: ReportFormat,
) -> i32 {
    if format != ReportFormat::Json {
        return not_yet(
            "report --format md|html",
            "Markdown and HTML reports come with the report work; JSON works now",
            common.json,
        );
    }
    let ctx = match load_context(common) {
        Ok(ctx) => ctx,
        Err(e) => return fail(&e, common.json),
    };
    let doc = scan_document(&ctx);
    let text = doc.to_json_pretty();
    match output {
        None => println!("{text}"),
        Some(path) => {
            if let Err(e) = write_atomically(&path, text.as_bytes()) {
                return fail(
                    &format!("{}: cannot write report: {e}", path.display()),
                    common.json,
                );
            }
            if !common.json {
                eprintln!("Report written to {}", path.display());
            }
        }
    }
    exit_code(&doc)
}

/// Writes through a temporary file in the same folder, then renames over the target.
fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

fn open_command(common: &Common, report: &std::path::Path) -> i32 {
    match Document::load(report) {
        Ok(doc) if common.json => {
            println!("{}", doc.to_json_pretty());
            exit_code(&doc)
        }
        Ok(doc) => {
            print!("{}", render_text(&doc, super::output::use_colour()));
            exit_code(&doc)
        }
        Err(e) => {
            let code = fail(&e.to_string(), common.json);
            debug_assert_eq!(code, EXIT_FAILED);
            code
        }
    }
}

//! Subcommand handlers: each loads the context, asks the engine, and hands the document to
//! `output`. A capability that has not landed yet says so plainly and exits 2.

use super::args::{Cli, Command, Common, ScanArgs};
use super::output::{emit, fail};
use crate::engine::api::{self, Driver, Progress, Report, Source, SystemContext};

/// The machine a command works on: the machine file when given, else this computer.
pub fn source(common: &Common) -> Source {
    match &common.machine {
        Some(path) => Source::machine_file(path.clone()),
        None => Source::live(),
    }
}

/// Loads the machine a command works on; `driver` says whether this computer's driver is asked.
pub fn load_context_with(
    common: &Common,
    driver: Driver,
) -> Result<SystemContext, crate::engine::api::Error> {
    api::load(&source(common), driver)
}

/// Loads the machine a command works on, with this computer's driver facts.
pub fn load_context(common: &Common) -> Result<SystemContext, crate::engine::api::Error> {
    load_context_with(common, Driver::Ask)
}

/// Runs a scan to the end and returns its report (findings plus `inventory`).
pub fn scan_document_with(ctx: &SystemContext, opts: &api::ScanOptions) -> anyhow::Result<Report> {
    // Only a cancelled scan has no report, and nothing cancels the command line's.
    api::scan(ctx, opts, &Progress::new()).ok_or_else(|| anyhow::anyhow!("the scan was cancelled"))
}

/// Runs one parsed command line; returns the process exit code: 0 or 1 as the command's
/// findings say, 2 when the tool itself failed. This is the one place a failure becomes exit 2:
/// the error and its causes on standard error and, with `--json`, the JSON error body.
pub fn run(cli: Cli) -> i32 {
    let json = cli.common.json;
    match dispatch(cli) {
        Ok(code) => code,
        Err(e) => fail(&format!("{e:#}"), json),
    }
}

fn dispatch(cli: Cli) -> anyhow::Result<i32> {
    let common = cli.common;
    let Some(command) = cli.command else {
        return scan_command(&common, &ScanArgs::default());
    };
    match command {
        Command::Scan(args) => scan_command(&common, &args),
        Command::Report(args) => super::report_command::report_command(&common, &args),
        Command::Fleet(args) => super::fleet_command::fleet_command(&common, &args),
        Command::Open { report } => super::report_command::open_command(&common, &report),
        Command::Why { query, corpus } => match corpus {
            Some(path) => super::why_command::why_corpus_command(&common, &path),
            None => super::why_command::why_command(&common, query.as_deref().unwrap_or_default()),
        },
        Command::Tree(args) => super::tree_command::tree_command(&common, &args),
        Command::GpuTest(args) => super::gpu_command::gpu_test_command(&common, &args),
        Command::Fix { action } => super::fix_command::fix_command(&common, action),
    }
}

fn scan_command(common: &Common, args: &ScanArgs) -> anyhow::Result<i32> {
    let opts = api::ScanOptions {
        probe_imports: args.probe,
        run_tools: args.probe,
        ..Default::default()
    };
    let ctx = load_context(common)?;
    Ok(emit(&scan_document_with(&ctx, &opts)?, common.json))
}

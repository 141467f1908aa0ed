//! Runs a parsed command line: one handler per subcommand, and the one place a failure becomes
//! exit code 2.

use super::args::{Cli, CliCommand, ScanArgs};
use super::output::fail;
use super::scan_command::scan_command;

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
        CliCommand::Scan(args) => scan_command(&common, &args),
        CliCommand::Report(args) => super::report_command::report_command(&common, &args),
        CliCommand::Fleet(args) => super::fleet_command::fleet_command(&common, &args),
        CliCommand::Open { report } => super::report_command::open_command(&common, &report),
        CliCommand::Why { query, corpus } => match corpus {
            Some(path) => super::why_command::why_corpus_command(&common, &path),
            None => super::why_command::why_command(&common, query.as_deref().unwrap_or_default()),
        },
        CliCommand::Tree(args) => super::tree_command::tree_command(&common, &args),
        CliCommand::GpuTest(args) => super::gpu_command::gpu_test_command(&common, &args),
        CliCommand::Fix { action } => super::fix_command::fix_command(&common, action),
    }
}

//! The command line: clap arguments, one handler per subcommand, shared output and exit codes.

pub mod args;
pub mod commands;
pub mod console;
pub mod fix_command;
pub mod fleet_command;
pub mod gpu_command;
pub mod output;
pub mod report_command;
pub mod tree_command;
pub mod why_command;

pub use args::Cli;

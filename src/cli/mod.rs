//! The command line: clap arguments, one handler per subcommand, shared output and exit codes.

pub mod args;
pub mod console;
pub mod dispatch;
pub mod fix_command;
pub mod fleet_command;
pub mod gpu_command;
pub mod load;
pub mod output;
pub mod report_command;
pub mod scan_command;
pub mod tree_command;
pub mod why_command;

pub use args::Cli;

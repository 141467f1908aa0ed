//! The command line: clap arguments, one handler per subcommand, shared output and exit codes.

pub mod args;
pub mod commands;
pub mod output;
pub mod tree_output;
pub mod why_command;

pub use args::Cli;

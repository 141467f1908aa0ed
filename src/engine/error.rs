//! The engine's error: what went wrong, with the path and the context it happened in. Front
//! ends show it (the CLI as exit code 2 and the JSON error body, the wizard in its status line
//! with the chain); they never build one from a string of their own.

use std::path::PathBuf;

/// An engine entry point that could not do its work.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A machine file that cannot be read or is not valid.
    #[error(transparent)]
    MachineFile(#[from] crate::engine::context::machine_file::MachineFileError),
    /// A saved report that cannot be reopened.
    #[error(transparent)]
    Report(#[from] crate::engine::report::ReportError),
    /// A Python environment that cannot be activated as a shell would.
    #[error("{}: cannot activate this Python environment", path.display())]
    Activate {
        path: PathBuf,
        #[source]
        source: crate::engine::context::activate::NotPythonEnv,
    },
    /// A tree that cannot be built (unreadable root, wrong platform, error 87).
    #[error(transparent)]
    Tree(#[from] crate::engine::graph::GraphError),
    /// A request the engine refuses as given (a relative path without its folder, ...).
    #[error("{0}")]
    Request(String),
    /// The user cancelled the work.
    #[error("cancelled")]
    Cancelled,
}

//! Which machine the engine diagnoses, and loading it into a [`SystemContext`]: this computer
//! (optionally as a shell where a Python environment is activated) or a machine file. The NVML
//! query is the GPU module's, handed to the context here so the context itself never calls it.

use crate::engine::Error;
pub use crate::engine::context::SessionEnvironment;
use crate::engine::context::activate::activate_python_env;
use crate::engine::context::{SystemContext, live, machine_file};
use std::path::PathBuf;
use std::time::Duration;

/// How long the NVML query may take before the work goes on without it.
const NVML_TIMEOUT: Duration = Duration::from_secs(10);

/// What the engine diagnoses: a machine, and — for this computer — the environment it is
/// diagnosed in (this process's, or the one a new session gets after a fix: the wizard holds it
/// and hands it in with every load, the engine keeps none).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Source {
    pub machine: Machine,
    pub session: SessionEnvironment,
}

/// Which machine the engine diagnoses.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Machine {
    /// This computer.
    #[default]
    Live,
    /// This computer, as a shell where this Python environment is activated.
    PythonEnv(PathBuf),
    /// The machine a machine file describes (see README, "Machine files").
    MachineFile(PathBuf),
}

/// Whether loading this computer asks the driver (NVML) for its facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Driver {
    /// Ask NVML (with a time limit): a scan, a report, the GPU test.
    Ask,
    /// Files and environment only: a tree, a pasted error, a fix plan.
    Skip,
}

impl Source {
    /// This computer, in this process's environment.
    pub fn live() -> Source {
        Source::default()
    }

    /// This computer as a shell where this Python environment is activated.
    pub fn python_env(root: PathBuf) -> Source {
        Machine::PythonEnv(root).into()
    }

    /// The machine a machine file describes.
    pub fn machine_file(path: PathBuf) -> Source {
        Machine::MachineFile(path).into()
    }

    /// Another machine, diagnosed in this source's session environment.
    pub fn with_machine(&self, machine: Machine) -> Source {
        Source {
            machine,
            session: self.session.clone(),
        }
    }

    /// Whether the source is this computer (its Python can run, its GPU can be tested).
    pub fn is_this_computer(&self) -> bool {
        !matches!(self.machine, Machine::MachineFile(_))
    }

    /// The source in words: "this computer", "the machine described in m.toml".
    pub fn describe(&self) -> String {
        match &self.machine {
            Machine::Live => "this computer".to_string(),
            Machine::PythonEnv(root) => format!(
                "this computer, with the Python environment {} activated",
                root.display()
            ),
            Machine::MachineFile(p) => format!("the machine described in {}", p.display()),
        }
    }
}

impl From<Machine> for Source {
    fn from(machine: Machine) -> Source {
        Source {
            machine,
            session: SessionEnvironment::this_process(),
        }
    }
}

/// Loads the machine `source` names.
pub fn load(source: &Source, driver: Driver) -> Result<SystemContext, Error> {
    match &source.machine {
        Machine::Live | Machine::PythonEnv(_) => {
            let mut ctx = match driver {
                Driver::Ask => live::load_with_driver(&source.session, || {
                    crate::engine::gpu::nvml::probe_with_timeout(NVML_TIMEOUT)
                }),
                Driver::Skip => live::load_without_driver(&source.session),
            };
            if let Machine::PythonEnv(root) = &source.machine {
                activate_python_env(&mut ctx, &root.display().to_string()).map_err(|source| {
                    Error::Activate {
                        path: root.clone(),
                        source,
                    }
                })?;
            }
            Ok(ctx)
        }
        Machine::MachineFile(path) => Ok(machine_file::load(path)?),
    }
}

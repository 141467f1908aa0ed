//! The machine a subcommand works on: the machine file `--machine` names, else this computer,
//! loaded once through `engine::api`.

use super::args::Common;
use crate::engine::api::{self, Driver, Source, SystemContext};

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

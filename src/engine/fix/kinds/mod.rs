//! One module per fix kind: what a [`FixKind`] plans, which scopes it can take, how its result
//! is verified beyond the shared read-back and rescan, what it names that must exist, and
//! whether only the user can take it. Each kind implements [`KindModule`] once (the defaults are
//! what a kind without its own answer gets), and [`module`] is the one `match` from a fix's kind
//! to its module: the planner, `operations::scopes`, `verify`, `names_exist` and the wizard ask it
//! instead of holding arms of their own.

mod copy_file;
mod dll_directory;
mod env_var;
mod no_plan;
mod path_edit;
mod pin_version;

use super::FixError;
use super::host::Host;
use super::plan::{FixPlan, RegValue, Scope};
use super::planner::PlanOptions;
use crate::engine::context::SystemContext;
use crate::engine::findings::{FixKind, FixRef};
use std::collections::BTreeMap;

/// The scopes `fix list` offers for a kind.
pub enum ScopeChoice {
    /// Plan each of these and offer those that work.
    Try(&'static [Scope]),
    /// This one, without planning (planning would cost too much for a listing: a pin's pip run).
    Only(Scope),
}

/// What one fix kind does; see the module header.
pub trait KindModule {
    /// Fills `plan` (its id, finding, summary and the chosen scope are set) with the operations
    /// and notes; by default a step only the user can take, which has no plan.
    fn plan(
        &self,
        _ctx: &SystemContext,
        fix: &FixRef,
        _opts: &PlanOptions,
        _plan: FixPlan,
    ) -> Result<FixPlan, FixError> {
        Err(manual_step(fix))
    }

    /// The scopes `fix list` offers (default: the user's own settings, when that plans).
    fn scopes(&self) -> ScopeChoice {
        ScopeChoice::Try(&[Scope::User])
    }

    /// Whether the files its plan writes are shell blocks setting the environment, which
    /// verification runs in `sh` (else a written file is only read back).
    fn sets_environment(&self) -> bool {
        false
    }

    /// The environment of a new session after verification read back the registry value `name`
    /// as `now`: by default that variable takes the value read.
    fn registry_read_back(
        &self,
        _ctx: &SystemContext,
        _host: &dyn Host,
        name: &str,
        now: Option<RegValue>,
        env: &mut BTreeMap<String, String>,
        _checked: &mut Vec<String>,
    ) -> Result<(), FixError> {
        match now {
            Some(v) => env.insert(name.to_string(), v.data),
            None => env.remove(name),
        };
        Ok(())
    }

    /// Its own check after the rescan: why the fix did not take effect, if it did not (default:
    /// nothing more to check).
    fn confirm_in_fresh_process(
        &self,
        _ctx: &SystemContext,
        _libraries: &[String],
        _checked: &mut Vec<String>,
    ) -> Result<Option<String>, FixError> {
        Ok(None)
    }

    /// The pip requirements it installs (each must exist for the machine's platform).
    fn requirements(&self) -> &[String] {
        &[]
    }

    /// The folders it adds to a search (each must exist on the machine).
    fn folders(&self) -> Vec<&String> {
        Vec::new()
    }

    /// Whether it is a step only the user can take (an install, a manual step, a kind this build
    /// does not know): the wizard shows it as such instead of a plan.
    fn is_manual(&self) -> bool {
        false
    }
}

/// The module of a fix's kind (the one table from kinds to their modules).
pub fn module(kind: &FixKind) -> Box<dyn KindModule + '_> {
    match kind {
        FixKind::PathEdit { edit } => Box::new(path_edit::PathEditFix(edit.as_ref())),
        FixKind::EnvVar { set } => Box::new(env_var::EnvVarFix(set.as_ref())),
        FixKind::PinVersion {
            requirements,
            python,
            reinstall,
        } => Box::new(pin_version::PinFix {
            requirements,
            python: python.as_deref(),
            reinstall: *reinstall,
        }),
        FixKind::CopyFile { copy } => Box::new(copy_file::CopyFix(copy.as_ref())),
        FixKind::DllDirectory {
            dirs,
            site_packages,
            python,
        } => Box::new(dll_directory::DllDirectoryFix {
            dirs,
            site_packages: site_packages.as_deref(),
            python: python.as_deref(),
        }),
        FixKind::Install | FixKind::Manual | FixKind::Other => Box::new(no_plan::UserStep),
    }
}

impl FixKind {
    /// Whether the fix is a step only the user can take (see [`KindModule::is_manual`]).
    pub fn is_manual(&self) -> bool {
        module(self).is_manual()
    }
}

/// The error of a fix that has no plan: a step the user takes, as its summary says.
fn manual_step(fix: &FixRef) -> FixError {
    FixError::NotPlannable(format!("{} is a manual step: {}", fix.id, fix.summary))
}

//! `dll-directory`: a start-up hook in a Python environment that adds folders with
//! `os.add_dll_directory` (`fix::dllhook`); environment scope; verified also in a fresh
//! interpreter of that environment; the folders must exist.

use super::{KindModule, manual_step};
use crate::engine::context::{ContextSource, SystemContext};
use crate::engine::findings::FixRef;
use crate::engine::fix::FixError;
use crate::engine::fix::dllhook;
use crate::engine::fix::plan::{FixPlan, Scope};
use crate::engine::fix::planner::PlanOptions;

pub(super) struct DllDirectoryFix<'a> {
    pub dirs: &'a Vec<String>,
    pub site_packages: Option<&'a str>,
    pub python: Option<&'a str>,
}

impl KindModule for DllDirectoryFix<'_> {
    fn plan(
        &self,
        ctx: &SystemContext,
        fix: &FixRef,
        _opts: &PlanOptions,
        mut plan: FixPlan,
    ) -> Result<FixPlan, FixError> {
        let Some(site) = self.site_packages else {
            return Err(manual_step(fix));
        };
        plan.scope = Scope::Env;
        plan.needs_admin = false;
        plan.operations
            .extend(dllhook::operations(ctx, &fix.id, self.dirs, site)?);
        plan.notes.push("Every Python started from this environment from now on loads the hook, with or without activation; interpreters already running do not.".into());
        Ok(plan)
    }

    fn confirm_in_fresh_process(
        &self,
        ctx: &SystemContext,
        libraries: &[String],
        checked: &mut Vec<String>,
    ) -> Result<Option<String>, FixError> {
        let Some(python) = self.python else {
            return Ok(None);
        };
        if ctx.source != ContextSource::Live || dllhook::check_fresh(python, libraries, checked)? {
            return Ok(None);
        }
        Ok(Some(format!(
            "the hook did not take effect in a fresh {python}"
        )))
    }

    fn folders(&self) -> Vec<&String> {
        self.dirs.iter().collect()
    }
}

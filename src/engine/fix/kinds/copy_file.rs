//! `copy-file`: a file the loader needs put into a folder, from a copy the user has
//! (`fix::copy`); user scope, the copied file read back.

use super::{KindModule, manual_step};
use crate::engine::context::SystemContext;
use crate::engine::findings::{CopyFile, FixRef};
use crate::engine::fix::FixError;
use crate::engine::fix::plan::FixPlan;
use crate::engine::fix::planner::PlanOptions;

pub(super) struct CopyFix<'a>(pub Option<&'a CopyFile>);

impl KindModule for CopyFix<'_> {
    fn plan(
        &self,
        ctx: &SystemContext,
        fix: &FixRef,
        opts: &PlanOptions,
        mut plan: FixPlan,
    ) -> Result<FixPlan, FixError> {
        let Some(copy) = self.0 else {
            return Err(manual_step(fix));
        };
        plan.operations.push(crate::engine::fix::copy::operation(
            ctx,
            copy,
            opts.copy_from.as_deref(),
        )?);
        plan.notes
            .push("Programs that already failed to load the library must be started again.".into());
        Ok(plan)
    }
}

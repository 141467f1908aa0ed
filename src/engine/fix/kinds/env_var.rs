//! `env-var`: one environment variable set or unset — in the login profile, `/etc/profile.d`,
//! the registry or an environment's activation scripts (`planner::environment_plan`); any scope.

use super::{KindModule, ScopeChoice, manual_step};
use crate::engine::context::SystemContext;
use crate::engine::findings::{EnvSet, FixRef};
use crate::engine::fix::FixError;
use crate::engine::fix::plan::{FixPlan, Scope};
use crate::engine::fix::planner::{PlanOptions, environment_plan};
use crate::engine::fix::shell::EnvChange;

pub(super) struct EnvVarFix<'a>(pub Option<&'a EnvSet>);

impl KindModule for EnvVarFix<'_> {
    fn plan(
        &self,
        ctx: &SystemContext,
        fix: &FixRef,
        _opts: &PlanOptions,
        plan: FixPlan,
    ) -> Result<FixPlan, FixError> {
        let Some(set) = self.0 else {
            return Err(manual_step(fix));
        };
        environment_plan(ctx, EnvChange::Set(set.clone()), fix, plan)
    }

    fn scopes(&self) -> ScopeChoice {
        ScopeChoice::Try(&[Scope::User, Scope::Machine, Scope::Env])
    }

    fn sets_environment(&self) -> bool {
        true
    }
}

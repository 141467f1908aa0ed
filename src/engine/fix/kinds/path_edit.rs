//! `path-edit`: one entry of a list variable (`PATH`, `LD_LIBRARY_PATH`) added, moved or
//! removed — in the login profile, `/etc/profile.d`, the registry or an environment's
//! activation scripts (`planner::environment_plan`); any scope; the folder it adds must exist. On
//! Windows verification rebuilds PATH as a new session gets it (machine Path, then the user's).

use super::{KindModule, ScopeChoice, manual_step};
use crate::engine::context::{ContextSource, SystemContext};
use crate::engine::findings::{FixRef, PathEdit};
use crate::engine::fix::FixError;
use crate::engine::fix::host::Host;
use crate::engine::fix::pathlist::{ListStyle, apply_edit};
use crate::engine::fix::plan::{FixPlan, RegValue, Scope};
use crate::engine::fix::planner::{PlanOptions, environment_plan};
use crate::engine::fix::shell::EnvChange;
use crate::engine::fix::verify::new_session_path;
use std::collections::BTreeMap;

pub(super) struct PathEditFix<'a>(pub Option<&'a PathEdit>);

impl KindModule for PathEditFix<'_> {
    fn plan(
        &self,
        ctx: &SystemContext,
        fix: &FixRef,
        _opts: &PlanOptions,
        plan: FixPlan,
    ) -> Result<FixPlan, FixError> {
        let Some(edit) = self.0 else {
            return Err(manual_step(fix));
        };
        environment_plan(ctx, EnvChange::Path(edit.clone()), fix, plan)
    }

    fn scopes(&self) -> ScopeChoice {
        ScopeChoice::Try(&[Scope::User, Scope::Machine, Scope::Env])
    }

    fn sets_environment(&self) -> bool {
        true
    }

    fn registry_read_back(
        &self,
        ctx: &SystemContext,
        host: &dyn Host,
        name: &str,
        now: Option<RegValue>,
        env: &mut BTreeMap<String, String>,
        checked: &mut Vec<String>,
    ) -> Result<(), FixError> {
        if ctx.source == ContextSource::Live
            && let Some(path) = new_session_path(ctx, host)?
        {
            env.retain(|k, _| !k.eq_ignore_ascii_case("PATH"));
            env.insert("Path".into(), path);
            checked.push(
                "rebuilt PATH as a new session gets it: the machine's Path, then the user's, %VARS% expanded".into(),
            );
            return Ok(());
        }
        match self.0 {
            Some(edit) => {
                let old = env.get(name).cloned().unwrap_or_default();
                env.insert(name.to_string(), apply_edit(&old, edit, ListStyle::WINDOWS));
            }
            None => match now {
                Some(v) => {
                    env.insert(name.to_string(), v.data);
                }
                None => {
                    env.remove(name);
                }
            },
        }
        Ok(())
    }

    fn folders(&self) -> Vec<&String> {
        self.0.iter().flat_map(|e| e.add.iter()).collect()
    }
}

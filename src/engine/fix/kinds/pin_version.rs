//! `pin-version`: packages pinned in a Python environment — installed with pip or that
//! environment's conda (`fix::packages`), or written into a requirements file when asked; the
//! environment's scope (offered without planning: planning runs pip); every requirement must
//! have a wheel for the machine's platform. A pin without requirements is described only.

use super::{KindModule, ScopeChoice, manual_step};
use crate::engine::context::SystemContext;
use crate::engine::findings::FixRef;
use crate::engine::fix::FixError;
use crate::engine::fix::conda;
use crate::engine::fix::plan::{CondaEnv, FixPlan, Scope};
use crate::engine::fix::planner::{PlanOptions, block_operation};

pub(super) struct PinFix<'a> {
    pub requirements: &'a [String],
    pub python: Option<&'a str>,
    pub reinstall: bool,
}

impl KindModule for PinFix<'_> {
    fn plan(
        &self,
        ctx: &SystemContext,
        fix: &FixRef,
        opts: &PlanOptions,
        mut plan: FixPlan,
    ) -> Result<FixPlan, FixError> {
        if self.requirements.is_empty() {
            return Err(manual_step(fix));
        }
        if let Some(file) = opts.requirements_file.as_deref() {
            plan.scope = Scope::User;
            plan.needs_admin = false;
            plan.operations.push(block_operation(
                ctx,
                file,
                &fix.id,
                self.requirements.to_vec(),
                Scope::User,
                "requirements file",
            )?);
            plan.notes.push(format!(
                "pip reads it only when told: pip install -r {file} (or -c {file} as constraints)."
            ));
            return Ok(plan);
        }
        let Some(python) = self.python else {
            return Err(manual_step(fix));
        };
        plan.scope = Scope::Env;
        plan.needs_admin = false;
        let mut pip_args = opts.pip_args.clone();
        if self.reinstall {
            pip_args.splice(0..0, ["--force-reinstall".to_string(), "--no-deps".into()]);
        }
        let conda = pin_conda_env(ctx, python, self.requirements, opts.conda)?;
        plan.operations
            .push(crate::engine::fix::packages::operation(
                ctx,
                python,
                conda,
                self.requirements,
                &pip_args,
            )?);
        plan.notes.push("Programs and notebook kernels already running keep the packages they imported: restart them.".into());
        Ok(plan)
    }

    fn scopes(&self) -> ScopeChoice {
        // Planning a pin runs pip (its dry run may reach the index): `fix show` does that, not a listing.
        if !self.requirements.is_empty() && self.python.is_some() {
            ScopeChoice::Only(Scope::Env)
        } else {
            ScopeChoice::Try(&[Scope::User])
        }
    }

    fn requirements(&self) -> &[String] {
        self.requirements
    }
}

/// The conda environment a pin goes through: when `python` is in a conda environment and conda
/// installed one of the packages named (or the user asked for conda), with its own conda.
fn pin_conda_env(
    ctx: &SystemContext,
    python: &str,
    requirements: &[String],
    wanted: Option<bool>,
) -> Result<Option<CondaEnv>, FixError> {
    let prefix = conda::prefix_of(ctx, python);
    let use_conda = match (wanted, &prefix) {
        (Some(false), _) => false,
        (Some(true), None) => {
            return Err(FixError::Refused(format!(
                "{python} is not in a conda environment (no conda-meta folder): pin it with pip"
            )));
        }
        (Some(true), Some(_)) => true,
        (None, Some(p)) => conda::manages_any(ctx, p, requirements),
        (None, None) => false,
    };
    let Some(prefix) = prefix.filter(|_| use_conda) else {
        return Ok(None);
    };
    let exe = conda::exe_for(ctx, &prefix).ok_or_else(|| {
        FixError::Refused(format!(
            "conda installed these packages in {prefix}, but that environment's conda was not found (set CONDA_EXE, or pin with pip)"
        ))
    })?;
    Ok(Some(CondaEnv { exe, prefix }))
}

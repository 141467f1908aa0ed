//! Env-scope fixes: a conda environment's `etc/conda/activate.d` + `deactivate.d` pair (sh on
//! Linux; bat, ps1 and sh on Windows) using conda's backup/restore idiom, or, for a venv, a
//! marked block in its activate script (whose own `deactivate` does not undo it).

use super::FixError;
use super::plan::{FixPlan, Scope};
use super::planner::block_operation;
use super::shell::{EnvChange, Shell, activate_lines, deactivate_lines};
use crate::engine::context::{Platform, SystemContext};

/// A conda env's activate.d/deactivate.d pair, or a venv's activate script.
pub fn operations(
    ctx: &SystemContext,
    change: &EnvChange,
    id: &str,
    plan: &mut FixPlan,
) -> Result<(), FixError> {
    let p = ctx.platform;
    if let Some(prefix) = ctx.env.get("CONDA_PREFIX").filter(|s| !s.is_empty()) {
        let shells: &[(Shell, &str)] = if p == Platform::Windows {
            &[
                (Shell::Cmd, "bat"),
                (Shell::PowerShell, "ps1"),
                (Shell::Sh, "sh"),
            ]
        } else {
            &[(Shell::Sh, "sh")]
        };
        for (shell, ext) in shells {
            for (dir, lines) in [
                ("activate.d", activate_lines(change, *shell)),
                ("deactivate.d", deactivate_lines(change, *shell)),
            ] {
                let path = p.join(
                    &p.join(&p.join(&p.join(prefix, "etc"), "conda"), dir),
                    &format!("cuda-triage.{ext}"),
                );
                plan.operations.push(block_operation(
                    ctx,
                    &path,
                    id,
                    lines,
                    Scope::Env,
                    "conda environment",
                )?);
            }
        }
        return Ok(());
    }
    if let Some(venv) = ctx.env.get("VIRTUAL_ENV").filter(|s| !s.is_empty()) {
        let path = if p == Platform::Windows {
            p.join(&p.join(venv, "Scripts"), "activate")
        } else {
            p.join(&p.join(venv, "bin"), "activate")
        };
        plan.operations.push(block_operation(
            ctx,
            &path,
            id,
            activate_lines(change, Shell::Sh),
            Scope::Env,
            "venv activation script",
        )?);
        plan.notes.push(
            "The venv's own `deactivate` does not undo this change; close the shell instead."
                .into(),
        );
        return Ok(());
    }
    Err(FixError::Refused(
        "--scope env needs an activated conda environment (CONDA_PREFIX) or venv (VIRTUAL_ENV)"
            .into(),
    ))
}

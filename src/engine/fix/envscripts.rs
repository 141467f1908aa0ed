//! Env-scope fixes: a conda environment's `etc/conda/activate.d` + `deactivate.d` pair (sh on
//! Linux; bat, ps1 and sh on Windows) using conda's backup/restore idiom, or, for a venv, a
//! marked block in its activate scripts (`bin/activate`; on Windows `Scripts\activate.bat` and
//! `Scripts\activate`, not the signed Activate.ps1), whose own `deactivate` does not undo it.

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
        // Windows: cmd's activate.bat and the sh `activate` (Git Bash); PowerShell's
        // Activate.ps1 carries a signature that an edit would break, so it is left alone.
        let scripts: &[(Shell, &str)] = if p == Platform::Windows {
            &[(Shell::Cmd, "activate.bat"), (Shell::Sh, "activate")]
        } else {
            &[(Shell::Sh, "activate")]
        };
        let dir = p.join(
            venv,
            if p == Platform::Windows {
                "Scripts"
            } else {
                "bin"
            },
        );
        for (shell, name) in scripts {
            plan.operations.push(block_operation(
                ctx,
                &p.join(&dir, name),
                id,
                activate_lines(change, *shell),
                Scope::Env,
                "venv activation script",
            )?);
        }
        plan.notes.push(
            "The venv's own `deactivate` does not undo this change; close the shell instead."
                .into(),
        );
        if p == Platform::Windows {
            plan.notes.push("PowerShell's Activate.ps1 is signed and is not edited: in PowerShell, set the variable yourself or use the user scope.".into());
        }
        return Ok(());
    }
    Err(FixError::Refused(
        "--scope env needs an activated conda environment (CONDA_PREFIX) or venv (VIRTUAL_ENV)"
            .into(),
    ))
}

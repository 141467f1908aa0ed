//! Turns a finding's typed fix into a plan for a chosen scope. Everything is read through the
//! `SystemContext` (files through its filesystem view, registry values through its registry view
//! or, on this Windows computer, the registry itself), so a machine file gets the same exact
//! preview as this computer. Linux: one marked block in the login profile (user),
//! `/etc/profile.d/cuda-triage.sh` (machine), or the conda env's `activate.d`/`deactivate.d`
//! pair and the venv's `bin/activate` (env). Windows: `HKCU\Environment` (user) or the
//! machine's `Session Manager\Environment` (machine), or the conda env's scripts (env).

use super::FixError;
use super::pathlist::{ListStyle, apply_edit};
use super::plan::{Change, FixPlan, Operation, RegValue, RegValueKind, Scope};
use super::rcblock;
use super::shell::{EnvChange, Shell, apply_lines};
use crate::engine::context::{ContextSource, FsError, Platform, SystemContext};
use crate::engine::findings::{Finding, FixRef};

pub const USER_KEY: &str = r"HKCU\Environment";
pub const MACHINE_KEY: &str = r"HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment";

/// Choices the user makes when planning.
#[derive(Debug, Clone, Default)]
pub struct PlanOptions {
    /// Default: the user's own settings.
    pub scope: Option<Scope>,
    /// For a copy fix: the file to copy (else the first candidate the finding names).
    pub copy_from: Option<String>,
    /// For a pin: index options for every install command (pip: `--no-index`, `--find-links
    /// DIR`; conda: `--offline`, `-c CHANNEL`).
    pub pip_args: Vec<String>,
    /// For a pin into a conda environment whose packages conda installed: `Some(false)` uses
    /// pip all the same (default: conda there, pip elsewhere).
    pub conda: Option<bool>,
    /// For a pin: write the requirements into this file (a marked block) instead of installing.
    pub requirements_file: Option<String>,
}

/// The file's bytes as the context sees them (`None`: it does not exist).
pub fn read_machine_file(ctx: &SystemContext, path: &str) -> Result<Option<Vec<u8>>, FixError> {
    let host = match ctx.fs.host_path(path) {
        Ok(h) => h,
        Err(FsError::NotFound(_)) => return Ok(None),
        Err(e) => return Err(FixError::Refused(e.to_string())),
    };
    match std::fs::read(&host) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(FixError::Io {
            path: path.to_string(),
            source: e,
        }),
    }
}

fn read_registry(ctx: &SystemContext, key: &str, name: &str) -> Result<Option<RegValue>, FixError> {
    if ctx.source == ContextSource::Live && cfg!(windows) {
        return super::registry::read(key, name);
    }
    Ok(ctx.registry.value(key, name).map(|data| RegValue {
        // A machine file records the text, not the type; a PATH-like value is REG_EXPAND_SZ.
        kind: if name.eq_ignore_ascii_case("Path") {
            RegValueKind::ExpandSz
        } else {
            RegValueKind::for_text(data)
        },
        data: data.to_string(),
    }))
}

/// The plan for `fix` (a fix of `finding`) in `ctx`.
pub fn plan(
    ctx: &SystemContext,
    finding: &Finding,
    fix: &FixRef,
    opts: &PlanOptions,
) -> Result<FixPlan, FixError> {
    let scope = opts.scope.unwrap_or(Scope::User);
    let plan = FixPlan {
        fix_id: fix.id.clone(),
        finding: finding.code.clone(),
        summary: fix.summary.clone(),
        scope,
        needs_admin: scope == Scope::Machine,
        operations: Vec::new(),
        notes: Vec::new(),
    };
    super::kinds::module(&fix.kind).plan(ctx, fix, opts, plan)
}

/// The plan of a PATH or variable change (`path-edit`, `env-var`) for `plan.scope`: the
/// environment's activation scripts (env), the registry (Windows), the login profile (Linux
/// user) or `/etc/profile.d` (Linux machine).
pub(super) fn environment_plan(
    ctx: &SystemContext,
    change: EnvChange,
    fix: &FixRef,
    mut plan: FixPlan,
) -> Result<FixPlan, FixError> {
    let scope = plan.scope;
    match (scope, ctx.platform) {
        (Scope::Env, _) => super::envscripts::operations(ctx, &change, &fix.id, &mut plan)?,
        (_, Platform::Windows) => plan
            .operations
            .push(registry_operation(ctx, &change, scope)?),
        (Scope::User, Platform::Linux) => {
            let home = ctx
                .env
                .get("HOME")
                .filter(|h| !h.is_empty())
                .ok_or_else(|| {
                    FixError::Refused(
                        "HOME is not set, so there is no login profile to edit".into(),
                    )
                })?;
            let bash_profile = format!("{}/.bash_profile", home.trim_end_matches('/'));
            let profile = if ctx.fs.is_file(&bash_profile) {
                bash_profile
            } else {
                format!("{}/.profile", home.trim_end_matches('/'))
            };
            plan.operations.push(block_operation(
                ctx,
                &profile,
                &fix.id,
                apply_lines(&change, Shell::Sh),
                Scope::User,
                "login profile",
            )?);
        }
        (Scope::Machine, Platform::Linux) => {
            let path = "/etc/profile.d/cuda-triage.sh";
            plan.operations.push(block_operation(
                ctx,
                path,
                &fix.id,
                apply_lines(&change, Shell::Sh),
                Scope::Machine,
                "every user's login profile",
            )?);
        }
    }
    if let (Scope::User, Platform::Windows, EnvChange::Path(edit)) = (scope, ctx.platform, &change)
        && edit.first
        && edit.variable.eq_ignore_ascii_case("PATH")
    {
        plan.notes.push("Windows builds a program's PATH from the machine Path followed by the user's: an entry put first in the user's Path still comes after every machine entry. If the folder it must precede is in the machine Path, choose the machine scope.".into());
    }
    plan.notes.push(match (scope, ctx.platform) {
        (Scope::Env, _) => "Seen only where the environment is activated: IDE kernels and embedded Python that start it without activation do not see it, nor do shells already open.".into(),
        (_, Platform::Windows) => "Programs started from now on see it; programs already running (terminals, IDEs, Explorer windows opened before) keep their old environment.".into(),
        (_, Platform::Linux) => "New login sessions see it; shells already open do not (run `. ~/.profile` in them), nor do programs already running.".into(),
    });
    Ok(plan)
}

/// Sets section `id` of the marked block in `path` to `lines`.
pub(super) fn block_operation(
    ctx: &SystemContext,
    path: &str,
    id: &str,
    lines: Vec<String>,
    scope: Scope,
    what: &str,
) -> Result<Operation, FixError> {
    // cmd wants `@rem` and CRLF; sh cannot run a CRLF line, so its block is LF even in a CRLF file.
    let (comment, eol) = if path.to_ascii_lowercase().ends_with(".bat") {
        ("@rem", "\r\n")
    } else {
        ("#", "\n")
    };
    let before = read_machine_file(ctx, path)?;
    let after = rcblock::with_section_in(
        before.as_deref().unwrap_or_default(),
        comment,
        eol,
        id,
        Some(&lines),
    );
    Ok(Operation {
        scope,
        what: format!("Set the cuda-triage block in {path} ({what})"),
        change: Change::File {
            path: path.to_string(),
            before,
            after: Some(after),
            copied_from: None,
        },
    })
}

fn registry_operation(
    ctx: &SystemContext,
    change: &EnvChange,
    scope: Scope,
) -> Result<Operation, FixError> {
    let key = if scope == Scope::Machine {
        MACHINE_KEY
    } else {
        USER_KEY
    };
    // Windows spells it `Path`; other names as the fix gives them.
    let name = if change.variable().eq_ignore_ascii_case("PATH") {
        "Path"
    } else {
        change.variable()
    };
    let before = read_registry(ctx, key, name)?;
    let after = match change {
        EnvChange::Set(s) => s.value.as_ref().map(|v| RegValue {
            kind: before
                .as_ref()
                .map_or_else(|| RegValueKind::for_text(v), |b| b.kind),
            data: v.clone(),
        }),
        EnvChange::Path(edit) => {
            let old = before.as_ref().map(|b| b.data.as_str()).unwrap_or_default();
            Some(RegValue {
                kind: before.as_ref().map_or(RegValueKind::ExpandSz, |b| b.kind),
                data: apply_edit(old, edit, ListStyle::WINDOWS),
            })
        }
    };
    Ok(Operation {
        scope,
        what: format!("Set {name} in {key}"),
        change: Change::Registry {
            key: key.into(),
            name: name.into(),
            before,
            after,
        },
    })
}

//! Verification after applying: the environment a new session would get is rebuilt from the
//! persistent store — the marked block read back from the file on disk and run by a real `sh`
//! on top of the diagnosed environment, the registry value read back — never from this
//! process's own environment; then the machine is rescanned and the fix counts as verified only
//! when its finding no longer offers it. A DLL hook is also checked in a fresh interpreter (on
//! Windows it loads the finding's libraries there and reads back where each came from). What cannot see the change is said in the plan's notes.

use super::FixError;
use super::host::Host;
use super::plan::{Change, FixPlan, RegValueKind};
use super::rcblock;
use crate::engine::context::{EnvVars, SystemContext};
use crate::engine::findings::{Finding, FixKind};
use crate::engine::progress::Progress;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The outcome of a re-check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verification {
    pub verified: bool,
    /// What was re-read, in words.
    pub checked: Vec<String>,
    /// The finding, when it is still there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub still_found: Option<String>,
    /// The environment a new session gets after the fix, which the rescan used (the wizard
    /// goes on diagnosing with it: `live::set_session_environment`).
    #[serde(skip)]
    pub environment: BTreeMap<String, String>,
}

/// Runs `lines` with `sh` on top of `env`; returns the environment afterwards.
fn run_sh(
    env: &BTreeMap<String, String>,
    lines: &[String],
) -> Result<BTreeMap<String, String>, FixError> {
    let script = format!("{}\nenv -0\n", lines.join("\n"));
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(&script)
        .env_clear()
        .envs(env)
        .output()
        .map_err(|e| FixError::Io {
            path: "sh".into(),
            source: e,
        })?;
    if !out.status.success() {
        return Err(FixError::Refused(format!(
            "the block failed in sh: {}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(out
        .stdout
        .split(|&b| b == 0)
        .filter_map(|kv| {
            let kv = String::from_utf8_lossy(kv);
            kv.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
        })
        .collect())
}

/// The environment a new session gets after the plan, from what is stored now.
fn new_environment(
    ctx: &SystemContext,
    plan: &FixPlan,
    fix: &FixKind,
    host: &dyn Host,
    checked: &mut Vec<String>,
) -> Result<BTreeMap<String, String>, FixError> {
    let mut env: BTreeMap<String, String> = ctx
        .env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    // Only kinds that set the environment (PATH, variables) write shell blocks; other files are
    // just read back.
    let kind = super::kinds::module(fix);
    let sets_environment = kind.sets_environment();
    for op in &plan.operations {
        match &op.change {
            Change::File {
                path,
                copied_from: None,
                ..
            } if sets_environment
                && !path.contains("deactivate.d")
                && !path.ends_with(".bat")
                && !path.ends_with(".ps1") =>
            {
                let bytes = host.read_file(Path::new(path))?.unwrap_or_default();
                let lines = rcblock::sections(&bytes, "#")
                    .into_iter()
                    .find(|(id, _)| *id == plan.fix_id)
                    .map(|(_, l)| l)
                    .ok_or_else(|| {
                        FixError::Refused(format!("{path} no longer holds the fix's block"))
                    })?;
                env = run_sh(&env, &lines)?;
                checked.push(format!(
                    "re-read {path} and ran its cuda-triage block in sh"
                ));
            }
            Change::Registry {
                key, name, after, ..
            } => {
                let now = host.read_registry(key, name)?;
                if now != *after {
                    return Err(FixError::Changed(format!("{key}\\{name}")));
                }
                checked.push(format!("re-read {key}\\{name} from the registry"));
                kind.registry_read_back(ctx, host, name, now, &mut env, checked)?;
            }
            Change::Packages { python, conda, .. } => {
                let installer = super::packages::Installer::of(python, conda.as_ref());
                host.package_set(&installer)?;
                checked.push(format!(
                    "re-read {} ({})",
                    installer.target(),
                    if conda.is_some() {
                        "conda list"
                    } else {
                        "pip freeze"
                    }
                ));
            }
            Change::File { path, after, .. } => {
                if host.read_file(Path::new(path))? != *after {
                    return Err(FixError::Changed(path.clone()));
                }
                checked.push(format!("re-read {path}"));
            }
        }
    }
    Ok(env)
}

/// The PATH a process started from now on gets on Windows: the machine's `Path` followed by the
/// user's, each read back from the registry and expanded (REG_EXPAND_SZ) with the environment.
pub(super) fn new_session_path(
    ctx: &SystemContext,
    host: &dyn Host,
) -> Result<Option<String>, FixError> {
    let mut parts = Vec::new();
    for key in [super::planner::MACHINE_KEY, super::planner::USER_KEY] {
        if let Some(v) = host.read_registry(key, "Path")? {
            let value = if v.kind == RegValueKind::ExpandSz {
                ctx.env.expand_percent(&v.data).0
            } else {
                v.data
            };
            if !value.is_empty() {
                parts.push(value.trim_end_matches(';').to_string());
            }
        }
    }
    Ok((!parts.is_empty()).then(|| parts.join(";")))
}

/// Whether `findings` still offer the plan's fix.
fn still_offered<'a>(findings: &'a [Finding], plan: &FixPlan) -> Option<&'a Finding> {
    findings
        .iter()
        .find(|f| f.code == plan.finding && f.fixes.iter().any(|x| x.id == plan.fix_id))
}

/// Re-reads what the plan wrote, rescans and checks the finding is gone.
pub fn verify(
    ctx: &SystemContext,
    plan: &FixPlan,
    fix: &FixKind,
    libraries: &[String],
    host: &dyn Host,
) -> Result<Verification, FixError> {
    let mut checked = Vec::new();
    let env = new_environment(ctx, plan, fix, host, &mut checked)?;
    let mut fresh = ctx.clone();
    fresh.env = EnvVars::new(ctx.platform, env.clone());
    let findings = crate::engine::diagnosis::run(&fresh, &Progress::new()).findings;
    checked.push("rescanned with that environment".into());
    let still = still_offered(&findings, plan).map(|f| f.summary.clone());
    if let Some(why) =
        super::kinds::module(fix).confirm_in_fresh_process(ctx, libraries, &mut checked)?
    {
        return Ok(Verification {
            verified: false,
            checked,
            still_found: Some(still.unwrap_or(why)),
            environment: env,
        });
    }
    Ok(Verification {
        verified: still.is_none(),
        checked,
        still_found: still,
        environment: env,
    })
}

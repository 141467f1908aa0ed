//! The calls both front ends make: the fixes the findings offer, the plan of one, applying it on
//! this computer (recovering interrupted journals first, refusing a machine file), undo and
//! history (and a read-only history for reports). Each returns data; the CLI and the wizard only
//! render it.

use super::FixError;
use super::apply::{self, Applied};
use super::host::{Feedback, Host, SystemHost};
use super::journal::{self, Journal};
use super::kinds::ScopeChoice;
use super::plan::{FixPlan, Scope};
use super::planner::{self, PlanOptions};
use super::verify::{self, Verification};
use crate::engine::context::{ContextSource, SystemContext};
use crate::engine::findings::{Finding, FixRef};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Every fix the findings offer, with its finding, in finding order (an id appears once).
pub fn offered(findings: &[Finding]) -> Vec<(&Finding, &FixRef)> {
    let mut seen = std::collections::HashSet::new();
    findings
        .iter()
        .flat_map(|f| f.fixes.iter().map(move |x| (f, x)))
        .filter(|(_, x)| seen.insert(x.id.clone()))
        .collect()
}

/// The fix with this id and its finding.
pub fn find<'a>(findings: &'a [Finding], id: &str) -> Option<(&'a Finding, &'a FixRef)> {
    offered(findings).into_iter().find(|(_, x)| x.id == id)
}

/// The plan of one fix (a missing id is an error naming the ids there are).
pub fn plan(
    ctx: &SystemContext,
    findings: &[Finding],
    id: &str,
    opts: &PlanOptions,
) -> Result<FixPlan, FixError> {
    let Some((finding, fix)) = find(findings, id) else {
        let ids: Vec<&str> = offered(findings)
            .iter()
            .map(|(_, x)| x.id.as_str())
            .collect();
        return Err(FixError::Refused(format!(
            "no fix {id} here; the findings offer: {}",
            ids.join(", ")
        )));
    };
    planner::plan(ctx, finding, fix, opts)
}

/// One row of `fix list` (the report's `"fixes"` key): a fix the findings offer, its finding,
/// and the scopes it can be planned for here — or why it cannot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OfferedFix {
    pub id: String,
    /// The fix kind's name (`path-edit`, `pin-version`, ...).
    pub kind: String,
    pub summary: String,
    /// The code of the finding that offers it.
    pub finding: String,
    /// `available (--scope user, machine)`, or why no scope can be planned.
    pub plan: String,
    pub scopes: Vec<Scope>,
}

/// Every fix the findings offer, with the scopes each can be planned for on `ctx` (`fix list`).
pub fn list(ctx: &SystemContext, findings: &[Finding]) -> Vec<OfferedFix> {
    offered(findings)
        .iter()
        .map(|(f, x)| {
            let scopes = scopes(ctx, f, x);
            OfferedFix {
                id: x.id.clone(),
                kind: x.kind.as_str().to_string(),
                summary: x.summary.clone(),
                finding: f.code.clone(),
                plan: match &scopes {
                    Ok(s) => format!(
                        "available (--scope {})",
                        s.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                    Err(e) => e.to_string(),
                },
                scopes: scopes.unwrap_or_default(),
            }
        })
        .collect()
}

/// The scopes a fix can be planned for here (those its kind's module offers that plan), or why
/// none works.
pub fn scopes(
    ctx: &SystemContext,
    finding: &Finding,
    fix: &FixRef,
) -> Result<Vec<Scope>, FixError> {
    let candidates = match super::kinds::module(&fix.kind).scopes() {
        ScopeChoice::Try(scopes) => scopes,
        ScopeChoice::Only(scope) => return Ok(vec![scope]),
    };
    let mut ok = Vec::new();
    let mut first_error = None;
    for scope in candidates {
        let opts = PlanOptions {
            scope: Some(*scope),
            ..Default::default()
        };
        match planner::plan(ctx, finding, fix, &opts) {
            Ok(plan) => ok.push(plan.scope),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    // Every scope was tried (there is at least one), so none working leaves an error.
    match first_error {
        Some(e) if ok.is_empty() => Err(e),
        _ => Ok(ok),
    }
}

fn data_dir() -> Result<PathBuf, FixError> {
    journal::data_dir().ok_or_else(|| {
        FixError::Refused(
            "no data folder for the undo journal (set HOME or CUDA_TRIAGE_DATA_DIR)".into(),
        )
    })
}

/// Rolls back journals an interrupted run left behind; returns their ids.
pub fn recover() -> Result<Vec<String>, FixError> {
    let Some(dir) = journal::data_dir() else {
        return Ok(Vec::new());
    };
    apply::recover(&mut SystemHost::new(false), &dir)
}

/// What applying a fix came to (the `"outcome"` of the report's `"apply"` key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ApplyOutcome {
    /// The machine already was as the plan would leave it.
    NoChange,
    /// Nothing written: what would have been is in `would`.
    DryRun,
    /// Written, journaled (undo with the journal id).
    Applied,
}

impl ApplyOutcome {
    /// The JSON spelling: `no-change`, `dry-run`, `applied`.
    pub fn as_str(self) -> &'static str {
        match self {
            ApplyOutcome::NoChange => "no-change",
            ApplyOutcome::DryRun => "dry-run",
            ApplyOutcome::Applied => "applied",
        }
    }
}

impl std::fmt::Display for ApplyOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What applying a fix did (the report's `"apply"` key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApplyReport {
    pub fix_id: String,
    pub outcome: ApplyOutcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub journal: Option<String>,
    /// What a dry run would have written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub would: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification: Option<Verification>,
}

/// Applies `plan` (of the fix `id` in `findings`) on this computer, then verifies it. Command
/// output (pip) goes to `feedback.on_line` as it arrives; `feedback.cancel` stops it.
pub fn apply(
    ctx: &SystemContext,
    findings: &[Finding],
    plan: &FixPlan,
    dry_run: bool,
    feedback: Feedback,
) -> Result<ApplyReport, FixError> {
    if let ContextSource::MachineFile(_) | ContextSource::Report(_) = &ctx.source {
        return Err(FixError::Refused(format!(
            "{} is not this computer: its fixes can be planned and previewed (fix show), not applied",
            ctx.source.describe()
        )));
    }
    let dir = data_dir()?;
    let mut host = SystemHost::new(dry_run);
    host.on_line = feedback.on_line;
    host.cancel = feedback.cancel;
    if !dry_run {
        apply::recover(&mut host, &dir)?;
    }
    let mut report = ApplyReport {
        fix_id: plan.fix_id.clone(),
        outcome: ApplyOutcome::NoChange,
        journal: None,
        would: Vec::new(),
        verification: None,
    };
    match apply::apply(plan, &mut host, &dir)? {
        Applied::NoChange => {}
        Applied::DryRun(log) => {
            report.outcome = ApplyOutcome::DryRun;
            report.would = log;
            return Ok(report);
        }
        Applied::Done { journal } => {
            report.outcome = ApplyOutcome::Applied;
            report.journal = Some(journal);
        }
    }
    if let Some((finding, fix)) = find(findings, &plan.fix_id) {
        report.verification = Some(verify::verify(
            ctx,
            plan,
            &fix.kind,
            &finding.libraries,
            &host as &dyn Host,
        )?);
    }
    Ok(report)
}

/// Undoes journal `id`, or the newest applied fix.
pub fn undo(id: Option<&str>) -> Result<Journal, FixError> {
    let dir = data_dir()?;
    let mut host = SystemHost::new(false);
    apply::recover(&mut host, &dir)?;
    apply::undo(&mut host, &dir, id)
}

/// Every journal as it stands on disk, oldest first — read only: an interrupted journal is
/// listed as `applying`, never rolled back. For reports, which must not change the machine they
/// describe.
pub fn read_history() -> Vec<Journal> {
    journal::data_dir()
        .map(|dir| journal::list(&dir))
        .unwrap_or_default()
}

/// Every journal, oldest first (interrupted ones rolled back first).
pub fn history() -> Result<Vec<Journal>, FixError> {
    let dir = data_dir()?;
    apply::recover(&mut SystemHost::new(false), &dir)?;
    Ok(journal::list(&dir))
}

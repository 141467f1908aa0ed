//! `fix list | show | apply | undo | history`: renders what `engine::fix::operations` returns.
//! Plans and previews work on a machine file too; applying needs this computer, an explicit
//! `--yes` (or a "y" at the prompt) and is journaled so `fix undo` restores every byte.

use super::args::{Common, FixAction, FixChoice, ScopeArg};
use super::load::load_context;
use super::output::{EXIT_CLEAN, EXIT_PROBLEMS};
use crate::engine::api::fix::{self, ApplyOutcome, Feedback, PlanOptions, PlanView, Scope};
use crate::engine::api::{Finding, Report, SCHEMA, SystemContext};
use anyhow::Context;
use std::io::{BufRead, IsTerminal, Write};

pub fn fix_command(common: &Common, action: FixAction) -> anyhow::Result<i32> {
    match action {
        FixAction::Undo { journal } => undo(common, journal.as_deref()),
        FixAction::History => history(common),
        FixAction::List => with_scan(common, list),
        FixAction::Show { id, choice } => {
            with_scan(common, |c, ctx, f| show(c, ctx, f, &id, &choice))
        }
        FixAction::Apply {
            id,
            choice,
            dry_run,
            yes,
        } => with_scan(common, |c, ctx, f| {
            apply(c, ctx, f, &id, &choice, dry_run, yes)
        }),
    }
}

fn with_scan(
    common: &Common,
    run: impl FnOnce(&Common, &SystemContext, Vec<Finding>) -> anyhow::Result<i32>,
) -> anyhow::Result<i32> {
    if common.machine.is_none() {
        fix::recover().context("cannot finish an interrupted fix")?;
    }
    let ctx = load_context(common)?;
    let findings = super::scan_command::scan_document_with(&ctx, &Default::default())?.findings;
    run(common, &ctx, findings)
}

fn options(choice: &FixChoice) -> PlanOptions {
    PlanOptions {
        scope: choice.scope.map(|s| match s {
            ScopeArg::User => Scope::User,
            ScopeArg::Machine => Scope::Machine,
            ScopeArg::Env => Scope::Env,
        }),
        copy_from: choice.from.clone(),
        pip_args: choice.pip_args.clone(),
        requirements_file: choice.to_file.clone(),
        conda: None,
    }
}

fn list(common: &Common, ctx: &SystemContext, findings: Vec<Finding>) -> anyhow::Result<i32> {
    let rows = fix::list(ctx, &findings);
    if common.json {
        let mut doc = Report::new(ctx, findings.clone());
        doc.fixes = Some(rows);
        println!("{}", doc.to_json_pretty());
    } else if rows.is_empty() {
        println!("No fixes offered.");
    } else {
        for r in &rows {
            println!(
                "{}  [{}] {}\n    for {}; plan: {}",
                r.id, r.kind, r.summary, r.finding, r.plan
            );
        }
    }
    Ok(EXIT_CLEAN)
}

fn show(
    common: &Common,
    ctx: &SystemContext,
    findings: Vec<Finding>,
    id: &str,
    choice: &FixChoice,
) -> anyhow::Result<i32> {
    match fix::plan(ctx, &findings, id, &options(choice)) {
        Ok(plan) => {
            if common.json {
                let mut doc = Report::new(ctx, findings.clone());
                doc.plan = Some(PlanView::from(&plan));
                println!("{}", doc.to_json_pretty());
            } else {
                print!("{}", plan.preview());
            }
            Ok(EXIT_CLEAN)
        }
        Err(e) => Err(e.into()),
    }
}

fn confirmed() -> bool {
    if !std::io::stdin().is_terminal() {
        return false;
    }
    print!("Apply this fix? [y/N] ");
    let _ = std::io::stdout().flush();
    let mut answer = String::new();
    let _ = std::io::stdin().lock().read_line(&mut answer);
    matches!(answer.trim(), "y" | "Y" | "yes")
}

fn apply(
    common: &Common,
    ctx: &SystemContext,
    findings: Vec<Finding>,
    id: &str,
    choice: &FixChoice,
    dry_run: bool,
    yes: bool,
) -> anyhow::Result<i32> {
    let plan = fix::plan(ctx, &findings, id, &options(choice))?;
    if common.machine.is_some() {
        anyhow::bail!(
            "a machine file's fixes can be planned and previewed (fix show), not applied: it is not this computer"
        );
    }
    if !common.json {
        print!("{}", plan.preview());
    }
    if !dry_run && !yes && (common.json || !confirmed()) {
        anyhow::bail!("nothing changed: confirm with --yes (or answer y at the prompt)");
    }
    let report = fix::apply(
        ctx,
        &findings,
        &plan,
        dry_run,
        Feedback {
            on_line: Some(Box::new(|l| eprintln!("  {l}"))),
            ..Default::default()
        },
    )?;
    let verified = report.verification.as_ref().is_none_or(|v| v.verified);
    if common.json {
        let mut doc = Report::new(ctx, findings.clone());
        doc.plan = Some(PlanView::from(&plan));
        doc.apply = Some(report.clone());
        println!("{}", doc.to_json_pretty());
    } else {
        match report.outcome {
            ApplyOutcome::DryRun => report.would.iter().for_each(|w| println!("{w}")),
            ApplyOutcome::NoChange => println!("Nothing to change: it is already so."),
            ApplyOutcome::Applied => println!(
                "Applied; undo with: cuda-triage fix undo {}",
                report.journal.as_deref().unwrap_or("")
            ),
        }
        if let Some(v) = &report.verification {
            v.checked.iter().for_each(|c| println!("  {c}"));
            match &v.still_found {
                None => println!("Verified: the finding is gone."),
                Some(s) => println!("NOT verified: still found: {s}"),
            }
        }
    }
    Ok(if verified { EXIT_CLEAN } else { EXIT_PROBLEMS })
}

fn undo(common: &Common, journal: Option<&str>) -> anyhow::Result<i32> {
    match fix::undo(journal) {
        Ok(j) => {
            if common.json {
                println!("{}", serde_json::json!({ "schema": SCHEMA, "undone": j }));
            } else {
                println!("{}", fix::undone_words(&j));
            }
            Ok(EXIT_CLEAN)
        }
        Err(e) => Err(e.into()),
    }
}

fn history(common: &Common) -> anyhow::Result<i32> {
    match fix::history() {
        Ok(all) => {
            if common.json {
                println!(
                    "{}",
                    serde_json::json!({ "schema": SCHEMA, "history": all })
                );
            } else if all.is_empty() {
                println!("No fixes applied yet.");
            } else {
                for j in &all {
                    println!("{}  {:?}  {}  ({})", j.id, j.state, j.fix_id, j.summary);
                }
            }
            Ok(EXIT_CLEAN)
        }
        Err(e) => Err(e.into()),
    }
}

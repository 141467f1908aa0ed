//! The report's fix keys (`plan`, `apply`, `fixes`, `fixes_applied`) are typed: a document the
//! fix commands and a saved report write reads into those types and writes back unchanged.

use super::Report;
use crate::engine::fix::Scope;
use crate::engine::fix::journal::JournalState;
use crate::engine::fix::operations::ApplyOutcome;

/// A document with every fix key, as `fix apply --json`, `fix list --json` and `report` write
/// them (keys sorted, as the contract has them).
fn document() -> serde_json::Value {
    serde_json::json!({
        "schema": "cuda-triage/1",
        "machine": {"platform": "linux", "wsl": false, "source": {"kind": "live"}},
        "findings": [],
        "apply": {
            "fix_id": "fix-cuda_home",
            "journal": "1795627183-249670",
            "outcome": "applied",
            "verification": {"checked": ["read back ~/.profile"], "verified": true}
        },
        "fixes": [{
            "finding": "cuda-home-missing",
            "id": "fix-cuda_home",
            "kind": "env-var",
            "plan": "available (--scope user, machine, env)",
            "scopes": ["user", "machine", "env"],
            "summary": "Set CUDA_HOME to /usr/local/cuda"
        }],
        "fixes_applied": [{
            "applied_at": "2026-11-24T02:50:00Z",
            "finding": "cuda-home-missing",
            "fix_id": "fix-cuda_home",
            "id": "1795627183-249670",
            "state": "rolled-back",
            "summary": "Set CUDA_HOME to /usr/local/cuda"
        }],
        "plan": {
            "finding": "cuda-home-missing",
            "fix_id": "fix-cuda_home",
            "modifies": true,
            "needs_admin": false,
            "notes": ["New terminals see it."],
            "operations": [{
                "change": {"path": "/home/u/.profile", "type": "file"},
                "scope": "user",
                "what": "Add CUDA_HOME to ~/.profile"
            }],
            "previews": ["--- ~/.profile\n+++ ~/.profile\n"],
            "scope": "user",
            "summary": "Set CUDA_HOME to /usr/local/cuda"
        }
    })
}

#[test]
fn the_fix_keys_read_into_their_types_and_write_back_unchanged() {
    let written = serde_json::to_string_pretty(&document()).unwrap();
    let report: Report = serde_json::from_str(&written).unwrap();
    assert!(report.unknown.is_empty(), "{:?}", report.unknown.keys());
    let apply = report.apply.as_ref().expect("apply");
    assert_eq!(apply.outcome, ApplyOutcome::Applied);
    assert!(apply.verification.as_ref().is_some_and(|v| v.verified));
    let fixes = report.fixes.as_ref().expect("fixes");
    assert_eq!(fixes[0].scopes, [Scope::User, Scope::Machine, Scope::Env]);
    let applied = report.fixes_applied.as_ref().expect("fixes_applied");
    assert_eq!(applied[0].state, JournalState::RolledBack);
    let plan = report.plan.as_ref().expect("plan");
    assert_eq!(plan.plan.operations.len(), 1);
    assert!(plan.modifies);
    let again: serde_json::Value = serde_json::from_str(&report.to_json_pretty()).unwrap();
    for key in ["apply", "fixes", "fixes_applied", "plan"] {
        assert_eq!(again[key], document()[key], "{key}");
    }
}

#[test]
fn an_apply_outcome_is_spelled_as_the_contract_spells_it() {
    for (outcome, name) in [
        (ApplyOutcome::NoChange, "no-change"),
        (ApplyOutcome::DryRun, "dry-run"),
        (ApplyOutcome::Applied, "applied"),
    ] {
        assert_eq!(serde_json::to_value(outcome).unwrap(), name);
        assert_eq!(outcome.to_string(), name);
    }
}

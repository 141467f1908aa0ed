//! Fix engine tests on real files in a temporary folder: a login profile with CRLF, a BOM, a
//! Latin-1 byte and no final newline; a conda-style environment; a read-only profile. Each goes
//! plan → preview → apply → verify (a real `sh` runs the written block) → undo, byte for byte.
//! The other scopes ([`scopes`]), conda pins ([`conda`]) and Python environments ([`python`])
//! have their own files here.

mod conda;
mod python;
mod scopes;

use super::apply::{self, Applied};
use super::host::SystemHost;
use super::journal::{self, JournalState};
use super::planner::PlanOptions;
use super::{operations, verify};
use crate::engine::context::{
    ContextSource, EnvVars, FsView, Platform, RegistryView, SystemContext,
};
use crate::engine::findings::Finding;
use crate::engine::inventory::Inventory;
use crate::engine::rules::RuleInput;
use std::fs;

const PROFILE: &[u8] = b"\xef\xbb\xbfexport EDITOR=vi\r\n# caf\xe9 au lait\r\nalias ll='ls -l'";

pub(super) fn live_context(vars: &[(&str, String)]) -> SystemContext {
    SystemContext {
        platform: Platform::Linux,
        wsl: false,
        fs: FsView::live(Platform::Linux),
        env: EnvVars::new(
            Platform::Linux,
            vars.iter().map(|(k, v)| (k.to_string(), v.clone())),
        ),
        registry: RegistryView::default(),
        driver: None,
        gpus: Vec::new(),
        driver_note: None,
        source: ContextSource::Live,
        session: crate::engine::context::SessionEnvironment::default(),
    }
}

/// Only the environment rules: they are what these fixes address, and they need no scan.
pub(super) fn findings(ctx: &SystemContext) -> Vec<Finding> {
    crate::engine::rules::env_paths::check(&RuleInput::new(ctx, &Inventory::default()))
}

/// The plan of fix `id` among the environment findings, for the default scope.
fn plan(ctx: &SystemContext, id: &str) -> super::FixPlan {
    operations::plan(ctx, &findings(ctx), id, &PlanOptions::default()).unwrap()
}

/// Plans fix `id` among the environment findings, applies it for real (journal in `data`) and
/// checks that it verifies.
pub(super) fn apply_verified(
    ctx: &SystemContext,
    id: &str,
    opts: &PlanOptions,
    data: &std::path::Path,
) -> (super::FixPlan, SystemHost) {
    let found = findings(ctx);
    let plan = operations::plan(ctx, &found, id, opts).unwrap();
    let mut host = SystemHost::new(false);
    apply::apply(&plan, &mut host, data).unwrap();
    let fix = &found
        .iter()
        .flat_map(|f| &f.fixes)
        .find(|x| x.id == id)
        .unwrap()
        .kind;
    let v = verify::verify(ctx, &plan, fix, &[], &host).unwrap();
    assert!(v.verified, "{v:?}");
    (plan, host)
}

pub(super) struct Home {
    pub(super) dir: tempfile::TempDir,
}

impl Home {
    pub(super) fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("home")).unwrap();
        fs::create_dir_all(dir.path().join("opt/cuda-12.4/bin")).unwrap();
        fs::write(dir.path().join("home/.profile"), PROFILE).unwrap();
        Home { dir }
    }
    pub(super) fn p(&self, rel: &str) -> String {
        self.dir.path().join(rel).display().to_string()
    }
    pub(super) fn ctx(&self, extra: &[(&str, String)]) -> SystemContext {
        let mut vars = vec![
            ("HOME", self.p("home")),
            (
                "PATH",
                format!("{}:/usr/bin:/bin", self.p("opt/cuda-12.4/bni")),
            ),
            ("CUDA_HOME", self.p("opt/cuda-12.44")),
        ];
        vars.extend(extra.iter().cloned());
        live_context(&vars)
    }
}

#[test]
fn login_profile_apply_verify_undo_keeps_every_byte() {
    let home = Home::new();
    let ctx = home.ctx(&[]);
    let found = findings(&ctx);
    let plan = operations::plan(&ctx, &found, "fix-cuda_home", &PlanOptions::default()).unwrap();
    let preview = plan.preview();
    let want = format!("+export CUDA_HOME='{}'", home.p("opt/cuda-12.4"));
    assert!(preview.contains(&want), "{preview}");
    assert!(
        preview.contains("\\ No newline at end of file"),
        "{preview}"
    );
    let data = home.dir.path().join("data");
    let mut host = SystemHost::new(false);
    let Applied::Done { journal } = apply::apply(&plan, &mut host, &data).unwrap() else {
        panic!("not applied")
    };
    let written = fs::read(home.p("home/.profile")).unwrap();
    assert!(
        written.starts_with(&[PROFILE, b"\n# >>> cuda-triage >>>\n"].concat()),
        "{}",
        String::from_utf8_lossy(&written)
    );
    let fix = &found
        .iter()
        .flat_map(|f| &f.fixes)
        .find(|x| x.id == "fix-cuda_home")
        .unwrap()
        .kind;
    let v = verify::verify(&ctx, &plan, fix, &[], &host).unwrap();
    assert!(v.verified, "{v:?}");
    // Planned again, the same fix changes nothing.
    let again = operations::plan(&ctx, &found, "fix-cuda_home", &PlanOptions::default()).unwrap();
    assert_eq!(
        apply::apply(&again, &mut host, &data).unwrap(),
        Applied::NoChange
    );
    let undone = apply::undo(&mut host, &data, None).unwrap();
    assert_eq!(undone.id, journal);
    assert_eq!(fs::read(home.p("home/.profile")).unwrap(), PROFILE);
    assert_eq!(journal::list(&data)[0].state, JournalState::Undone);
}

#[test]
fn a_path_typo_is_replaced_by_a_guarded_block_that_sh_runs() {
    let home = Home::new();
    let ctx = home.ctx(&[]);
    let data = home.dir.path().join("data");
    let (_, mut host) = apply_verified(&ctx, "fix-path-entry-1", &PlanOptions::default(), &data);
    // Sourcing the profile twice in a real sh: the entry is first, once, and the typo is gone.
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            ". '{0}' 2>/dev/null; . '{0}' 2>/dev/null; printf %s \"$PATH\"",
            home.p("home/.profile")
        ))
        .env_clear()
        .env("PATH", ctx.env.get("PATH").unwrap())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{}:/usr/bin:/bin", home.p("opt/cuda-12.4/bin"))
    );
    apply::undo(&mut host, &data, None).unwrap();
    assert_eq!(fs::read(home.p("home/.profile")).unwrap(), PROFILE);
}

#[test]
fn dry_run_runs_the_same_code_and_changes_nothing() {
    let home = Home::new();
    let ctx = home.ctx(&[]);
    let plan = plan(&ctx, "fix-cuda_home");
    let data = home.dir.path().join("data");
    let Applied::DryRun(log) = apply::apply(&plan, &mut SystemHost::new(true), &data).unwrap()
    else {
        panic!("not a dry run")
    };
    let super::plan::Change::File { after, .. } = &plan.operations[0].change else {
        panic!("not a file")
    };
    let size = after.as_ref().unwrap().len();
    assert_eq!(
        log,
        vec![format!(
            "would write {} ({size} bytes)",
            home.p("home/.profile")
        )]
    );
    assert_eq!(fs::read(home.p("home/.profile")).unwrap(), PROFILE);
    assert!(!data.exists(), "a dry run writes no journal");
}

#[test]
fn a_read_only_profile_is_a_clear_error_that_changes_nothing() {
    let home = Home::new();
    let profile = home.p("home/.profile");
    let mut perms = fs::metadata(&profile).unwrap().permissions();
    perms.set_readonly(true);
    fs::set_permissions(&profile, perms).unwrap();
    let ctx = home.ctx(&[]);
    let plan = plan(&ctx, "fix-cuda_home");
    let data = home.dir.path().join("data");
    let err = apply::apply(&plan, &mut SystemHost::new(false), &data).unwrap_err();
    assert!(
        err.to_string().contains("read-only") && err.to_string().contains("nothing was changed"),
        "{err}"
    );
    assert_eq!(fs::read(&profile).unwrap(), PROFILE);
    assert!(journal::list(&data).is_empty());
}

#[test]
fn an_interrupted_journal_is_rolled_back_at_the_next_start() {
    let home = Home::new();
    let ctx = home.ctx(&[]);
    let plan = plan(&ctx, "fix-cuda_home");
    let data = home.dir.path().join("data");
    // What a run killed after its write leaves: the new file and a journal still `applying`.
    let mut j = journal::Journal::begin(&data, &plan).unwrap();
    j.set_state(JournalState::Applying).unwrap();
    let super::plan::Change::File { after, .. } = &plan.operations[0].change else {
        panic!()
    };
    fs::write(home.p("home/.profile"), after.as_ref().unwrap()).unwrap();
    let rolled = apply::recover(&mut SystemHost::new(false), &data).unwrap();
    assert_eq!(rolled, vec![j.id]);
    assert_eq!(fs::read(home.p("home/.profile")).unwrap(), PROFILE);
    assert_eq!(journal::list(&data)[0].state, JournalState::RolledBack);
}

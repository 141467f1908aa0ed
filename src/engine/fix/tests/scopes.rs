//! Fix tests for the other scopes and targets: a conda environment's activate.d/deactivate.d
//! pair run by a real sh, a real venv's activate script, a pin written to a requirements file,
//! and the Windows registry preview from a machine file's registry view.

use super::{Home, apply_verified, findings, live_context};
use crate::engine::context::{ContextSource, Platform, RegistryView, SystemContext};
use crate::engine::findings::Finding;
use crate::engine::fix::apply;
use crate::engine::fix::host::SystemHost;
use crate::engine::fix::planner::{self, PlanOptions};
use crate::engine::fix::{Scope, operations};
use std::fs;
use std::path::Path;

#[test]
fn a_conda_env_gets_an_activate_and_deactivate_pair_that_restores_the_old_value() {
    let home = Home::new();
    let prefix = home.p("conda/envs/tf");
    // A fresh env: etc/conda/activate.d and deactivate.d do not exist yet.
    fs::create_dir_all(&prefix).unwrap();
    let ctx = home.ctx(&[("CONDA_PREFIX", prefix.clone())]);
    let opts = PlanOptions {
        scope: Some(Scope::Env),
        copy_from: None,
        pip_args: Vec::new(),
        requirements_file: None,
        conda: None,
    };
    let data = home.dir.path().join("data");
    let (plan, mut host) = apply_verified(&ctx, "fix-cuda_home", &opts, &data);
    assert_eq!(plan.operations.len(), 2);
    let script = format!(
        ". '{p}/etc/conda/activate.d/cuda-triage.sh'; echo \"on=$CUDA_HOME\"; . '{p}/etc/conda/deactivate.d/cuda-triage.sh'; echo \"off=$CUDA_HOME\"",
        p = prefix
    );
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .env_clear()
        .env("CUDA_HOME", "/old")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("on={}\noff=/old\n", home.p("opt/cuda-12.4"))
    );
    apply::undo(&mut host, &data, None).unwrap();
    assert!(
        !Path::new(&prefix)
            .join("etc/conda/activate.d/cuda-triage.sh")
            .exists()
    );
    assert!(
        !Path::new(&prefix)
            .join("etc/conda/deactivate.d/cuda-triage.sh")
            .exists()
    );
}

#[test]
fn windows_registry_path_preview_keeps_the_type_and_the_other_entries() {
    let mut keys = std::collections::BTreeMap::new();
    keys.insert(
        r"HKCU\Environment".to_string(),
        [(
            "Path".to_string(),
            r"%USERPROFILE%\bin;C:\Tools".to_string(),
        )]
        .into_iter()
        .collect(),
    );
    let ctx = SystemContext {
        platform: Platform::Windows,
        registry: RegistryView::new(keys),
        source: ContextSource::MachineFile("m.toml".into()),
        session: crate::engine::context::SessionEnvironment::default(),
        ..live_context(&[])
    };
    let finding =
        Finding::new("x", crate::engine::findings::Severity::Warning, "s", "d").with_fix(
            crate::engine::findings::FixRef {
                id: "path-prepend".into(),
                kind: crate::engine::findings::FixKind::path(
                    crate::engine::findings::PathEdit::add("PATH", r"C:\CUDA\v11.2\bin", true),
                ),
                summary: "add".into(),
            },
        );
    let plan = planner::plan(&ctx, &finding, &finding.fixes[0], &PlanOptions::default()).unwrap();
    assert_eq!(
        plan.operations[0].preview(),
        "HKCU\\Environment\\Path\n- before: REG_EXPAND_SZ %USERPROFILE%\\bin;C:\\Tools\n+ after:  REG_EXPAND_SZ C:\\CUDA\\v11.2\\bin;%USERPROFILE%\\bin;C:\\Tools\n"
    );
}

/// A machine file's registry view keeps text only: the planner gives a `%VARIABLE%` value and
/// `Path` the expandable type, plain text `REG_SZ`, and the plan's JSON spells them as Windows does.
#[test]
fn registry_value_kinds_follow_the_text_and_keep_windows_spelling_in_json() {
    use crate::engine::findings::{FixKind, FixRef, Severity};
    use crate::engine::fix::plan::{Change, RegValueKind};
    let mut keys = std::collections::BTreeMap::new();
    keys.insert(
        r"HKCU\Environment".to_string(),
        [("CUDA_HOME".to_string(), r"C:\CUDA\v11.2".to_string())]
            .into_iter()
            .collect(),
    );
    let ctx = SystemContext {
        platform: Platform::Windows,
        registry: RegistryView::new(keys),
        source: ContextSource::MachineFile("m.toml".into()),
        session: crate::engine::context::SessionEnvironment::default(),
        ..live_context(&[])
    };
    let plan_for = |name: &str, value: &str| {
        let finding = Finding::new("x", Severity::Warning, "s", "d").with_fix(FixRef {
            id: "set".into(),
            kind: FixKind::env(name, Some(value.to_string())),
            summary: "set".into(),
        });
        planner::plan(&ctx, &finding, &finding.fixes[0], &PlanOptions::default()).unwrap()
    };
    let kinds = |plan: &crate::engine::fix::plan::FixPlan| match &plan.operations[0].change {
        Change::Registry { before, after, .. } => (
            before.as_ref().map(|v| v.kind),
            after.as_ref().map(|v| v.kind),
        ),
        other => panic!("a registry change, not {other:?}"),
    };
    // An existing plain value keeps its type; new values take theirs from the text.
    let kept = plan_for("CUDA_HOME", r"%CUDA_ROOT%\v12.4");
    assert_eq!(
        kinds(&kept),
        (Some(RegValueKind::Sz), Some(RegValueKind::Sz))
    );
    let expandable = plan_for("CUDA_PATH", r"%CUDA_ROOT%\v12.4");
    assert_eq!(kinds(&expandable), (None, Some(RegValueKind::ExpandSz)));
    let plain = plan_for("CUDA_PATH", r"C:\CUDA\v12.4");
    assert_eq!(kinds(&plain), (None, Some(RegValueKind::Sz)));
    let json = serde_json::to_value(&kept).unwrap();
    let change = &json["operations"][0]["change"];
    assert_eq!(change["before"]["kind"], "REG_SZ", "{json:#}");
    let json = serde_json::to_value(&expandable).unwrap();
    assert_eq!(
        json["operations"][0]["change"]["after"]["kind"],
        "REG_EXPAND_SZ"
    );
    let back: crate::engine::fix::plan::FixPlan = serde_json::from_value(json).unwrap();
    assert_eq!(back, expandable, "the plan reads back from its JSON");
}

#[test]
fn a_real_venv_activate_script_carries_the_fix_and_undo_restores_it() {
    let home = Home::new();
    let venv = home.dir.path().join("venv");
    let made = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .expect("python3 runs (Debian packages python3, python3-venv)");
    assert!(
        made.success(),
        "python3 -m venv failed (Debian package python3-venv)"
    );
    let activate = venv.join("bin/activate");
    let before = fs::read(&activate).unwrap();
    let ctx = home.ctx(&[("VIRTUAL_ENV", venv.display().to_string())]);
    let opts = PlanOptions {
        scope: Some(Scope::Env),
        ..Default::default()
    };
    let plan = operations::plan(&ctx, &findings(&ctx), "fix-cuda_home", &opts).unwrap();
    let data = home.dir.path().join("data");
    let mut host = SystemHost::new(false);
    apply::apply(&plan, &mut host, &data).unwrap();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            ". '{}'; printf %s \"$CUDA_HOME\"",
            activate.display()
        ))
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        home.p("opt/cuda-12.4"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    apply::undo(&mut host, &data, None).unwrap();
    assert_eq!(fs::read(&activate).unwrap(), before);
}

#[test]
fn a_pin_written_to_a_requirements_file_is_a_marked_block_undone_byte_for_byte() {
    let home = Home::new();
    let file = home.p("home/requirements.txt");
    fs::write(&file, b"numpy<2\r\ntensorflow").unwrap();
    let finding = Finding::new(
        "tensorflow-windows-no-gpu",
        crate::engine::findings::Severity::Warning,
        "s",
        "d",
    )
    .with_fix(crate::engine::findings::FixRef {
        id: "pin-tensorflow-2.10".into(),
        kind: crate::engine::findings::FixKind::PinVersion {
            requirements: vec!["tensorflow<2.11".into()],
            python: None,
            reinstall: false,
        },
        summary: "pin".into(),
    });
    let opts = PlanOptions {
        requirements_file: Some(file.clone()),
        ..Default::default()
    };
    let ctx = home.ctx(&[]);
    let plan = planner::plan(&ctx, &finding, &finding.fixes[0], &opts).unwrap();
    assert!(
        plan.preview()
            .contains("+# fix: pin-tensorflow-2.10\n+tensorflow<2.11\n"),
        "{}",
        plan.preview()
    );
    let data = home.dir.path().join("data");
    let mut host = SystemHost::new(false);
    apply::apply(&plan, &mut host, &data).unwrap();
    assert!(
        fs::read(&file)
            .unwrap()
            .starts_with(b"numpy<2\r\ntensorflow\n# >>> cuda-triage >>>\n")
    );
    apply::undo(&mut host, &data, None).unwrap();
    assert_eq!(fs::read(&file).unwrap(), b"numpy<2\r\ntensorflow");
}

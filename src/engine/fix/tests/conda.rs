//! conda pins. No real conda can be installed on the test machines (conda is not on PyPI for
//! this Python and conda's channels are not reachable), so: conda's `--dry-run --json` parser is
//! tested on the shapes real conda printed (quoted, trimmed, from conda/conda issues #5825 and
//! #6641 and PR #5628, and the object shape conda ≥ 4.6 prints); and the whole flow — which
//! installer a pin picks, the exact preview, apply streamed, the journal, cancel, undo back to
//! the recorded package set — runs against `tests/fixtures/conda/conda-standin.py`, a stand-in
//! that records every command line it is given and keeps `conda-meta/` records as conda does.

use super::live_context;
use crate::engine::findings::{Finding, FixKind, FixRef, Severity};
use crate::engine::fix::apply::{self, Applied};
use crate::engine::fix::conda::{list_lines, parse_dry_run};
use crate::engine::fix::host::{Host, SystemHost};
use crate::engine::fix::packages::Installer;
use crate::engine::fix::plan::Change;
use crate::engine::fix::planner::{self, PlanOptions};
use std::fs;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// conda 4.3 (conda/conda#6641): a list of action groups, LINK entries as objects.
const DRY_RUN_4_3: &str = r#"{
  "actions": [
    {
      "LINK": [
        {"base_url": null, "build_number": 0, "build_string": "py36_0", "channel": "defaults",
         "dist_name": "pytest-3.3.1-py36_0", "name": "pytest", "platform": null,
         "version": "3.3.1", "with_features_depends": null}
      ],
      "PREFIX": "/localhome/stefan/emsconda/envs/changelog-generator",
      "SYMLINK_CONDA": ["/localhome/stefan/emsconda"],
      "UNLINK": [
        {"base_url": null, "build_number": 0, "build_string": "py36_0", "channel": "defaults",
         "dist_name": "pytest-3.3.0-py36_0", "name": "pytest", "platform": null,
         "version": "3.3.0", "with_features_depends": null}
      ],
      "op_order": ["CHECK_FETCH", "RM_FETCHED", "FETCH", "CHECK_EXTRACT", "RM_EXTRACTED", "EXTRACT", "UNLINK", "LINK", "SYMLINK_CONDA"]
    }
  ],
  "dry_run": true,
  "success": true
}"#;

/// conda 4.2 and 4.4 (conda/conda PR #5628): one object, LINK entries as dist strings.
const DRY_RUN_4_4: &str = r#"{"actions": {"LINK": ["defaults::vs2015_runtime-14.00.23026.0-0 1"], "PREFIX": "C:\\Miniconda3\\envs\\x"}, "dry_run": true, "success": true}"#;

/// conda ≥ 4.6: one object, LINK entries as conda-meta records (conda's `LinkAction`).
const DRY_RUN_NOW: &str = r#"{
  "actions": {
    "FETCH": [],
    "LINK": [
      {"base_url": "https://repo.anaconda.com/pkgs/main", "build_number": 0, "build_string": "h90431f1_0",
       "channel": "pkgs/main", "dist_name": "cudnn-8.1.0.77-h90431f1_0", "name": "cudnn",
       "platform": "linux-64", "version": "8.1.0.77"}
    ],
    "PREFIX": "/home/u/miniconda3/envs/tf",
    "UNLINK": []
  },
  "dry_run": true,
  "prefix": "/home/u/miniconda3/envs/tf",
  "success": true
}"#;

#[test]
fn conda_dry_run_json_is_read_in_every_shape_conda_printed() {
    assert_eq!(
        parse_dry_run(DRY_RUN_4_3.as_bytes()).unwrap(),
        ["pytest==3.3.1"]
    );
    assert_eq!(
        parse_dry_run(DRY_RUN_4_4.as_bytes()).unwrap(),
        ["vs2015_runtime==14.00.23026.0"]
    );
    assert_eq!(
        parse_dry_run(DRY_RUN_NOW.as_bytes()).unwrap(),
        ["cudnn==8.1.0.77"]
    );
    let done = br#"{"message": "All requested packages already installed.", "success": true}"#;
    assert!(parse_dry_run(done).unwrap().is_empty());
    let err = br#"{"caused_by": "None", "error": "PackagesNotFoundError: The following packages are not available from current channels:\n\n  - tensorflow<1", "exception_name": "PackagesNotFoundError"}"#;
    assert!(
        parse_dry_run(err)
            .unwrap_err()
            .to_string()
            .contains("PackagesNotFoundError"),
    );
    // `conda list --json`: pip-installed entries (channel pypi) are pip's, not conda's.
    let list = br#"[{"base_url": "https://repo.anaconda.com/pkgs/main", "build_number": 0, "build_string": "h90431f1_0", "channel": "pkgs/main", "dist_name": "cudnn-8.1.0.77-h90431f1_0", "name": "cudnn", "platform": "linux-64", "version": "8.1.0.77"},
      {"base_url": "https://pypi.org/", "build_number": 0, "build_string": "pypi_0", "channel": "pypi", "dist_name": "nvidia-cudnn-cu12-9.1.0.70-pypi_0", "name": "nvidia-cudnn-cu12", "platform": "pypi", "version": "9.1.0.70"}]"#;
    assert_eq!(list_lines(list).unwrap(), b"cudnn==8.1.0.77=h90431f1_0\n");
}

/// A conda installation in `dir`: `miniconda/condabin/conda` (the stand-in) and the env
/// `miniconda/envs/tf` with a python and TensorFlow 2.12 recorded in `conda-meta/`.
struct Conda {
    exe: String,
    prefix: String,
    python: String,
}

fn conda_install(dir: &Path) -> Conda {
    let root = dir.join("miniconda");
    let prefix = root.join("envs/tf");
    fs::create_dir_all(root.join("condabin")).unwrap();
    fs::create_dir_all(prefix.join("bin")).unwrap();
    fs::create_dir_all(prefix.join("conda-meta")).unwrap();
    let exe = root.join("condabin/conda");
    fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/conda/conda-standin.py"),
        &exe,
    )
    .unwrap();
    let mut perms = fs::metadata(&exe).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs::set_permissions(&exe, perms).unwrap();
    fs::write(prefix.join("bin/python"), "").unwrap();
    fs::write(
        prefix.join("conda-meta/tensorflow-2.12.0-gpu_py39h_1.json"),
        r#"{"name": "tensorflow", "version": "2.12.0", "build": "gpu_py39h_1"}"#,
    )
    .unwrap();
    Conda {
        exe: exe.display().to_string(),
        prefix: prefix.display().to_string(),
        python: prefix.join("bin/python").display().to_string(),
    }
}

fn pin(python: &str, requirement: &str) -> Finding {
    Finding::new(
        "tf-too-new",
        Severity::Error,
        "TensorFlow 2.12 needs CUDA 11.8",
        "d",
    )
    .with_fix(FixRef {
        id: "pin-tf".into(),
        kind: FixKind::PinVersion {
            requirements: vec![requirement.into()],
            python: Some(python.into()),
            reinstall: false,
        },
        summary: format!("install {requirement}"),
    })
}

/// The command lines the stand-in was given, one per run, then forgotten.
fn commands(conda: &Conda) -> Vec<String> {
    let log = Path::new(&conda.exe).with_file_name("argv.log");
    let text = fs::read_to_string(&log).unwrap_or_default();
    let _ = fs::remove_file(&log);
    text.lines()
        .map(|l| {
            serde_json::from_str::<Vec<String>>(l)
                .unwrap()
                .join(" ")
                .replace(&conda.prefix, "P")
        })
        .collect()
}

fn meta(conda: &Conda) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(Path::new(&conda.prefix).join("conda-meta"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_conda_managed_package_is_pinned_with_the_envs_own_conda_and_undone_to_the_recorded_set() {
    let dir = tempfile::tempdir().unwrap();
    let conda = conda_install(dir.path());
    let ctx = live_context(&[]);
    let finding = pin(&conda.python, "tensorflow<2.11");
    let plan = planner::plan(&ctx, &finding, &finding.fixes[0], &PlanOptions::default()).unwrap();
    let Change::Packages {
        conda: Some(env), ..
    } = &plan.operations[0].change
    else {
        panic!("not a conda pin: {:?}", plan.operations[0].change);
    };
    assert_eq!(
        (env.exe.as_str(), env.prefix.as_str()),
        (conda.exe.as_str(), conda.prefix.as_str())
    );
    assert_eq!(
        plan.operations[0].preview(),
        format!(
            "{} install -p {} --yes 'tensorflow<2.11'\nconda --dry-run would install: cudnn==8.1.0.77, tensorflow==2.10.0\n",
            conda.exe, conda.prefix
        )
    );
    assert_eq!(
        commands(&conda),
        [
            "list --json -p P",
            "install -p P --yes --dry-run --json tensorflow<2.11"
        ]
    );
    let before = meta(&conda);
    let mut host = SystemHost::new(false);
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = lines.clone();
    host.on_line = Some(Box::new(move |l| sink.lock().unwrap().push(l.to_string())));
    let data = dir.path().join("data");
    assert!(matches!(
        apply::apply(&plan, &mut host, &data).unwrap(),
        Applied::Done { .. }
    ));
    assert_eq!(
        meta(&conda),
        [
            "cudnn-8.1.0.77-h90431f1_0.json",
            "tensorflow-2.10.0-gpu_py39h_0.json"
        ]
    );
    assert_eq!(
        *lines.lock().unwrap(),
        [
            "Preparing transaction: done",
            "Verifying transaction: done",
            "Executing transaction: done"
        ]
    );
    assert_eq!(
        commands(&conda),
        [
            "list --json -p P",
            "install -p P --yes tensorflow<2.11",
            "list --json -p P"
        ]
    );
    apply::undo(&mut host, &data, None).unwrap();
    assert_eq!(meta(&conda), before);
    assert_eq!(
        commands(&conda),
        [
            "list --json -p P",
            "list --json -p P",
            "remove -p P --yes --force cudnn",
            "install -p P --yes --no-deps tensorflow=2.12.0=gpu_py39h_1"
        ]
    );
    // Cancelled half-way (the stand-in stops after its first line): rolled back, set as it was.
    fs::write(Path::new(&conda.exe).with_file_name("slow"), "").unwrap();
    let plan = planner::plan(&ctx, &finding, &finding.fixes[0], &PlanOptions::default()).unwrap();
    let cancel = host.cancel.clone();
    host.on_line = Some(Box::new(move |_| {
        cancel.store(true, std::sync::atomic::Ordering::Relaxed)
    }));
    let err = apply::apply(&plan, &mut host, &data).unwrap_err();
    assert!(err.to_string().ends_with("was cancelled"), "{err}");
    assert_eq!(meta(&conda), before);
    let set = host.package_set(&Installer::Conda { env }).unwrap();
    assert_eq!(set, b"tensorflow==2.12.0=gpu_py39h_1\n");
}

#[test]
fn a_pip_wheel_in_a_conda_env_is_pinned_with_pip_and_a_machine_file_gets_the_command_alone() {
    let dir = tempfile::tempdir().unwrap();
    let conda = conda_install(dir.path());
    // nvidia-cudnn-cu12 is no conda package of this env: pip pins it, with the env's interpreter.
    let ctx = live_context(&[]);
    let mut ctx_file = live_context(&[]);
    ctx_file.source = crate::engine::context::ContextSource::MachineFile("m.toml".into());
    let finding = pin(&conda.python, "nvidia-cudnn-cu12==9.1.0.70");
    let plan = planner::plan(
        &ctx_file,
        &finding,
        &finding.fixes[0],
        &PlanOptions::default(),
    )
    .unwrap();
    assert_eq!(
        plan.operations[0].preview(),
        format!(
            "{} -m pip install 'nvidia-cudnn-cu12==9.1.0.70'\n(no pip --dry-run here: not this computer)\n",
            conda.python
        )
    );
    // A conda package on a machine file: the exact conda command, no dry run.
    let finding = pin(&conda.python, "tensorflow<2.11");
    let plan = planner::plan(
        &ctx_file,
        &finding,
        &finding.fixes[0],
        &PlanOptions::default(),
    )
    .unwrap();
    assert_eq!(
        plan.operations[0].preview(),
        format!(
            "{} install -p {} --yes 'tensorflow<2.11'\n(no conda --dry-run here: not this computer)\n",
            conda.exe, conda.prefix
        )
    );
    assert!(commands(&conda).is_empty(), "a machine file runs nothing");
    // Asking for pip all the same is honoured; asking for conda outside a conda env is refused.
    let opts = PlanOptions {
        conda: Some(false),
        ..Default::default()
    };
    let plan = planner::plan(&ctx_file, &finding, &finding.fixes[0], &opts).unwrap();
    assert!(
        plan.operations[0]
            .preview()
            .contains(" -m pip install 'tensorflow<2.11'")
    );
    let venv = pin("/usr/bin/python3", "tensorflow<2.11");
    let opts = PlanOptions {
        conda: Some(true),
        ..Default::default()
    };
    let err = planner::plan(&ctx, &venv, &venv.fixes[0], &opts).unwrap_err();
    assert!(
        err.to_string().contains("not in a conda environment"),
        "{err}"
    );
    // Without the env's conda the pin says how to go on rather than guessing another conda.
    fs::remove_file(&conda.exe).unwrap();
    let err = planner::plan(
        &ctx_file,
        &finding,
        &finding.fixes[0],
        &PlanOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("set CONDA_EXE"), "{err}");
}

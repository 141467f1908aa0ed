//! Python environment fixes on a real `python3 -m venv`. The DLL-directory hook: installed in
//! site-packages, loaded at the next start through its .pth line, adding only existing folders
//! and never raising, removed by undo. A version pin, fully offline: wheels built at test time in a
//! local folder (`--no-index --find-links DIR`, overriding any PIP_* settings), previewed with pip's
//! `--dry-run --report`, installed with the venv's interpreter, and undone back to the exact
//! package set (`pip freeze --all` byte for byte).

use crate::engine::context::{
    ContextSource, EnvVars, FsView, Platform, RegistryView, SystemContext,
};
use crate::engine::findings::{Finding, FixKind, FixRef, Severity};
use crate::engine::fix::apply::{self, Applied};
use crate::engine::fix::host::{Host, SystemHost};
use crate::engine::fix::packages::Installer;
use crate::engine::fix::planner::{self, PlanOptions};
use crate::engine::fix::{journal, verify};
use std::path::Path;
use std::process::Command;

const BUILD_WHEELS: &str = r#"
import base64, hashlib, os, sys, zipfile
def wheel(out, name, version, requires=()):
    mod = name.replace("-", "_")
    dist = f"{mod}-{version}"
    files = {
        f"{mod}/__init__.py": f"VERSION = '{version}'\n",
        f"{dist}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
            + "".join(f"Requires-Dist: {r}\n" for r in requires),
        f"{dist}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: cuda-triage-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    with zipfile.ZipFile(os.path.join(out, f"{dist}-py3-none-any.whl"), "w") as z:
        for n, text in files.items():
            data = text.encode()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{n},sha256={digest},{len(data)}")
            z.writestr(n, data)
        record.append(f"{dist}.dist-info/RECORD,,")
        z.writestr(f"{dist}.dist-info/RECORD", "\n".join(record) + "\n")
wheel(sys.argv[1], "demo-pkg", "1.0")
wheel(sys.argv[1], "demo-pkg", "2.0", ["demo-dep"])
wheel(sys.argv[1], "demo-dep", "1.0")
"#;

fn run(cmd: &mut Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| {
        panic!("{what}: {e} (install the Debian packages python3 and python3-venv)")
    });
    assert!(
        out.status.success(),
        "{what} failed (install python3-venv?): {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn live() -> SystemContext {
    SystemContext {
        platform: Platform::Linux,
        wsl: false,
        fs: FsView::live(Platform::Linux),
        env: EnvVars::new(Platform::Linux, Vec::new()),
        registry: RegistryView::default(),
        driver: None,
        gpus: Vec::new(),
        driver_note: None,
        source: ContextSource::Live,
        session: crate::engine::context::SessionEnvironment::default(),
    }
}

fn python_says(python: &str, code: &str) -> String {
    let out = Command::new(python).arg("-c").arg(code).output().unwrap();
    assert!(
        out.status.success(),
        "{code}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn the_dll_directory_hook_loads_at_start_adds_existing_folders_never_raises_and_undoes() {
    let dir = tempfile::tempdir().unwrap();
    let venv = dir.path().join("venv");
    run(
        Command::new("python3")
            .arg("-m")
            .arg("venv")
            .arg("--without-pip")
            .arg(&venv),
        "python3 -m venv",
    );
    let python = venv.join("bin/python").display().to_string();
    let site = python_says(
        &python,
        "import sysconfig; print(sysconfig.get_paths()['purelib'])",
    );
    let bin = dir.path().join("cuda/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let (bin, gone) = (
        bin.display().to_string(),
        dir.path().join("gone").display().to_string(),
    );
    let finding =
        Finding::new("python-ignores-path", Severity::Warning, "s", "d").with_fix(FixRef {
            id: "add-dll-directory".into(),
            kind: FixKind::DllDirectory {
                dirs: vec![bin.clone(), gone],
                site_packages: Some(site.clone()),
                python: Some(python.clone()),
            },
            summary: "hook".into(),
        });
    let plan = planner::plan(
        &live(),
        &finding,
        &finding.fixes[0],
        &PlanOptions::default(),
    )
    .unwrap();
    assert!(
        plan.preview().contains(&format!(
            "+++ b{site}/cuda_triage_dlls.pth\n@@ -0,0 +1 @@\n+import cuda_triage_dlls\n"
        )),
        "{}",
        plan.preview()
    );
    let data = dir.path().join("data");
    let mut host = SystemHost::new(false);
    apply::apply(&plan, &mut host, &data).unwrap();
    // Verification starts the environment's interpreter fresh and finds the hook loaded.
    let v = verify::verify(&live(), &plan, &finding.fixes[0].kind, &[], &host).unwrap();
    assert!(v.verified, "{v:?}");
    assert!(
        v.checked
            .iter()
            .any(|c| c == &format!("started {python} fresh: hook-loaded 0")),
        "{v:?}"
    );
    // A fresh interpreter loads the hook through the .pth line, without being told to.
    assert_eq!(
        python_says(
            &python,
            "import sys; print('cuda_triage_dlls' in sys.modules)"
        ),
        "True"
    );
    // Where os.add_dll_directory exists (Windows), only the existing folder is added ...
    let with_api = "import os, importlib; os.add_dll_directory = lambda d: d; import cuda_triage_dlls as m; importlib.reload(m); print(m._handles)";
    assert_eq!(python_says(&python, with_api), format!("['{bin}']"));
    // ... and a failing call never raises.
    let failing = "import os, importlib\ndef boom(d): raise OSError(87, 'bad')\nos.add_dll_directory = boom\nimport cuda_triage_dlls as m\nimportlib.reload(m); print(m._handles)";
    assert_eq!(python_says(&python, failing), "[]");
    apply::undo(&mut host, &data, None).unwrap();
    for ext in ["py", "pth", "start"] {
        assert!(
            !Path::new(&site)
                .join(format!("cuda_triage_dlls.{ext}"))
                .exists(),
            "{ext} left behind"
        );
    }
    assert_eq!(
        python_says(
            &python,
            "import sys; print('cuda_triage_dlls' in sys.modules)"
        ),
        "False"
    );
}

#[test]
fn a_pin_runs_offline_in_a_real_venv_and_undo_restores_the_package_set() {
    let dir = tempfile::tempdir().unwrap();
    let (venv, wheels) = (dir.path().join("venv"), dir.path().join("wheels"));
    std::fs::create_dir_all(&wheels).unwrap();
    run(
        Command::new("python3").arg("-m").arg("venv").arg(&venv),
        "python3 -m venv",
    );
    run(
        Command::new("python3")
            .arg("-c")
            .arg(BUILD_WHEELS)
            .arg(&wheels),
        "building the test wheels",
    );
    let python = venv.join("bin/python").display().to_string();
    let offline = vec![
        "--no-index".to_string(),
        "--find-links".into(),
        wheels.display().to_string(),
    ];
    run(
        Command::new(&python)
            .args(["-m", "pip", "install", "-q", "demo-pkg==1.0"])
            .args(&offline),
        "installing demo-pkg 1.0",
    );

    let ctx = live();
    let finding = Finding::new(
        "demo-too-old",
        Severity::Warning,
        "demo-pkg 1.0 is too old",
        "d",
    )
    .with_fix(FixRef {
        id: "pin-demo-pkg".into(),
        kind: FixKind::PinVersion {
            requirements: vec!["demo-pkg==2.0".into()],
            python: Some(python.clone()),
            reinstall: false,
        },
        summary: "pip install demo-pkg==2.0".into(),
    });
    let opts = PlanOptions {
        pip_args: offline.clone(),
        ..Default::default()
    };
    let plan = planner::plan(&ctx, &finding, &finding.fixes[0], &opts).unwrap();
    assert_eq!(
        plan.operations[0].preview(),
        format!(
            "{python} -m pip install {} 'demo-pkg==2.0'\npip --dry-run would install: demo-dep==1.0, demo-pkg==2.0\n",
            offline.join(" ")
        )
    );
    let mut host = SystemHost::new(false);
    let before = host
        .package_set(&Installer::Pip { python: &python })
        .unwrap();
    let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = lines.clone();
    host.on_line = Some(Box::new(move |l| sink.lock().unwrap().push(l.to_string())));
    let data = dir.path().join("data");
    assert!(matches!(
        apply::apply(&plan, &mut host, &data).unwrap(),
        Applied::Done { .. }
    ));
    let after = String::from_utf8(
        host.package_set(&Installer::Pip { python: &python })
            .unwrap(),
    )
    .unwrap();
    assert!(
        after.contains("demo-pkg==2.0") && after.contains("demo-dep==1.0"),
        "{after}"
    );
    assert!(
        lines
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.contains("Successfully installed")),
        "{:?}",
        lines.lock().unwrap()
    );
    apply::undo(&mut host, &data, None).unwrap();
    assert_eq!(
        String::from_utf8(
            host.package_set(&Installer::Pip { python: &python })
                .unwrap()
        )
        .unwrap(),
        String::from_utf8(before.clone()).unwrap()
    );
    // Cancelled (here before pip could do anything): the fix rolls back and the set is as it was.
    host.cancel
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let err = apply::apply(&plan, &mut host, &data).unwrap_err();
    assert!(err.to_string().ends_with("was cancelled"), "{err}");
    assert_eq!(
        host.package_set(&Installer::Pip { python: &python })
            .unwrap(),
        before
    );
    let last = journal::list(&data).pop().unwrap();
    assert_eq!(last.state, journal::JournalState::RolledBack);
}

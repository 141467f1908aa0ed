//! The Fix step driven through egui_kittest by accessibility labels. On the win-cuda-tf-torch
//! machine file: the fixes are listed under their findings, picking one fills the preview pane
//! with the exact registry change, and Apply stays disabled because a machine file is not this
//! computer (snapshotted into screenshots/). On this computer, in a child process of this test
//! binary given its own environment (a temporary HOME whose login profile has a BOM, CRLF, a
//! Latin-1 byte and no final newline; a mistyped CUDA_HOME; a private journal folder): check
//! the fix, preview its exact diff, Apply (progress, log, the fix's verification), History,
//! Undo — and the profile is byte-identical again. A fix the CLI was killed in half-way is
//! rolled back by the wizard's start-up job (the window drawing meanwhile), which says what it was.

use crate::gui::{harness, relative_machine, snapshot_options, wait_for_scan};
use crate::gui_walk::step_until;
use cuda_triage::engine::api::Source;
use cuda_triage::ui::TriageApp;
use cuda_triage::ui::steps::Step;
use egui_kittest::kittest::{NodeT, Queryable};
use std::process::Command;
use std::time::{Duration, Instant};

const PROFILE: &[u8] = b"\xef\xbb\xbfexport EDITOR=vi\r\n# caf\xe9 au lait\r\nalias ll='ls -l'";
const CHILD: &str = "CUDA_TRIAGE_TEST_GUI_FIX_HOME";

const CUPTI: &str = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8\extras\CUPTI\lib64";

#[test]
fn fix_step_previews_the_exact_change_and_refuses_to_apply_to_a_machine_file() {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    let mut h = harness(TriageApp::new(relative_machine("win-cuda-tf-torch")));
    h.run_steps(2);
    h.get_by_label("Start scan").click();
    h.step();
    wait_for_scan(&mut h);
    h.get_by_label("6. Fix").click();
    h.run_steps(2);
    assert_eq!(h.state().step, Step::Fix);
    // Grouped by finding: the finding's summary, then its fixes.
    assert!(h.query_all_by_label_contains("CUPTI").count() >= 2);
    h.get_by_label(&format!("Add {CUPTI} to PATH (path-edit)"))
        .click();
    h.run_steps(1);
    let deadline = Instant::now() + Duration::from_secs(60);
    while h.state().fix.preview.is_none() {
        assert!(Instant::now() < deadline, "the plan never arrived");
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
    h.run_steps(2);
    let after = format!("+ after:  REG_EXPAND_SZ {CUPTI}");
    assert!(
        h.query_by_label_contains(&after).is_some(),
        "{:?}",
        h.state().fix.preview
    );
    assert!(h.query_by_label_contains("preview").is_some());
    let apply = h.get_by_label("Apply checked fixes");
    assert!(
        apply.accesskit_node().is_disabled(),
        "a machine file is never applied"
    );
    h.remove_cursor();
    h.run_steps(1);
    h.snapshot_options("6-fix-preview", &snapshot_options());
}

#[test]
fn fix_step_applies_verifies_and_undoes_a_real_profile_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(dir.path().join("opt/cuda-12.4/bin")).unwrap();
    std::fs::write(home.join(".profile"), PROFILE).unwrap();
    // This binary again, running only the wizard half below, with its own environment.
    run_wizard_half(
        "gui_fix::wizard_on_this_computer",
        &[
            (CHILD, dir.path().into()),
            ("HOME", home.clone()),
            ("CUDA_TRIAGE_DATA_DIR", dir.path().join("data")),
            ("CUDA_HOME", dir.path().join("opt/cuda-12.44")),
        ],
    );
    assert_eq!(std::fs::read(home.join(".profile")).unwrap(), PROFILE);
}

#[test]
#[ignore = "run by fix_step_applies_verifies_and_undoes_a_real_profile_byte_for_byte in its own environment"]
fn wizard_on_this_computer() {
    let root =
        std::path::PathBuf::from(std::env::var_os(CHILD).expect("started by its parent test"));
    let profile = root.join("home/.profile");
    let toolkit = root.join("opt/cuda-12.4").display().to_string();
    // This computer may be a container with findings of its own above the Fix step's buttons.
    let mut h = crate::gui::harness_sized(TriageApp::new(Source::live()), [1000.0, 1600.0]);
    h.run_steps(2);
    h.get_by_label("Start scan").click();
    h.step();
    wait_for_scan(&mut h);
    h.get_by_label("6. Fix").click();
    h.run_steps(2);
    // Grouped by finding: the CUDA_HOME finding, its fix checked and previewed.
    let summary = h
        .state()
        .document
        .as_ref()
        .and_then(|d| {
            d.findings
                .iter()
                .flat_map(|f| &f.fixes)
                .find(|x| x.id == "fix-cuda_home")
        })
        .map(|x| format!("{} ({})", x.summary, x.kind.as_str()))
        .expect("the scan offers fix-cuda_home");
    h.get_by_label(&format!("Apply: {}", summary.rsplit_once(" (").unwrap().0))
        .click();
    h.run_steps(1);
    assert!(h.state().fix.checked.contains("fix-cuda_home"));
    h.get_by_label(&summary).click();
    h.run_steps(1);
    step_until(&mut h, "the preview", |app| app.fix.preview.is_some());
    let added = format!("+export CUDA_HOME='{toolkit}'");
    let preview = match &h.state().fix.preview {
        Some(Ok(plan)) => plan.preview(),
        other => panic!("no plan: {other:?}"),
    };
    assert!(preview.contains(&added), "{preview}");
    assert!(
        preview.contains(&format!("a{}", profile.display())),
        "{preview}"
    );
    assert!(
        h.query_by_label_contains(&added).is_some(),
        "the preview pane shows the diff"
    );
    assert_eq!(
        std::fs::read(&profile).unwrap(),
        PROFILE,
        "a preview writes nothing"
    );

    h.get_by_label("Apply checked fixes").click();
    h.run_steps(1);
    assert!(h.state().fix.busy(), "apply runs on a worker");
    step_until(&mut h, "the apply", |app| !app.fix.busy());
    let written = std::fs::read(&profile).unwrap();
    assert!(
        written.starts_with(PROFILE),
        "the user's bytes stay as they were"
    );
    assert!(
        String::from_utf8_lossy(&written).contains(&format!("export CUDA_HOME='{toolkit}'")),
        "{}",
        String::from_utf8_lossy(&written)
    );
    assert!(
        h.query_by_label_contains("fix-cuda_home: applied — verified, its finding is gone")
            .is_some(),
        "{:?}",
        h.state().fix.log
    );
    assert!(
        h.query_by_label_contains("fix-cuda_home: applied and verified")
            .is_some()
    );
    // The status bar speaks of the apply, not of the scan from before it.
    assert!(
        h.query_by_label_contains("1 fix(es) applied, 1 verified")
            .is_some(),
        "{}",
        h.state().status
    );
    // Scan again: this window now diagnoses with the environment a new login shell gets.
    h.get_by_label("Scan again").click();
    h.run_steps(1);
    step_until(&mut h, "the rescan", |app| !app.scan_running());
    let offered = |app: &TriageApp| {
        app.document
            .as_ref()
            .unwrap()
            .findings
            .iter()
            .flat_map(|f| &f.fixes)
            .any(|x| x.id == "fix-cuda_home")
    };
    assert!(!offered(h.state()), "the rescan no longer offers the fix");
    h.get_by_label("History").click();
    h.run_steps(2);
    // History says what the fix did and when, not its journal id; its Undo is "Undo this".
    assert!(h.query_by_label_contains("— applied 20").is_some());
    assert!(h.query_by_label("Undo this").is_some());

    let applied = h
        .state()
        .fix
        .history
        .last()
        .cloned()
        .expect("the applied fix's journal");
    h.get_by_label("Undo last fix").click();
    h.run_steps(1);
    step_until(&mut h, "the undo", |app| !app.fix.busy());
    // The words `fix undo` prints too (one function): what the fix did, not its kind's id.
    let undone = cuda_triage::engine::api::fix::undone_words(&applied);
    assert!(undone.contains(&applied.summary));
    assert!(
        h.query_by_label_contains(&undone).is_some(),
        "{:?}",
        h.state().fix.log
    );
    assert!(h.query_by_label_contains("— undone 20").is_some());
    assert_eq!(std::fs::read(&profile).unwrap(), PROFILE);
    h.get_by_label("Scan again").click();
    h.run_steps(1);
    step_until(&mut h, "the rescan after the undo", |app| {
        !app.scan_running()
    });
    assert!(
        offered(h.state()),
        "after the undo the mistyped CUDA_HOME is found again"
    );
}

const RECOVERY_CHILD: &str = "CUDA_TRIAGE_TEST_GUI_RECOVERY_DATA";

#[test]
fn the_wizard_rolls_back_a_fix_killed_half_way_off_the_ui_thread_and_says_what_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(dir.path().join("opt/cuda-12.4/bin")).unwrap();
    std::fs::write(home.join(".profile"), PROFILE).unwrap();
    let data = dir.path().join("data");
    // A fix killed half-way: the built CLI applies it, pausing after its first write (the
    // `testing` build's hook), and is killed there.
    let mut cli = Command::new(env!("CARGO_BIN_EXE_cuda-triage"))
        .args(["fix", "apply", "fix-cuda_home", "--yes"])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", &home)
        .env("CUDA_HOME", dir.path().join("opt/cuda-12.44"))
        .env("CUDA_TRIAGE_DATA_DIR", &data)
        .env("CUDA_TRIAGE_TEST_PAUSE_AFTER_WRITE", "600")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while !std::fs::read(home.join(".profile"))
        .unwrap()
        .ends_with(b"# <<< cuda-triage <<<\n")
    {
        assert!(
            Instant::now() < deadline,
            "the apply never wrote the profile"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    cli.kill().unwrap();
    cli.wait().unwrap();
    // The wizard, in a child process of this test binary given that journal folder.
    run_wizard_half(
        "gui_fix::wizard_starting_after_a_killed_fix",
        &[
            (RECOVERY_CHILD, data.clone()),
            ("HOME", home.clone()),
            ("CUDA_TRIAGE_DATA_DIR", data.clone()),
        ],
    );
    assert_eq!(
        std::fs::read(home.join(".profile")).unwrap(),
        PROFILE,
        "the rollback restores every byte"
    );
}

#[test]
#[ignore = "run by the_wizard_rolls_back_a_fix_killed_half_way_off_the_ui_thread_and_says_what_it_was in its own environment"]
fn wizard_starting_after_a_killed_fix() {
    std::env::var_os(RECOVERY_CHILD).expect("started by its parent test");
    let mut app = TriageApp::new(Source::live());
    // As `ui::run` does when the window opens: the rollback is a job, the wizard draws at once.
    app.start_fix_recovery();
    let mut h = harness(app);
    h.run_steps(1);
    step_until(&mut h, "the rollback", |app| !app.fix.recovering());
    let status = h.state().status.clone();
    assert!(
        status.starts_with("Rolled back 1 interrupted fix(es): \"") && status.contains("CUDA_HOME"),
        "{status}"
    );
    // The Fix step lists its history once a scan gave it findings.
    h.get_by_label("Start scan").click();
    h.step();
    wait_for_scan(&mut h);
    h.get_by_label("6. Fix").click();
    h.run_steps(2);
    assert!(
        h.query_by_label_contains(" — rolled back ").is_some(),
        "History lists the rolled-back fix: {:?}",
        h.state().fix.history
    );
}

/// Runs one ignored wizard test of this binary in a child process with `envs` and a plain
/// environment (no conda, venv or LD_LIBRARY_PATH), and fails unless it passed.
fn run_wizard_half(test: &str, envs: &[(&str, std::path::PathBuf)]) {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        test,
        "--exact",
        "--include-ignored",
        "--nocapture",
        "--test-threads=1",
    ]);
    for (name, value) in envs {
        cmd.env(name, value);
    }
    let out = cmd
        .env("PATH", "/usr/bin:/bin")
        .env_remove("CONDA_PREFIX")
        .env_remove("VIRTUAL_ENV")
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && text.contains("1 passed"),
        "the wizard half {test} failed:\n{text}"
    );
}

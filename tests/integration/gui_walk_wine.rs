//! The wizard walked on the Wine machine: the same walk as `gui_walk` (Welcome → Scan →
//! Findings → Dependencies → GPU test → Fix → Report, by label), run by this test binary built
//! for Windows inside a Wine prefix that holds the seed situation (replicated with
//! `windows_live::replicate`: its drive, environment and registry). There it is this computer:
//! the scan is live (Windows' registry, drive and process environment), the tree walks the
//! prefix's files, and the situation's fix is previewed, applied through the Fix step (checked,
//! Apply, its verification on screen, Scan again: the finding is gone, the change is in the
//! registry or on the drive) and undone (Undo last fix: the change is gone again, Scan again
//! finds it again). A situation whose remedy only the user can make (install a toolkit, rebuild
//! a 32-bit program) is walked with its fixes previewed.
//!
//! The Linux side builds the machine, the prefix and the Windows binary, and runs
//! `integration.exe gui_walk_wine::inside_wine` there with the walk's expectations in
//! `CUDA_TRIAGE_TEST_WINE_WALK` (JSON); the Windows side walks and asserts.

use serde::{Deserialize, Serialize};

const CHILD: &str = "CUDA_TRIAGE_TEST_WINE_WALK";

/// What the walk inside Wine must see and do.
#[derive(Debug, Serialize, Deserialize)]
struct WineWalk {
    /// The finding the Findings step shows.
    finding: String,
    /// A library of the first suggestion's tree (or the pasted error's library), resolved or not.
    library: String,
    resolved: bool,
    /// An error pasted on the Welcome step: the text and the library it names.
    pasted: Option<(String, String)>,
    /// The fix applied through the Fix step, if the situation has one CUDA Triage can make.
    apply: Option<Apply>,
}

/// A fix applied, verified, rescanned and undone in the wizard.
#[derive(Debug, Serialize, Deserialize)]
struct Apply {
    /// A word of the fix's summary (of a fix of `WineWalk::finding`).
    summary_has: String,
    /// The scope radio button to pick first (`None`: the default, User).
    scope: Option<String>,
    /// Typed into "File to copy:" (a copy fix).
    copy_from: Option<String>,
    /// What the change leaves on the machine while applied.
    changed: Change,
}

#[derive(Debug, Serialize, Deserialize)]
enum Change {
    /// `reg query KEY /v NAME` shows a value holding this text (case-insensitively).
    Registry {
        key: String,
        name: String,
        holds: String,
    },
    /// This file exists.
    File(String),
}

#[cfg(unix)]
mod outside {
    //! The Linux side: each situation's machine (`gui_walk`'s), replicated into a fresh prefix,
    //! and the walk started there.
    use super::{Apply, CHILD, Change, WineWalk};
    use crate::fixtures_build::DllSpec;
    use crate::gui_walk::{
        C_ERROR, situation_a, situation_b, situation_c, situation_d, situation_e,
    };
    use crate::situations::cuda_11_2;
    use crate::windows_live::replicate;
    use crate::wine_support::{Prefix, install_program, walk_binary};
    use cuda_triage::engine::context::fake::WINDOWS_TOOLKITS;
    use std::path::Path;
    use std::process::Output;

    const USER_ENV: &str = r"HKCU\Environment";
    const MACHINE_ENV: &str = r"HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment";

    /// Replicates the machine file `mf` into a fresh prefix and runs the walk there; returns
    /// the prefix (for what the walk left behind) and what the walk printed. A prefix whose
    /// Wine could not start the program at all (seen once, "could not load kernel32.dll",
    /// while other tests ran Wine) is made again once; the walk itself is never repeated.
    fn run_in_wine(mf: &str, walk: &WineWalk) -> (Prefix, Output) {
        let (wine, out) = run_in_prefix(mf, walk);
        if said(&out).contains("could not load kernel32.dll") {
            return run_in_prefix(mf, walk);
        }
        (wine, out)
    }

    fn run_in_prefix(mf: &str, walk: &WineWalk) -> (Prefix, Output) {
        let wine = Prefix::new();
        replicate(&wine, Path::new(mf));
        let exe = install_program(&wine, r"C:\Walk", walk_binary(), "integration.exe");
        let out = wine
            .command(&exe)
            .args([
                "gui_walk_wine::inside_wine",
                "--exact",
                "--include-ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, serde_json::to_string(walk).unwrap())
            .output()
            .unwrap();
        (wine, out)
    }

    /// What the walk printed (its panic messages go to stderr).
    fn said(out: &Output) -> String {
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    }

    /// The walk, which must pass.
    fn walk_in_wine(mf: &str, walk: &WineWalk) -> Prefix {
        let (wine, out) = run_in_wine(mf, walk);
        let text = said(&out);
        assert!(
            out.status.success() && text.contains("1 passed"),
            "the walk inside Wine failed ({:?}):\n{text}",
            out.status
        );
        wine
    }

    #[test]
    fn wine_a_tensorflow_2_10_with_only_cuda_12() {
        // Its remedies (CUDA 11.2 installed, or TensorFlow pinned below 2.11) are previewed;
        // with CUDA 11.2 installed, the next walk applies the PATH fix that remains.
        let s = situation_a();
        walk_in_wine(
            &s.file(),
            &WineWalk {
                finding: "library-wrong-major".into(),
                library: "cublas64_11.dll".into(),
                resolved: false,
                pasted: None,
                apply: None,
            },
        );
    }

    #[test]
    fn wine_a_tensorflow_2_10_with_cuda_11_2_installed_off_path() {
        let mut s = situation_a();
        cuda_11_2(&mut s.machine);
        let bin = format!(r"{WINDOWS_TOOLKITS}\v11.2\bin");
        let wine = walk_in_wine(
            &s.file(),
            &WineWalk {
                finding: "library-not-searched".into(),
                library: "cublas64_11.dll".into(),
                resolved: false,
                pasted: None,
                apply: Some(Apply {
                    summary_has: bin.clone(),
                    scope: None,
                    copy_from: None,
                    changed: Change::Registry {
                        key: USER_ENV.into(),
                        name: "Path".into(),
                        holds: bin,
                    },
                }),
            },
        );
        // Undone: no user Path before the fix, none after.
        assert_eq!(wine.reg_value(USER_ENV, "Path"), None);
    }

    #[test]
    fn wine_b_cudnn_8_without_zlibwapi_copies_the_file_the_user_names() {
        let (mut s, dir) = situation_b();
        // The user downloaded zlib's 64-bit DLL, as NVIDIA's cuDNN 8 guide says.
        let x64 = DllSpec::new("zlibwapi.dll")
            .export("inflate", None)
            .build(&s.work.path().join("zlib"))
            .unwrap();
        let from = r"C:\Downloads\zlib123dllx64\dll_x64\zlibwapi.dll";
        s.machine.copy(from, &x64);
        let copied = format!(r"{dir}\zlibwapi.dll");
        let wine = walk_in_wine(
            &s.file(),
            &WineWalk {
                finding: "cudnn8-zlibwapi-missing".into(),
                library: "zlibwapi.dll".into(),
                resolved: false,
                pasted: None,
                apply: Some(Apply {
                    summary_has: "zlibwapi".into(),
                    scope: None,
                    copy_from: Some(from.into()),
                    changed: Change::File(copied.clone()),
                }),
            },
        );
        assert!(!wine.c(&copied).exists(), "undo removed the copy");
        assert!(wine.c(from).is_file(), "the user's file stays");
    }

    #[test]
    fn wine_c_cudnn_7_in_a_32_bit_program_from_its_error() {
        let s = situation_c();
        walk_in_wine(
            &s.file(),
            &WineWalk {
                finding: "process-bitness-mismatch".into(),
                library: "cudart64_100.dll".into(),
                resolved: false,
                pasted: Some((C_ERROR.into(), "cudnn64_7.dll".into())),
                // Rebuilding the program as 64-bit or getting 32-bit libraries: the user's steps.
                apply: None,
            },
        );
    }

    #[test]
    fn wine_d_an_older_toolkit_first_on_the_machine_path() {
        let (s, path) = situation_d();
        let bin = format!(r"{WINDOWS_TOOLKITS}\v11.2\bin");
        let wine = walk_in_wine(
            &s.file(),
            &WineWalk {
                finding: "ptxas-too-old".into(),
                library: "cublasLt64_11.dll".into(),
                resolved: true,
                pasted: None,
                // Only the machine Path comes before the machine Path's older entry.
                apply: Some(Apply {
                    summary_has: bin.clone(),
                    scope: Some("Machine (administrator)".into()),
                    copy_from: None,
                    changed: Change::Registry {
                        key: MACHINE_ENV.into(),
                        name: "Path".into(),
                        holds: format!(r"{bin};{WINDOWS_TOOLKITS}\v10.0\bin"),
                    },
                }),
            },
        );
        assert_eq!(
            wine.reg_value(MACHINE_ENV, "Path"),
            Some(("REG_EXPAND_SZ".to_string(), path)),
            "undo put the machine Path back"
        );
    }

    #[test]
    fn wine_e_cupti_only_in_libx64() {
        let s = situation_e();
        let cupti = format!(r"{WINDOWS_TOOLKITS}\v10.0\extras\CUPTI\libx64");
        let wine = walk_in_wine(
            &s.file(),
            &WineWalk {
                finding: "cupti-not-searched".into(),
                library: "cupti64_100.dll".into(),
                resolved: false,
                pasted: None,
                apply: Some(Apply {
                    summary_has: cupti.clone(),
                    scope: None,
                    copy_from: None,
                    changed: Change::Registry {
                        key: USER_ENV.into(),
                        name: "Path".into(),
                        holds: cupti,
                    },
                }),
            },
        );
        assert_eq!(wine.reg_value(USER_ENV, "Path"), None, "undone");
    }

    #[test]
    fn the_walk_inside_wine_fails_when_the_screen_does_not_show_the_finding() {
        // The walk is not a rubber stamp: a finding the situation does not have fails it.
        let (_, out) = run_in_wine(
            &situation_a().file(),
            &WineWalk {
                finding: "cudnn8-zlibwapi-missing".into(),
                library: "zlibwapi.dll".into(),
                resolved: false,
                pasted: None,
                apply: None,
            },
        );
        let text = said(&out);
        assert!(!out.status.success(), "{text}");
        assert!(
            text.contains("no Some(\"cudnn8-zlibwapi-missing\") finding"),
            "{text}"
        );
    }
}

/// The Windows side: the walk itself, in the prefix, on this computer.
#[cfg(windows)]
#[test]
#[ignore = "run inside a Wine prefix by the wine_* tests of this module"]
fn inside_wine() {
    use crate::gui_walk::{Expect, dependencies, gpu_fix_report, scan_and_find};
    use cuda_triage::engine::api::Source;
    let walk: WineWalk =
        serde_json::from_str(&std::env::var(CHILD).expect("started by a wine_* test")).unwrap();
    let want = Expect {
        finding: Some(&walk.finding),
        library: &walk.library,
        resolved: walk.resolved,
        pasted: walk
            .pasted
            .as_ref()
            .map(|(text, named)| (text.as_str(), named.as_str())),
    };
    let mut h = scan_and_find(Source::live(), &want);
    dependencies(&mut h, &want);
    gpu_fix_report(&mut h, false);
    if let Some(apply) = &walk.apply {
        inside::apply_verify_undo(&mut h, &walk.finding, apply);
    }
}

#[cfg(windows)]
mod inside {
    //! The Fix step on this computer: pick the scope and the fix, preview, apply, see it
    //! verified, scan again, undo.
    use super::{Apply, Change};
    use crate::gui_walk::{click, click_nth, shows, step_until};
    use cuda_triage::ui::TriageApp;
    use cuda_triage::ui::steps::Step;
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable;

    /// Whether the change is on the machine now.
    fn present(change: &Change) -> bool {
        match change {
            Change::Registry { key, name, holds } => {
                let out = std::process::Command::new("reg")
                    .args(["query", key, "/v", name])
                    .output()
                    .expect("reg runs");
                String::from_utf8_lossy(&out.stdout)
                    .to_lowercase()
                    .contains(&holds.to_lowercase())
            }
            Change::File(path) => std::path::Path::new(path).is_file(),
        }
    }

    pub(super) fn apply_verify_undo(h: &mut Harness<'_, TriageApp>, code: &str, apply: &Apply) {
        assert!(!present(&apply.changed), "changed before the fix");
        click(h, "6. Fix");
        assert_eq!(h.state().step, Step::Fix);
        if let Some(scope) = &apply.scope {
            click(h, scope);
        }
        let doc = h.state().document.clone().unwrap();
        let fix = doc
            .findings
            .iter()
            .filter(|f| f.code == code)
            .flat_map(|f| f.fixes.clone())
            .find(|x| x.summary.contains(&apply.summary_has))
            .unwrap_or_else(|| panic!("no {code} fix naming {}", apply.summary_has));
        // Two findings may offer the same fix: its first line is clicked.
        click_nth(h, &format!("{} ({})", fix.summary, fix.kind), 0);
        step_until(h, "the preview", |a| a.fix.preview.is_some());
        if let Some(file) = &apply.copy_from {
            // Nothing to copy yet: the preview asks for the file, typed as a user types it.
            assert!(shows(h, "choose a x64 zlibwapi.dll"), "asks for the file");
            h.get_by_label("File to copy:").focus();
            h.run_steps(1);
            h.get_by_label("File to copy:").type_text(file);
            h.run_steps(1);
            click(h, "Use this file");
            step_until(h, "the preview with the file", |a| {
                a.fix.preview.is_some() && !a.fix.busy()
            });
        }
        let preview = match h.state().fix.preview.as_ref().unwrap() {
            Ok(plan) => plan.preview(),
            Err(e) => panic!("{}: no plan: {e:#}", fix.id),
        };
        let first = preview.lines().next().unwrap().trim().to_string();
        assert!(shows(h, &first), "the preview pane shows {first:?}");
        assert!(!present(&apply.changed), "a preview changes nothing");

        click_nth(h, &format!("Apply: {}", fix.summary), 0);
        assert!(h.state().fix.checked.contains(&fix.id));
        click(h, "Apply checked fixes");
        step_until(h, "the apply", |a| !a.fix.busy());
        let verified = format!("{}: applied — verified, its finding is gone", fix.id);
        assert!(shows(h, &verified), "{:?}", h.state().fix.log);
        assert!(present(&apply.changed), "the change is made");

        click(h, "Scan again");
        step_until(h, "the rescan", |a| !a.scan_running());
        let now = h.state().document.clone().unwrap();
        assert!(
            !now.findings
                .iter()
                .flat_map(|f| &f.fixes)
                .any(|x| x.id == fix.id),
            "the rescan no longer offers {}",
            fix.id
        );
        assert!(
            h.query_by_label(&format!("{} ({})", fix.summary, fix.kind))
                .is_none(),
            "nor does the Fix step"
        );

        click(h, "Undo last fix");
        step_until(h, "the undo", |a| !a.fix.busy());
        assert!(
            shows(h, "every file and value is back as it was"),
            "{:?}",
            h.state().fix.log
        );
        assert!(!present(&apply.changed), "the change is gone again");
        click(h, "Scan again");
        step_until(h, "the rescan after undo", |a| !a.scan_running());
        let again = h.state().document.clone().unwrap();
        assert!(
            again.findings.iter().any(|f| f.code == code),
            "the finding is back after the undo"
        );
    }
}

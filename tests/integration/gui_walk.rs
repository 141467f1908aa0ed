//! The wizard walked as a new user walks it, on each of the five seed situations and on this
//! computer: Welcome → Scan (the job runs) → Findings (the situation's finding is on screen) →
//! Dependencies (the scan's first suggestion, one click, and the library that matters resolved or
//! missing in its tree) → GPU test (a machine file picks no library and says why) → Fix (every
//! fix of every finding previews) → Report (JSON, Markdown and HTML saved; the JSON reopens on
//! the same finding). Everything is asserted on what the window shows, by label.
//!
//! The seed machines are the situations' own builders (`situations.rs`); where a situation's
//! stand-in DLLs are two-byte stubs, the libraries its tree walks are real PE files built here
//! with mingw (a stand-in for the framework's entry module importing what it loads).

use crate::fixtures_build::{DllSpec, tool_available};
use crate::gui::{harness, wait_for_scan};
use crate::situations::{
    anaconda_tf1_cuda10, cuda_11_2, cudnn7_beside_a_32bit_app, cudnn8, machine_file, tf210,
};
use cuda_triage::engine::api::Source;
use cuda_triage::engine::context::Platform;
use cuda_triage::engine::context::fake::{FakeMachine, WINDOWS_TOOLKITS};
use cuda_triage::engine::report::{Report, ReportFormat};
use cuda_triage::ui::TriageApp;
use cuda_triage::ui::steps::{Step, UiCommand};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::time::{Duration, Instant};

pub(crate) const PY: &str = r"C:\Users\u\AppData\Local\Programs\Python\Python310";
const TF_ENTRY: &str = r"Lib\site-packages\tensorflow\python\_pywrap_tensorflow_internal.pyd";

/// What a walk must show: the finding the situation is about, and the library that matters in
/// the first suggested binary's tree.
pub(crate) struct Expect<'a> {
    /// The code of the finding the Findings step must show (its summary, on screen); `None`
    /// on this computer, whose findings depend on it (the first one is looked for then).
    pub finding: Option<&'a str>,
    /// A library of the first suggestion's tree, and whether it resolves there.
    pub library: &'a str,
    pub resolved: bool,
    /// An error message the user pastes on the Welcome step before scanning; the
    /// Dependencies step then offers the library it names (clicked instead of a suggestion).
    pub pasted: Option<(&'a str, &'a str)>,
}

/// The function a stand-in DLL exports (and its importers import): `entry_<name without dots>`.
fn entry(dll: &str) -> String {
    format!("entry_{}", dll.replace('.', "_"))
}

/// Replaces the stub at `machine_path` by a real 64-bit DLL of that name importing `imports`.
fn real_dll(m: &mut FakeMachine, work: &std::path::Path, machine_path: &str, imports: &[&str]) {
    let name = machine_path.rsplit('\\').next().unwrap();
    let dir = work.join(format!("dll-{}", work.read_dir().unwrap().count()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut spec = DllSpec::new(name).export(&entry(name), None);
    for dll in imports {
        spec = spec.import(dll, &[entry(dll).as_str()]);
    }
    let built = spec
        .build(&dir)
        .unwrap_or_else(|e| panic!("mingw build of {name} failed: {e}"));
    m.copy(machine_path, &built);
}

fn mingw() {
    assert!(
        tool_available("x86_64-w64-mingw32-gcc"),
        "x86_64-w64-mingw32-gcc is needed (Debian gcc-mingw-w64-x86-64; .ci/run installs it)"
    );
}

/// Steps the UI until `done` holds (bounded, never a timing assertion).
pub(crate) fn step_until(
    h: &mut Harness<'_, TriageApp>,
    what: &str,
    done: impl Fn(&TriageApp) -> bool,
) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !done(h.state()) {
        let fix = (&h.state().fix.focused, h.state().fix.preview.is_some());
        assert!(Instant::now() < deadline, "{what} never happened ({fix:?})");
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
    h.run_steps(3);
}

/// Clicks the widget labelled `label`, scrolled into view first.
pub(crate) fn click(h: &mut Harness<'_, TriageApp>, label: &str) {
    h.get_by_label(label).scroll_to_me();
    h.run_steps(20); // the scroll is animated
    h.get_by_label(label).click();
    h.run_steps(2);
}

/// Clicks the `n`th widget labelled `label` (a fix two findings offer has two lines), scrolled
/// into view first.
pub(crate) fn click_nth(h: &mut Harness<'_, TriageApp>, label: &str, n: usize) {
    h.query_all_by_label(label).nth(n).unwrap().scroll_to_me();
    h.run_steps(20); // the scroll is animated
    h.query_all_by_label(label).nth(n).unwrap().click();
    h.run_steps(2);
}

/// Whether some widget's label holds `text` (one or more: a fix two findings offer shows twice).
pub(crate) fn shows(h: &Harness<'_, TriageApp>, text: &str) -> bool {
    h.query_all_by_label_contains(text).next().is_some()
}

fn next(h: &mut Harness<'_, TriageApp>, step: Step) {
    h.get_by_label("Next").click();
    h.run_steps(2);
    assert_eq!(h.state().step, step);
}

/// Welcome → Scan → Findings; returns the harness on the Findings step.
pub(crate) fn scan_and_find(source: Source, want: &Expect) -> Harness<'static, TriageApp> {
    let mut h = harness(TriageApp::new(source));
    h.run_steps(2);
    assert!(shows(&h, "Start scan"));
    if let Some((text, _)) = want.pasted {
        h.state_mut().paste.text = text.into();
        h.run_steps(1);
        h.get_by_label("Explain this error").click();
        h.run_steps(1);
        step_until(&mut h, "the pasted text's triage", |a| {
            a.paste.job.is_none()
        });
        assert!(shows(&h, "From the text you pasted"));
        click(&mut h, "1. Welcome");
    }
    h.get_by_label("Start scan").click();
    h.step();
    assert_eq!(h.state().step, Step::Scan);
    wait_for_scan(&mut h);
    assert!(shows(&h, "See findings"), "the scan step offers its result");
    next(&mut h, Step::Findings);
    let doc = h.state().document.clone().expect("the scan's report");
    let pasted = h.state().paste.result.clone();
    let Some(finding) = doc
        .findings
        .iter()
        .chain(pasted.iter().flat_map(|p| p.findings.iter()))
        .find(|f| want.finding.is_none_or(|code| f.code == code))
    else {
        assert!(
            want.finding.is_none(),
            "no {:?} finding: {:#?}",
            want.finding,
            doc.findings
        );
        assert!(shows(&h, "No problems found."));
        return h;
    };
    let summary = finding.summary.clone();
    if !shows(&h, &summary) {
        // The cards are virtualised: scroll down until the card is laid out.
        for _ in 0..40 {
            h.get_by_label("Findings").scroll_down();
            h.run_steps(2);
            if shows(&h, &summary) {
                break;
            }
        }
    }
    assert!(shows(&h, &summary), "the Findings step shows {summary:?}");
    h
}

/// Findings → Dependencies: the first suggestion, one click, and the expected library in its tree.
pub(crate) fn dependencies(h: &mut Harness<'_, TriageApp>, want: &Expect) {
    next(h, Step::Dependencies);
    let first = match want.pasted {
        Some((_, named)) => {
            assert!(shows(h, "Named in the text you pasted"));
            named.to_string()
        }
        None => {
            assert!(shows(h, "Suggested by the scan ("));
            h.state().deps.suggestions[0].label.clone()
        }
    };
    click(h, &first);
    step_until(h, "the dependency tree", |a| a.deps.job.is_none());
    assert!(h.state().deps.error.is_none(), "{:?}", h.state().deps.error);
    let result = h.state().deps.result.as_ref().expect("a tree");
    let node = result
        .graph
        .nodes
        .iter()
        .find(|n| n.name.eq_ignore_ascii_case(want.library))
        .unwrap_or_else(|| panic!("{} is not in the tree of {first}", want.library));
    assert_eq!(node.path.is_some(), want.resolved, "{node:?}");
    assert!(
        h.query_all_by_label(want.library).next().is_some(),
        "a row shows it"
    );
    if !want.resolved {
        assert!(shows(h, "with problems"), "the tree's summary says so");
    }
}

/// GPU test → Fix (every fix previews) → Report (every format saved; the JSON reopens).
pub(crate) fn gpu_fix_report(h: &mut Harness<'_, TriageApp>, machine_file: bool) {
    next(h, Step::GpuTest);
    if machine_file {
        assert!(
            shows(h, "No GPU test here"),
            "says why no library is picked"
        );
        assert!(h.query_by_label("Run GPU test").is_none());
    } else {
        assert!(shows(h, "Libraries to test"));
        assert!(h.query_by_label("Run GPU test").is_some());
    }
    next(h, Step::Fix);
    let doc = h.state().document.clone().unwrap();
    let fixes: Vec<_> = doc.findings.iter().flat_map(|f| f.fixes.clone()).collect();
    // Two findings may offer the same fix: each copy of its line is clicked in turn.
    let mut seen = std::collections::HashMap::new();
    for fix in &fixes {
        let label = format!("{} ({})", fix.summary, fix.kind);
        let nth = seen.entry(label.clone()).or_insert(0);
        click_nth(h, &label, *nth);
        *nth += 1;
        step_until(h, &format!("the preview of {}", fix.id), |a| {
            a.fix.focused.as_deref() == Some(fix.id.as_str()) && a.fix.preview.is_some()
        });
        let shown = match h.state().fix.preview.as_ref().unwrap() {
            Ok(plan) => plan
                .preview()
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .to_string(),
            Err(e) => format!("No preview: {e}"),
        };
        assert!(
            shows(h, &shown) || shows(h, "A manual step: nothing CUDA Triage can change"),
            "{}: preview {shown:?}",
            fix.id
        );
    }
    if machine_file {
        assert!(shows(h, "fixes can be previewed, not applied"));
    }
    next(h, Step::Report);
    // The report holds the scan's findings and, after them, those of a pasted error.
    let code = doc.findings.first().map_or("", |f| f.code.as_str());
    let pasted: Vec<_> = h
        .state()
        .paste
        .result
        .as_ref()
        .map(|p| p.findings.clone())
        .unwrap_or_default()
        .into_iter()
        .filter(|p| {
            !doc.findings
                .iter()
                .any(|f| f.code == p.code && f.summary == p.summary)
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    for format in [
        ReportFormat::Json,
        ReportFormat::Markdown,
        ReportFormat::Html,
    ] {
        let save = format!("Save {} report…", format.label());
        assert!(h.query_by_label(&save).is_some(), "{save}");
        let path = dir.path().join(format!("walk.{}", format.extension()));
        h.state_mut()
            .apply(UiCommand::SaveReportTo(path.clone(), format));
        h.run_steps(2);
        let text = std::fs::read_to_string(&path).expect("the report is written");
        assert!(text.contains(code), "{format:?} names {code}");
        for p in &pasted {
            assert!(
                text.contains(&p.code),
                "{format:?} names the pasted {}",
                p.code
            );
        }
    }
    let reopened = Report::load(&dir.path().join("walk.json")).expect("the JSON reopens");
    assert_eq!(reopened.findings.len(), doc.findings.len() + pasted.len());
    let mut r = harness(TriageApp::with_report(
        Source::live(),
        reopened,
        "walk.json",
    ));
    r.run_steps(2);
    assert_eq!(r.state().step, Step::Findings);
    // Errors first, as before: the first card is the same.
    if let Some(first) = doc.findings.first() {
        assert!(
            shows(&r, &first.summary),
            "the reopened report shows {first:?}"
        );
    }
}

fn walk(machine: String, want: Expect) {
    let mut h = scan_and_find(Source::machine_file(machine.into()), &want);
    dependencies(&mut h, &want);
    gpu_fix_report(&mut h, true);
}

/// A seed situation's machine: its fake drive (the real DLLs it holds built in `work`) and the
/// variables of its machine file, written by `file()`.
pub(crate) struct Situation {
    pub machine: FakeMachine,
    pub work: tempfile::TempDir,
    pub env: Vec<(&'static str, String)>,
}

impl Situation {
    fn new(env: Vec<(&'static str, String)>) -> Situation {
        mingw();
        Situation {
            machine: FakeMachine::new(Platform::Windows).unwrap(),
            work: tempfile::tempdir().unwrap(),
            env,
        }
    }

    /// The machine file (in the machine's folder, which lives as long as `self`).
    pub fn file(&self) -> String {
        let env: Vec<(&str, &str)> = self.env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        machine_file(&self.machine, &env)
    }

    /// Replaces the stub at `machine_path` by a real 64-bit DLL importing `imports`.
    pub fn real_dll(&mut self, machine_path: &str, imports: &[&str]) {
        real_dll(&mut self.machine, self.work.path(), machine_path, imports);
    }

    /// A real DLL standing in for TensorFlow's entry module in the environment `env`,
    /// importing `imports` (the framework's first suggestion).
    pub fn tf_entry(&mut self, env: &str, imports: &[&str]) {
        self.real_dll(&format!(r"{env}\{TF_ENTRY}"), imports);
    }
}

/// Windows' own folders, first on every seed machine's PATH.
const SYSTEM: &str = r"C:\Windows\System32;C:\Windows";

/// a: TensorFlow 2.10 (its entry module importing CUDA 11's runtime and cuBLAS) with only
/// CUDA 12.1, on PATH.
pub(crate) fn situation_a() -> Situation {
    let cuda12 = format!(r"{WINDOWS_TOOLKITS}\v12.1\bin");
    let mut s = Situation::new(vec![("PATH", format!(r"{cuda12};{SYSTEM};{PY}"))]);
    s.machine
        .windows_toolkit("12.1", &["cudart64_12.dll", "cublas64_12.dll"]);
    tf210(&mut s.machine);
    s.tf_entry(PY, &["cudart64_110.dll", "cublas64_11.dll"]);
    s
}

/// b: cuDNN 8.9 (real DLLs) on PATH, without zlibwapi.dll.
pub(crate) fn situation_b() -> (Situation, String) {
    let dir = r"C:\Program Files\NVIDIA\CUDNN\v8.9\bin".to_string();
    let mut s = Situation::new(vec![("PATH", format!(r"{dir};{SYSTEM}"))]);
    assert_eq!(cudnn8(&mut s.machine), dir);
    for dll in [
        "cudnn64_8.dll",
        "cudnn_cnn_infer64_8.dll",
        "cudnn_ops_infer64_8.dll",
    ] {
        s.real_dll(&format!(r"{dir}\{dll}"), &[]);
    }
    (s, dir)
}

/// c: a 32-bit program with cuDNN 7 and CUDA 10.0's 64-bit DLLs beside it.
pub(crate) fn situation_c() -> Situation {
    assert!(
        tool_available("i686-w64-mingw32-gcc"),
        "i686-w64-mingw32-gcc is needed (Debian gcc-mingw-w64-i686)"
    );
    let mut s = Situation::new(vec![("PATH", format!(r"{SYSTEM};C:\Apps\AleaApp"))]);
    cudnn7_beside_a_32bit_app(&mut s.machine, s.work.path());
    s
}

/// d: CUDA 10.0's bin before CUDA 11.2's on PATH (TensorFlow 2.10 and cuDNN 8 installed); the
/// first suggestion, CUDA 11.2's cuBLAS, is real with its cuBLASLt beside it.
pub(crate) fn situation_d() -> (Situation, String) {
    let bin = format!(r"{WINDOWS_TOOLKITS}\v11.2\bin");
    let path = format!(r"{WINDOWS_TOOLKITS}\v10.0\bin;{bin};{SYSTEM};{PY}");
    let mut s = Situation::new(vec![("PATH", path.clone())]);
    cuda_11_2(&mut s.machine);
    s.machine.windows_toolkit("10.0", &["cudart64_100.dll"]);
    tf210(&mut s.machine);
    cudnn8(&mut s.machine);
    s.machine.file(r"C:\Windows\System32\zlibwapi.dll", b"MZ");
    s.real_dll(&format!(r"{bin}\cublasLt64_11.dll"), &[]);
    s.real_dll(&format!(r"{bin}\cublas64_11.dll"), &["cublasLt64_11.dll"]);
    (s, path)
}

/// e: TensorFlow 1.14 in an Anaconda environment whose CUPTI is only in CUDA 10.0's
/// `extras\CUPTI\libx64`, off PATH.
pub(crate) fn situation_e() -> Situation {
    let cuda = format!(r"{WINDOWS_TOOLKITS}\v10.0");
    let mut s = Situation::new(vec![("CUDA_PATH", cuda.clone())]);
    let env = anaconda_tf1_cuda10(&mut s.machine);
    s.tf_entry(env, &["cupti64_100.dll"]);
    s.env.push(("PATH", format!(r"{cuda}\bin;{SYSTEM};{env}")));
    s
}

#[test]
fn walk_a_tensorflow_2_10_with_only_cuda_12() {
    let s = situation_a();
    let want = Expect {
        finding: Some("library-wrong-major"),
        library: "cublas64_11.dll",
        resolved: false,
        pasted: None,
    };
    walk(s.file(), want);
}

#[test]
fn walk_b_cudnn_8_without_zlibwapi() {
    let (s, _) = situation_b();
    let want = Expect {
        finding: Some("cudnn8-zlibwapi-missing"),
        library: "zlibwapi.dll",
        resolved: false,
        pasted: None,
    };
    walk(s.file(), want);
}

/// The error a program of situation c prints.
pub(crate) const C_ERROR: &str = "System.DllNotFoundException: Unable to load DLL 'cudnn64_7.dll' (Exception from HRESULT: 0x8007000B)";

#[test]
fn walk_c_cudnn_7_in_a_32_bit_program() {
    let s = situation_c();
    // The user starts from the error their program printed.
    let want = Expect {
        finding: Some("process-bitness-mismatch"),
        library: "cudart64_100.dll",
        resolved: false,
        pasted: Some((C_ERROR, "cudnn64_7.dll")),
    };
    walk(s.file(), want);
}

#[test]
fn walk_d_an_older_toolkit_first_on_path() {
    let (s, _) = situation_d();
    let want = Expect {
        finding: Some("ptxas-too-old"),
        library: "cublasLt64_11.dll",
        resolved: true,
        pasted: None,
    };
    walk(s.file(), want);
}

#[test]
fn walk_e_cupti_only_in_libx64() {
    let s = situation_e();
    let want = Expect {
        finding: Some("cupti-not-searched"),
        library: "cupti64_100.dll",
        resolved: false,
        pasted: None,
    };
    walk(s.file(), want);
}

/// This computer: a live scan, every fix previewed, never applied.
#[test]
fn walk_this_computer() {
    let want = Expect {
        finding: None,
        library: "",
        resolved: false,
        pasted: None,
    };
    let mut h = scan_and_find(Source::live(), &want);
    next(&mut h, Step::Dependencies);
    if let Some(first) = h.state().deps.suggestions.first().map(|s| s.label.clone()) {
        click(&mut h, &first);
        step_until(&mut h, "the dependency tree", |a| a.deps.job.is_none());
        assert!(h.state().deps.error.is_none(), "{:?}", h.state().deps.error);
        assert!(shows(&h, "libraries"), "the tree's summary");
    } else {
        assert!(
            shows(&h, "The scan found no"),
            "says why nothing is suggested"
        );
    }
    gpu_fix_report(&mut h, false);
}

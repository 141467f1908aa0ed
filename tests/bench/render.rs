//! Render benchmark, run by hand (not a test: it asserts nothing and times everything):
//! the real wizard driven through egui_kittest, measuring the CPU time of one frame — the UI
//! pass (layout, every widget) plus tessellation, as eframe does before handing the GPU its
//! triangles — on the Dependencies step with a 5,000-node tree (virtualised rows, then "Only
//! problems" and a search), on the Findings step with 200 findings, and on the fleet view of
//! 1,000 machines' reports (`fleet_reports`), each machine its own row so 1,000 rows scroll.
//!
//! ```sh
//! cargo bench --bench render                 # release (the figures to report)
//! cargo bench --profile dev --bench render   # a quick look with the debug build
//! ```

// Tests and benchmarks may unwrap: a panic here is the failure report (Cargo.toml, [lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cuda_triage::engine::api::Source;
use cuda_triage::engine::binfmt::{BinaryInfo, Format, Machine};
use cuda_triage::engine::context::machine_file;
use cuda_triage::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use cuda_triage::engine::graph::{DependencyGraph, Node};
use cuda_triage::engine::loader::{Attempt, How, Outcome};
use cuda_triage::engine::report::{Report, fleet};
use cuda_triage::ui::TriageApp;
use cuda_triage::ui::app::ScanState;
use cuda_triage::ui::steps::Step;
use cuda_triage::ui::steps::dependencies::TreeResult;
use egui_kittest::Harness;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod fleet_reports;
#[path = "../integration/wheel.rs"]
mod wheel;

const FRAMES: usize = 200;
const GOAL_MS: f64 = 8.0;

/// CPU time of this thread (the UI thread: all of egui's work happens on it).
fn thread_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

fn machine() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/machines/linux-basic/machine.toml")
}

/// A 5,000-node tree: 50 libraries under the root, each with 10 below it, each of those with 9
/// more; one in 25 is missing (with the places tried).
fn big_tree() -> TreeResult {
    let ctx = machine_file::load(&machine()).expect("fixture machine");
    let root = "/opt/app/lib/libbig_root.so".to_string();
    let info = Arc::new(BinaryInfo::empty(
        Format::Elf,
        Machine {
            arch: "x86_64".into(),
            bits: 64,
        },
    ));
    let mut nodes = Vec::with_capacity(5000);
    for i in 0..5000usize {
        let (parent_node, depth) = match i % 100 {
            0 => (None, 1),
            k if (k - 1) % 10 == 0 => (Some(i - k), 2),
            k => (Some(i - (k - 1) % 10), 3),
        };
        let missing = i % 25 == 7;
        let name = format!("libcuda_part_{i:04}.so.12");
        let dir = format!("/opt/app/lib/part{}", i / 100);
        nodes.push(Node {
            path: (!missing).then(|| format!("{dir}/{name}")),
            how: if missing { How::Default } else { How::Runpath },
            parent: parent_node.map_or(root.clone(), |p: usize| format!("/opt/app/lib/node{p}.so")),
            depth,
            version: Some("12.4.5".into()),
            machine: Some("x86_64".into()),
            attempts: if missing {
                ["runpath", "ld_so_cache", "default"]
                    .iter()
                    .enumerate()
                    .map(|(k, _)| Attempt {
                        directory: format!("/usr/lib/try{k}"),
                        source: How::Default,
                        outcome: Outcome::NotFound,
                    })
                    .collect()
            } else {
                Vec::new()
            },
            delay: false,
            runtime: None,
            parent_node,
            expanded: true,
            name,
        });
    }
    TreeResult {
        graph: DependencyGraph {
            platform: ctx.platform,
            root,
            root_info: info,
            nodes,
            infos: Default::default(),
            assemblies: Vec::new(),
        },
        findings: Vec::new(),
        ctx,
    }
}

/// 200 findings of every severity, each with evidence, libraries and a fix.
fn many_findings() -> Report {
    let ctx = machine_file::load(&machine()).expect("fixture machine");
    let findings = (0..200)
        .map(|i| {
            let severity = [Severity::Error, Severity::Warning, Severity::Info][i % 3];
            let mut f = Finding::new(
                "library-not-found",
                severity,
                format!("PyTorch 2.5.1: libcudnn_part{i}.so.9 is not found where the loader looks"),
                format!(
                    "PyTorch cannot load its CUDA libraries in the Python of /home/u/venvs/v{i}: \
                     libtorch_cuda.so needs libcudnn_part{i}.so.9, and neither its RUNPATH nor \
                     LD_LIBRARY_PATH nor ld.so.cache holds it. It comes from the pip package \
                     nvidia-cudnn-cu12==9.1.0.70, which torch pins."
                ),
            );
            f.libraries = vec![format!("libcudnn_part{i}.so.9")];
            f.evidence = (0..6)
                .map(|k| Evidence::at("searched", format!("/usr/lib/d{k}: not there"), format!("/usr/lib/d{k}")))
                .collect();
            f.fixes = vec![FixRef {
                id: format!("reinstall-{i}"),
                kind: FixKind::Manual,
                summary: format!("/home/u/venvs/v{i}/bin/python -m pip install --force-reinstall --no-deps \"nvidia-cudnn-cu12==9.1.0.70\""),
            }];
            f
        })
        .collect();
    Report::new(&ctx, findings)
}

/// One notch of the wheel over the middle of the window (the tree or the findings list).
fn scroll(h: &mut Harness<'static, TriageApp>, _frame: usize) {
    wheel::wheel(h, egui::pos2(640.0, 520.0), egui::MouseWheelUnit::Line, 3.0);
}

fn harness(app: TriageApp) -> Harness<'static, TriageApp> {
    Harness::builder()
        .with_size([1280.0, 800.0])
        .build_ui_state(|ui, app: &mut TriageApp| app.frame_ui(ui), app)
}

/// Runs `FRAMES` frames (each with `between` applied first) and prints the CPU time per frame.
fn measure(
    name: &str,
    h: &mut Harness<'static, TriageApp>,
    mut between: impl FnMut(&mut Harness<'static, TriageApp>, usize),
) {
    h.run_steps(5); // warm the text layout caches, as a window shown for a moment has
    let mut cpu = Vec::with_capacity(FRAMES);
    let wall = Instant::now();
    for i in 0..FRAMES {
        between(h, i);
        let start = thread_cpu();
        h.step();
        let shapes = h.output().shapes.clone();
        let ppp = h.output().pixels_per_point;
        let meshes = h.ctx.tessellate(shapes, ppp);
        std::hint::black_box(meshes);
        cpu.push((thread_cpu() - start).as_secs_f64() * 1000.0);
    }
    let wall_ms = wall.elapsed().as_secs_f64() * 1000.0 / FRAMES as f64;
    cpu.sort_by(f64::total_cmp);
    let mean = cpu.iter().sum::<f64>() / cpu.len() as f64;
    let p = |q: f64| cpu[((cpu.len() - 1) as f64 * q) as usize];
    println!(
        "{name:<52} CPU/frame: mean {mean:6.2} ms  median {:6.2}  p95 {:6.2}  max {:6.2}  (wall {wall_ms:.2} ms)  {}",
        p(0.5),
        p(0.95),
        p(1.0),
        if p(0.95) < GOAL_MS {
            "< 8 ms goal"
        } else {
            "OVER the 8 ms goal"
        }
    );
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo bench -- --list` and `cargo test --benches` ask this of harness = false
    }
    println!(
        "{FRAMES} frames each, 1280x800, {} build",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
    );

    let mut app = TriageApp::new(Source::machine_file(machine()));
    app.step = Step::Dependencies;
    app.deps.binary_input = "/opt/app/lib/libbig_root.so".into();
    app.deps.result = Some(big_tree());
    let mut h = harness(app);
    measure("Dependencies, 5,000-node tree (top)", &mut h, |_, _| {});
    measure("Dependencies, 5,000 nodes, scrolling", &mut h, scroll);
    h.state_mut().deps.filter.only_problems = true;
    measure(
        "Dependencies, 5,000 nodes, only problems",
        &mut h,
        |_, _| {},
    );
    h.state_mut().deps.filter.only_problems = false;
    measure(
        "Dependencies, 5,000 nodes, search typed each frame",
        &mut h,
        |h, i| {
            h.state_mut().deps.filter.search = format!("part_{:02}", i % 50);
        },
    );
    h.state_mut().deps.filter.search.clear();
    h.state_mut().deps.selected = Some(7);
    measure(
        "Dependencies, 5,000 nodes, a miss selected",
        &mut h,
        |_, _| {},
    );

    let mut app = TriageApp::new(Source::machine_file(machine()));
    app.document = Some(many_findings());
    app.scan = ScanState::Done;
    app.step = Step::Findings;
    let mut h = harness(app);
    measure("Findings, 200 findings (top)", &mut h, |_, _| {});
    measure("Findings, 200 findings, scrolling", &mut h, scroll);

    let dir = tempfile::tempdir().unwrap();
    fleet_reports::write_fleet(dir.path(), 1000);
    let mut app = TriageApp::new(Source::machine_file(machine()));
    let mut view = fleet::fleet_of(&[dir.path().to_path_buf()], Default::default());
    // The worst case for the matrix: no two machines alike, one row each.
    view.rows = view
        .rows
        .iter()
        .flat_map(|row| {
            row.members.iter().map(|m| fleet::Row {
                members: vec![m.clone()],
                ..row.clone()
            })
        })
        .collect();
    app.fleet.view = Some(view);
    let mut h = harness(app);
    measure(
        "Fleet view, 1,000 machines in 1,000 rows (top)",
        &mut h,
        |_, _| {},
    );
    measure("Fleet view, 1,000 rows, scrolling", &mut h, scroll);
}

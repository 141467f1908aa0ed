//! Subcommand handlers: each loads the context, asks the engine, and hands the document to
//! `output`. A capability that has not landed yet says so plainly and exits 2.

use super::args::{Cli, Command, Common, ScanArgs, TreeArgs, TreeContext};
use super::output::{emit, exit_code, fail};
use crate::engine::context::{SystemContext, live, machine_file};
use crate::engine::progress::Progress;
use crate::engine::report::Document;
use crate::engine::scan;

/// Loads the context a command works on: the machine file when given, else this computer.
pub fn load_context(common: &Common) -> Result<SystemContext, String> {
    match &common.machine {
        Some(path) => machine_file::load(path).map_err(|e| e.to_string()),
        None => Ok(live::load()),
    }
}

/// Runs a scan and wraps it in a document (findings plus the `"inventory"` key).
pub fn scan_document(ctx: &SystemContext) -> Document {
    scan_document_with(ctx, &scan::ScanOptions::default())
}

/// Runs a scan with options and wraps it in a document.
pub fn scan_document_with(ctx: &SystemContext, opts: &scan::ScanOptions) -> Document {
    scan::run_with(ctx, &Progress::new(), opts).into_document(ctx)
}

/// Runs one parsed command line; returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    let common = cli.common;
    let Some(command) = cli.command else {
        return scan_command(&common, &ScanArgs::default());
    };
    match command {
        Command::Scan(args) => scan_command(&common, &args),
        Command::Report(args) => super::report_command::report_command(&common, &args),
        Command::Open { report } => super::report_command::open_command(&common, &report),
        Command::Why { query } => super::why_command::why_command(&common, &query),
        Command::Tree(args) => tree_command(&common, &args),
        Command::GpuTest(args) => super::gpu_command::gpu_test_command(&common, &args),
        Command::Fix { action } => super::fix_command::fix_command(&common, action),
    }
}

fn scan_command(common: &Common, args: &ScanArgs) -> i32 {
    if let Some(dir) = &args.bench_generate {
        return match scan::bench::generate(dir) {
            Ok((machine, libs)) => {
                println!("{}", machine.display());
                eprintln!(
                    "Generated a machine with 3 toolkits, 20 Python environments and {libs} library files."
                );
                0
            }
            Err(e) => fail(
                &format!("{}: cannot generate: {e}", dir.display()),
                common.json,
            ),
        };
    }
    let opts = scan::ScanOptions {
        probe_imports: args.probe,
        run_tools: args.probe,
        ..Default::default()
    };
    match load_context(common) {
        Ok(ctx) => emit(&scan_document_with(&ctx, &opts), common.json),
        Err(e) => fail(&e, common.json),
    }
}

/// The context `tree` works on: the machine file, else this computer without the NVML query
/// (a tree needs files and environment, not the driver; this keeps `tree` in milliseconds).
fn tree_context(common: &Common) -> Result<SystemContext, String> {
    match &common.machine {
        Some(_) => load_context(common),
        None => Ok(live::load_without_driver()),
    }
}

/// The machine path of BINARY: as given with --machine (must be absolute), else made absolute
/// from this process's current directory (links are not resolved: ld.so does not either).
pub fn tree_root(ctx: &SystemContext, common: &Common, binary: &str) -> Result<String, String> {
    let p = ctx.platform;
    if p.is_absolute(binary) {
        return Ok(p.normalize(binary));
    }
    if common.machine.is_some() {
        return Err(format!(
            "{binary}: give the binary as an absolute path on the machine (e.g. {})",
            if p == crate::engine::context::Platform::Windows {
                r"C:\path\to\file.dll"
            } else {
                "/path/to/lib.so"
            }
        ));
    }
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    Ok(p.normalize(&cwd.join(binary).to_string_lossy()))
}

fn tree_options(args: &TreeArgs) -> Result<crate::engine::graph::GraphOptions, String> {
    use crate::engine::loader::windows::{Preset, WindowsOptions, parse_flags};
    let preset = args.context.map(|c| match c {
        TreeContext::App => Preset::App,
        TreeContext::Python => Preset::Python,
        TreeContext::CondaPython => Preset::CondaPython,
        TreeContext::Torch => Preset::Torch,
    });
    let load_flags = args.load_flags.as_deref().map(parse_flags).transpose()?;
    Ok(crate::engine::graph::GraphOptions {
        max_depth: args
            .max_depth
            .unwrap_or(crate::engine::graph::DEFAULT_MAX_DEPTH),
        runtime: !args.no_runtime,
        windows: WindowsOptions {
            preset,
            app_dir: args.app_dir.clone(),
            dll_dirs: args.dll_dir.clone(),
            set_dll_dir: args.set_dll_dir.clone(),
            load_flags,
            cwd: args.cwd.clone(),
        },
    })
}

fn tree_command(common: &Common, args: &TreeArgs) -> i32 {
    use crate::engine::{graph, rules};
    let ctx = match tree_context(common) {
        Ok(ctx) => ctx,
        Err(e) => return fail(&e, common.json),
    };
    let root = match tree_root(&ctx, common, &args.binary) {
        Ok(r) => r,
        Err(e) => return fail(&e, common.json),
    };
    let opts = match tree_options(args) {
        Ok(o) => o,
        Err(e) => return fail(&e, common.json),
    };
    if let Some(n) = args.bench {
        bench_tree(&ctx, &root, &opts, n);
    }
    let graph = match graph::build(&ctx, &root, &opts) {
        Ok(g) => g,
        Err(e) => return fail(&e.to_string(), common.json),
    };
    let findings = rules::tree::check(&ctx, &graph);
    let doc = Document::new(&ctx, findings)
        .with("root", &graph.root)
        .with("nodes", &graph.nodes);
    if common.json {
        println!("{}", doc.to_json_pretty());
    } else {
        let colour = super::output::use_colour();
        print!("{}", super::tree_output::render_tree(&graph, colour));
        println!();
        print!("{}", super::output::render_findings(&doc.findings, colour));
    }
    exit_code(&doc)
}

/// `--bench N`: N full builds (walk + findings), timings on standard error.
fn bench_tree(ctx: &SystemContext, root: &str, opts: &crate::engine::graph::GraphOptions, n: u32) {
    let mut times = Vec::new();
    let mut nodes = 0;
    for _ in 0..n.max(1) {
        let start = std::time::Instant::now();
        if let Ok(g) = crate::engine::graph::build(ctx, root, opts) {
            nodes = g.nodes.len();
            let _ = crate::engine::rules::tree::check(ctx, &g);
        }
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    eprintln!(
        "tree --bench {}: {nodes} nodes; min {:.3} ms, median {:.3} ms, mean {:.3} ms, max {:.3} ms",
        times.len(),
        times[0],
        times[times.len() / 2],
        mean,
        times[times.len() - 1]
    );
}

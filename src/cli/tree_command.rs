//! `tree BINARY`: the dependency tree of a DLL, .so or executable — or of a bare name
//! (`cublas64_11.dll`, `libcudnn.so.8`) first searched for as the chosen process would — with how
//! each library resolved and every place tried. JSON adds `root`, `root_info` (the root's version,
//! machine and bitness), `root_resolution` for a bare name, and `nodes`.

use super::args::{Common, TreeArgs, TreeContext};
use super::load::load_context_with;
use super::output::exit_code;
use crate::engine::api::graph::GraphOptions;
use crate::engine::api::{self, Driver, Progress, SystemContext, TreeOutcome, TreeRequest};
use anyhow::Context;

/// Builds the tree of `binary` on `ctx` in the process `options` describes. On this computer a
/// relative path is taken from this command's current folder.
pub fn build(
    ctx: &SystemContext,
    common: &Common,
    binary: &str,
    options: GraphOptions,
    from: Option<String>,
) -> anyhow::Result<TreeOutcome> {
    let relative_to = match &common.machine {
        Some(_) => None,
        None => Some(
            std::env::current_dir()
                .context("cannot read the current directory")?
                .to_string_lossy()
                .into_owned(),
        ),
    };
    let request = TreeRequest {
        binary: binary.to_string(),
        options,
        from,
        relative_to,
    };
    Ok(api::tree(ctx, &request, &Progress::new())?)
}

fn tree_options(args: &TreeArgs) -> anyhow::Result<GraphOptions> {
    use crate::engine::api::graph::{Preset, WindowsOptions, parse_flags};
    let preset = args.context.map(|c| match c {
        TreeContext::App => Preset::App,
        TreeContext::Python => Preset::Python,
        TreeContext::CondaPython => Preset::CondaPython,
        TreeContext::Torch => Preset::Torch,
    });
    let load_flags = args.load_flags.as_deref().map(parse_flags).transpose()?;
    Ok(GraphOptions {
        max_depth: args
            .max_depth
            .unwrap_or(crate::engine::api::graph::DEFAULT_MAX_DEPTH),
        runtime: !args.no_runtime,
        windows: WindowsOptions {
            preset,
            app_dir: args.app_dir.clone(),
            dll_dirs: args.dll_dir.clone(),
            set_dll_dir: args.set_dll_dir.clone(),
            load_flags,
            cwd: args.cwd.clone(),
        },
        main_program: None,
        cancel: None,
    })
}

pub fn tree_command(common: &Common, args: &TreeArgs) -> anyhow::Result<i32> {
    // A tree needs files and environment, not the driver: this keeps `tree` in milliseconds.
    let ctx = load_context_with(common, Driver::Skip)?;
    let opts = tree_options(args)?;
    if let Some(n) = args.bench {
        bench_tree(&ctx, &args.binary, &opts, n);
    }
    let outcome = build(&ctx, common, &args.binary, opts, args.from.clone())?;
    let doc = outcome.report(&ctx);
    if common.json {
        println!("{}", doc.to_json_pretty());
    } else {
        let colour = super::output::use_colour();
        if let TreeOutcome::Built {
            graph, resolution, ..
        } = &outcome
        {
            if let Some(r) = resolution {
                println!(
                    "{} → {} [{}]",
                    args.binary,
                    r.path.as_deref().unwrap_or("?"),
                    r.how.as_str()
                );
            }
            print!("{}", crate::engine::api::graph::render_tree(graph, colour));
            println!();
        }
        print!("{}", super::output::render_findings(&doc.findings, colour));
    }
    Ok(exit_code(&doc))
}

/// `--bench N`: N full builds (walk + findings), each with nothing read yet, timings on standard
/// error.
fn bench_tree(ctx: &SystemContext, root: &str, opts: &GraphOptions, n: u32) {
    let mut times = Vec::new();
    let mut nodes = 0;
    for _ in 0..n.max(1) {
        let mut ctx = ctx.clone();
        ctx.fs = ctx.fs.without_binaries();
        let ctx = &ctx;
        let start = std::time::Instant::now();
        if let Some(n) = crate::engine::api::graph::build_and_check(ctx, root, opts) {
            nodes = n;
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

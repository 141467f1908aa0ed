//! `tree BINARY`: the dependency tree of a DLL, .so or executable — or of a bare name
//! (`cublas64_11.dll`, `libcudnn.so.8`) first searched for as the chosen process would — with how
//! each library resolved and every place tried. JSON adds `root`, `root_info` (the root's version,
//! machine and bitness), `root_resolution` for a bare name, and `nodes`.

use super::args::{Common, TreeArgs, TreeContext};
use super::commands::load_context;
use super::output::{exit_code, fail};
use crate::engine::context::{SystemContext, live};
use crate::engine::findings::{Evidence, Finding, Severity};
use crate::engine::graph::{GraphOptions, root};
use crate::engine::loader::Resolution;
use crate::engine::report::Document;

/// The context `tree` works on: the machine file, else this computer without the NVML query
/// (a tree needs files and environment, not the driver; this keeps `tree` in milliseconds).
fn tree_context(common: &Common) -> Result<SystemContext, String> {
    match &common.machine {
        Some(_) => load_context(common),
        None => Ok(live::load_without_driver()),
    }
}

/// The machine path of BINARY: an absolute path as given; a relative one on this computer made
/// absolute from this process's current directory (links are not resolved: ld.so does not
/// either). On a machine file a relative path is the loader's business: on Windows it stays
/// relative and is searched for as LoadLibrary does; on Linux dlopen opens it relative to the
/// process's current directory, which `--cwd` gives.
pub fn tree_root(
    ctx: &SystemContext,
    common: &Common,
    binary: &str,
    cwd: Option<&str>,
) -> Result<String, String> {
    let p = ctx.platform;
    if p.is_absolute(binary) {
        return Ok(p.normalize(binary));
    }
    if common.machine.is_some() {
        return match (p, cwd) {
            (crate::engine::context::Platform::Windows, _) => Ok(binary.to_string()),
            (_, Some(dir)) if p.is_absolute(dir) => Ok(p.normalize(&p.join(dir, binary))),
            _ => Err(format!(
                "{binary} is relative: dlopen opens it from the process's current folder; give that folder with --cwd /abs/dir, or the binary as an absolute path"
            )),
        };
    }
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    Ok(p.normalize(&cwd.join(binary).to_string_lossy()))
}

fn tree_options(args: &TreeArgs) -> Result<GraphOptions, String> {
    use crate::engine::loader::windows::{Preset, WindowsOptions, parse_flags};
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
        main_program: None,
    })
}

pub fn tree_command(common: &Common, args: &TreeArgs) -> i32 {
    use crate::engine::rules;
    let ctx = match tree_context(common) {
        Ok(ctx) => ctx,
        Err(e) => return fail(&e, common.json),
    };
    let opts = match tree_options(args) {
        Ok(o) => o,
        Err(e) => return fail(&e, common.json),
    };
    let arg = if root::is_bare_name(ctx.platform, &args.binary) {
        args.binary.clone()
    } else {
        match tree_root(&ctx, common, &args.binary, args.cwd.as_deref()) {
            Ok(r) => r,
            Err(e) => return fail(&e, common.json),
        }
    };
    if let Some(n) = args.bench {
        bench_tree(&ctx, &arg, &opts, n);
    }
    let (graph, resolution) = match root::build_for(&ctx, &arg, &opts, args.from.as_deref()) {
        Ok(root::Rooted::Built { graph, resolution }) => (graph, resolution),
        Ok(root::Rooted::NotFound(r)) => return not_found(&ctx, common, &args.binary, Some(&r)),
        Err(e) => return fail(&e.to_string(), common.json),
    };
    let findings = rules::tree::check(&ctx, &graph);
    let mut doc = Document::new(&ctx, findings)
        .with("root", &graph.root)
        .with("root_info", root_info_json(&ctx, &graph))
        .with("nodes", &graph.nodes);
    if let Some(r) = &resolution {
        doc = doc.with("root_resolution", resolution_json(&args.binary, r));
    }
    if common.json {
        println!("{}", doc.to_json_pretty());
    } else {
        let colour = super::output::use_colour();
        if let Some(r) = &resolution {
            println!(
                "{} → {} [{}]",
                args.binary,
                r.path.as_deref().unwrap_or("?"),
                r.how.as_str()
            );
        }
        print!("{}", super::tree_output::render_tree(&graph, colour));
        println!();
        print!("{}", super::output::render_findings(&doc.findings, colour));
    }
    exit_code(&doc)
}

fn resolution_json(name: &str, r: &Resolution) -> serde_json::Value {
    serde_json::json!({
        "requested": name,
        "path": r.path,
        "how": r.how,
        "attempts": r.attempts,
    })
}

/// A bare name the process would not find: an error finding with every place tried.
fn not_found(ctx: &SystemContext, common: &Common, name: &str, r: Option<&Resolution>) -> i32 {
    let mut finding = Finding::new(
        "library-not-found",
        Severity::Error,
        format!("{name} is not found where this process looks"),
        format!(
            "Loading {name} by name fails: {}",
            match ctx.platform {
                crate::engine::context::Platform::Windows =>
                    "LoadLibrary reports error 126 (ERROR_MOD_NOT_FOUND).",
                crate::engine::context::Platform::Linux =>
                    "dlopen reports \"cannot open shared object file: No such file or directory\".",
            }
        ),
    )
    .with_libraries(vec![name.to_string()]);
    for a in r.map(|r| r.attempts.as_slice()).unwrap_or_default() {
        finding = finding.with_evidence(Evidence::at(
            "searched",
            crate::engine::rules::tree::attempt_text(a),
            a.directory.clone(),
        ));
    }
    let mut doc = Document::new(ctx, vec![finding]);
    if let Some(r) = r {
        doc = doc.with("root_resolution", resolution_json(name, r));
    }
    if common.json {
        println!("{}", doc.to_json_pretty());
    } else {
        print!(
            "{}",
            super::output::render_findings(&doc.findings, super::output::use_colour())
        );
    }
    exit_code(&doc)
}

/// `--bench N`: N full builds (walk + findings), timings on standard error.
fn bench_tree(ctx: &SystemContext, root: &str, opts: &GraphOptions, n: u32) {
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

/// The root's own identity: version, machine, and for a PE its side-by-side assemblies and
/// .NET header where it has them.
fn root_info_json(
    ctx: &crate::engine::context::SystemContext,
    graph: &crate::engine::graph::DependencyGraph,
) -> serde_json::Value {
    let info = &graph.root_info;
    let mut v = serde_json::json!({
        "version": info.version.version,
        "machine": info.machine.arch,
        "bits": info.machine.bits,
        "format": info.format,
    });
    if !graph.assemblies.is_empty() {
        v["assemblies"] = serde_json::json!(graph.assemblies);
    }
    if let Some(clr) = &info.clr {
        let is_dll = !graph.root.to_ascii_lowercase().ends_with(".exe");
        v["clr"] = serde_json::json!({
            "runtime": clr.runtime, "platform": clr.platform, "il_only": clr.il_only,
            "runs": clr.runs_as(is_dll),
            "python_env": python_net_env(ctx),
        });
    }
    v
}

/// What a .NET host hands Python.NET to find and start Python: the variables it reads, and the
/// bitness of the python DLL `PYTHONNET_PYDLL` names (it must match the host process's).
fn python_net_env(ctx: &crate::engine::context::SystemContext) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    for var in [
        "PYTHONNET_PYDLL",
        "PYTHONNET_RUNTIME",
        "PYTHONHOME",
        "PYTHONPATH",
    ] {
        if let Some(v) = ctx.env.get(var) {
            out.insert(var.into(), serde_json::json!(v));
        }
    }
    if let Some(dll) = ctx.env.get("PYTHONNET_PYDLL") {
        let bits = ctx
            .fs
            .file(dll)
            .ok()
            .and_then(|host| crate::engine::binfmt::read_binary_headers(&host).ok())
            .map(|info| info.machine.bits);
        out.insert("pydll_bits".into(), serde_json::json!(bits));
    }
    serde_json::Value::Object(out)
}

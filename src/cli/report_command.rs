//! `report` and `open`: write the scan (plus any `--tree`s) as a JSON, Markdown or HTML report,
//! redacted unless `--no-redact`; compare saved reports (`--compare A B [C ...]`, as text, JSON
//! or Markdown, to `-o FILE` or standard output); reopen one.
//! Exit codes: 0/1 by the report's findings (for `--compare`, 1 when the machines differ), 2 when
//! the tool failed (unwritable file, unreadable, damaged, non-report or newer-schema report, a
//! report that redaction could not keep readable — then nothing is written —, or an option
//! `--compare` does not take).

use super::args::{Common, ReportArgs};
use super::load::load_context;
use super::output::{
    EXIT_CLEAN, EXIT_PROBLEMS, asked_format, exit_code, print_or_write, render_text, use_colour,
};
use crate::engine::api::report::compare;
use crate::engine::api::{self, Report, ReportError, ReportFormat, SystemContext};
use std::path::{Path, PathBuf};

pub fn report_command(common: &Common, args: &ReportArgs) -> anyhow::Result<i32> {
    if !args.compare.is_empty() {
        return compare_command(common, args);
    }
    let mut ctx = load_context(common)?;
    if args.gpu_test && common.machine.is_some() {
        anyhow::bail!("--gpu-test runs the GPU of this computer; it does not go with --machine");
    }
    api::report::start_recording(&mut ctx);
    let mut doc = super::scan_command::scan_document_with(&ctx, &Default::default())?;
    let sets = match (&doc.inventory, args.gpu_test) {
        (Some(inventory), true) => crate::engine::api::gpu_sets(&ctx, inventory),
        _ => Vec::new(),
    };
    if args.gpu_test {
        doc = with_gpu_test(doc, sets.into_iter().next());
    }
    let trees = match args.trees.is_empty() {
        true => Vec::new(),
        false => trees_of(&ctx, common, &args.trees)?,
    };
    // The snapshot is taken last, so it holds every file the scan and the trees read.
    api::report::attach_snapshot(&mut doc, &ctx);
    if args.no_redact {
        eprintln!("cuda-triage: {}", api::report::unredacted_note(&doc));
    }
    let request = api::report::ReportRequest {
        trees,
        redact: !args.no_redact,
        fixes_applied: (ctx.source == crate::engine::api::ContextSource::Live)
            .then(api::report::fixes_applied),
        ..Default::default()
    };
    let mut doc = api::report::build(&doc, request)?;
    // The admin's name for the machine is kept as given: it is the identity they chose to share.
    doc.label = args.label.clone();
    // JSON unless a format or the output file's extension says otherwise.
    let format =
        asked_format(args.format, args.output.as_deref(), true).unwrap_or(ReportFormat::Json);
    match &args.output {
        None => print!("{}", format.render(&doc)),
        Some(path) => {
            api::report::save(&doc, path, format)?;
            if !common.json {
                eprintln!("{} report written to {}", format.label(), path.display());
            }
        }
    }
    Ok(exit_code(&doc))
}

/// Runs the quick GPU test on the first library set the scan offers (the libraries the first
/// framework's process would load) and puts its result and findings into the report.
fn with_gpu_test(doc: Report, set: Option<crate::engine::api::gpu::LibrarySet>) -> Report {
    use crate::engine::api::gpu;
    if let Some(set) = &set {
        eprintln!("GPU test of {}", set.label);
    }
    let opts = gpu::Options {
        selection: set.map(|s| s.selection).unwrap_or_default(),
        quick: true,
        timeout: gpu::QUICK_TIMEOUT,
        ..Default::default()
    };
    let outcome = gpu::run(&opts, &crate::engine::api::Progress::new(), |_| {});
    api::report::with_gpu_test(doc, &outcome)
}

/// The dependency trees `--tree` asks for.
fn trees_of(
    ctx: &SystemContext,
    common: &Common,
    binaries: &[String],
) -> anyhow::Result<Vec<crate::engine::api::SavedTree>> {
    let mut out = Vec::new();
    for binary in binaries {
        let graph = match super::tree_command::build(ctx, common, binary, Default::default(), None)?
        {
            crate::engine::api::TreeOutcome::Built { graph, .. } => graph,
            crate::engine::api::TreeOutcome::NotFound { finding, .. } => {
                anyhow::bail!(finding.summary);
            }
        };
        out.push(crate::engine::api::SavedTree {
            nodes: graph.nodes,
            root: graph.root,
        });
    }
    Ok(out)
}

fn load_all(paths: &[PathBuf]) -> Result<Vec<(String, Report)>, ReportError> {
    paths
        .iter()
        .map(|p| Report::load(p).map(|d| (p.display().to_string(), d)))
        .collect()
}

/// How `--compare` writes: text unless `--json`, `--format` or the output file's extension
/// says otherwise.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CompareFormat {
    Text,
    Json,
    Markdown,
}

impl CompareFormat {
    fn of(common: &Common, args: &ReportArgs) -> anyhow::Result<CompareFormat> {
        let Some(asked) = asked_format(args.format, args.output.as_deref(), common.json) else {
            return Ok(CompareFormat::Text);
        };
        match asked {
            ReportFormat::Json => Ok(CompareFormat::Json),
            ReportFormat::Markdown => Ok(CompareFormat::Markdown),
            ReportFormat::Html => anyhow::bail!(
                "--compare writes JSON or Markdown, not HTML \
                 (use --format json or --format md, or an output file ending in .json or .md)"
            ),
        }
    }
}

/// Options that belong to writing a report and mean nothing to `--compare`.
fn compare_refuses(args: &ReportArgs) -> Option<&'static str> {
    if !args.trees.is_empty() {
        Some("--tree")
    } else if args.gpu_test {
        Some("--gpu-test")
    } else if args.no_redact {
        Some("--no-redact")
    } else if args.label.is_some() {
        Some("--label")
    } else {
        None
    }
}

fn compare_command(common: &Common, args: &ReportArgs) -> anyhow::Result<i32> {
    if let Some(option) = compare_refuses(args) {
        anyhow::bail!(
            "{option} does not go with --compare (it compares saved reports as they are)"
        );
    }
    let format = CompareFormat::of(common, args)?;
    let reports = load_all(&args.compare)?;
    let pretty = |v: serde_json::Value| serde_json::to_string_pretty(&v).unwrap_or_default() + "\n";
    let schema = crate::engine::api::SCHEMA;
    let (text, differs) = if let [(a_label, a), (b_label, b)] = reports.as_slice() {
        let c = compare::compare(a, b);
        let text = match format {
            CompareFormat::Json => pretty(serde_json::json!({
                "schema": schema,
                "comparison": {"a": a_label, "b": b_label, "result": c},
            })),
            CompareFormat::Markdown => compare::render_markdown(a_label, b_label, &c),
            CompareFormat::Text => compare::render_text(a_label, b_label, &c),
        };
        (text, c.differs())
    } else {
        let groups = compare::group(&reports);
        let text = match format {
            CompareFormat::Json => pretty(serde_json::json!({"schema": schema, "groups": groups})),
            CompareFormat::Markdown => compare::render_groups_markdown(&groups),
            CompareFormat::Text => compare::render_groups_text(&groups),
        };
        (text, groups.len() > 1)
    };
    print_or_write(&text, args.output.as_deref(), "comparison", common.json)?;
    Ok(if differs { EXIT_PROBLEMS } else { EXIT_CLEAN })
}

/// `open REPORT.json`: this build's rules run again on the report's snapshot (a report written
/// by this build on its own machine reopens byte for byte); JSON or text.
/// A folder opens as the fleet view of its reports.
pub fn open_command(common: &Common, report: &Path) -> anyhow::Result<i32> {
    if report.is_dir() {
        let args = super::args::FleetArgs {
            inputs: vec![report.to_path_buf()],
            ..Default::default()
        };
        return super::fleet_command::fleet_command(common, &args);
    }
    let loaded = api::report::open(report).map(|reopened| {
        if let Some(note) = &reopened.note {
            eprintln!("cuda-triage: {note}");
        }
        reopened.document
    });
    match loaded {
        Ok(doc) if common.json => {
            println!("{}", doc.to_json_pretty());
            Ok(exit_code(&doc))
        }
        Ok(doc) => {
            print!("{}", render_text(&doc, use_colour()));
            // A saved GPU test is shown as `gpu-test` showed it: device, libraries, workloads.
            if let Some(gpu) = &doc.gpu {
                print!("\n{}", super::gpu_command::render_gpu_text(gpu));
            }
            Ok(exit_code(&doc))
        }
        Err(e) => Err(e.into()),
    }
}

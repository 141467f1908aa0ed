//! `cuda-triage gpu-test`: builds the library selection from the flags, runs the test in a child
//! process (or, with the hidden `--child`, *is* that child), shows progress on standard error and
//! prints the document with its `"gpu"` key.

use super::args::{Common, GpuTestArgs};
use super::output::{emit, use_colour};
use crate::engine::api::gpu::{self, GpuReport, Options, Role, Selection, Update};
use crate::engine::api::{self, Driver, Progress, Report, Source, SystemContext};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

pub fn gpu_test_command(common: &Common, args: &GpuTestArgs) -> anyhow::Result<i32> {
    if args.sets {
        return sets_command(common);
    }
    let mut selection = selection(args)?;
    if let Some(kind) = args.framework.filter(|_| !args.child) {
        if common.machine.is_some() {
            anyhow::bail!(
                "gpu-test runs the GPU of this computer; --machine only goes with --sets"
            );
        }
        let Some(set) = scanned_sets(&live_context()?)?
            .into_iter()
            .find(|s| s.framework == Some(kind))
        else {
            anyhow::bail!(
                "the scan found no CUDA build of {} whose libraries resolve on this computer",
                kind.display_name()
            );
        };
        eprintln!("Testing the libraries of {}", set.label);
        selection.fill_unset(&set.selection);
    }
    if args.child {
        return Ok(gpu::run_child(&gpu::ChildArgs {
            selection,
            quick: args.quick,
            device: args.device,
        }));
    }
    if common.machine.is_some() {
        anyhow::bail!("gpu-test runs the GPU of this computer; --machine does not apply to it");
    }
    let default_timeout = if args.quick {
        gpu::QUICK_TIMEOUT
    } else {
        gpu::FULL_TIMEOUT
    };
    let opts = Options {
        selection,
        quick: args.quick,
        device: args.device,
        timeout: args
            .timeout_secs
            .map(Duration::from_secs)
            .unwrap_or(default_timeout),
        exe: None,
        session: api::SessionEnvironment::this_process(),
    };
    let show = std::io::stderr().is_terminal() || !common.json;
    let outcome = gpu::run(&opts, &Progress::new(), |u| {
        if show && let Update::Progress { stage, done, total } = u {
            if total > 0 {
                eprintln!("[{done}/{total}] {stage}");
            } else {
                eprintln!("{stage}");
            }
        }
    });
    let ctx = live_context()?;
    let doc = crate::engine::api::report::with_gpu_test(Report::new(&ctx, Vec::new()), &outcome);
    if !common.json {
        print!("{}", render_gpu_text(&outcome.report));
        println!();
    }
    Ok(emit(&doc, common.json))
}

/// `gpu-test --sets`: the library sets the scan finds, as text or in the document's `gpu_sets`.
fn sets_command(common: &Common) -> anyhow::Result<i32> {
    let ctx = super::load::load_context(common)?;
    let found = scanned_sets(&ctx)?;
    if !common.json {
        if found.is_empty() {
            println!("The scan found no framework or toolkit libraries to test.");
        }
        for (i, set) in found.iter().enumerate() {
            println!("{}. {}", i + 1, set.label);
            for role in Role::ALL {
                let path = set.selection.get(role).map_or_else(
                    || "(the system loader's choice)".to_string(),
                    |p| p.display().to_string(),
                );
                println!("   {:<8} {path}", role.as_str());
            }
        }
        return Ok(0);
    }
    let mut doc = Report::new(&ctx, Vec::new());
    doc.gpu_sets = Some(found);
    Ok(emit(&doc, true))
}

/// This computer with its driver facts.
fn live_context() -> Result<SystemContext, crate::engine::api::Error> {
    api::load(&Source::live(), Driver::Ask)
}

/// Scans the machine and returns the library sets it offers the test.
fn scanned_sets(ctx: &SystemContext) -> anyhow::Result<Vec<crate::engine::api::gpu::LibrarySet>> {
    let scan = super::scan_command::scan_document_with(ctx, &Default::default())?;
    Ok(api::gpu_sets(ctx, &scan.inventory.unwrap_or_default()))
}

/// Absolute paths from the flags, then `--dir` for the rest.
fn selection(args: &GpuTestArgs) -> anyhow::Result<Selection> {
    use anyhow::Context;
    let abs = |p: &Option<PathBuf>| -> anyhow::Result<Option<PathBuf>> {
        p.as_ref()
            .map(|p| std::path::absolute(p).with_context(|| p.display().to_string()))
            .transpose()
    };
    let mut sel = Selection {
        driver: abs(&args.driver)?,
        cudart: abs(&args.cudart)?,
        cublas: abs(&args.cublas)?,
        cudnn: abs(&args.cudnn)?,
    };
    if let Some(dir) = &args.dir {
        let dir = std::path::absolute(dir).with_context(|| dir.display().to_string())?;
        if !dir.is_dir() {
            anyhow::bail!("{}: not a folder", dir.display());
        }
        sel.fill_from(&gpu::list_files(&dir), cfg!(windows));
    }
    Ok(sel)
}

/// The GPU part of the text output: device, libraries, a results table and the verdict.
pub fn render_gpu_text(r: &GpuReport) -> String {
    let mut out = String::new();
    let bold = |t: &str| {
        if use_colour() {
            format!("\x1b[1m{t}\x1b[0m")
        } else {
            t.to_string()
        }
    };
    out.push_str(&format!("{}\n", bold("GPU test")));
    if let Some(d) = &r.device {
        out.push_str(&format!(
            "Device:    {} (compute capability {}, {} SMs, {} MiB)\n",
            d.name,
            d.compute_capability.as_deref().unwrap_or("?"),
            d.sm_count.map_or("?".into(), |v| v.to_string()),
            d.memory_total_mib.map_or("?".into(), |v| v.to_string()),
        ));
    }
    for lib in &r.libraries {
        out.push_str(&format!(
            "{:<10} {} {}\n",
            format!("{}:", lib.role.as_str()),
            lib.version_label(),
            lib.mapped.as_deref().unwrap_or(&lib.requested)
        ));
        if let Some(e) = &lib.error {
            out.push_str(&format!("{:<10} {e}\n", ""));
        }
    }
    if !r.workloads.is_empty() {
        out.push_str(&format!(
            "\n{:<24} {:>10} {:>14} {:>9} {:>8}\n",
            "workload", "median ms", "rate", "of peak", "correct"
        ));
    }
    for w in &r.workloads {
        let rate = match (w.tflops, w.gbps) {
            (Some(t), _) => format!("{t:.2} TFLOPS"),
            (None, Some(g)) => format!("{g:.1} GB/s"),
            _ => "-".into(),
        };
        out.push_str(&format!(
            "{:<24} {:>10.3} {:>14} {:>9} {:>8}\n",
            w.name,
            w.median_ms,
            rate,
            w.fraction_of_peak
                .map_or("-".into(), |f| format!("{:.0}%", f * 100.0)),
            if w.correctness.passed { "yes" } else { "NO" },
        ));
    }
    out.push_str(&format!(
        "\nVerdict:   {} - {} ({:.1} s)\n",
        r.verdict.as_str(),
        r.summary,
        r.wall_s
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_become_absolute_and_a_missing_dir_is_an_error() {
        let args = GpuTestArgs {
            cublas: Some("lib/libcublas.so.12".into()),
            ..Default::default()
        };
        let sel = selection(&args).unwrap();
        assert!(sel.cublas.unwrap().is_absolute());
        let args = GpuTestArgs {
            dir: Some("/no/such/folder".into()),
            ..Default::default()
        };
        assert!(
            selection(&args)
                .unwrap_err()
                .to_string()
                .contains("not a folder")
        );
    }
}

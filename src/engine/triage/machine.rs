//! Machine-aware triage: for each library an error text names, where its copies are on the
//! machine, how each loading context resolves it (with every folder tried), what its own
//! dependency tree lacks, whether a 64-bit copy meets a 32-bit process (error 193), and the
//! scan's rule findings that concern it (wrong major, zlibwapi, CUPTI, ptxas...).

use super::Triage;
use crate::engine::context::SystemContext;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::graph::process::{self, PresenceProbe, Process};
use crate::engine::graph::{self, GraphOptions};
use crate::engine::progress::Progress;

/// Rule codes that explain a ptxas / XLA message.
const PTXAS_CODES: &[&str] = &[
    "ptxas-",
    "libdevice-",
    codes::PATH_ENTRY_TYPO,
    codes::CUDA_ENV_VAR_MISSING_DIR,
    "xla-",
    codes::MULTIPLE_TOOLKITS_ON_PATH,
    codes::CUDA_PATH_MISMATCH,
];

pub fn findings(ctx: &SystemContext, t: &Triage) -> Vec<Finding> {
    let scanned = crate::engine::diagnosis::run(ctx, &Progress::new());
    let inv = &scanned.inventory;
    let names: Vec<String> = t
        .identified
        .iter()
        .map(|i| i.file.to_ascii_lowercase())
        .collect();
    let mentions_ptxas = t
        .messages
        .iter()
        .any(|m| format!("{m:?}").to_ascii_lowercase().contains("ptxas"));
    let mut out: Vec<Finding> = scanned
        .findings
        .into_iter()
        .filter(|f| {
            f.libraries
                .iter()
                .any(|l| names.contains(&l.to_ascii_lowercase()))
                || (mentions_ptxas && PTXAS_CODES.iter().any(|c| f.code.starts_with(c)))
        })
        .collect();
    let says_193 = t.codes.iter().any(|c| {
        c.number == Some(193) || c.number == Some(0x8007000B) || c.number == Some(-2147024885)
    });
    let probe = PresenceProbe::new(ctx);
    let mut contexts: Vec<Process> = vec![process::host_app(ctx, None)];
    for env in inv.python_envs.iter().filter(|e| !e.frameworks.is_empty()) {
        contexts.push(process::framework_loader(ctx, env, None));
        if ctx.platform == crate::engine::context::Platform::Windows {
            contexts.push(process::python_extension_loader(ctx, env, &env.root));
        }
    }
    let known = std::cell::OnceCell::new();
    for id in &t.identified {
        let copies = known
            .get_or_init(|| crate::engine::loader::where_else::KnownLibraries::new(ctx, inv))
            .copies_of(ctx, &id.file);
        let mut f = Finding::new(
            codes::LIBRARY_ON_MACHINE,
            Severity::Info,
            format!(
                "{}: {} on this machine",
                id.file,
                if copies.is_empty() {
                    "no copy".to_string()
                } else {
                    format!("{} copies", copies.len())
                }
            ),
            format!(
                "Where {} is on this machine and how each loading context resolves it.",
                id.file
            ),
        )
        .with_libraries([id.file.clone()]);
        for c in &copies {
            f = f.with_evidence(Evidence::at("file", "copy", c.clone()));
        }
        for p in &contexts {
            let r = p.resolve(&id.file, &probe);
            let text = match &r.path {
                Some(path) => format!("{}: loads {path} ({})", p.label, r.how.as_str()),
                None => format!(
                    "{}: not found ({} folders searched)",
                    p.label,
                    r.attempts.len()
                ),
            };
            f = f.with_evidence(Evidence::new("context", text));
            for a in &r.attempts {
                f = f.with_evidence(Evidence::at(
                    "searched",
                    format!("{} ({})", a.directory, a.source.as_str()),
                    a.directory.clone(),
                ));
            }
        }
        out.push(f);
        for c in &copies {
            out.extend(copy_findings(ctx, c, says_193));
        }
    }
    out
}

/// The dependency tree of one copy, and its bitness against the program next to it.
fn copy_findings(ctx: &SystemContext, copy: &str, says_193: bool) -> Vec<Finding> {
    let mut out = Vec::new();
    let Ok(g) = graph::build(
        ctx,
        copy,
        &GraphOptions {
            max_depth: 3,
            ..GraphOptions::default()
        },
    ) else {
        return out;
    };
    out.extend(
        crate::engine::graph::checks::check(ctx, &g)
            .into_iter()
            .filter(|f| f.severity != Severity::Info),
    );
    let Some(info) = g.info(copy).cloned() else {
        return out;
    };
    let dir = ctx.platform.parent(copy).unwrap_or_default();
    let exes: Vec<(String, crate::engine::binfmt::Machine)> = ctx
        .fs
        .read_dir(&dir)
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e.is_file && e.name.to_ascii_lowercase().ends_with(".exe"))
        .filter_map(|e| {
            ctx.fs
                .binaries()
                .binary(
                    &e.host,
                    crate::engine::binfmt::cache::Reader::Binary(
                        crate::engine::binfmt::Detail::FULL,
                    ),
                )
                .ok()
                .map(|b| (e.path, b.machine.clone()))
        })
        .collect();
    let mismatch = exes.iter().find(|(_, m)| m.bits != info.machine.bits);
    if mismatch.is_some() || says_193 {
        let (proc_text, mut evidence) = match mismatch {
            Some((exe, m)) => (
                format!("{exe} is a {}-bit program", m.bits),
                vec![Evidence::at(
                    "file",
                    format!("{}-bit program", m.bits),
                    exe.clone(),
                )],
            ),
            None => (
                "the process reported error 193 (0x8007000B, BadImageFormatException)".to_string(),
                Vec::new(),
            ),
        };
        evidence.push(Evidence::at(
            "file",
            format!(
                "{} is {}-bit",
                ctx.platform.file_name(copy),
                info.machine.bits
            ),
            copy.to_string(),
        ));
        let mut f = Finding::new(
            codes::PROCESS_BITNESS_MISMATCH,
            Severity::Error,
            format!("{} is {}-bit, but the process loading it is not", ctx.platform.file_name(copy), info.machine.bits),
            format!("{proc_text}; {copy} is built for {} ({}-bit). A process can only load DLLs of its own bitness, so loading fails with error 193 / 0x8007000B (\"An attempt was made to load a program with an incorrect format\"). CUDA and cuDNN ship 64-bit only: run the application as a 64-bit process (.NET: PlatformTarget x64, untick \"Prefer 32-bit\").", info.machine.arch, info.machine.bits),
        )
        .with_libraries([ctx.platform.file_name(copy).to_string()])
        .with_fix(FixRef { id: "build-x64".into(), kind: FixKind::Manual, summary: "Build and run the application as x64 (.NET: PlatformTarget x64, no Prefer 32-bit)".into() });
        f.evidence = evidence;
        out.push(f);
    }
    out
}

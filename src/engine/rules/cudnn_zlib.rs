//! cuDNN 8 on Windows opens `zlibwapi.dll` at run time (knowledge `runtime_loads.toml`): no copy
//! in any folder the loading process searches, or a 32-bit copy on the way (skipped when a 64-bit
//! one follows; error 193 when none does).
//!
//! Each is a warning, never an error: no cuDNN 8 DLL imports zlibwapi.dll. The import tables of
//! all seven DLLs of cuDNN 8.9.4 and 8.9.5 (the `nvidia-cudnn-cu11` Windows wheels) name only
//! KERNEL32.dll and each other; `cudnn_cnn_infer64_8.dll` holds `zlibwapi.dll` as a string and
//! opens it itself, and the shim's message for that load ("Could not locate zlibwapi.dll. Please
//! make sure it is in your library path!", a string in `cudnn64_8.dll`) is the one users of
//! cuDNN 8.3–8.9 report. So the framework imports and cuDNN loads (TensorFlow 2.10 lists the GPU
//! under Wine with zlibwapi.dll off PATH: tests/integration/oracle_import_windows); what fails
//! is the first convolution, when cuDNN opens it. cuDNN 9's DLLs keep only the shim's message
//! and use no zlib (cuDNN 9.1.0's seven DLLs read the same way), so cuDNN 9 is never judged here.

use super::RuleInput;
use crate::engine::binfmt::{BinaryInfo, Format, Machine};
use crate::engine::context::{Platform, SystemContext};
use crate::engine::finding_codes as codes;
use crate::engine::findings::{CopyFile, Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::graph::process::{self, PresenceProbe, Process, attempts_evidence};
use crate::engine::inventory::Inventory;
use crate::engine::loader::where_else::copies_of;
use crate::engine::loader::{FileProbe, Outcome, Probe};
use std::sync::Arc;

const ZLIB: &str = "zlibwapi.dll";

/// How cuDNN 8 loads zlibwapi.dll, for the findings' details (the facts in the module header).
const RUN_TIME: &str = "cuDNN 8 on Windows (8.3 through 8.9) opens zlibwapi.dll itself, at run time, when its convolution library (cudnn_cnn_infer64_8.dll) first needs it: no cuDNN 8 DLL imports it (the import tables of cuDNN 8.9.4's and 8.9.5's DLLs, nvidia-cudnn-cu11 on PyPI; release notes: https://docs.nvidia.com/deeplearning/cudnn/archives/cudnn-894/pdf/cuDNN-Release-Notes.pdf).";

/// The row of the run-time load table that has cuDNN 8 open zlibwapi.dll, as the findings'
/// `load-list` evidence: which DLLs open it, how, and the source.
fn load_list_row() -> Option<Evidence> {
    let row = crate::engine::loader::runtime::rules()
        .iter()
        .find(|r| r.platform == Platform::Windows && r.loads.iter().any(|l| l == ZLIB))?;
    Some(Evidence::new(
        "load-list",
        format!(
            "{ZLIB}: opened at run time by {} (no import table names it): {}; source: {} (runtime_loads.toml)",
            row.parents.join(", "),
            row.note,
            row.source
        ),
    ))
}

/// `f` with [`load_list_row`] as evidence.
fn with_load_list(f: Finding) -> Finding {
    match load_list_row() {
        Some(e) => f.with_evidence(e),
        None => f,
    }
}

/// A file probe that answers "built for x86 (32-bit)" for the copies the scan identified so.
struct KnownBits<'a> {
    inner: &'a dyn FileProbe,
    platform: Platform,
    thirty_two: Vec<String>,
}

impl FileProbe for KnownBits<'_> {
    fn probe(&self, machine_path: &str) -> Probe {
        if self
            .thirty_two
            .iter()
            .any(|p| self.platform.same_path(p, machine_path))
        {
            let x86 = Machine::new("i386".to_string(), 32);
            return Probe::Binary(Arc::new(BinaryInfo::empty(Format::Pe, x86)));
        }
        self.inner.probe(machine_path)
    }
}

/// The processes that may load cuDNN 8: each Python environment with a CUDA build of a framework
/// that expects cuDNN 8 (or does not say which cuDNN), else any application when no environment
/// has a framework. An environment whose frameworks are CPU builds or expect another cuDNN major
/// never loads cuDNN 8's sub-libraries, so zlibwapi.dll is nothing to it (a real onnxruntime-gpu
/// 1.19.2, cuDNN 9, loads its CUDA provider, and torch 2.5.1's CPU wheel imports, beside a CUDA
/// 11.8 toolkit holding cuDNN 8 and no zlibwapi.dll: tests/integration/oracle_import_windows).
fn loaders(ctx: &SystemContext, inv: &Inventory) -> Vec<Process> {
    let with_frameworks: Vec<_> = inv
        .python_envs
        .iter()
        .filter(|e| !e.frameworks.is_empty())
        .collect();
    if with_frameworks.is_empty() {
        return vec![process::host_app(ctx, None)];
    }
    with_frameworks
        .into_iter()
        .filter(|e| {
            e.frameworks.iter().any(|f| {
                f.cuda_build != Some(false)
                    && f.expects
                        .cudnn
                        .as_deref()
                        .is_none_or(|v| v.split('.').next() == Some("8"))
            })
        })
        .map(|e| process::framework_loader(ctx, e, None))
        .collect()
}

pub fn check(input: &RuleInput) -> Vec<Finding> {
    let (ctx, inv) = (input.ctx, input.inventory);

    if ctx.platform != Platform::Windows {
        return Vec::new();
    }
    let presence = PresenceProbe::new(ctx);
    // Copies the scan read as 32-bit are what they are, even where the probe cannot parse them
    // (a machine file's stand-ins): the loader skips them and goes on searching.
    let probe = KnownBits {
        inner: &presence,
        platform: ctx.platform,
        thirty_two: inv
            .zlibwapi
            .iter()
            .filter(|z| z.bits == Some(32))
            .map(|z| z.path.clone())
            .collect(),
    };
    let mut out = Vec::new();
    for c in &inv.cudnn {
        let major8 = c
            .version
            .as_deref()
            .is_some_and(|v| v.split('.').next() == Some("8"))
            || c.libraries
                .iter()
                .any(|l| l.to_ascii_lowercase().ends_with("64_8.dll"));
        if !major8 {
            continue;
        }
        let lib_dir = c
            .library_dirs
            .first()
            .cloned()
            .unwrap_or_else(|| c.root.clone());
        let cudnn_libs: Vec<String> = c
            .libraries
            .iter()
            .filter(|l| l.to_ascii_lowercase().starts_with("cudnn"))
            .cloned()
            .collect();
        for loader in loaders(ctx, inv) {
            let r = loader.resolve(ZLIB, &probe);
            let wrong_first = r
                .attempts
                .iter()
                .find(|a| matches!(a.outcome, Outcome::WrongMachine { .. }));
            let found_32 = r.path.as_deref().and_then(|p| {
                inv.zlibwapi
                    .iter()
                    .find(|z| ctx.platform.same_name(&z.path, p) && z.bits == Some(32))
            });
            let finding = if let Some(a) = wrong_first {
                let found = match &a.outcome {
                    Outcome::WrongMachine { found } => found.clone(),
                    _ => String::new(),
                };
                Some(bitness(
                    &ctx.platform.join(&a.directory, ZLIB),
                    &found,
                    r.path.as_deref(),
                    &lib_dir,
                ))
            } else if let Some(z) = found_32 {
                Some(bitness(&z.path, "x86 (32-bit)", None, &lib_dir))
            } else if !r.is_resolved() {
                Some(missing(ctx, inv, &lib_dir))
            } else {
                None
            };
            if let Some(mut f) = finding {
                f.libraries.extend(cudnn_libs.iter().cloned());
                f.evidence.insert(
                    0,
                    Evidence::at(
                        "file",
                        format!("cuDNN {} install", c.version.as_deref().unwrap_or("8")),
                        c.root.clone(),
                    ),
                );
                f.evidence.extend(attempts_evidence(&loader, &r));
                out.push(f);
                break;
            }
        }
    }
    out
}

/// A zlibwapi.dll for the wrong machine on the search path. The loader skips such a file and
/// goes on searching (the emulation's rule, checked against Wine's loader in
/// tests/integration/oracle_wine.rs): with a 64-bit copy later it costs nothing today (a program
/// that opens the 32-bit one by its path, or a 32-bit process, still takes it); with none,
/// cuDNN's run-time load fails with error 193 at the first convolution.
fn bitness(path: &str, found: &str, later: Option<&str>, lib_dir: &str) -> Finding {
    let f = match later {
        Some(good) => Finding::new(
            codes::ZLIBWAPI_WRONG_BITNESS,
            Severity::Warning,
            format!("A zlibwapi.dll built for {found} comes first in the search order; the loader skips it"),
            format!("{RUN_TIME} The copy at {path} is built for {found}, which a 64-bit process cannot load: the loader skips it and takes the 64-bit {good}. Nothing fails today, but the 32-bit copy is a trap: remove it from the search path."),
        ),
        None => Finding::new(
            codes::ZLIBWAPI_WRONG_BITNESS,
            Severity::Warning,
            format!("The only zlibwapi.dll found is {found}: cuDNN 8's convolutions will fail when they load it"),
            format!("{RUN_TIME} The copy at {path} is built for {found}, and a 64-bit process cannot load it; no 64-bit copy is found, so that load fails with error 193 (\"%1 is not a valid Win32 application\"): the import and cuDNN's start-up work, the first convolution does not."),
        )
        .with_fix(FixRef { id: format!("copy-zlibwapi-x64:{lib_dir}"), kind: copy_zlib(lib_dir, Vec::new()), summary: format!("Put a 64-bit zlibwapi.dll in {lib_dir} (next to the cuDNN DLLs, on PATH)") }),
    };
    with_load_list(f.with_libraries([ZLIB]))
        .with_evidence(Evidence::at(
            "file",
            format!("zlibwapi.dll built for {found}"),
            path,
        ))
        .with_fix(FixRef {
            id: format!("remove-32bit-zlibwapi:{path}"),
            kind: FixKind::Manual,
            summary: format!("Move the 32-bit {path} out of the search path"),
        })
}

fn missing(ctx: &SystemContext, inv: &Inventory, lib_dir: &str) -> Finding {
    let copies = copies_of(ctx, inv, ZLIB);
    let mut f = with_load_list(Finding::new(
        codes::CUDNN8_ZLIBWAPI_MISSING,
        Severity::Warning,
        "cuDNN 8 will not find zlibwapi.dll: convolutions will fail when it loads it",
        format!("{RUN_TIME} No folder the process searches holds one, so the framework imports and cuDNN loads, and the first convolution stops with cuDNN's \"Could not locate zlibwapi.dll. Please make sure it is in your library path!\" (often followed by \"cudnn_cnn_infer64_8.dll cannot be loaded\" and the process exiting). cuDNN does not ship zlibwapi.dll (the WINAPI build of zlib): NVIDIA's cuDNN 8 installation guide (\"Installing Zlib\", https://docs.nvidia.com/deeplearning/cudnn/archives/cudnn-893/pdf/cuDNN-Installation-Guide.pdf) has it installed separately into a folder on PATH."),
    )
    .with_libraries([ZLIB]));
    for c in &copies {
        f = f.with_evidence(Evidence::at(
            "file",
            "a zlibwapi.dll outside the searched folders",
            c.clone(),
        ));
    }
    f.with_fix(FixRef {
        id: format!("copy-zlibwapi-x64:{lib_dir}"),
        kind: copy_zlib(lib_dir, copies),
        summary: format!("Put a 64-bit zlibwapi.dll (zlib 1.2.x, x64) in {lib_dir}"),
    })
}

/// The typed copy of a 64-bit zlibwapi.dll into `lib_dir`, from one of `candidates` or a file the user picks.
fn copy_zlib(lib_dir: &str, candidates: Vec<String>) -> FixKind {
    FixKind::CopyFile {
        copy: Some(CopyFile {
            file_name: ZLIB.to_string(),
            dest_dir: lib_dir.to_string(),
            machine: "x64".into(),
            candidates,
        }),
    }
}

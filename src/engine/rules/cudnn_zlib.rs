//! cuDNN 8 on Windows opens `zlibwapi.dll` at run time (knowledge `runtime_loads.toml`): no copy
//! in any folder the loading process searches, or a 32-bit copy found first (error 193).

use super::process::{self, PresenceProbe, Process, attempts_evidence};
use super::where_else::copies_of;
use crate::engine::context::{Platform, SystemContext};
use crate::engine::findings::{CopyFile, Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::loader::Outcome;
use crate::engine::scan::inventory::Inventory;

const ZLIB: &str = "zlibwapi.dll";

/// The processes that load cuDNN: each Python environment with a framework, else any application.
fn loaders(ctx: &SystemContext, inv: &Inventory) -> Vec<Process> {
    let mut out: Vec<Process> = inv
        .python_envs
        .iter()
        .filter(|e| !e.frameworks.is_empty())
        .map(|e| process::framework_loader(ctx, e, None))
        .collect();
    if out.is_empty() {
        out.push(process::host_app(ctx, None));
    }
    out
}

pub fn check(ctx: &SystemContext, inv: &Inventory) -> Vec<Finding> {
    if ctx.platform != Platform::Windows {
        return Vec::new();
    }
    let probe = PresenceProbe::new(ctx);
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
                    r.is_resolved(),
                    &lib_dir,
                ))
            } else if let Some(z) = found_32 {
                Some(bitness(&z.path, "x86 (32-bit)", false, &lib_dir))
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

fn bitness(path: &str, found: &str, later_ok: bool, lib_dir: &str) -> Finding {
    let tail = if later_ok {
        " A 64-bit copy exists later in the search order, but the loader stops at the first file of that name and fails with error 193 (\"%1 is not a valid Win32 application\")."
    } else {
        " No 64-bit copy is found, so loading fails with error 193 (\"%1 is not a valid Win32 application\")."
    };
    Finding::new(
        "zlibwapi-wrong-bitness",
        Severity::Error,
        format!("The zlibwapi.dll found first is {found}; cuDNN 8 needs a 64-bit one"),
        format!("cuDNN 8 loads zlibwapi.dll when it first runs a convolution. The copy at {path} is built for {found}, and a 64-bit process cannot load it.{tail}"),
    )
    .with_libraries([ZLIB])
    .with_evidence(Evidence::at("file", format!("zlibwapi.dll built for {found}"), path))
    .with_fix(FixRef { id: format!("copy-zlibwapi-x64:{lib_dir}"), kind: copy_zlib(lib_dir, Vec::new()), summary: format!("Put a 64-bit zlibwapi.dll in {lib_dir} (next to the cuDNN DLLs, on PATH)") })
    .with_fix(FixRef { id: format!("remove-32bit-zlibwapi:{path}"), kind: "manual".into(), summary: format!("Move the 32-bit {path} out of the search path") })
}

fn missing(ctx: &SystemContext, inv: &Inventory, lib_dir: &str) -> Finding {
    let copies = copies_of(ctx, inv, ZLIB);
    let mut f = Finding::new(
        "cudnn8-zlibwapi-missing",
        Severity::Error,
        "cuDNN 8 needs zlibwapi.dll, and the loading process cannot find one",
        "cuDNN 8 on Windows (8.3 through 8.9) loads zlibwapi.dll, the WINAPI build of zlib, when it first needs its sub-libraries; cudnn_cnn_infer64_8.dll and the others then fail to load (\"Could not locate zlibwapi.dll\" or \"cudnn_cnn_infer64_8.dll cannot be loaded\"). cuDNN does not ship it: it must be installed separately into a folder the process searches.",
    )
    .with_libraries([ZLIB]);
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

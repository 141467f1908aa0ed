//! The CUDA libraries a framework's own code opens at run time (its load list,
//! [`crate::engine::graph::load_list`]), resolved the way *its* process searches: missing from
//! every searched folder but present elsewhere (where, and why that folder is not searched),
//! present only in another major (`cublas64_12.dll` when `cublas64_11.dll` is needed), or absent;
//! and Python ≥ 3.8 on Windows ignoring PATH for extension dependencies. What the entry libraries
//! import is the closure rule's (read from the files). A miss is an error only when the load-list
//! row says the framework refuses the GPU without it; a load only some work needs is a warning
//! saying what fails later; a guessed name only warns and says it is a guess. Every finding shows
//! the row it comes from (evidence `load-list`).

use super::RuleInput;
use crate::engine::context::{Platform, SystemContext};
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, PathEdit, Severity};
use crate::engine::graph::load_list::{Load, load_list};
use crate::engine::graph::process::{self, PresenceProbe, Process, attempts_evidence};
use crate::engine::inventory::{Framework, FrameworkKind, Inventory, PythonEnv};
use crate::engine::knowledge::{self, LibraryIdentity, identify_library};
use crate::engine::loader::where_else::KnownLibraries;

/// Whether the framework's CUDA build runs on the GPU on this platform at all (TensorFlow after
/// 2.10 has no native Windows GPU build).
fn gpu_build(platform: Platform, f: &Framework) -> bool {
    if f.cuda_build == Some(false) || f.expects.cuda.is_none() {
        return false;
    }
    f.kind != FrameworkKind::TensorFlow
        || platform == Platform::Linux
        || f.version
            .as_deref()
            .and_then(|v| knowledge::knowledge().tensorflow.native_windows_gpu(v))
            != Some(false)
}

pub fn check(input: &RuleInput) -> Vec<Finding> {
    let (ctx, inv) = (input.ctx, input.inventory);

    let probe = PresenceProbe::new(ctx);
    let known = std::cell::OnceCell::new();
    let mut out = Vec::new();
    for (env, f) in inv.frameworks() {
        if !gpu_build(ctx.platform, f) {
            continue;
        }
        let loads = load_list(ctx, f, &probe);
        let mut loaders = Vec::new();
        // torch on Windows: LOAD_LIBRARY_SEARCH_DEFAULT_DIRS first (torch\lib, the
        // os.add_dll_directory folders), LoadLibraryW's standard search after a miss.
        if ctx.platform == Platform::Windows
            && f.kind == FrameworkKind::PyTorch
            && let Some(dir) = &f.bundled_dir
        {
            let mut dirs = f.dll_directories.clone();
            dirs.push(dir.clone());
            loaders.push(process::python_extension_loader_with(ctx, env, dir, &dirs));
        }
        // CuPy's rows (NVRTC) are ctypes.CDLL(name): under Python >= 3.8 that is
        // LOAD_LIBRARY_SEARCH_DEFAULT_DIRS (its os.add_dll_directory folders, no PATH), the search
        // its extension modules get; older Pythons use the standard search, PATH included. (A
        // guessed list keeps the standard search and the "Python ignores PATH" warning below.)
        let cdll_ignores_path = ctx.platform == Platform::Windows
            && f.kind == FrameworkKind::CuPy
            && loads.iter().any(|l| l.row.is_some())
            && process::python_ignores_path(env) == Some(true);
        if cdll_ignores_path {
            loaders.push(process::python_extension_loader_with(
                ctx,
                env,
                &f.location,
                &f.dll_directories,
            ));
        } else {
            loaders.push(process::framework_loader(ctx, env, Some(f)));
        }
        out.extend(check_names(
            ctx,
            inv,
            Subject { env, f },
            &loaders,
            &loads,
            &probe,
            &known,
        ));
        // ONNX Runtime loads its provider with LOAD_WITH_ALTERED_SEARCH_PATH (the provider's
        // imports are searched through PATH) and torch's at::DynamicLibrary retries a miss with
        // LoadLibraryW (PATH searched): Python ignoring PATH concerns neither. CuPy's loads were
        // checked with Python's own search above, whose misses already say PATH is ignored.
        // The framework's own search, pushed last above.
        let Some(loader) = loaders.last() else {
            continue;
        };
        if ctx.platform == Platform::Windows
            && !cdll_ignores_path
            && !matches!(
                f.kind,
                FrameworkKind::TensorFlow | FrameworkKind::OnnxRuntime | FrameworkKind::PyTorch
            )
            && process::python_ignores_path(env) == Some(true)
        {
            let ext =
                process::python_extension_loader_with(ctx, env, &f.location, &f.dll_directories);
            out.extend(ignores_path(ctx, env, f, loader, &ext, &loads, &probe));
        }
    }
    out
}

/// "TensorFlow 2.10.1 in C:\\...\\Python310": how findings name a framework install.
pub(super) fn who(env: &PythonEnv, f: &Framework) -> String {
    format!(
        "{} {} in {}",
        f.kind.display_name(),
        f.version.as_deref().unwrap_or("(unknown version)"),
        env.root
    )
}

/// One framework in one environment: what `check_names` examines.
struct Subject<'a> {
    env: &'a PythonEnv,
    f: &'a Framework,
}

fn check_names(
    ctx: &SystemContext,
    inv: &Inventory,
    Subject { env, f }: Subject<'_>,
    loaders: &[Process],
    loads: &[Load],
    probe: &PresenceProbe,
    known: &std::cell::OnceCell<KnownLibraries>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    // The loads that resolve, with the file each resolves to: a miss also costs those of them
    // that import it.
    let mut found: Vec<(String, String)> = Vec::new();
    for load in loads {
        let name = &load.name;
        // The library that calls dlopen, when the row names it: ld.so searches from its paths.
        let own: Vec<Process> = load
            .row
            .and_then(|r| r.caller.as_deref())
            .filter(|_| ctx.platform == Platform::Linux)
            .and_then(|g| crate::engine::graph::framework::package_files(ctx, f, &[g]).pop())
            .map(|caller| process::linux_dlopen_from(ctx, env, &caller))
            .into_iter()
            .collect();
        let loaders = if own.is_empty() { loaders } else { &own[..] };
        // The search a miss is explained by: the innermost process (no process, nothing loads).
        let Some(loader) = loaders.last() else {
            return out;
        };
        if let Some(path) = loaders.iter().find_map(|l| l.resolve(name, probe).path) {
            found.push((name.clone(), path));
            continue;
        }
        let r = loader.resolve(name, probe);
        let copies = known
            .get_or_init(|| KnownLibraries::new(ctx, inv))
            .copies_of(ctx, name);
        let subject = who(env, f);
        let finding = if let Some(first) = copies.first() {
            not_searched(ctx, &subject, loader, name, first, &copies)
        } else if let Some(id) = identify_library(name) {
            let others = known
                .get_or_init(|| KnownLibraries::new(ctx, inv))
                .other_majors(&id);
            if others.is_empty() {
                Finding::new(
                    codes::LIBRARY_MISSING,
                    Severity::Error,
                    format!("{name} is not on this machine ({subject} needs it)"),
                    format!(
                        "{subject} was built for CUDA {} and loads {name} ({} {}), but no copy exists anywhere CUDA Triage looked.",
                        f.expects.cuda_label(),
                        id.component,
                        id.version_family
                    ),
                )
                .with_fix(install_fix(&id))
            } else {
                wrong_major(&subject, f, &id, &others)
            }
        } else {
            let missing = Finding::new(
                codes::LIBRARY_MISSING,
                Severity::Error,
                format!("{name} is not on this machine ({subject} opens it)"),
                format!(
                    "{subject} was built for CUDA {} and opens {name}, but no copy exists anywhere CUDA Triage looked.",
                    f.expects.cuda_label()
                ),
            );
            match provider_fix(f, name) {
                Some(fix) => missing.with_fix(fix),
                None => missing,
            }
        };
        let mut finding = finding.with_libraries([name.clone()]);
        if let Some(fix) = pinned_provider_fix(f, name)
            && !finding.fixes.iter().any(|x| x.id == fix.id)
        {
            finding.fixes.insert(0, fix);
        }
        finding.severity = load.severity();
        finding.detail.push_str(&load.consequence());
        finding.evidence.push(load.evidence());
        finding.evidence.extend(attempts_evidence(loader, &r));
        out.push(finding);
    }
    for finding in &mut out {
        let Some(name) = finding.libraries.first().cloned() else {
            continue;
        };
        for (importer, path) in importers(ctx, probe, &found, &name) {
            finding.detail.push_str(&format!(
                " {importer} imports {name}: {} cannot load {importer} either, though it finds the file, and names it among the libraries it could not load.",
                who(env, f)
            ));
            finding.evidence.push(Evidence::at(
                crate::engine::graph::checks::NEEDED_BY,
                format!("{importer} imports {name}"),
                path,
            ));
        }
    }
    out
}

/// The framework's loads that resolved (`found`: name, file) whose file imports `name`: the
/// loader fails them on the missing import (TensorFlow 2.10 on Windows names cusolver64_11.dll
/// with cuBLAS off PATH: cuSOLVER imports cuBLAS and cuBLASLt; Wine's loader agrees,
/// tests/integration/oracle_import_windows/tensorflow.rs).
fn importers(
    ctx: &SystemContext,
    probe: &PresenceProbe,
    found: &[(String, String)],
    name: &str,
) -> Vec<(String, String)> {
    found
        .iter()
        .filter(|(_, path)| {
            probe.info(path).is_some_and(|info| {
                info.imports
                    .iter()
                    .any(|i| ctx.platform.same_name(&i.name, name))
            })
        })
        .cloned()
        .collect()
}

/// The pip wheel (and conda package) that ships `name`, for the build's CUDA major — with the
/// exact version when the framework's own metadata pins that wheel.
fn provider_fix(f: &Framework, name: &str) -> Option<FixRef> {
    let p = knowledge::knowledge().closure.provider_of(name)?;
    let major = f.expects.cuda.as_deref()?.split('.').next()?.to_string();
    let dist = p.dist_for(&major);
    let pinned = f
        .expects
        .wheels
        .iter()
        .find(|w| w.name == dist)
        .and_then(|w| w.version.as_deref())
        .map(|v| v.trim().trim_start_matches("==").trim().to_string())
        .filter(|v| v.starts_with(|c: char| c.is_ascii_digit()));
    Some(match pinned {
        Some(v) => FixRef {
            id: format!("reinstall-{dist}=={v}"),
            kind: FixKind::Install,
            summary: format!(
                "pip install --force-reinstall {dist}=={v} (the version {} pins)",
                f.kind.display_name()
            ),
        },
        None => FixRef {
            id: format!("install-{dist}"),
            kind: FixKind::Install,
            summary: format!("Install {dist} (pip)"),
        },
    })
}

/// [`provider_fix`] only when the framework's metadata pins the wheel (a pip-managed install).
fn pinned_provider_fix(f: &Framework, name: &str) -> Option<FixRef> {
    let fix = provider_fix(f, name)?;
    fix.id.starts_with("reinstall-").then_some(fix)
}

/// Installing the library's family; the CUDA release that ships it is named only where the
/// table knows one (a toolkit file): cuDNN's family ("8") is no CUDA release.
fn install_fix(id: &LibraryIdentity) -> FixRef {
    let shipped_by = id
        .toolkits
        .last()
        .map(|cuda| format!(" (it ships with CUDA {cuda})"))
        .unwrap_or_default();
    FixRef {
        id: format!(
            "install-{}-{}",
            id.component.to_lowercase().replace(' ', "-"),
            id.version_family
        ),
        kind: FixKind::Install,
        summary: format!("Install {} {}{shipped_by}", id.component, id.version_family),
    }
}

/// The library is on the machine, but not where this process looks.
pub fn not_searched(
    ctx: &SystemContext,
    subject: &str,
    loader: &Process,
    name: &str,
    first: &str,
    copies: &[String],
) -> Finding {
    let dir = ctx.platform.parent(first).unwrap_or_default();
    let on_path = ctx
        .path_entries()
        .iter()
        .any(|p| ctx.platform.same_name(&ctx.platform.normalize(p), &dir));
    let why = if !loader.uses_path && on_path {
        format!(
            "{dir} is on PATH, but Python 3.8 and newer on Windows ignore PATH when loading an extension's DLLs; only the extension's folder, the application folder, folders added with os.add_dll_directory and System32 are searched."
        )
    } else if loader.uses_path {
        format!(
            "{dir} is not on this process's PATH, and it is not the application folder or a system folder, so the loader never looks there."
        )
    } else if ctx.platform == Platform::Linux {
        format!(
            "{dir} is not one of the folders ld.so searches for this process: it is not in an RPATH or RUNPATH of the objects doing the loading, not in LD_LIBRARY_PATH, not listed in /etc/ld.so.cache and not a default folder."
        )
    } else {
        format!("{dir} is not one of the folders this process searches.")
    };
    let note = loader
        .note
        .as_deref()
        .map(|n| format!(" {n}"))
        .unwrap_or_default();
    let mut f = Finding::new(
        codes::LIBRARY_NOT_SEARCHED,
        Severity::Error,
        format!("{name} exists in {dir}, but {subject} does not search there"),
        format!("{subject} loads {name}. A copy exists at {first}. {why}{note}"),
    );
    for c in copies {
        f = f.with_evidence(Evidence::at("file", format!("copy of {name}"), c.clone()));
    }
    let fix = if ctx.platform == Platform::Linux {
        FixRef {
            id: format!("ld-library-path-prepend:{dir}"),
            kind: FixKind::path(PathEdit::add("LD_LIBRARY_PATH", &dir, true)),
            summary: format!(
                "Add {dir} to LD_LIBRARY_PATH for this process (or register it with ldconfig)"
            ),
        }
    } else if loader.uses_path {
        FixRef {
            id: format!("path-prepend:{dir}"),
            kind: FixKind::path(PathEdit::add("PATH", &dir, true)),
            summary: format!("Add {dir} to PATH"),
        }
    } else {
        FixRef {
            id: format!("add-dll-directory:{dir}"),
            kind: FixKind::Manual,
            summary: format!("Call os.add_dll_directory(r\"{dir}\") before the import"),
        }
    };
    f.with_fix(fix)
}

fn wrong_major(
    subject: &str,
    f: &Framework,
    id: &LibraryIdentity,
    others: &[(LibraryIdentity, String)],
) -> Finding {
    let list: Vec<String> = others
        .iter()
        .map(|(o, p)| format!("{} ({} {})", p, o.component, o.version_family))
        .collect();
    let cuda = match f.expects.cuda {
        Some(_) => f.expects.cuda_label(),
        None => id.version_family.clone(),
    };
    let mut finding = Finding::new(
        codes::LIBRARY_WRONG_MAJOR,
        Severity::Error,
        format!("{} needs {} ({} {}); only another major is installed", subject, id.file, id.component, id.version_family),
        format!(
            "{subject} was built for CUDA {cuda} and asks for {} by name. The machine has {} only in another major version ({}). Libraries of different majors are not interchangeable and renaming them does not work: install the CUDA {} libraries (toolkit or pip wheels) next to the newer ones, or use a {} build made for the installed CUDA.",
            id.file,
            id.component,
            list.join(", "),
            id.version_family,
            f.kind.display_name()
        ),
    )
    .with_fix(install_fix(id))
    .with_fix(FixRef {
        id: format!("pin-{}", f.package),
        kind: FixKind::unplanned_pin(),
        summary: format!("Use a {} build made for the CUDA that is installed", f.kind.display_name()),
    });
    for (o, p) in others {
        finding = finding.with_evidence(Evidence::at(
            "file",
            format!("{} {} present", o.component, o.version_family),
            p.clone(),
        ));
    }
    finding
}

fn ignores_path(
    ctx: &SystemContext,
    env: &PythonEnv,
    f: &Framework,
    loader: &Process,
    ext: &Process,
    loads: &[Load],
    probe: &PresenceProbe,
) -> Vec<Finding> {
    let mut libs = Vec::new();
    let mut evidence = Vec::new();
    for load in loads {
        let name = &load.name;
        let with_path = loader.resolve(name, probe);
        if with_path.how != crate::engine::loader::How::Path || !with_path.is_resolved() {
            continue;
        }
        let r = ext.resolve(name, probe);
        if !r.is_resolved() {
            libs.push(name.clone());
            evidence.push(load.evidence());
            if let Some(p) = &with_path.path {
                evidence.push(Evidence::at(
                    "file",
                    format!("{name} reachable only through PATH"),
                    p.clone(),
                ));
            }
            evidence.extend(attempts_evidence(ext, &r));
        }
    }
    if libs.is_empty() {
        return Vec::new();
    }
    let dir = evidence
        .iter()
        .find_map(|e| e.path.clone())
        .and_then(|p| ctx.platform.parent(&p))
        .unwrap_or_default();
    let mut finding = Finding::new(
        codes::PYTHON_IGNORES_PATH,
        Severity::Warning,
        format!("Python {} ignores PATH: {} cannot find {}", env.python_version.as_deref().unwrap_or("3.8+"), f.kind.display_name(), libs.join(", ")),
        "Since Python 3.8, Windows Python loads an extension module's DLL dependencies with LOAD_LIBRARY_SEARCH_DEFAULT_DIRS: PATH and the current folder are not searched. The CUDA libraries this framework needs are reachable only through PATH.".to_string(),
    )
    .with_libraries(libs)
    .with_fix(FixRef {
        id: format!("add-dll-directory:{dir}"),
        kind: FixKind::DllDirectory { dirs: vec![dir.clone()], site_packages: env.site_packages.first().cloned(), python: env.python_exe.clone() },
        summary: format!("Call os.add_dll_directory(r\"{dir}\") before importing {}", f.kind.module()),
    });
    finding.evidence = evidence;
    vec![finding]
}

//! Would it load? For every framework the scan found, CUDA build or not, the complete dependency
//! closure of its native entry libraries (knowledge `framework_closure.toml`: torch's `_C` and
//! `libtorch_global_deps.so`, TensorFlow's `_pywrap_tensorflow_internal`, the JAX plugin, CuPy's
//! extension modules, ONNX Runtime's CUDA provider) resolved in *that framework's process*: the
//! environment's real `python` as the main program (its RPATH), LD_LIBRARY_PATH, each library's
//! RPATH/RUNPATH, ld.so.cache and the default folders on Linux; Python's extension search
//! (0x1100, `os.add_dll_directory`, torch's `torch\lib`) on Windows. Every miss, damaged file,
//! wrong-machine copy, missing export (127) or missing versioned symbol the tree finds becomes a
//! finding of the scan, naming the framework, the library that needs the file, where the loader
//! looked and which package provides it — with the pinned reinstall as the fix. A CPU build is
//! judged too: a framework whose own libraries do not load fails its import whatever its CUDA
//! flavour (torch 2.5.1's CPU wheel for Windows without `torch\lib\libiomp5md.dll`: `import torch`
//! fails with WinError 126 on fbgemm.dll), and `closure_own` tells such a file from the RECORD.
//!
//! Run-time loads come from the knowledge table only on Linux (dlopen from a library follows that
//! library's RPATH/RUNPATH, which the graph models); Windows run-time loads are the
//! `framework_libs` rule's (TensorFlow's LoadLibrary searches PATH, which an extension's import
//! does not). An entry library that does not parse (a placeholder in a machine file) is skipped:
//! there is nothing to follow.

use super::RuleInput;
use crate::engine::context::SystemContext;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::graph::Reader;
use crate::engine::graph::checks;
use crate::engine::graph::{self, framework};
use crate::engine::inventory::{Framework, PythonEnv, PythonKind};
use crate::engine::knowledge::{self};
use crate::engine::loader::glob_match;

/// Tree findings that stop a library from loading (or a feature from working).
const KEPT: &[&str] = &[
    codes::LIBRARY_NOT_FOUND,
    codes::RUNTIME_LIBRARY_NOT_FOUND,
    codes::LIBRARY_UNREADABLE,
    codes::LIBRARY_WRONG_MACHINE,
    codes::MISSING_EXPORT,
    codes::MISSING_SYMBOL_VERSION,
    codes::MISSING_SYMBOL,
];

/// The driver's own libraries: the driver rule reports them (with the driver install as the fix).
const DRIVER_LIBRARIES: &[&str] = &["libcuda.so*", "nvcuda.dll", "libnvidia-ml.so*", "nvml.dll"];

/// Findings about each framework's closure. `earlier` are the other rules' findings: a library
/// they already report for the same environment is not reported twice.
pub fn check(input: &RuleInput) -> Vec<Finding> {
    let (ctx, inventory, earlier) = (input.ctx, input.inventory, input.earlier);

    let mut out: Vec<Finding> = Vec::new();
    for env in &inventory.python_envs {
        for fw in &env.frameworks {
            let opts = framework::process_options(ctx, env, fw);
            let mut graphs = Vec::new();
            let mut predicted_errors = 0;
            for entry in framework::entry_libraries(ctx, fw) {
                let Ok(graph) = graph::build_with(ctx, &entry, &opts, Reader::HEADERS) else {
                    continue;
                };
                for f in checks::check(ctx, &graph) {
                    if !KEPT.contains(&f.code.as_str()) || is_driver_library(&f) {
                        continue;
                    }
                    predicted_errors += usize::from(f.severity == Severity::Error);
                    if !already(&out, earlier, &f, env) {
                        out.push(framework_finding(ctx, env, fw, &entry, f));
                    }
                }
                graphs.push(graph);
            }
            if let Some(probe) = env
                .import_probes
                .iter()
                .find(|p| p.module == fw.kind.module())
            {
                out.extend(super::closure_probe::compare(
                    ctx,
                    env,
                    fw,
                    probe,
                    &graphs,
                    predicted_errors,
                ));
            }
        }
    }
    out
}

fn is_driver_library(f: &Finding) -> bool {
    f.libraries.first().is_some_and(|lib| {
        let lib = lib.to_ascii_lowercase();
        DRIVER_LIBRARIES.iter().any(|g| glob_match(g, &lib, true))
    })
}

/// Whether `f` repeats a finding about the same library: one from another entry of this
/// environment, or one another rule made.
fn already(out: &[Finding], earlier: &[Finding], f: &Finding, env: &PythonEnv) -> bool {
    let Some(lib) = f.libraries.first() else {
        return false;
    };
    let same_env = |g: &Finding| g.evidence.iter().any(|e| e.text == env.root);
    out.iter()
        .any(|g| g.code == f.code && g.libraries.first() == Some(lib) && same_env(g))
        || earlier.iter().any(|g| {
            // Only a finding at least as severe stands in for this one: another framework's
            // warning about the same library must not hide an import that fails.
            g.severity <= f.severity
                && g.libraries.iter().any(|l| l == lib)
                && g.code.starts_with("library-")
        })
}

/// A tree finding restated for the framework, with the package that provides the library.
fn framework_finding(
    ctx: &SystemContext,
    env: &PythonEnv,
    fw: &Framework,
    entry: &str,
    mut f: Finding,
) -> Finding {
    let p = ctx.platform;
    let name = fw.kind.display_name();
    let label = match &fw.version {
        Some(v) => format!("{name} {v}"),
        None => name.to_string(),
    };
    // A run-time load does not stop the import: the first operation that opens it fails.
    if f.code == codes::RUNTIME_LIBRARY_NOT_FOUND && f.severity == Severity::Error {
        f.severity = Severity::Warning;
    }
    let own = f.libraries.first().and_then(|lib| {
        let tables = &knowledge::knowledge().closure;
        tables
            .provider_of(lib)
            .is_none()
            .then(|| super::closure_own::own_file(ctx, fw, lib))
            .flatten()
    });
    let consequence = match (f.severity, &own) {
        (Severity::Error, Some(_)) => format!("{label} cannot load its own libraries"),
        (Severity::Error, None) => format!("{label} cannot load its CUDA libraries"),
        (_, _) => format!(
            "{label} imports, but the operations that need this library fail when they first open it"
        ),
    };
    f.summary = format!("{label}: {}", f.summary);
    f.detail = format!(
        "{consequence} in the Python of {} ({} loads {}). {}",
        env.root,
        p.file_name(entry),
        entry,
        f.detail
    );
    f.evidence.insert(
        0,
        Evidence::at("environment", env.root.clone(), env.root.clone()),
    );
    f.evidence.insert(
        1,
        Evidence::at("entry library", p.file_name(entry), entry.to_string()),
    );
    // The row of the load list this comes from: the import table (or run-time load row) of the
    // binary in the closure that asks for the library, and the entry row that says the
    // framework's process loads that closure.
    let row = knowledge::knowledge()
        .closure
        .entries
        .iter()
        .find(|e| e.framework == fw.kind.module() && e.platform == p.as_str())
        .map(|e| e.source.clone())
        .unwrap_or_default();
    let edge = f
        .evidence
        .iter()
        .find(|e| e.kind == checks::NEEDED_BY)
        .map(|e| e.text.clone())
        .unwrap_or_else(|| format!("{}'s import table", p.file_name(entry)));
    f.evidence.insert(
        2,
        Evidence::new(
            "load-list",
            format!(
                "{edge}; read in the closure of {}, the entry library of {name} (framework_closure.toml: {row})",
                p.file_name(entry)
            ),
        ),
    );
    match (f.libraries.first().cloned(), own) {
        (Some(lib), Some(own)) => add_own_reinstall(ctx, env, fw, &lib, &own, &mut f),
        (Some(lib), None) => add_provider(ctx, env, fw, &lib, &mut f),
        (None, _) => {}
    }
    f
}

/// Names the framework's own wheel as the one that ships `lib` (its RECORD lists the file) and
/// offers the framework's reinstall at the installed version: from PyPI where PyPI has that
/// version for this platform, by hand otherwise (a local version such as `2.5.1+cpu` comes from
/// the index it was installed from).
fn add_own_reinstall(
    ctx: &SystemContext,
    env: &PythonEnv,
    fw: &Framework,
    lib: &str,
    own: &super::closure_own::OwnFile,
    f: &mut Finding,
) {
    let requirement = format!("{}=={}", fw.package, own.version);
    f.detail = format!(
        "{} {lib} is one of {}'s own files: the RECORD of the installed {} {} lists {}, and the file is not there, so the install is incomplete or damaged: reinstall it.",
        f.detail, fw.package, fw.package, own.version, own.member
    );
    f.evidence.push(Evidence::at(
        "RECORD",
        own.member.clone(),
        own.record.clone(),
    ));
    f.evidence
        .push(Evidence::new("package", requirement.clone()));
    if !f.fixes.is_empty() {
        return;
    }
    if crate::engine::fix::names_exist::may_offer(&requirement, ctx.platform) {
        f.fixes.push(reinstall_fix(env, &fw.package, requirement));
    } else {
        f.fixes.push(FixRef {
            id: format!("reinstall-{}", fw.package),
            kind: FixKind::Manual,
            summary: format!(
                "Reinstall {} {} from the package index it was installed from ({requirement} is not on PyPI for this platform): {} with that index's --index-url",
                fw.package,
                own.version,
                reinstall_command(env, &requirement)
            ),
        });
    }
}

/// `pip install --force-reinstall --no-deps "REQUIREMENT"`, with the environment's Python.
fn reinstall_command(env: &PythonEnv, requirement: &str) -> String {
    let pip = match &env.python_exe {
        Some(py) => format!("{py} -m pip"),
        None => "pip".to_string(),
    };
    format!("{pip} install --force-reinstall --no-deps \"{requirement}\"")
}

/// The pinned reinstall of `dist` at `requirement`, run with the environment's Python.
fn reinstall_fix(env: &PythonEnv, dist: &str, requirement: String) -> FixRef {
    FixRef {
        id: format!("reinstall-{dist}"),
        summary: reinstall_command(env, &requirement),
        kind: FixKind::PinVersion {
            requirements: vec![requirement],
            python: env.python_exe.clone(),
            reinstall: true,
        },
    }
}

/// Names the package that ships `lib` (the pin the framework declares, when it does) and offers
/// the reinstall.
fn add_provider(ctx: &SystemContext, env: &PythonEnv, fw: &Framework, lib: &str, f: &mut Finding) {
    let p = ctx.platform;
    let tables = &knowledge::knowledge().closure;
    let cuda_major = fw
        .expects
        .cuda
        .as_deref()
        .and_then(|c| c.split('.').next())
        .filter(|m| !m.is_empty())
        .unwrap_or("12");
    let conda = matches!(env.kind, PythonKind::CondaBase | PythonKind::CondaEnv);
    let mut other_major = None;
    let (dist, pin, folder) = match tables.provider_of(lib) {
        Some(row) => {
            // A conda command only for a package this environment's conda-meta records: one
            // that exists, in a version its channels carry.
            if let Some(pkg) = env
                .conda_packages
                .iter()
                .find(|p| conda && p.name.eq_ignore_ascii_case(&row.conda))
            {
                let spec = match &pkg.version {
                    Some(v) => format!("{}={v}", pkg.name),
                    None => pkg.name.clone(),
                };
                f.detail = format!(
                    "{} conda installed the package that ships it in this environment ({spec}); to reinstall it: conda install -p \"{}\" --force-reinstall {spec}.",
                    f.detail, env.root
                );
                f.evidence.push(Evidence::new("conda package", spec));
            }
            let dist = row.dist_for(cuda_major);
            // The same package built for another CUDA major, installed in its place.
            other_major = ["11", "12", "13"]
                .into_iter()
                .filter(|m| *m != cuda_major)
                .map(|m| row.dist_for(m))
                .find_map(|d| {
                    env.nvidia_wheels
                        .iter()
                        .find(|w| w.name.eq_ignore_ascii_case(&d))
                        .cloned()
                });
            let pin = fw
                .expects
                .wheels
                .iter()
                .find(|w| w.name.eq_ignore_ascii_case(&dist))
                .and_then(|w| w.version.clone());
            (dist, pin, Some(row.folder.clone()))
        }
        // Not a CUDA library: the framework's own file (torch\lib, a bundled copy).
        None if bundled_by(ctx, fw, lib) => (fw.package.clone(), fw.version.clone(), None),
        None => return,
    };
    let requirement = match &pin {
        Some(v) if v.starts_with(['=', '<', '>', '~', '!']) => format!("{dist}{v}"),
        Some(v) => format!("{dist}=={v}"),
        None => dist.clone(),
    };
    let installed = folder.as_deref().is_some_and(|folder| {
        env.site_packages
            .iter()
            .any(|sp| ctx.fs.is_dir(&p.join(sp, &format!("nvidia/{folder}"))))
    });
    // A package that PyPI never had for this platform (nvidia-cuda-cupti-cu10: the wheels
    // start with CUDA 11) is not offered: the library comes with the CUDA toolkit then.
    let on_pypi = crate::engine::fix::names_exist::may_offer(&requirement, p);
    if !on_pypi {
        f.detail = format!(
            "{} No pip package ships {lib} for CUDA {cuda_major} on this platform: it comes with the CUDA {cuda_major} toolkit.",
            f.detail
        );
        if f.fixes.is_empty() {
            f.fixes.push(FixRef {
                id: format!("install-cuda-toolkit-{cuda_major}"),
                kind: FixKind::Manual,
                summary: format!(
                    "Install the CUDA {cuda_major}.x toolkit the framework was built for from NVIDIA's archive, https://developer.nvidia.com/cuda-toolkit-archive, and make the folder with {lib} searchable"
                ),
            });
        }
        return;
    }
    // A copy that lacks symbols resolved from somewhere: the wheel's own copy is not what failed.
    let symbols = [
        codes::MISSING_SYMBOL,
        codes::MISSING_SYMBOL_VERSION,
        codes::MISSING_EXPORT,
    ]
    .contains(&f.code.as_str());
    let provided = match (&pin, installed) {
        (Some(_), true) if symbols => format!(
            "The {lib} {} was built against comes from the pip package {requirement}, which {} pins and which is installed here.",
            f.libraries
                .get(1)
                .map(String::as_str)
                .unwrap_or("the library"),
            fw.package
        ),
        (Some(_), true) => format!(
            "{lib} comes from the pip package {requirement}, which {} pins; the package folder is there, so the installed copy is incomplete or damaged: reinstall it.",
            fw.package
        ),
        (Some(_), false) => format!(
            "{lib} comes from the pip package {requirement}, which {} pins; it is not installed in this environment.",
            fw.package
        ),
        (None, _) => format!("{lib} comes from the package {dist}."),
    };
    f.detail = format!("{} {provided}", f.detail);
    f.evidence
        .push(Evidence::new("package", requirement.clone()));
    if let Some(other) = other_major {
        let version = other.version.as_deref().unwrap_or("");
        f.detail = format!(
            "{} This environment has {} {version} in its place, the package built for another CUDA major: it does not ship {lib}, the file {} (built for CUDA {}) asks for.",
            f.detail,
            other.name,
            fw.package,
            fw.expects.cuda.as_deref().unwrap_or(cuda_major)
        );
        f.evidence.push(Evidence::new(
            "package",
            format!("{} {version} installed (another CUDA major)", other.name),
        ));
    }
    if f.fixes.is_empty() {
        f.fixes.push(reinstall_fix(env, &dist, requirement));
    }
}

/// Whether `lib` is one of the framework's own files (bundled in its package).
fn bundled_by(ctx: &SystemContext, fw: &Framework, lib: &str) -> bool {
    fw.bundled_libraries
        .iter()
        .any(|b| ctx.platform.same_name(ctx.platform.file_name(b), lib))
}

//! One finding per missing symbol: glibc's split functions, a known NVIDIA API's function (the
//! library loaded is older than the caller's, or newer, or not linked at all), a C++ library's
//! function by its namespace, or the generic reading (another copy of the library found first).

use super::extract::MissingSymbol;
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::knowledge::generated::generated;

/// One finding per missing symbol.
pub fn symbol_findings(symbols: &[MissingSymbol]) -> Vec<Finding> {
    symbols
        .iter()
        .map(|s| {
            // glibc's "undefined symbol: X, version libcudart.so.12" names, by the version node
            // CUDA's libraries give their exports, the library that should have defined X.
            let node = super::extract::version_node(&s.line, &s.symbol);
            let provider = node.clone().or_else(|| s.library.clone());
            let lib = provider
                .clone()
                .unwrap_or_else(|| "the library that was loaded".into());
            if let Some(f) = super::glibc_split::glibc_split_finding(s) {
                return f;
            }
            if let Some(owner) = super::symbol_owner::api_owner(&s.symbol) {
                // A message that names the library the function was looked up in (a
                // binding's, a program's own) names no caller.
                let caller = if is_binding_report(&s.line) {
                    "the program's binding"
                } else if s.looked_in {
                    "the program"
                } else {
                    s.library.as_deref().unwrap_or("the program")
                };
                return owned_symbol_finding(s, caller, owner);
            }
            if let Some(f) = super::symbol_owner::cpp_library_finding(s) {
                return f;
            }
            // No version node names the owner, and the named library is the one being bound.
            if node.is_none()
                && !s.looked_in
                && !s.at_link
                && binding_at_load(&s.line)
                && let Some(caller) = s.library.as_deref()
            {
                return unresolved_in_caller_finding(s, caller);
            }
            let mut f = Finding::new(
                codes::MISSING_SYMBOL,
                Severity::Error,
                format!("{} is missing from {lib}", s.symbol),
                format!(
                    "The caller needs the function {} but the copy of {lib} that was loaded does not export it. \
                     This usually means a different, often older, version of {lib} (or of a library it needs) \
                     was found first than the one the caller was built against: a version mismatch of \
                     DLLs/sonames from different releases on the search path, or a stand-in that is not the \
                     real library.",
                    s.symbol
                ),
            )
            .with_evidence(Evidence::new("log", s.line.clone()))
            .with_evidence(Evidence::new(
                "source",
                "Microsoft, System Error Codes: 127 ERROR_PROC_NOT_FOUND = an export is missing \
                 (https://learn.microsoft.com/en-us/windows/win32/debug/system-error-codes--0-499-); a version mix \
                 in https://github.com/microsoft/onnxruntime/issues/18973 and \
                 https://github.com/PaddlePaddle/PaddleDetection/issues/8265",
            ));
            if let Some(l) = provider {
                f = f.with_libraries([l]);
            }
            f
        })
        .collect()
}

/// A missing function of a known NVIDIA API: the library that should export it is older than the
/// one the caller was built against.
fn owned_symbol_finding(
    s: &MissingSymbol,
    caller: &str,
    owner: &super::symbol_owner::ApiOwner,
) -> Finding {
    if let Some(f) = super::symbol_owner::removed_function_finding(s, caller, owner) {
        return f;
    }
    if let Some(f) = super::symbol_owner::unlinked_library_finding(s, caller, owner) {
        return f;
    }
    let since = generated()
        .function_named(&s.symbol)
        .filter(|(f, read)| f.first != read.first)
        .map(|(f, read)| {
            format!(
                " Its header declares it from {} on (the releases read: {} to {}), so the copy \
                 loaded is older than {}.",
                f.first, read.first, read.last, f.first
            )
        })
        .unwrap_or_default();
    let mut f = Finding::new(
        codes::MISSING_SYMBOL,
        Severity::Error,
        format!(
            "{} is a {} function: the {} that was loaded is older than the one {caller} was built against",
            s.symbol, owner.component, owner.component
        ),
        format!(
            "{caller} calls {}, which {} exports ({}), but the copy of {} found at run time does not have \
             it: an older {} release comes first on the search path. Typical: two copies of it in one \
             environment (pip wheels for two CUDA majors, a system or conda package next to the \
             framework's wheel, LD_LIBRARY_PATH or PATH pointing at an older install, a base image's \
             copy), or a framework upgraded without the {} it needs.",
            s.symbol, owner.component, owner.files, owner.component, owner.component, owner.component
        ) + &since
            + &unlinked_in_extension(&s.line, owner.component)
            + &binding_declaration(&s.line),
    )
    .with_evidence(Evidence::new("log", s.line.clone()))
    .with_evidence(Evidence::new("source", owner.source))
    .with_fix(if owner.component.contains("NVIDIA driver") {
        FixRef {
            id: "advice-update-driver".into(),
            kind: FixKind::Manual,
            summary: format!(
                "Update the driver: {} comes with it, so a newer NVIDIA driver brings the function \
                 (or use a build of {caller} made for the older driver's API).",
                owner.component
            ),
        }
    } else if is_binding_report(&s.line) {
        FixRef {
            id: "advice-binding-declaration".into(),
            kind: FixKind::Manual,
            summary: format!(
                "Check which {} library exports {} (dumpbin /exports on Windows, nm -D on Linux): if it \
                 is another library of the family than the one the binding names, update the binding \
                 to a release that fixes its declaration (or correct the DllImport); if none exports \
                 it, install the {} release the binding was written for.",
                owner.component, s.symbol, owner.component
            ),
        }
    } else {
        FixRef {
            id: "advice-load-matching-library".into(),
            kind: FixKind::Manual,
            summary: format!(
                "Find which {} file is loaded (cuda-triage tree on {caller}, or LD_DEBUG=libs / ldd on \
                 Linux) and make the release the framework needs come first: remove the older copy or \
                 package (pip list | grep -i nvidia shows wheels of two CUDA majors), drop its folder \
                 from LD_LIBRARY_PATH/PATH, or install the version the framework's release requires.",
                owner.component
            ),
        }
    });
    if let Some(l) = &s.library {
        f = f.with_libraries([l.clone()]);
    }
    f
}

/// For a binding's own report (.NET's EntryPointNotFoundException, JNA's "Error looking up
/// function"), the other way the function is missing: the binding declares which library exports
/// each function, and a declaration naming the wrong library of a split family fails although
/// every library is current (managedCuda's watershed functions bound to nppist instead of nppif,
/// https://github.com/kunzmi/managedCuda/issues/94).
fn binding_declaration(line: &str) -> String {
    if !is_binding_report(line) {
        return String::new();
    }
    " This is a language binding's report (.NET DllImport / P/Invoke, Java JNA): the binding \
     declares which library exports each function, and when that library is of the right release, \
     the declaration names the wrong one (the library does not export the function; another \
     library of the family does): update the binding to a release that fixes it, or point the \
     declaration at the library that exports it."
        .to_string()
}

/// Whether `line` is a language binding's report of a missing function (.NET, JNA).
fn is_binding_report(line: &str) -> bool {
    line.contains("EntryPointNotFoundException")
        || line.contains("Unable to find an entry point named")
        || line.contains("Error looking up function")
}

/// For a line that names a Python extension module (`cpu_adam_op.cpython-38-x86_64-linux-gnu.so`,
/// `_C.pyd`) as the caller, the other way the symbol stays unresolved: the module was built without linking the
/// library (DeepSpeed's cpu_adam op without -lcurand, https://github.com/deepspeedai/DeepSpeed/pull/1879).
fn unlinked_in_extension(line: &str, component: &str) -> String {
    let lower = line.to_ascii_lowercase();
    if !(lower.contains(".cpython-") || lower.contains(".pyd") || lower.contains(".abi3.")) {
        return String::new();
    }
    format!(
        " A Python extension module such as this one can also lack it because it was built without \
         linking {component} (no -l flag for it in the build, as with ops compiled on first use): \
         the symbol then stays unresolved whichever {component} is installed, and the module must be \
         rebuilt with the library linked."
    )
}

/// Whether ld.so's "A: undefined symbol: X" comes from binding A's references while loading it
/// (an import, a dlopen, a lazy call: A needs X), not from a lookup by name in A (dlsym, as
/// ctypes' attribute access and Julia's "could not load symbol" make it: X was looked for in A).
fn binding_at_load(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    let lookup = lower.contains("attributeerror")
        || lower.contains("load symbol")
        || lower.contains("dlsym")
        || lower.contains("could not load library");
    let load = lower.contains("importerror")
        || lower.contains("oserror")
        || lower.contains("symbol lookup error")
        || lower.contains("error while loading");
    load && !lookup
}

/// ld.so's "A: undefined symbol: X" with no owner known for X: A is the library that needs X
/// (the loader names the one whose reference it could not bind), and no library loaded with it
/// exports X. A library of the CUDA forward-compatibility package (`cuda/compat`) must match the
/// host's driver (on Jetson, the host's L4T release), which a container made for another one
/// does not.
fn unresolved_in_caller_finding(s: &MissingSymbol, caller: &str) -> Finding {
    let file = caller.rsplit(['/', '\\']).next().unwrap_or(caller);
    let compat = if s.line.contains("/cuda/compat/") || s.line.contains("/cuda-compat") {
        format!(
            " {file} is from the CUDA forward-compatibility package (cuda/compat), whose libraries \
             work only with the driver (on Jetson, the L4T/JetPack release) they were made for: a \
             container or install made for a newer driver or JetPack than the host's fails this way; \
             use an image or package for the host's release (on Jetson, cat /etc/nv_tegra_release \
             shows it), or upgrade the host."
        )
    } else {
        String::new()
    };
    Finding::new(
        codes::MISSING_SYMBOL,
        Severity::Error,
        format!(
            "{file} needs {}, which no library loaded with it provides",
            s.symbol
        ),
        format!(
            "The loader's 'undefined symbol' names the library that needs the function, {file}, not \
             one that lacks it: none of the libraries loaded into the process exports {}. A library \
             {file} depends on is another (usually older) release than the one it was built \
             against, or {file} comes from another install than its dependencies (two releases \
             mixed on the search path).{compat}",
            s.symbol
        ),
    )
    .with_libraries([file.to_string()])
    .with_evidence(Evidence::new("log", s.line.clone()))
    .with_evidence(Evidence::new(
        "source",
        "ld.so's undefined-symbol error names the object whose reference failed to bind \
         (glibc elf/dl-lookup.c); https://github.com/dusty-nv/jetson-containers/issues/472 (a \
         JetPack 6 container's cuda/compat/libnvcudla.so on a JetPack 5 host)",
    ))
    .with_fix(FixRef {
        id: "advice-match-dependency-release".into(),
        kind: FixKind::Manual,
        summary: format!(
            "Find which libraries {file} loads with it (ldd {file}, or LD_DEBUG=libs) and make them \
             the release it was built with: remove the other install from the search path, or \
             reinstall {file} from the same release as its dependencies."
        ),
    })
}

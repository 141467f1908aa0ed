//! The child's libraries: cudart, cuBLAS and cuDNN loaded by the exact path chosen (or the
//! usual names), each refused first when it or a dependency is damaged (ld.so would crash on
//! it), then described: the file the OS mapped, the version the library's own call returns (or
//! its named error), and the version written in the file.

use super::ffi::blas::{self, CublasVersion, CudartApi, CudartErrorName};
use super::ffi::cuda_driver_api::cuda_version_string;
use super::ffi::dnn::{self, CudnnVersion};
use super::ffi::{LoadError, OpenLibrary};
use super::results::{ChildResult, LibraryReport, Role};
use super::select::{Selection, default_names};
use super::{child::ChildArgs, protocol, test_findings};

/// The libraries the workloads call, loaded after the driver.
pub struct RuntimeLibraries {
    pub cublas: Option<&'static OpenLibrary>,
    pub cudnn: Option<&'static OpenLibrary>,
}

/// Loads cudart, cuBLAS and cuDNN (and cuDNN's parts) and reports each. `quiet_defaults`: a
/// library the user did not choose and that is not found under its default names is not worth
/// a finding of its own (used when the driver is already missing).
pub fn load_runtime_libraries(
    args: &ChildArgs,
    windows: bool,
    quiet_defaults: bool,
    result: &mut ChildResult,
) -> RuntimeLibraries {
    let loaded = |role: Role, what: &str, result: &mut ChildResult| {
        protocol::progress(&format!("Loading {what}"), 0, 0);
        match load(role, &args.selection, windows) {
            Ok((lib, report)) => {
                result.libraries.push(report);
                Some(lib)
            }
            Err(tried) => {
                let explicit = args.selection.get(role).is_some();
                if explicit || !quiet_defaults {
                    result
                        .findings
                        .push(test_findings::library_not_loaded(role, &tried, explicit));
                }
                None
            }
        }
    };
    loaded(Role::Cudart, "the CUDA runtime", result);
    let cublas = loaded(Role::Cublas, "cuBLAS", result);
    let cudnn = loaded(Role::Cudnn, "cuDNN", result);
    if let Some(lib) = cudnn {
        preload_cudnn_parts(lib, windows);
    }
    RuntimeLibraries { cublas, cudnn }
}

/// cuDNN 9 (and 8) load their parts (`libcudnn_cnn.so.9`, `cudnn_engines_precompiled64_9.dll`,
/// ...) later, by bare name, which the OS looks for on its search path rather than next to the
/// chosen file. Loading the parts found beside it first makes those later loads reuse them, as
/// PyTorch does. Failures are left for cuDNN itself to report.
fn preload_cudnn_parts(cudnn: &OpenLibrary, windows: bool) {
    let path = std::path::Path::new(&cudnn.requested);
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return;
    };
    if !path.is_absolute() {
        return;
    }
    let Some(major) = super::select::role_version(name, Role::Cudnn, windows) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut parts: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let n = p
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("")
                .to_ascii_lowercase();
            if windows {
                n.starts_with("cudnn_") && n.ends_with(&format!("64_{major}.dll"))
            } else {
                n.starts_with("libcudnn_") && n.ends_with(&format!(".so.{major}"))
            }
        })
        .collect();
    parts.sort();
    for part in parts {
        if let Ok(lib) = OpenLibrary::open(&part.display().to_string()) {
            Box::leak(Box::new(lib));
        }
    }
}

/// Opens the chosen file (or the first default name that loads) and reads its version. The
/// library stays loaded until the (short-lived) child exits: unloading CUDA libraries while
/// their threads or atexit handlers are alive is a classic source of crashes at exit.
pub fn load(
    role: Role,
    selection: &Selection,
    windows: bool,
) -> Result<(&'static OpenLibrary, LibraryReport), Vec<(String, String)>> {
    let candidates: Vec<String> = match selection.get(role) {
        Some(p) => vec![p.display().to_string()],
        None => default_names(role, windows)
            .iter()
            .map(|s| s.to_string())
            .collect(),
    };
    let mut tried = Vec::new();
    for name in candidates {
        if let Some(damage) = damaged(&name) {
            tried.push((name, damage));
            continue;
        }
        match OpenLibrary::open(&name) {
            Ok(lib) => {
                let lib: &'static OpenLibrary = Box::leak(Box::new(lib));
                let report = describe(role, lib);
                return Ok((lib, report));
            }
            Err(e) => tried.push((name, e.to_string())),
        }
    }
    Err(tried)
}

/// Why a chosen file must not be handed to the OS loader: it, or a library the loader would map
/// while loading it, is damaged (e.g. truncated), and ld.so would map it and crash on it. Found
/// with the dependency tree's own search. Bare names and unreadable files are left to the OS.
fn damaged(requested: &str) -> Option<String> {
    use crate::engine::binfmt::{BinaryError, read_binary_headers};
    let path = std::path::Path::new(requested);
    if !path.is_absolute() {
        return None;
    }
    match read_binary_headers(path) {
        Err(e @ BinaryError::Malformed { .. }) => Some(format!("not loaded: {e}")),
        Err(_) => None,
        Ok(_) => damaged_dependency(requested),
    }
}

/// The first damaged file the loader would stop at among `root`'s dependencies.
fn damaged_dependency(root: &str) -> Option<String> {
    use crate::engine::binfmt::{BinaryError, read_binary_headers};
    use crate::engine::graph::{self, GraphOptions};
    use crate::engine::loader::Outcome;
    // The child was started in the diagnosed session's environment: its own is that one.
    let ctx = crate::engine::context::live::load_without_driver(
        &crate::engine::context::SessionEnvironment::this_process(),
    );
    let opts = GraphOptions {
        runtime: false,
        ..GraphOptions::default()
    };
    let graph = graph::build(&ctx, root, &opts).ok()?;
    graph
        .nodes
        .iter()
        .flat_map(|n| n.attempts.iter().map(move |a| (n, a)))
        .filter(|(_, a)| matches!(a.outcome, Outcome::Unreadable { .. }))
        .find_map(|(n, a)| {
            let candidate = ctx.platform.join(&a.directory, &n.name);
            match read_binary_headers(std::path::Path::new(&candidate)) {
                Err(e @ BinaryError::Malformed { .. }) => Some(format!(
                    "not loaded: it needs {}, and the loader would stop at {e}",
                    n.name
                )),
                _ => None,
            }
        })
}

/// The mapped path and self-reported version of a loaded library, and the version its file
/// carries.
fn describe(role: Role, lib: &OpenLibrary) -> LibraryReport {
    let symbol = match role {
        Role::Driver => "cuInit",
        Role::Cudart => "cudaRuntimeGetVersion",
        Role::Cublas => "cublasGetProperty",
        Role::Cudnn => "cudnnGetVersion",
    };
    let mapped = lib.mapped_path(symbol);
    let file = mapped.as_deref().unwrap_or(&lib.requested);
    let mut report = LibraryReport {
        role,
        requested: lib.requested.clone(),
        file_version: file_version(file),
        mapped,
        version: None,
        version_raw: None,
        error: None,
    };
    match self_reported_version(role, lib) {
        Ok(Some((text, raw))) => {
            report.version = Some(text);
            report.version_raw = Some(raw);
        }
        Ok(None) => {}
        Err(e) => report.error = Some(e.to_string()),
    }
    report
}

/// Why a library's version could not be asked: a missing symbol, or the call's failure status
/// (as the library names it). The text goes into the library's row of the GPU test's report.
#[derive(Debug, thiserror::Error)]
enum VersionError {
    #[error(transparent)]
    Symbols(#[from] LoadError),
    #[error("{call} returned {status}")]
    Call { call: &'static str, status: String },
}

/// The version the library's own call returns; `Ok(None)` for the driver, whose version is read
/// after its basic table is resolved.
fn self_reported_version(
    role: Role,
    lib: &OpenLibrary,
) -> Result<Option<(String, i64)>, VersionError> {
    // SAFETY (all arms): version queries with their documented signatures; none needs a GPU.
    match role {
        Role::Driver => Ok(None),
        Role::Cudart => {
            let api = unsafe { CudartApi::load(&lib.lib) }?;
            let mut v = 0;
            match unsafe { (api.cudaRuntimeGetVersion)(&mut v) } {
                0 => Ok(Some((cuda_version_string(v), v as i64))),
                status => Err(VersionError::Call {
                    call: "cudaRuntimeGetVersion",
                    status: runtime_error_name(lib, status),
                }),
            }
        }
        Role::Cublas => {
            let api = unsafe { CublasVersion::load(&lib.lib) }?;
            let get = |p| {
                let mut v = 0;
                match unsafe { (api.cublasGetProperty)(p, &mut v) } {
                    0 => Ok(v),
                    status => Err(VersionError::Call {
                        call: "cublasGetProperty",
                        status: status.to_string(),
                    }),
                }
            };
            let (major, minor, patch) = (
                get(blas::MAJOR_VERSION)?,
                get(blas::MINOR_VERSION)?,
                get(blas::PATCH_LEVEL)?,
            );
            let raw = major as i64 * 10000 + minor as i64 * 100 + patch as i64;
            Ok(Some((format!("{major}.{minor}.{patch}"), raw)))
        }
        Role::Cudnn => {
            let api = unsafe { CudnnVersion::load(&lib.lib) }?;
            let v = unsafe { (api.cudnnGetVersion)() };
            Ok(Some((dnn::version_string(v), v as i64)))
        }
    }
}

/// A runtime status as the library names it (`cudaErrorInsufficientDriver (35)`).
fn runtime_error_name(lib: &OpenLibrary, status: i32) -> String {
    // SAFETY: cudaGetErrorName has this signature and returns a static string for any code.
    let name = unsafe { CudartErrorName::load(&lib.lib) }
        .map(|api| unsafe { super::ffi::c_string((api.cudaGetErrorName)(status)) })
        .unwrap_or_default();
    if name.is_empty() {
        status.to_string()
    } else {
        format!("{name} ({status})")
    }
}

/// The version written in the file, read the way the dependency tree reads it.
fn file_version(path: &str) -> Option<String> {
    let path = std::path::Path::new(path);
    if !path.is_absolute() {
        return None;
    }
    let version = crate::engine::binfmt::read_binary_names(path).ok()?.version;
    let text = version.version?;
    // A name's suffix is an ABI version unless it is a full one: libcudart.so.11.0 is 11.8.89.
    let from_name = version.source.is_some_and(|s| s.is_a_name());
    (!from_name || text.split('.').count() >= 3).then_some(text)
}

//! The child process of the GPU test (`cuda-triage gpu-test --child ...`): loads the chosen
//! libraries in order (driver first, so cuBLAS/cuDNN's own `dlopen("libcuda.so.1")` finds the
//! same one already loaded), reports the mapped file and version of each, runs the workloads and
//! prints one JSON [`ChildResult`] on standard output. Progress and sensor samples go to standard
//! error. A panic is caught and reported; a crash or hang is the parent's to report.

use super::ffi::OpenLibrary;
use super::ffi::blas::{self, CublasApi, CublasVersion, CudartApi, CudartErrorName};
use super::ffi::dnn::{self, CudnnApi, CudnnVersion};
use super::ffi::driver::{Cuda, DriverBasic, attr, cuda_version_string};
use super::ffi::errors::CallError;
use super::report::{ChildResult, DeviceInfo, LibraryReport, Role};
use super::select::{Selection, default_names};
use super::workloads::{self, Plan, Run, copy::CopyPeaks};
use super::{findings, maths, nvml, peaks, protocol};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What the parent asks the child to do.
#[derive(Debug, Clone, Default)]
pub struct ChildArgs {
    pub selection: Selection,
    pub quick: bool,
    pub device: u32,
}

/// Runs the test and prints the result; the child's exit code (0 whenever a result was printed).
pub fn main(args: &ChildArgs) -> i32 {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(args)))
        .unwrap_or_else(|payload| {
            let message = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            ChildResult {
                findings: vec![findings::panicked(&message)],
                ..Default::default()
            }
        });
    let json = serde_json::to_string(&result).unwrap_or_else(|_| "{}".into());
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{json}");
    let _ = out.flush();
    0
}

fn run(args: &ChildArgs) -> ChildResult {
    let windows = cfg!(windows);
    let since = Instant::now();
    let mut result = ChildResult::default();
    protocol::progress("Loading the NVIDIA management library (NVML)", 0, 0);
    let nvml = nvml::open();

    protocol::progress("Loading the CUDA driver", 0, 0);
    let driver = match load(Role::Driver, &args.selection, windows) {
        Ok((lib, report)) => {
            result.libraries.push(report);
            Some(lib)
        }
        Err(tried) => {
            let (requested, error) = tried.last().cloned().unwrap_or_default();
            let nvml_err = nvml.as_ref().err().map(String::as_str);
            result
                .findings
                .push(findings::no_driver(&requested, &error, nvml_err, windows));
            None
        }
    };
    // The runtime libraries are loaded (and report their file and version) even when the driver
    // is missing or has no GPU: "your cuBLAS loads, the driver is what is missing" is the answer.
    let libraries = load_runtime_libraries(args, windows, driver.is_none(), &mut result);
    let Some(driver) = driver else {
        return result;
    };
    // SAFETY: the two oldest driver entry points, with their documented signatures.
    let basic = match unsafe { DriverBasic::load(&driver.lib) } {
        Ok(b) => b,
        Err(e) => {
            result.findings.push(findings::missing_symbol(
                Role::Driver,
                &driver.requested,
                &e,
            ));
            return result;
        }
    };
    let mut version = 0;
    if unsafe { (basic.cuDriverGetVersion)(&mut version) } == 0
        && let Some(r) = result.libraries.first_mut()
    {
        r.version = Some(cuda_version_string(version));
        r.version_raw = Some(version as i64);
    }
    protocol::progress("Initialising the CUDA driver (cuInit)", 0, 0);
    let status = unsafe { (basic.cuInit)(0) };
    if status != 0 {
        let e = CallError::cuda("cuInit", status);
        result
            .findings
            .push(findings::cuda_error(&e, &driver.requested));
        return result;
    }
    if let Err(e) = &nvml {
        result.findings.push(findings::no_nvml(e, windows));
    }
    let cuda = match Cuda::open(driver, args.device as i32) {
        Ok(c) => c,
        Err(e) if e.code == -1 => {
            result.findings.push(findings::missing_symbol(
                Role::Driver,
                &driver.requested,
                &e.name,
            ));
            return result;
        }
        Err(e) => {
            result
                .findings
                .push(findings::cuda_error(&e, &driver.requested));
            return result;
        }
    };
    let mut device = device_info(&cuda, args.device, version);
    device.pci_bus_id = cuda.pci_bus_id();
    let key = nvml::DeviceKey {
        index: args.device,
        pci_bus_id: device.pci_bus_id.clone(),
    };
    if let Ok(n) = &nvml {
        nvml::fill_device(n, &key, &mut device);
    }
    let peak = peaks::lookup(&device.name);
    device.peak_model = peak.map(|p| p.model.clone());
    result.device = Some(device.clone());

    let sensors = Mutex::new(Vec::new());
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        if let Ok(n) = &nvml {
            let (sensors, stop, key) = (&sensors, &stop, &key);
            scope.spawn(move || {
                nvml::poll(n, key, Duration::from_millis(500), stop, since, |s| {
                    protocol::emit(&protocol::Event::Sensors(s.clone()));
                    if let Ok(mut v) = sensors.lock() {
                        v.push(s);
                    }
                });
            });
        }
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            workloads(args, &cuda, &libraries, &device, peak, &mut result)
        }));
        stop.store(true, Ordering::Relaxed);
        if outcome.is_err() {
            result
                .findings
                .push(findings::panicked("a workload panicked"));
        }
    });
    result.sensors = sensors.into_inner().unwrap_or_default();
    result
}

/// The libraries the workloads call, loaded after the driver.
struct RuntimeLibraries {
    cublas: Option<&'static OpenLibrary>,
    cudnn: Option<&'static OpenLibrary>,
}

/// Loads cudart, cuBLAS and cuDNN (and cuDNN's parts) and reports each. `quiet_defaults`: a
/// library the user did not choose and that is not found under its default names is not worth
/// a finding of its own (used when the driver is already missing).
fn load_runtime_libraries(
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
                        .push(findings::library_not_loaded(role, &tried, explicit));
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

fn workloads(
    args: &ChildArgs,
    cuda: &Cuda<'_>,
    libraries: &RuntimeLibraries,
    device: &DeviceInfo,
    peak: Option<&peaks::GpuPeak>,
    result: &mut ChildResult,
) {
    let plan = if args.quick {
        Plan::quick()
    } else {
        Plan::full()
    };
    let mut run = Run::new(&plan);

    protocol::progress("Matrix multiplication (cuBLAS)", 0, plan.steps());
    if let Some(lib) = libraries.cublas {
        // SAFETY: documented cuBLAS entry points with these signatures.
        match unsafe { CublasApi::load(&lib.lib) } {
            Err(e) => {
                result
                    .findings
                    .push(findings::missing_symbol(Role::Cublas, &lib.requested, &e))
            }
            Ok(api) => match workloads::gemm::Blas::create(&api) {
                Ok(handle) => workloads::gemm::run_all(&mut run, cuda, &handle, peak),
                Err(e) => run.errors.push(("cuBLAS handle".into(), e)),
            },
        }
    } else {
        run.done += plan.gemm_sizes.len() * plan.dtypes.len();
    }
    protocol::progress("Convolution (cuDNN)", run.done, plan.steps());
    if let Some(lib) = libraries.cudnn {
        // SAFETY: documented cuDNN entry points with these signatures.
        match unsafe { CudnnApi::load(&lib.lib) } {
            Err(e) => {
                result
                    .findings
                    .push(findings::missing_symbol(Role::Cudnn, &lib.requested, &e))
            }
            Ok(api) => workloads::conv::run_all(&mut run, cuda, &api, peak),
        }
    } else {
        run.done += 2;
    }
    let pcie = &device.pcie;
    let copy_peaks = CopyPeaks {
        pcie_gbps: maths::pcie_gbps(
            pcie.max_generation.or(pcie.generation).unwrap_or(0),
            pcie.max_width.or(pcie.width).unwrap_or(0),
        ),
        memory_gbps: peak.map(|p| p.memory_gbps),
    };
    workloads::copy::run_all(&mut run, cuda, copy_peaks);
    protocol::progress("Done", plan.steps(), plan.steps());

    for (name, e) in &run.errors {
        result.findings.push(findings::workload_failed(name, e));
    }
    for w in &run.results {
        let c = &w.correctness;
        if !c.passed {
            result.findings.push(findings::wrong_results(
                &w.name,
                c.max_relative_error,
                c.bound,
                c.non_finite,
            ));
        }
    }
    if !run.skipped.is_empty() {
        result.findings.push(findings::skipped(&run.skipped));
    }
    result.workloads = std::mem::take(&mut run.results);
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
fn load(
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
            Err(e) => tried.push((name, e)),
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
    let ctx = crate::engine::context::live::load_without_driver();
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
        Err(e) => report.error = Some(e),
    }
    report
}

/// The version the library's own call returns; `Ok(None)` for the driver, whose version is read
/// after its basic table is resolved.
fn self_reported_version(role: Role, lib: &OpenLibrary) -> Result<Option<(String, i64)>, String> {
    // SAFETY (all arms): version queries with their documented signatures; none needs a GPU.
    match role {
        Role::Driver => Ok(None),
        Role::Cudart => {
            let api = unsafe { CudartApi::load(&lib.lib) }?;
            let mut v = 0;
            match unsafe { (api.cudaRuntimeGetVersion)(&mut v) } {
                0 => Ok(Some((cuda_version_string(v), v as i64))),
                status => Err(format!(
                    "cudaRuntimeGetVersion returned {}",
                    runtime_error_name(lib, status)
                )),
            }
        }
        Role::Cublas => {
            let api = unsafe { CublasVersion::load(&lib.lib) }?;
            let get = |p| {
                let mut v = 0;
                match unsafe { (api.cublasGetProperty)(p, &mut v) } {
                    0 => Ok(v),
                    status => Err(format!("cublasGetProperty returned {status}")),
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
    let from_name = matches!(version.source.as_deref(), Some("file name" | "soname"));
    (!from_name || text.split('.').count() >= 3).then_some(text)
}

/// The device card from the CUDA driver (NVML adds clocks, PCIe, temperature and power).
fn device_info(cuda: &Cuda<'_>, index: u32, driver_version: i32) -> DeviceInfo {
    let cc = cuda
        .attribute(attr::COMPUTE_CAPABILITY_MAJOR)
        .zip(cuda.attribute(attr::COMPUTE_CAPABILITY_MINOR))
        .map(|(a, b)| format!("{a}.{b}"));
    DeviceInfo {
        index,
        name: cuda.name().unwrap_or_default(),
        compute_capability: cc,
        sm_count: cuda.attribute(attr::MULTIPROCESSOR_COUNT).map(|v| v as u32),
        memory_total_mib: cuda.total_memory().map(|b| (b / (1024 * 1024)) as u64),
        cuda_driver_version: Some(cuda_version_string(driver_version)),
        sm_clock_max_mhz: cuda
            .attribute(attr::CLOCK_RATE_KHZ)
            .map(|k| (k / 1000) as u32),
        memory_clock_max_mhz: cuda
            .attribute(attr::MEMORY_CLOCK_RATE_KHZ)
            .map(|k| (k / 1000) as u32),
        ..Default::default()
    }
}

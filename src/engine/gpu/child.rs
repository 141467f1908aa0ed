//! The child process of the GPU test (`cuda-triage gpu-test --child ...`): loads the chosen
//! libraries in order (driver first, so cuBLAS/cuDNN's own `dlopen("libcuda.so.1")` finds the
//! same one already loaded), reports the mapped file and version of each, runs the workloads and
//! prints one JSON [`ChildResult`] on standard output. Progress and sensor samples go to standard
//! error. A panic is caught and reported; a crash or hang is the parent's to report.

use super::child_libraries::{RuntimeLibraries, load, load_runtime_libraries};
use super::ffi::blas::CublasApi;
use super::ffi::cuda_driver_api::{Cuda, DriverBasic, attr, cuda_version_string};
use super::ffi::dnn::CudnnApi;
use super::ffi::errors::CallError;
use super::results::{ChildResult, DeviceInfo, Role};
use super::select::Selection;
use super::workloads::{self, Plan, Run, copy::CopyPeaks};
use super::{maths, nvml, peaks, protocol, test_findings};
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
                findings: vec![test_findings::panicked(&message)],
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
            let nvml_err = nvml.as_ref().err().map(ToString::to_string);
            result.findings.push(test_findings::no_driver(
                &requested,
                &error,
                nvml_err.as_deref(),
                windows,
            ));
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
            result.findings.push(test_findings::missing_symbol(
                Role::Driver,
                &driver.requested,
                &e.to_string(),
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
            .push(test_findings::cuda_error(&e, &driver.requested));
        return result;
    }
    if let Err(e) = &nvml {
        result
            .findings
            .push(test_findings::no_nvml(&e.to_string(), windows));
    }
    let cuda = match Cuda::open(driver, args.device as i32) {
        Ok(c) => c,
        Err(e) if e.code == -1 => {
            result.findings.push(test_findings::missing_symbol(
                Role::Driver,
                &driver.requested,
                &e.name,
            ));
            return result;
        }
        Err(e) => {
            result
                .findings
                .push(test_findings::cuda_error(&e, &driver.requested));
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
                .push(test_findings::panicked("a workload panicked"));
        }
    });
    result.sensors = sensors.into_inner().unwrap_or_default();
    result
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
            Err(e) => result.findings.push(test_findings::missing_symbol(
                Role::Cublas,
                &lib.requested,
                &e.to_string(),
            )),
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
            Err(e) => result.findings.push(test_findings::missing_symbol(
                Role::Cudnn,
                &lib.requested,
                &e.to_string(),
            )),
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
        result
            .findings
            .push(test_findings::workload_failed(name, e));
    }
    for w in &run.results {
        let c = &w.correctness;
        if !c.passed {
            result.findings.push(test_findings::wrong_results(
                &w.name,
                c.max_relative_error,
                c.bound,
                c.non_finite,
            ));
        }
    }
    if !run.skipped.is_empty() {
        result.findings.push(test_findings::skipped(&run.skipped));
    }
    result.workloads = std::mem::take(&mut run.results);
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

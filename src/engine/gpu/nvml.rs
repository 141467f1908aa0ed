//! Driver and GPU facts from NVML (nvml-wrapper), queried on a helper thread with a time limit
//! so a faulting or hung driver cannot stall the scan. No driver is an ordinary answer, not a panic.
//! For the live GPU test (run in the child process): the device card ([`fill_device`]) and
//! temperature/power sampling while the workloads run ([`sample`], [`poll`]).

use crate::engine::context::{DriverFacts, GpuFacts};
use crate::engine::gpu::results::{DeviceInfo, SensorSample};
use nvml_wrapper::enum_wrappers::device::{Clock, TemperatureSensor};
use nvml_wrapper::error::NvmlError;
use nvml_wrapper::{Device, Nvml};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What NVML says about the installed driver and its GPUs.
pub use crate::engine::context::live::DriverReadout as NvmlProbe;

/// Why NVML gave no answer. Its text is a sentence for the user: the context's driver note, the
/// GPU test's evidence. NVML's own error is kept (and quoted in the sentence).
#[derive(Debug, thiserror::Error)]
pub enum NvmlUnavailable {
    #[error("NVIDIA driver not found or not usable (NVML: {0})")]
    NoDriver(NvmlError),
    #[error("NVML could not read the driver version: {0}")]
    NoDriverVersion(NvmlError),
    #[error("NVML unavailable: {0}")]
    Init(NvmlError),
    #[error("NVML did not answer within {} s", .0.as_secs())]
    TimedOut(Duration),
    #[error("could not start the NVML query: {0}")]
    NoThread(std::io::Error),
    #[error("NVML query panicked")]
    QueryPanicked,
    #[error("NVML initialisation panicked")]
    InitPanicked,
}

/// Queries NVML, giving up after `timeout`.
pub fn probe_with_timeout(timeout: Duration) -> Result<NvmlProbe, NvmlUnavailable> {
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("nvml-probe".into())
        .spawn(move || {
            let result =
                std::panic::catch_unwind(probe).unwrap_or(Err(NvmlUnavailable::QueryPanicked));
            let _ = tx.send(result);
        });
    if let Err(e) = spawned {
        return Err(NvmlUnavailable::NoThread(e));
    }
    rx.recv_timeout(timeout)
        .unwrap_or(Err(NvmlUnavailable::TimedOut(timeout)))
}

fn probe() -> Result<NvmlProbe, NvmlUnavailable> {
    let nvml = nvml_wrapper::Nvml::init().map_err(NvmlUnavailable::NoDriver)?;
    let version = nvml
        .sys_driver_version()
        .map_err(NvmlUnavailable::NoDriverVersion)?;
    let cuda = nvml
        .sys_cuda_driver_version()
        .ok()
        .map(|v| format!("{}.{}", v / 1000, (v % 1000) / 10));
    let count = nvml.device_count().unwrap_or(0);
    let gpus = (0..count)
        .filter_map(|i| nvml.device_by_index(i).ok())
        .map(|d| GpuFacts {
            name: d.name().unwrap_or_else(|_| "unknown NVIDIA GPU".into()),
            compute_capability: d
                .cuda_compute_capability()
                .ok()
                .map(|c| format!("{}.{}", c.major, c.minor)),
            memory_mib: d.memory_info().ok().map(|m| m.total / (1024 * 1024)),
        })
        .collect();
    Ok(NvmlProbe {
        driver: DriverFacts { version, cuda },
        gpus,
    })
}

/// Opens NVML; the error names the library that is missing or broken.
pub fn open() -> Result<Nvml, NvmlUnavailable> {
    std::panic::catch_unwind(Nvml::init)
        .map_err(|_| NvmlUnavailable::InitPanicked)?
        .map_err(NvmlUnavailable::Init)
}

/// Which board the test runs on, as NVML is to find it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceKey {
    /// The CUDA device number (NVML's numbering is only used when no PCI address is known).
    pub index: u32,
    /// The PCI address the CUDA driver reports for that device.
    pub pci_bus_id: Option<String>,
}

/// NVML's handle of the same board the CUDA driver calls `key.index`: looked up by PCI address,
/// because NVML numbers devices in PCI order and ignores `CUDA_VISIBLE_DEVICES`, while CUDA puts
/// the fastest first by default (NVML's docs: the NVML index may not match the CUDA index).
fn device<'n>(nvml: &'n Nvml, key: &DeviceKey) -> Result<Device<'n>, NvmlError> {
    match &key.pci_bus_id {
        Some(id) => nvml.device_by_pci_bus_id(id.as_str()),
        None => nvml.device_by_index(key.index),
    }
}

/// Adds what NVML knows about the device to the device card (fields already set by the CUDA
/// driver are kept).
pub fn fill_device(nvml: &Nvml, key: &DeviceKey, info: &mut DeviceInfo) {
    info.driver_version = info
        .driver_version
        .take()
        .or_else(|| nvml.sys_driver_version().ok());
    let Ok(d) = device(nvml, key) else {
        return;
    };
    if info.name.is_empty() {
        info.name = d.name().unwrap_or_default();
    }
    if info.compute_capability.is_none() {
        info.compute_capability = d
            .cuda_compute_capability()
            .ok()
            .map(|c| format!("{}.{}", c.major, c.minor));
    }
    if info.memory_total_mib.is_none() {
        info.memory_total_mib = d.memory_info().ok().map(|m| m.total / (1024 * 1024));
    }
    info.sm_clock_max_mhz = d.max_clock_info(Clock::SM).ok().or(info.sm_clock_max_mhz);
    info.memory_clock_max_mhz = d
        .max_clock_info(Clock::Memory)
        .ok()
        .or(info.memory_clock_max_mhz);
    info.pcie.generation = d.current_pcie_link_gen().ok();
    info.pcie.max_generation = d.max_pcie_link_gen().ok();
    info.pcie.width = d.current_pcie_link_width().ok();
    info.pcie.max_width = d.max_pcie_link_width().ok();
    info.temperature_c = d.temperature(TemperatureSensor::Gpu).ok();
    info.power_w = d.power_usage().ok().map(|mw| mw as f64 / 1000.0);
    info.power_limit_w = d.enforced_power_limit().ok().map(|mw| mw as f64 / 1000.0);
}

/// Temperature, power and SM clock of the device now.
pub fn sample(nvml: &Nvml, key: &DeviceKey, since: Instant) -> SensorSample {
    let t_s = since.elapsed().as_secs_f64();
    match device(nvml, key) {
        Ok(d) => SensorSample {
            t_s,
            temperature_c: d.temperature(TemperatureSensor::Gpu).ok(),
            power_w: d.power_usage().ok().map(|mw| mw as f64 / 1000.0),
            sm_clock_mhz: d.clock_info(Clock::SM).ok(),
        },
        Err(_) => SensorSample {
            t_s,
            ..Default::default()
        },
    }
}

/// Samples every `interval` until `stop` is set, handing each sample to `on_sample`.
pub fn poll(
    nvml: &Nvml,
    key: &DeviceKey,
    interval: Duration,
    stop: &AtomicBool,
    since: Instant,
    mut on_sample: impl FnMut(SensorSample),
) {
    let tick = Duration::from_millis(20).min(interval);
    let mut next = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        if Instant::now() >= next {
            on_sample(sample(nvml, key, since));
            next = Instant::now() + interval;
        }
        std::thread::sleep(tick);
    }
}

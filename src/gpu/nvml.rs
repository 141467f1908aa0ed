//! Driver and GPU facts from NVML (nvml-wrapper), queried on a helper thread with a time limit
//! so a faulting or hung driver cannot stall the scan. No driver is an ordinary answer, not a panic.

use crate::engine::context::{DriverFacts, GpuFacts};
use std::time::Duration;

/// What NVML says about the installed driver and its GPUs.
#[derive(Debug, Clone)]
pub struct NvmlProbe {
    pub driver: DriverFacts,
    pub gpus: Vec<GpuFacts>,
}

/// Queries NVML, giving up after `timeout`; the error is a sentence for the user.
pub fn probe_with_timeout(timeout: Duration) -> Result<NvmlProbe, String> {
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("nvml-probe".into())
        .spawn(move || {
            let result = std::panic::catch_unwind(probe)
                .unwrap_or_else(|_| Err("NVML query panicked".to_string()));
            let _ = tx.send(result);
        });
    if let Err(e) = spawned {
        return Err(format!("could not start the NVML query: {e}"));
    }
    rx.recv_timeout(timeout).unwrap_or_else(|_| {
        Err(format!(
            "NVML did not answer within {} s",
            timeout.as_secs()
        ))
    })
}

fn probe() -> Result<NvmlProbe, String> {
    let nvml = nvml_wrapper::Nvml::init()
        .map_err(|e| format!("NVIDIA driver not found or not usable (NVML: {e})"))?;
    let version = nvml
        .sys_driver_version()
        .map_err(|e| format!("NVML could not read the driver version: {e}"))?;
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

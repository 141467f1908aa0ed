//! `GpuReport`: what the live GPU test found, the `"gpu"` key of the JSON document. The child
//! prints one [`ChildResult`]; the parent wraps it with how the child ended and the wall time.

use super::maths::{Correctness, Dtype};
use crate::engine::findings::Finding;
use serde::{Deserialize, Serialize};

/// Which library a file plays the part of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Driver,
    Cudart,
    Cublas,
    Cudnn,
}

impl Role {
    pub const ALL: [Role; 4] = [Role::Driver, Role::Cudart, Role::Cublas, Role::Cudnn];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Driver => "driver",
            Role::Cudart => "cudart",
            Role::Cublas => "cublas",
            Role::Cudnn => "cudnn",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Role::Driver => "CUDA driver",
            Role::Cudart => "CUDA runtime",
            Role::Cublas => "cuBLAS",
            Role::Cudnn => "cuDNN",
        }
    }
}

/// One library the child loaded (or failed to).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LibraryReport {
    pub role: Role,
    /// What was asked for: an absolute path, or a bare name left to the OS loader.
    pub requested: String,
    /// The file the OS actually mapped, as the OS reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mapped: Option<String>,
    /// The version the library itself reports, e.g. `12.4` or `9.1.0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The raw integer the version call returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version_raw: Option<i64>,
    /// The version written in the file (VS_VERSIONINFO, the nvcc banner, the name), as the
    /// dependency tree reads it: full detail (`11.8.89`), and there even when the library's own
    /// call fails (CUDA 11's `cudaRuntimeGetVersion` does without a driver).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_version: Option<String>,
    /// Why the version call failed, or why the library could not be used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl LibraryReport {
    /// The version to show: what the library reports, else what its file says.
    pub fn version_label(&self) -> String {
        match (&self.version, &self.file_version) {
            (Some(v), Some(f)) if f != v && f.starts_with(v.as_str()) => format!("{v} ({f})"),
            (Some(v), _) => v.clone(),
            (None, Some(f)) => format!("{f} (from the file)"),
            (None, None) => "version unknown".into(),
        }
    }
}

/// PCIe link state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PcieLink {
    pub generation: Option<u32>,
    pub max_generation: Option<u32>,
    pub width: Option<u32>,
    pub max_width: Option<u32>,
}

/// The device the test ran on, from the CUDA driver and NVML.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceInfo {
    pub index: u32,
    pub name: String,
    /// The PCI address (`0000:65:00.0`) the CUDA driver reports; NVML is asked by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pci_bus_id: Option<String>,
    pub compute_capability: Option<String>,
    pub sm_count: Option<u32>,
    pub memory_total_mib: Option<u64>,
    pub driver_version: Option<String>,
    /// The newest CUDA version the driver supports (cuDriverGetVersion), e.g. `12.4`.
    pub cuda_driver_version: Option<String>,
    pub sm_clock_max_mhz: Option<u32>,
    pub memory_clock_max_mhz: Option<u32>,
    pub pcie: PcieLink,
    pub temperature_c: Option<u32>,
    pub power_w: Option<f64>,
    pub power_limit_w: Option<f64>,
    /// The peak-table row used for "fraction of peak", if the device is in it.
    pub peak_model: Option<String>,
}

/// Temperature and power at one moment of the test.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SensorSample {
    /// Seconds since the child started.
    pub t_s: f64,
    pub temperature_c: Option<u32>,
    pub power_w: Option<f64>,
    pub sm_clock_mhz: Option<u32>,
}

/// What a workload measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WorkloadKind {
    Gemm,
    Conv,
    Copy,
}

/// One measured workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkloadResult {
    /// Short label, e.g. `GEMM fp16 4096³` or `H2D pinned 256 MiB`.
    pub name: String,
    pub kind: WorkloadKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dtype: Option<Dtype>,
    /// Problem size in words (`m=n=k=4096`, `N=32 C=256 ...`, `268435456 bytes`).
    pub size: String,
    pub median_ms: f64,
    pub repeats: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tflops: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gbps: Option<f64>,
    /// Measured rate divided by the device's peak for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fraction_of_peak: Option<f64>,
    /// What the cuDNN Find step chose, for convolutions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<String>,
    pub correctness: Correctness,
}

/// What the child prints on standard output: one JSON object.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChildResult {
    #[serde(default)]
    pub device: Option<DeviceInfo>,
    #[serde(default)]
    pub libraries: Vec<LibraryReport>,
    #[serde(default)]
    pub workloads: Vec<WorkloadResult>,
    /// Problems the child diagnosed itself (no driver, CUDA errors, missing symbols...).
    #[serde(default)]
    pub findings: Vec<Finding>,
    #[serde(default)]
    pub sensors: Vec<SensorSample>,
}

/// How the test went, in one word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Every workload ran and every result was correct.
    Passed,
    /// A workload ran but produced wrong results.
    Incorrect,
    /// Some workloads could not run (a library missing, a CUDA error).
    Incomplete,
    /// Nothing could run: no driver, no GPU, a crash or a hang.
    Failed,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Incorrect => "incorrect",
            Verdict::Incomplete => "incomplete",
            Verdict::Failed => "failed",
        }
    }
}

/// How the child process ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ChildExit {
    /// Exited and printed a result.
    Finished { code: i32 },
    /// Killed by a signal or ended with an unexpected status and no result.
    Crashed { description: String },
    /// Killed after the time limit.
    TimedOut { after_s: u64 },
    /// Stopped at the user's request.
    Cancelled,
    /// Could not be started at all.
    NotStarted { message: String },
}

/// The `"gpu"` key of the document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuReport {
    pub verdict: Verdict,
    pub summary: String,
    pub quick: bool,
    /// Wall time from starting the child to the verdict, in seconds.
    pub wall_s: f64,
    pub child: ChildExit,
    #[serde(default)]
    pub device: Option<DeviceInfo>,
    #[serde(default)]
    pub libraries: Vec<LibraryReport>,
    #[serde(default)]
    pub workloads: Vec<WorkloadResult>,
    #[serde(default)]
    pub sensors: Vec<SensorSample>,
    /// The child's last lines of diagnostic output (loader messages, abort text).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub log_tail: Vec<String>,
}

/// Decides the verdict from the child's exit and its results.
pub fn verdict(child: &ChildExit, workloads: &[WorkloadResult], findings: &[Finding]) -> Verdict {
    use crate::engine::findings::Severity;
    if !matches!(child, ChildExit::Finished { .. }) || workloads.is_empty() {
        return Verdict::Failed;
    }
    if workloads.iter().any(|w| !w.correctness.passed) {
        return Verdict::Incorrect;
    }
    if findings.iter().any(|f| f.severity <= Severity::Warning) {
        return Verdict::Incomplete;
    }
    Verdict::Passed
}

//! `SystemContext`: the only way the engine sees a machine.
//!
//! It bundles the platform being diagnosed (Windows or Linux, plus a WSL flag), a filesystem
//! view, the environment of the process being diagnosed, a registry view and the NVIDIA
//! driver/GPU facts. It comes from one of three sources: the live machine ([`live`]), a machine
//! file ([`machine_file`]) or a saved report ([`SystemContext::from_report_machine`]). Because the
//! engine never touches the host directly, a Windows machine can be diagnosed on Linux, a report
//! re-diagnosed elsewhere, and every rule tested against a fixture.

pub mod activate;
pub mod did_you_mean;
pub mod env;
#[cfg(any(test, feature = "testing"))]
pub mod fake;
pub mod fs;
pub mod live;
pub mod machine_file;
pub mod platform;
pub mod recorded;
pub mod runs_in;
pub mod window_renderer;

pub use env::{EnvVars, RegistryView};
pub use fs::{DirEntryInfo, FsError, FsView};
pub use live::SessionEnvironment;
pub use platform::Platform;
pub use window_renderer::{RendererFailure, WindowRenderer};

use serde::{Deserialize, Serialize};

/// What NVML (or the driver library) would report about the installed NVIDIA driver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriverFacts {
    /// Driver version, e.g. `531.14` or `550.54.15`.
    pub version: String,
    /// Newest CUDA version the driver supports, e.g. `12.1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cuda: Option<String>,
}

/// One GPU as NVML would report it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuFacts {
    pub name: String,
    /// `major.minor`, e.g. `8.6`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_capability: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mib: Option<u64>,
}

/// Where a context came from; shown to the user and stored in reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "path", rename_all = "kebab-case")]
pub enum ContextSource {
    Live,
    MachineFile(String),
    Report(String),
}

impl ContextSource {
    pub fn describe(&self) -> String {
        match self {
            ContextSource::Live => "this machine".to_string(),
            ContextSource::MachineFile(p) => format!("machine file {p}"),
            ContextSource::Report(p) => format!("saved report {p}"),
        }
    }
}

/// Everything the engine may know about the machine being diagnosed.
#[derive(Debug, Clone)]
pub struct SystemContext {
    pub platform: Platform,
    /// Linux running under Windows Subsystem for Linux.
    pub wsl: bool,
    pub fs: FsView,
    pub env: EnvVars,
    pub registry: RegistryView,
    /// `None` when no NVIDIA driver is installed (or it could not be queried; see `driver_note`).
    pub driver: Option<DriverFacts>,
    pub gpus: Vec<GpuFacts>,
    /// Why driver facts are missing, when known (e.g. the NVML error text).
    pub driver_note: Option<String>,
    pub source: ContextSource,
    /// The environment programs of this computer are started in (probes, the GPU test's child):
    /// this process's, or the session's after a fix. Only a live context starts programs.
    pub session: SessionEnvironment,
}

/// The `"machine"` object of the JSON contract: what a report keeps of a context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineSummary {
    pub platform: Platform,
    pub wsl: bool,
    pub source: ContextSource,
    #[serde(default)]
    pub driver: Option<DriverFacts>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver_note: Option<String>,
    #[serde(default)]
    pub gpus: Vec<GpuFacts>,
    /// The environment variables that matter for GPU library loading.
    #[serde(default)]
    pub env: std::collections::BTreeMap<String, String>,
    /// Container or WSL, and the loaded kernel module's version (absent on a plain host).
    #[serde(default, skip_serializing_if = "runs_in::RunsIn::is_plain")]
    pub runs_in: runs_in::RunsIn,
    /// How the wizard drew its window here (only in the wizard's reports of the computer it ran on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renderer: Option<WindowRenderer>,
}

impl MachineSummary {
    /// " in a Docker container", " under WSL 2", or "" on a plain host (also for reports written
    /// before the detection, which only kept the WSL flag).
    pub fn placement(&self) -> String {
        let words = self.runs_in.describe();
        if !words.is_empty() {
            format!(" {words}")
        } else if self.wsl {
            " under WSL".to_string()
        } else {
            String::new()
        }
    }
}

/// Variables (or prefixes ending in `_`) that the summary keeps: those that steer library loading.
const RELEVANT_ENV: &[&str] = &[
    "PATH",
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
    "CUDA_PATH",
    "CUDA_PATH_V",
    "CUDA_HOME",
    "CUDA_ROOT",
    "CUDNN_PATH",
    "CUDA_VISIBLE_DEVICES",
    "XLA_FLAGS",
    "TF_CPP_MIN_LOG_LEVEL",
    "CONDA_PREFIX",
    "CONDA_DLL_SEARCH_MODIFICATION_ENABLE",
    "VIRTUAL_ENV",
    "PYTHONHOME",
    "PYTHONPATH",
];

impl SystemContext {
    /// The summary stored under `"machine"` in every JSON document.
    pub fn summary(&self) -> MachineSummary {
        let env = self
            .env
            .iter()
            .filter(|(k, _)| {
                let upper = k.to_ascii_uppercase();
                RELEVANT_ENV.iter().any(|r| {
                    if r.ends_with('_') {
                        upper.starts_with(r)
                    } else {
                        upper == *r
                    }
                })
            })
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        MachineSummary {
            platform: self.platform,
            wsl: self.wsl,
            source: self.source.clone(),
            driver: self.driver.clone(),
            driver_note: self.driver_note.clone(),
            gpus: self.gpus.clone(),
            env,
            runs_in: runs_in::RunsIn::detect(self),
            renderer: None,
        }
    }

    /// Rebuilds a context from a saved report's machine summary. It has no files: rules that
    /// need the filesystem see an empty machine and say so.
    pub fn from_report_machine(machine: &MachineSummary, report_path: &str) -> SystemContext {
        SystemContext {
            platform: machine.platform,
            wsl: machine.wsl,
            fs: FsView::empty(machine.platform),
            env: EnvVars::new(machine.platform, machine.env.clone()),
            registry: RegistryView::default(),
            driver: machine.driver.clone(),
            gpus: machine.gpus.clone(),
            driver_note: machine.driver_note.clone(),
            source: ContextSource::Report(report_path.to_string()),
            session: SessionEnvironment::default(),
        }
    }

    /// The entries of PATH (Windows) or PATH (Linux), split with the platform's separator.
    pub fn path_entries(&self) -> Vec<String> {
        self.env
            .get("PATH")
            .map(|p| self.platform.split_list(p))
            .unwrap_or_default()
    }
}

//! Driver presence: without the NVIDIA driver (nvcuda.dll / libcuda.so.1, reported by NVML)
//! no CUDA library can run, whatever else is installed.

use super::RuleInput;
use crate::engine::context::{ContextSource, Platform};
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, Severity};

pub fn check(input: &RuleInput) -> Vec<Finding> {
    let ctx = input.ctx;

    // In a container the driver is the host's: `containers` says why it was not mounted.
    if ctx.driver.is_some() || super::containers::driver_not_mounted(ctx) {
        return Vec::new();
    }
    let (driver_lib, nvml_lib) = match ctx.platform {
        Platform::Windows => ("nvcuda.dll", "nvml.dll"),
        Platform::Linux => ("libcuda.so.1", "libnvidia-ml.so.1"),
    };
    let mut detail = format!(
        "No NVIDIA driver was found, so {driver_lib} (the CUDA driver) and {nvml_lib} (NVML) are not available. \
         CUDA libraries such as cuBLAS and cuDNN need the driver to run; install the NVIDIA driver for your GPU."
    );
    if ctx.wsl {
        detail.push_str(" Under WSL the driver comes from Windows and appears in /usr/lib/wsl/lib; do not install a Linux driver inside WSL.");
    }
    let mut finding = Finding::new(
        codes::NO_NVIDIA_DRIVER,
        Severity::Error,
        "No NVIDIA driver found",
        detail,
    )
    .with_libraries([driver_lib, nvml_lib]);
    let source = match &ctx.source {
        ContextSource::Live => "NVML on this machine",
        ContextSource::MachineFile(_) => "the machine file has no [driver] section",
        ContextSource::Report(_) => "the saved report records no driver",
    };
    finding = finding.with_evidence(Evidence::new("driver", source));
    if let Some(note) = &ctx.driver_note {
        finding = finding.with_evidence(Evidence::new("driver", note.clone()));
    }
    vec![finding]
}

//! The driver's two halves disagree: the user-space libraries (`libcuda.so.<version>`,
//! `libnvidia-ml.so.<version>`) are of another version than the loaded kernel module
//! (`/proc/driver/nvidia/version`). On a host it is a driver upgrade without a reboot; in a
//! container the module is the host's, and the libraries either came from the host the same way
//! (then the host was upgraded without a reboot) or from the image itself (a driver package
//! baked into it). NVML answers "Driver/library version mismatch", `nvidia-container-cli`
//! "nvml error: driver/library version mismatch", and the kernel logs "NVRM: API mismatch".

use super::RuleInput;
use super::containers::driver_library;
use crate::engine::context::runs_in::{KERNEL_VERSION_FILE, RunsIn};
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, Severity};
use crate::engine::graph::process::attempts_evidence;

pub fn check(input: &RuleInput) -> Vec<Finding> {
    let ctx = input.ctx;

    let runs_in = RunsIn::detect(ctx);
    let Some(kernel) = &runs_in.kernel_module else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for name in ["libnvidia-ml.so.1", "libcuda.so.1"] {
        let lib = driver_library(ctx, name);
        let (Some(path), Some(version)) = (lib.resolution.path.as_deref(), lib.version.clone())
        else {
            continue;
        };
        // WSL's files are Windows'; a cuda-compat libcuda is `containers`' finding.
        if &version == kernel || path.starts_with("/usr/lib/wsl/") || path.contains("/compat/") {
            continue;
        }
        let container = runs_in.container.as_ref();
        let file = format!("{}.{version}", name.trim_end_matches(".1"));
        let mounted = container.is_some_and(|c| {
            c.driver_mounts
                .iter()
                .any(|m| m.rsplit('/').next() == Some(file.as_str()))
        });
        let (why, fix) = match container {
            Some(c) if !mounted => (
                format!(
                    "The process runs in {}, where the kernel module is the host's ({kernel}), but {path} ({version}) is not one the NVIDIA Container Toolkit mounted from the host: the image carries driver libraries of its own (a libnvidia-compute / nvidia-driver package, or files copied in), and they shadow the host's.",
                    c.describe()
                ),
                FixRef {
                    id: format!("remove-image-driver:{name}"),
                    kind: FixKind::Manual,
                    summary: format!(
                        "Remove the driver libraries from the image (find the package with dpkg -S {path}, apt-get remove it in the Dockerfile) and let the toolkit mount the host's: docker run --gpus all IMAGE"
                    ),
                },
            ),
            _ => (
                format!(
                    "The NVIDIA driver's libraries were upgraded to {version} while the kernel module still loaded is {kernel}: the driver was updated (by hand or by unattended upgrades) without a reboot. Every CUDA and NVML call fails until they match{}.",
                    if container.is_some() {
                        "; the host's containers get the new libraries mounted and fail the same way"
                    } else {
                        ""
                    }
                ),
                FixRef {
                    id: "reboot-after-driver-upgrade".into(),
                    kind: FixKind::Manual,
                    summary: format!(
                        "Reboot the {}machine so the {version} kernel module is loaded (or unload and reload the nvidia modules: sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia)",
                        if container.is_some() { "host " } else { "" }
                    ),
                },
            ),
        };
        let mut f = Finding::new(
            codes::DRIVER_KERNEL_MISMATCH,
            Severity::Error,
            format!("Driver library {name} is {version} but the kernel module is {kernel}"),
            format!("{why} NVML reports \"Failed to initialize NVML: Driver/library version mismatch\"; nvidia-container-cli refuses to start GPU containers with \"nvml error: driver/library version mismatch\"."),
        )
        .with_libraries([name])
        .with_evidence(Evidence::at("driver", format!("kernel module {kernel}"), KERNEL_VERSION_FILE))
        .with_evidence(Evidence::at("file", format!("{name} resolves to driver {version}"), path));
        f.evidence
            .extend(attempts_evidence(&lib.process, &lib.resolution));
        out.push(f.with_fix(fix));
        break;
    }
    out
}

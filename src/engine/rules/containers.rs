//! Containers: the CUDA libraries live in the image, the driver's user-space libraries
//! (`libcuda.so.1`, `libnvidia-ml.so.1`) are bind-mounted from the host by the NVIDIA Container
//! Toolkit, and the kernel module is the host's. Two findings here: no driver library inside a
//! container (started without `--gpus`/CDI, capabilities without `compute`, or no toolkit on the
//! host), and a CUDA forward-compatibility `libcuda` from the image (`cuda-compat-*`,
//! `/usr/local/cuda/compat`) loaded instead of the host's. The version and requirement checks
//! live in [`super::driver_versions`] and [`super::container_require`]; WSL in [`super::wsl`].
//!
//! Sources: NVIDIA Container Toolkit documentation (install guide, `docker-specialized`, CDI
//! support, troubleshooting) and the CUDA Compatibility guide, linked from `finding_docs.toml`.

use super::RuleInput;
use crate::engine::context::runs_in::{Container, RunsIn};
use crate::engine::context::{Platform, SystemContext};
use crate::engine::finding_codes as codes;
use crate::engine::findings::{Evidence, Finding, FixKind, FixRef, PathEdit, Severity};
use crate::engine::graph::process::{self, PresenceProbe, Process, attempts_evidence};
use crate::engine::knowledge::version::compare;
use crate::engine::loader::{How, Resolution};
use crate::engine::scan::version_clues::from_libcuda_name;
use std::cmp::Ordering;

/// The driver library every CUDA program loads, as a plain program of the machine resolves it.
pub struct DriverLibrary {
    pub process: Process,
    pub resolution: Resolution,
    /// The driver version its file name tells (`libcuda.so.550.54.15`), when it does.
    pub version: Option<String>,
}

/// Resolves `libcuda.so.1` (or `name`) for a plain Linux program of the machine.
pub fn driver_library(ctx: &SystemContext, name: &str) -> DriverLibrary {
    let process = process::host_app(ctx, None);
    let resolution = process.resolve(name, &PresenceProbe::new(ctx));
    let version = resolution
        .path
        .as_deref()
        .and_then(|p| version_of(ctx, p, name));
    DriverLibrary {
        process,
        resolution,
        version,
    }
}

/// The version of a driver library from its link target (`libcuda.so.1 -> libcuda.so.550.54.15`)
/// or, for a copy, the one versioned file of that library beside it.
pub fn version_of(ctx: &SystemContext, path: &str, name: &str) -> Option<String> {
    let stem = name.split(".so").next().unwrap_or(name);
    let versioned = |file: &str| {
        let rest = file.strip_prefix(stem)?.strip_prefix(".so.")?;
        from_libcuda_name(&format!("libcuda.so.{rest}"))
    };
    if let Ok(target) = ctx.fs.read_link(path) {
        let file = target.rsplit('/').next().unwrap_or(&target);
        if let Some(v) = versioned(file) {
            return Some(v);
        }
    }
    let dir = path.rsplit_once('/').map_or("/", |(d, _)| d);
    let found: Vec<String> = ctx
        .fs
        .read_dir(dir)
        .unwrap_or_default()
        .iter()
        .filter_map(|e| versioned(&e.name))
        .collect();
    (found.len() == 1).then(|| found[0].clone())
}

pub fn check(input: &RuleInput) -> Vec<Finding> {
    let ctx = input.ctx;

    if ctx.platform != Platform::Linux {
        return Vec::new();
    }
    let runs_in = RunsIn::detect(ctx);
    let mut out = Vec::new();
    let lib = driver_library(ctx, "libcuda.so.1");
    if let Some(c) = &runs_in.container
        && !lib.resolution.is_resolved()
        && runs_in.wsl.is_none()
    {
        out.push(not_mounted(ctx, c, &lib));
    }
    if let Some(f) = compat_shadows(ctx, &runs_in, &lib) {
        out.push(f);
    }
    out
}

/// Whether the machine is a container whose driver library is missing (the no-driver finding
/// of [`super::driver`] gives way to the container's own).
pub fn driver_not_mounted(ctx: &SystemContext) -> bool {
    if ctx.platform != Platform::Linux {
        return false;
    }
    let r = RunsIn::detect(ctx);
    r.container.is_some()
        && r.wsl.is_none()
        && !driver_library(ctx, "libcuda.so.1").resolution.is_resolved()
}

fn not_mounted(ctx: &SystemContext, c: &Container, lib: &DriverLibrary) -> Finding {
    let visible = c.var("NVIDIA_VISIBLE_DEVICES");
    let caps = c.var("NVIDIA_DRIVER_CAPABILITIES");
    let nvml = driver_library(ctx, "libnvidia-ml.so.1")
        .resolution
        .is_resolved();
    let why = if nvml && caps.is_some_and(|v| !v.contains("compute") && !v.contains("all")) {
        format!(
            "NVML (libnvidia-ml.so.1) was mounted but libcuda.so.1 was not: NVIDIA_DRIVER_CAPABILITIES={} leaves out `compute`, the capability that brings libcuda.",
            caps.unwrap_or_default()
        )
    } else {
        match visible {
            Some(v) if v != "void" && !v.is_empty() => format!(
                "The image sets NVIDIA_VISIBLE_DEVICES={v}, but nothing was injected: the container was started without a GPU request (plain `docker run` without `--gpus`, no `--runtime=nvidia`, no CDI device), or the host's Docker has no NVIDIA Container Toolkit (then `--gpus` fails with \"could not select device driver\")."
            ),
            _ => "The container was started without a GPU request (`--gpus`, `--runtime=nvidia` or a CDI device such as nvidia.com/gpu=all), so the NVIDIA Container Toolkit mounted no driver file.".into(),
        }
    };
    let detail = format!(
        "This process runs in {}. CUDA images ship the CUDA libraries (libcudart, cuBLAS, cuDNN) but never the driver: libcuda.so.1 and libnvidia-ml.so.1 must come from the host, mounted by the NVIDIA Container Toolkit when the container starts. {why} Installing a driver inside the image does not help; the container must be started again with the GPU.",
        c.describe()
    );
    let mut f = Finding::new(
        codes::CONTAINER_DRIVER_NOT_MOUNTED,
        Severity::Error,
        format!(
            "No NVIDIA driver library inside {}: the host's driver was not mounted",
            c.describe()
        ),
        detail,
    )
    .with_libraries(["libcuda.so.1", "libnvidia-ml.so.1"]);
    for e in &c.evidence {
        f = f.with_evidence(Evidence::new("container", e.clone()));
    }
    for (k, v) in &c.nvidia_env {
        f = f.with_evidence(Evidence::new("env", format!("{k}={v}")));
    }
    // Where the loader looked is not the point here (nothing was mounted), and the folders of
    // a live process's LD_LIBRARY_PATH do not survive a report's redaction unchanged.
    f = f.with_evidence(Evidence::new("context", lib.process.label.clone()));
    for fix in start_with_gpu_fixes(caps) {
        f = f.with_fix(fix);
    }
    f
}

/// How to start a container with the host's driver: the `docker run` flag, Podman's CDI device
/// (with the spec generated first) and, on the host, the toolkit registered with Docker.
pub fn start_with_gpu_fixes(caps: Option<&str>) -> Vec<FixRef> {
    let caps_flag = match caps {
        Some(v) if !v.contains("compute") && !v.contains("all") => {
            " -e NVIDIA_DRIVER_CAPABILITIES=compute,utility"
        }
        _ => "",
    };
    let manual = |id: &str, summary: String| FixRef {
        id: id.into(),
        kind: FixKind::Manual,
        summary,
    };
    vec![
        manual(
            "container-run-gpus",
            format!("On the host, start the container again with the GPU: docker run --gpus all{caps_flag} IMAGE (compose: deploy.resources.reservations.devices with driver: nvidia, capabilities: [gpu])"),
        ),
        manual(
            "container-run-cdi",
            format!("With Podman (or Docker's CDI support), generate the CDI spec on the host and request the device: sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml, then podman run --device nvidia.com/gpu=all{caps_flag} IMAGE"),
        ),
        manual(
            "container-toolkit-configure",
            "If the host has no NVIDIA Container Toolkit: install the nvidia-container-toolkit package, then sudo nvidia-ctk runtime configure --runtime=docker and sudo systemctl restart docker".into(),
        ),
    ]
}

/// The `cuda-compat-X-Y` package that installs `/usr/local/cuda-X.Y/compat` (following the
/// `/usr/local/cuda` link when the path goes through it).
fn compat_package(ctx: &SystemContext, dir: &str) -> Option<String> {
    let toolkit = dir.strip_suffix("/compat")?;
    let real = ctx
        .fs
        .read_link(toolkit)
        .map(|t| t.rsplit('/').next().unwrap_or(&t).to_string())
        .unwrap_or_else(|_| toolkit.rsplit('/').next().unwrap_or("").to_string());
    let version = real.strip_prefix("cuda-")?;
    Some(format!("cuda-compat-{}", version.replace('.', "-")))
}

/// Driver versions of the host's own `libcuda.so.<version>` in the system folders.
fn host_libcuda_version(ctx: &SystemContext, runs_in: &RunsIn) -> Option<String> {
    if let Some(k) = &runs_in.kernel_module {
        return Some(k.clone());
    }
    if let Some(d) = &ctx.driver {
        return Some(d.version.clone());
    }
    [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib64",
        "/usr/lib/aarch64-linux-gnu",
    ]
    .iter()
    .flat_map(|d| ctx.fs.read_dir(d).unwrap_or_default())
    .find_map(|e| from_libcuda_name(&e.name))
}

fn major(v: &str) -> Option<u64> {
    v.split('.').next()?.parse().ok()
}

/// A GPU that does not support forward compatibility (GeForce, TITAN): only data-center GPUs,
/// select RTX/Quadro server SKUs and Jetson do.
fn consumer_gpu(ctx: &SystemContext) -> Option<String> {
    ctx.gpus
        .iter()
        .find(|g| {
            let n = g.name.to_ascii_lowercase();
            n.contains("geforce") || n.contains("titan")
        })
        .map(|g| g.name.clone())
}

fn compat_shadows(ctx: &SystemContext, runs_in: &RunsIn, lib: &DriverLibrary) -> Option<Finding> {
    let path = lib.resolution.path.as_deref()?;
    let dir = path.rsplit_once('/').map(|(d, _)| d)?;
    if !dir.ends_with("/compat") {
        return None;
    }
    let compat = lib.version.clone()?;
    let host = host_libcuda_version(ctx, runs_in)?;
    if compare(&compat, &host) == Some(Ordering::Equal) {
        return None;
    }
    let forward = major(&compat)? > major(&host)?;
    let consumer = consumer_gpu(ctx);
    let (severity, effect) = match (forward, &consumer) {
        (true, None) => (
            Severity::Warning,
            "Forward compatibility lets a newer libcuda run on an older kernel module, but only on data-center GPUs (and select NGC Server Ready RTX SKUs and Jetson); on any other GPU CUDA fails with error 804 (\"forward compatibility was attempted on non supported HW\").".to_string(),
        ),
        (true, Some(gpu)) => (
            Severity::Error,
            format!("{gpu} does not support forward compatibility: CUDA fails with error 804 (\"forward compatibility was attempted on non supported HW\")."),
        ),
        (false, _) => (
            Severity::Error,
            format!("This compat libcuda is not newer than the host's driver ({host}), so it only hides the right one: CUDA fails to initialise (error 803, \"system has unsupported display driver / cuda driver combination\")."),
        ),
    };
    let where_ = if runs_in.container.is_some() {
        "the image's"
    } else {
        "this machine's"
    };
    let mut f = Finding::new(
        codes::CUDA_COMPAT_SHADOWS_DRIVER,
        severity,
        format!("libcuda.so.1 is loaded from {dir} (CUDA compat {compat}), not the host driver's ({host})"),
        format!(
            "The loader finds {where_} CUDA forward-compatibility package first ({path}, driver {compat}); the kernel module and the host's own libcuda are {host}. {effect}"
        ),
    )
    .with_libraries(["libcuda.so.1"]);
    f.evidence
        .extend(attempts_evidence(&lib.process, &lib.resolution));
    if let Some(k) = &runs_in.kernel_module {
        f = f.with_evidence(Evidence::at(
            "driver",
            format!("kernel module {k}"),
            crate::engine::context::runs_in::KERNEL_VERSION_FILE,
        ));
    }
    if lib.resolution.how == How::LdLibraryPath {
        f = f.with_fix(FixRef {
            id: format!("ld-library-path-remove:{dir}"),
            kind: FixKind::path(PathEdit {
                variable: "LD_LIBRARY_PATH".into(),
                add: None,
                first: false,
                remove: Some(dir.to_string()),
            }),
            summary: format!(
                "Take {dir} off LD_LIBRARY_PATH so the host driver's libcuda.so.1 is loaded"
            ),
        });
    }
    let remove = match compat_package(ctx, dir) {
        Some(pkg) => format!(
            "Remove the compat package from the image: apt-get remove -y {pkg} (in the Dockerfile, or dnf remove {pkg}), then sudo ldconfig"
        ),
        None => format!(
            "Remove {dir} from the image (or its line in /etc/ld.so.conf.d), then sudo ldconfig"
        ),
    };
    f = f.with_fix(FixRef {
        id: format!("remove-cuda-compat:{dir}"),
        kind: FixKind::Manual,
        summary: remove,
    });
    if forward {
        f = f.with_fix(FixRef {
            id: format!("install-driver-{compat}"),
            kind: FixKind::Install,
            summary: format!("Or update the driver on the host to {compat} or newer, and reboot"),
        });
    }
    Some(f)
}

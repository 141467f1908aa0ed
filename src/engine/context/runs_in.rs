//! Where a Linux process runs: on a host, inside a container (Docker, Podman, Kubernetes,
//! another engine) or under WSL. Read through the context's files and environment only, so a
//! machine file describes a container or a WSL distribution the same way the live machine does.
//!
//! The signs, in the order systemd's `detect_virtualization` trusts them: the WSL kernel name in
//! `/proc/sys/kernel/osrelease` or `/proc/version` (`...-microsoft-standard-WSL2`; WSL 1 spells
//! `Microsoft`); `/run/host/container-manager` and `/run/systemd/container`; `/run/.containerenv`
//! (Podman); `/.dockerenv` (Docker); the cgroup path of PID 1 (`/docker/<id>`, `/kubepods`,
//! `libpod-`); Docker's files in `/proc/self/mountinfo`; the variables NVIDIA's CUDA images set
//! (`NVIDIA_VISIBLE_DEVICES`, `NVIDIA_REQUIRE_CUDA`). Inside a container the NVIDIA Container
//! Toolkit bind-mounts the host's driver libraries one by one (they show in mountinfo) and copies
//! the host's `/proc/driver/nvidia/version`: that file names the kernel module, which belongs to
//! the host.

use super::{FsView, SystemContext};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Most bytes read from one of the small `/proc` and `/run` files.
const LIMIT: u64 = 256 << 10;
/// The kernel module's own version file (copied into containers by the toolkit).
pub const KERNEL_VERSION_FILE: &str = "/proc/driver/nvidia/version";

/// Where the diagnosed process runs (all empty: a plain host, or not known).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunsIn {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<Container>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wsl: Option<Wsl>,
    /// The loaded NVIDIA kernel module's version (`/proc/driver/nvidia/version`); in a container
    /// it is the host's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_module: Option<String>,
}

/// A container, and what says so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Container {
    /// `docker`, `podman`, `kubernetes`, `containerd`, `lxc`, or `container` when unknown.
    pub engine: String,
    /// The signs seen, in words ("/.dockerenv exists").
    pub evidence: Vec<String>,
    /// The `NVIDIA_*` variables and `CUDA_VERSION`, as the image and `--gpus` set them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub nvidia_env: BTreeMap<String, String>,
    /// Driver files bind-mounted from the host (mountinfo), e.g. `/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub driver_mounts: Vec<String>,
}

/// Windows Subsystem for Linux.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wsl {
    /// 1 or 2 (WSL 1 has no GPU).
    pub version: u8,
    /// The kernel name that says so, when read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    /// Whether `/usr/lib/wsl/lib` (the Windows driver's libraries) is there.
    pub lib_dir: bool,
}

impl RunsIn {
    /// Reads the signs from a context (Linux only; Windows is always a plain host).
    pub fn detect(ctx: &SystemContext) -> RunsIn {
        if ctx.platform != super::Platform::Linux {
            return RunsIn::default();
        }
        RunsIn {
            container: container(&ctx.fs, &|k| ctx.env.get(k).map(str::to_string), ctx),
            wsl: wsl(&ctx.fs, ctx.wsl || ctx.env.get("WSL_DISTRO_NAME").is_some()),
            kernel_module: kernel_module(&ctx.fs),
        }
    }

    /// Nothing to say: a plain host without a readable kernel-module version.
    pub fn is_plain(&self) -> bool {
        self.container.is_none() && self.wsl.is_none() && self.kernel_module.is_none()
    }

    /// Words for a summary line: "in a Docker container", "under WSL 2", "" on a host.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(c) = &self.container {
            parts.push(format!("in {}", c.describe()));
        }
        if let Some(w) = &self.wsl {
            parts.push(format!("under WSL {}", w.version));
        }
        parts.join(" ")
    }
}

impl Container {
    /// "a Docker container", "a container".
    pub fn describe(&self) -> String {
        match self.engine.as_str() {
            "docker" => "a Docker container".into(),
            "podman" => "a Podman container".into(),
            "kubernetes" => "a Kubernetes pod's container".into(),
            "container" => "a container".into(),
            other => format!("a container ({other})"),
        }
    }

    /// A variable of the container's `NVIDIA_*` set.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.nvidia_env.get(name).map(String::as_str)
    }
}

fn read(fs: &FsView, path: &str) -> Option<String> {
    fs.read_to_string(path, LIMIT).ok()
}

/// The engine a cgroup or mountinfo line names, if any.
fn engine_in(text: &str) -> Option<&'static str> {
    let t = text.to_ascii_lowercase();
    if t.contains("kubepods") {
        Some("kubernetes")
    } else if t.contains("libpod") || t.contains("/containers/storage/") {
        Some("podman")
    } else if t.contains("/docker/") || t.contains("docker-") {
        Some("docker")
    } else if t.contains("containerd") {
        Some("containerd")
    } else if t.contains("/lxc/") || t.contains("lxc.payload") {
        Some("lxc")
    } else {
        None
    }
}

fn container(
    fs: &FsView,
    env: &dyn Fn(&str) -> Option<String>,
    ctx: &SystemContext,
) -> Option<Container> {
    let mut engine: Option<String> = None;
    let mut evidence = Vec::new();
    let mut pick = |e: &str, why: String, evidence: &mut Vec<String>| {
        if engine.is_none() {
            engine = Some(e.to_string());
        }
        evidence.push(why);
    };
    for file in ["/run/host/container-manager", "/run/systemd/container"] {
        if let Some(text) = read(fs, file).filter(|t| !t.trim().is_empty()) {
            let name = text.trim().to_ascii_lowercase();
            pick(&name, format!("{file} says {}", text.trim()), &mut evidence);
        }
    }
    if let Some(text) = read(fs, "/run/.containerenv") {
        let engine = text
            .lines()
            .find_map(|l| l.strip_prefix("engine=\""))
            .map_or("podman", |e| {
                if e.starts_with("podman") {
                    "podman"
                } else {
                    "container"
                }
            });
        pick(
            engine,
            "/run/.containerenv exists (Podman)".into(),
            &mut evidence,
        );
    }
    if fs.is_file("/.dockerenv") {
        pick(
            "docker",
            "/.dockerenv exists (Docker)".into(),
            &mut evidence,
        );
    }
    if let Some(text) = read(fs, "/proc/1/cgroup")
        && let Some(line) = text.lines().find(|l| engine_in(l).is_some())
    {
        let e = engine_in(line).unwrap_or("container");
        pick(e, format!("/proc/1/cgroup: {}", line.trim()), &mut evidence);
    }
    let mountinfo = read(fs, "/proc/self/mountinfo").unwrap_or_default();
    if let Some(line) = mountinfo
        .lines()
        .find(|l| l.contains("/docker/containers/") || l.contains("/containers/storage/"))
    {
        let e = engine_in(line).unwrap_or("docker");
        let fields: Vec<&str> = line.split_whitespace().collect();
        let shown = match (fields.get(3), fields.get(4)) {
            (Some(from), Some(at)) => format!("{from} at {at}"),
            _ => line.to_string(),
        };
        pick(
            e,
            format!("/proc/self/mountinfo mounts {shown}"),
            &mut evidence,
        );
    }
    if let Some(v) = env("container").filter(|v| !v.is_empty()) {
        pick(
            &v.to_ascii_lowercase(),
            format!("container={v} in the environment"),
            &mut evidence,
        );
    }
    if env("KUBERNETES_SERVICE_HOST").is_some() {
        pick(
            "kubernetes",
            "KUBERNETES_SERVICE_HOST is set".into(),
            &mut evidence,
        );
    }
    let nvidia_env: BTreeMap<String, String> = ctx
        .env
        .iter()
        .filter(|(k, _)| k.starts_with("NVIDIA_") || *k == "CUDA_VERSION")
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    for key in ["NVIDIA_REQUIRE_CUDA", "NVIDIA_VISIBLE_DEVICES"] {
        if let Some(v) = nvidia_env.get(key) {
            pick(
                "container",
                format!(
                    "{key}={} (set by NVIDIA's CUDA images and by --gpus)",
                    condensed_requirement(v)
                ),
                &mut evidence,
            );
            break;
        }
    }
    let driver_mounts = driver_mounts(&mountinfo);
    if !driver_mounts.is_empty() {
        pick(
            "container",
            format!(
                "{} driver file(s) bind-mounted (NVIDIA Container Toolkit), e.g. {}",
                driver_mounts.len(),
                driver_mounts[0]
            ),
            &mut evidence,
        );
    }
    Some(Container {
        engine: engine?,
        evidence,
        nvidia_env,
        driver_mounts,
    })
}

/// A variable's value with its `brand=…` terms counted rather than listed: NVIDIA's CUDA 13
/// images set `NVIDIA_REQUIRE_CUDA` to `cuda>=13.0` followed by 60 `brand=…,driver>=…` ranges,
/// which fill a screen and say nothing the first term does not.
pub fn condensed_requirement(value: &str) -> String {
    let (brands, rest): (Vec<&str>, Vec<&str>) = value
        .split_whitespace()
        .partition(|t| t.starts_with("brand="));
    match brands.len() {
        0..=2 => value.to_string(),
        n => format!("{} (and {n} brand/driver ranges)", rest.join(" ")),
    }
}

/// The mount points of driver libraries in a mountinfo text (field 5 of each line).
fn driver_mounts(mountinfo: &str) -> Vec<String> {
    let mut out: Vec<String> = mountinfo
        .lines()
        .filter_map(|l| l.split_whitespace().nth(4))
        .filter(|p| {
            let name = p.rsplit('/').next().unwrap_or("");
            name.starts_with("libcuda.so") || name.starts_with("libnvidia-ml.so")
        })
        .map(str::to_string)
        .collect();
    out.dedup();
    out
}

/// The kernel name when it is WSL's (`/proc/sys/kernel/osrelease`, `/proc/version`).
fn wsl_kernel_name(fs: &FsView) -> Option<String> {
    ["/proc/sys/kernel/osrelease", "/proc/version"]
        .iter()
        .filter_map(|f| read(fs, f))
        .map(|t| t.lines().next().unwrap_or("").trim().to_string())
        .find(|t| t.to_ascii_lowercase().contains("microsoft"))
}

/// Whether the files say WSL (its kernel name).
pub fn wsl_kernel(fs: &FsView) -> bool {
    wsl_kernel_name(fs).is_some()
}

fn wsl(fs: &FsView, flagged: bool) -> Option<Wsl> {
    let kernel = wsl_kernel_name(fs);
    if kernel.is_none() && !flagged {
        return None;
    }
    // WSL 1 reports "4.4.0-19041-Microsoft"; WSL 2 "...-microsoft-standard[-WSL2]".
    let version = match &kernel {
        Some(k) if k.contains("Microsoft") && !k.contains("microsoft") => 1,
        _ => 2,
    };
    Some(Wsl {
        version,
        kernel,
        lib_dir: fs.is_dir("/usr/lib/wsl/lib"),
    })
}

/// The version in `/proc/driver/nvidia/version` ("NVRM version: NVIDIA UNIX x86_64 Kernel Module
/// 550.54.15  Tue Mar ...") or `/sys/module/nvidia/version`.
pub fn kernel_module(fs: &FsView) -> Option<String> {
    if let Some(text) = read(fs, KERNEL_VERSION_FILE) {
        let line = text.lines().find(|l| l.starts_with("NVRM version"))?;
        let after = line.split("Kernel Module").nth(1).unwrap_or(line);
        return after
            .split_whitespace()
            .find(|w| is_driver_version(w))
            .map(str::to_string);
    }
    read(fs, "/sys/module/nvidia/version")
        .map(|t| t.trim().to_string())
        .filter(|v| is_driver_version(v))
}

/// `550.54.15`, `535.104.05`, `470.82`: digits and dots, at least one dot.
pub fn is_driver_version(w: &str) -> bool {
    w.contains('.')
        && w.split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests;

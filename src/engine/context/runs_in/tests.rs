//! Where-it-runs detection over fake machines: each sign alone, WSL 1 and 2, the kernel module.

use super::*;
use crate::engine::context::Platform;
use crate::engine::context::fake::FakeMachine;

const NVRM: &str = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\nGCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n";

fn linux() -> FakeMachine {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    m.dir("/usr/lib");
    m
}

#[test]
fn a_plain_host_is_plain() {
    let m = linux();
    let r = RunsIn::detect(&m.context());
    assert!(r.is_plain(), "{r:?}");
    assert_eq!(r.describe(), "");
}

#[test]
fn dockerenv_and_cgroup_name_docker() {
    let mut m = linux();
    m.file("/.dockerenv", "")
        .file("/proc/1/cgroup", "12:devices:/docker/4f1c2a\n0::/\n");
    let c = RunsIn::detect(&m.context()).container.unwrap();
    assert_eq!(c.engine, "docker");
    assert_eq!(c.evidence.len(), 2, "{:?}", c.evidence);
    assert!(c.evidence[1].contains("/docker/4f1c2a"));
}

#[test]
fn containerenv_names_podman_and_cgroup_v2_mountinfo_docker() {
    let mut m = linux();
    m.file(
        "/run/.containerenv",
        "engine=\"podman-4.9.3\"\nrootless=1\n",
    );
    assert_eq!(
        RunsIn::detect(&m.context()).container.unwrap().engine,
        "podman"
    );
    let mut m = linux();
    m.file(
        "/proc/self/mountinfo",
        "689 670 0:62 /docker/containers/4f1c/hostname /etc/hostname rw,relatime - ext4 /dev/sda1 rw\n",
    )
    .file("/proc/1/cgroup", "0::/\n");
    let c = RunsIn::detect(&m.context()).container.unwrap();
    assert_eq!(c.engine, "docker");
    assert!(c.evidence[0].contains("/etc/hostname"), "{:?}", c.evidence);
}

#[test]
fn toolkit_mounts_and_nvidia_variables_are_kept() {
    let mut m = linux();
    m.file(
        "/proc/self/mountinfo",
        "701 670 8:1 /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15 /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15 ro,nosuid,nodev,relatime - ext4 /dev/sda1 rw\n\
702 670 8:1 /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15 /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15 ro,nosuid,nodev,relatime - ext4 /dev/sda1 rw\n",
    )
    .env("NVIDIA_VISIBLE_DEVICES", "all")
    .env("NVIDIA_REQUIRE_CUDA", "cuda>=12.4")
    .env("PATH", "/usr/bin");
    let c = RunsIn::detect(&m.context()).container.unwrap();
    assert_eq!(c.engine, "container");
    assert_eq!(c.driver_mounts.len(), 2);
    assert_eq!(c.var("NVIDIA_REQUIRE_CUDA"), Some("cuda>=12.4"));
    assert!(!c.nvidia_env.contains_key("PATH"));
}

#[test]
fn wsl_versions_from_the_kernel_name() {
    let mut m = linux();
    m.file("/proc/version", "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1) (gcc (GCC) 11.2.0) #1 SMP\n")
        .dir("/usr/lib/wsl/lib");
    let w = RunsIn::detect(&m.context()).wsl.unwrap();
    assert_eq!((w.version, w.lib_dir), (2, true));
    let mut m = linux();
    m.file("/proc/sys/kernel/osrelease", "4.4.0-19041-Microsoft\n");
    let r = RunsIn::detect(&m.context());
    assert_eq!(r.wsl.as_ref().unwrap().version, 1);
    assert_eq!(r.describe(), "under WSL 1");
}

#[test]
fn kernel_module_version_proprietary_and_open() {
    let mut m = linux();
    m.file(KERNEL_VERSION_FILE, NVRM);
    assert_eq!(kernel_module(&m.context().fs).as_deref(), Some("550.54.15"));
    let mut m = linux();
    m.file(KERNEL_VERSION_FILE, "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.20  Release Build  (dvs-builder@U16-I3-B03-4-3)  Fri Mar 14 2025\n");
    assert_eq!(
        kernel_module(&m.context().fs).as_deref(),
        Some("570.133.20")
    );
    let mut m = linux();
    m.file("/sys/module/nvidia/version", "535.104.05\n");
    assert_eq!(
        kernel_module(&m.context().fs).as_deref(),
        Some("535.104.05")
    );
}

/// The `NVIDIA_REQUIRE_CUDA` a real CUDA 13 image set on an H200 machine (saved in the GPU run's
/// report): its 60 `brand=` ranges are counted, its CUDA floor kept; a short value stays whole.
#[test]
fn a_cuda_image_requirement_is_condensed_to_its_floor() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/gpu/h200-torch-2.11.0-cu130.json"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let value = doc["machine"]["runs_in"]["container"]["nvidia_env"]["NVIDIA_REQUIRE_CUDA"]
        .as_str()
        .unwrap();
    let brands = value
        .split_whitespace()
        .filter(|t| t.starts_with("brand="))
        .count();
    assert!(brands > 2, "{value}");
    assert_eq!(
        condensed_requirement(value),
        format!("cuda>=13.0 (and {brands} brand/driver ranges)")
    );
    assert_eq!(condensed_requirement("cuda>=12.4"), "cuda>=12.4");
}

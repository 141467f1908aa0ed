//! Containers and WSL 2 as machine files, scanned through the command line: a CUDA image's
//! container started without `--gpus`, the same with the host's driver mounted (healthy, silent),
//! the host's driver upgraded without a reboot, an image needing a newer CUDA than the host
//! driver, the image's cuda-compat libcuda in front of the host's, and WSL 2 healthy, with a
//! Linux libcuda in front of the Windows one, and with WSL's ldconfig turned off.
//!
//! The files are real: the CUDA runtime is libcudart.so.12 of the nvidia-cuda-runtime-cu12
//! 12.4.127 wheel the knowledge tests download (a gcc-built library of the same SONAME where that
//! cache is absent); the driver libraries are ELF files built with gcc under the driver's file
//! names and SONAMEs (the driver itself cannot be had here); `/proc` files are the kernel's text.

use crate::fixtures_build::SoSpec;
use crate::oracle_support::cache_dir;
use crate::support::{json, run_cli, stderr, stdout};
use cuda_triage::engine::context::Platform;
use cuda_triage::engine::context::fake::FakeMachine;
use serde_json::Value;
use std::path::{Path, PathBuf};

const LIB: &str = "/usr/lib/x86_64-linux-gnu";
const CUDA: &str = "/usr/local/cuda-12.4/targets/x86_64-linux/lib";
const NVRM_550: &str = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\nGCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n";
const NVRM_535: &str = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\nGCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n";
/// What NVIDIA's nvidia/cuda:12.4.1 images set.
const REQUIRE_124: &str = "cuda>=12.4 brand=tesla,driver>=470,driver<471 brand=unknown,driver>=470,driver<471 brand=nvidia,driver>=470,driver<471 brand=nvidiartx,driver>=470,driver<471 brand=geforce,driver>=470,driver<471 brand=geforcertx,driver>=470,driver<471 brand=quadro,driver>=470,driver<471 brand=quadrortx,driver>=470,driver<471 brand=titan,driver>=470,driver<471 brand=titanrtx,driver>=470,driver<471 brand=tesla,driver>=525,driver<526 brand=unknown,driver>=525,driver<526 brand=nvidia,driver>=525,driver<526 brand=nvidiartx,driver>=525,driver<526 brand=geforce,driver>=525,driver<526 brand=geforcertx,driver>=525,driver<526 brand=quadro,driver>=525,driver<526 brand=quadrortx,driver>=525,driver<526 brand=titan,driver>=525,driver<526 brand=titanrtx,driver>=525,driver<526 brand=tesla,driver>=535,driver<536 brand=unknown,driver>=535,driver<536 brand=nvidia,driver>=535,driver<536 brand=nvidiartx,driver>=535,driver<536 brand=geforce,driver>=535,driver<536 brand=geforcertx,driver>=535,driver<536 brand=quadro,driver>=535,driver<536 brand=quadrortx,driver>=535,driver<536 brand=titan,driver>=535,driver<536 brand=titanrtx,driver>=535,driver<536";

/// Real libcudart.so.12 (CUDA 12.4.127), or a gcc-built library with its SONAME.
fn libcudart(build: &Path) -> PathBuf {
    let real = cache_dir().join(
        "knowledge/files/nvidia-cuda-runtime-cu12-12.4.127/nvidia/cuda_runtime/lib/libcudart.so.12",
    );
    if real.is_file() {
        return real;
    }
    SoSpec::new("libcudart.so.12")
        .soname("libcudart.so.12")
        .build(build)
        .expect("gcc builds the libcudart stand-in")
}

/// A driver library `<stem>.so.<version>` with SONAME `<stem>.so.1`, as NVIDIA's installer names it.
fn driver_lib(build: &Path, stem: &str, version: &str) -> PathBuf {
    let dir = build.join(version);
    std::fs::create_dir_all(&dir).unwrap();
    SoSpec::new(&format!("{stem}.so.{version}"))
        .soname(&format!("{stem}.so.1"))
        .source("int cuInit(unsigned int flags) { return (int)flags; }\n")
        .build(&dir)
        .expect("gcc builds the driver library")
}

/// A Docker container of the nvidia/cuda:12.4.1 image: its variables, `/.dockerenv`, a cgroup v2
/// namespace, Docker's hostname mount, the CUDA runtime in the image.
fn image(build: &Path) -> FakeMachine {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    m.copy(&format!("{CUDA}/libcudart.so.12"), &libcudart(build))
        .symlink("/usr/local/cuda", "cuda-12.4")
        .file("/.dockerenv", "")
        .file("/proc/1/cgroup", "0::/\n")
        .file("/etc/ld.so.conf.d/000_cuda.conf", format!("{CUDA}\n"))
        .file("/etc/ld.so.conf.d/x86_64-linux-gnu.conf", format!("{LIB}\n"))
        .file("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
        .env("PATH", "/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
        .env("HOME", "/root")
        .env("LD_LIBRARY_PATH", "/usr/local/nvidia/lib:/usr/local/nvidia/lib64")
        .env("NVIDIA_VISIBLE_DEVICES", "all")
        .env("NVIDIA_DRIVER_CAPABILITIES", "compute,utility")
        .env("NVIDIA_REQUIRE_CUDA", REQUIRE_124)
        .env("CUDA_VERSION", "12.4.1");
    m
}

/// `docker run --gpus all`: the host's driver files of `version` bind-mounted (mountinfo shows
/// them), the host's kernel-module version copied into /proc.
fn with_host_driver(m: &mut FakeMachine, build: &Path, version: &str, nvrm: &str) {
    let mut mountinfo = String::from(
        "689 670 8:1 /var/lib/docker/containers/4f1c2a/hostname /etc/hostname rw,relatime - ext4 /dev/sda1 rw\n",
    );
    for stem in ["libcuda", "libnvidia-ml"] {
        let file = format!("{LIB}/{stem}.so.{version}");
        m.copy(&file, &driver_lib(build, stem, version)).symlink(
            &format!("{LIB}/{stem}.so.1"),
            &format!("{stem}.so.{version}"),
        );
        mountinfo.push_str(&format!(
            "70{} 670 8:1 {file} {file} ro,nosuid,nodev,relatime - ext4 /dev/sda1 rw\n",
            mountinfo.lines().count()
        ));
    }
    m.file("/proc/self/mountinfo", mountinfo)
        .file("/proc/driver/nvidia/version", nvrm);
}

fn scan(m: &FakeMachine) -> (Value, String) {
    let file = m.write_machine_file().unwrap().display().to_string();
    let out = run_cli(&["scan", "--machine", &file, "--json"]);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    (json(&out), file)
}

fn codes(doc: &Value) -> Vec<String> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

fn finding<'a>(doc: &'a Value, code: &str) -> &'a Value {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == code)
        .unwrap_or_else(|| panic!("no {code} in {:?}", codes(doc)))
}

#[test]
fn container_started_without_gpus_is_named_with_the_docker_and_cdi_commands() {
    let build = tempfile::tempdir().unwrap();
    let m = image(build.path());
    let (doc, file) = scan(&m);
    let runs = &doc["machine"]["runs_in"]["container"];
    assert_eq!(runs["engine"], "docker", "{doc:#}");
    assert_eq!(runs["nvidia_env"]["NVIDIA_VISIBLE_DEVICES"], "all");
    let codes = codes(&doc);
    assert!(
        !codes.contains(&"no-nvidia-driver".to_string()),
        "{codes:?}"
    );
    let f = finding(&doc, "container-driver-not-mounted");
    assert!(
        f["detail"]
            .as_str()
            .unwrap()
            .contains("NVIDIA_VISIBLE_DEVICES=all")
    );
    // The fixes are the user's to run, named exactly; `fix show` says so instead of planning.
    let list = json(&run_cli(&["fix", "list", "--machine", &file, "--json"]));
    let summaries: Vec<&str> = list["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["kind"] == "manual")
        .filter_map(|x| x["summary"].as_str())
        .collect();
    assert!(
        summaries
            .iter()
            .any(|s| s.contains("docker run --gpus all IMAGE")),
        "{summaries:?}"
    );
    assert!(
        summaries
            .iter()
            .any(|s| s.contains("sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml"))
    );
    assert!(
        summaries
            .iter()
            .any(|s| s.contains("sudo nvidia-ctk runtime configure --runtime=docker"))
    );
    let shown = run_cli(&["fix", "show", "container-run-gpus", "--machine", &file]);
    let said = format!("{}{}", stdout(&shown), stderr(&shown));
    assert!(
        said.contains("manual step") && said.contains("--gpus all"),
        "{said}"
    );
    // The text summary says where it runs.
    let text = stdout(&run_cli(&["scan", "--machine", &file]));
    assert!(
        text.contains("Machine: linux in a Docker container"),
        "{text}"
    );
    assert!(
        text.contains("No driver library is mounted from the host"),
        "{text}"
    );
}

#[test]
fn container_with_the_host_driver_mounted_is_silent_and_described() {
    let build = tempfile::tempdir().unwrap();
    let mut m = image(build.path());
    with_host_driver(&mut m, build.path(), "550.54.15", NVRM_550);
    m.driver("550.54.15", "12.4")
        .gpu("NVIDIA GeForce RTX 3060", "8.6");
    let (doc, _) = scan(&m);
    let runs = &doc["machine"]["runs_in"];
    assert_eq!(runs["kernel_module"], "550.54.15");
    assert_eq!(
        runs["container"]["driver_mounts"][0],
        format!("{LIB}/libcuda.so.550.54.15")
    );
    let ours = [
        "container-",
        "driver-kernel-mismatch",
        "cuda-compat",
        "no-nvidia-driver",
    ];
    let noisy: Vec<String> = codes(&doc)
        .into_iter()
        .filter(|c| ours.iter().any(|o| c.starts_with(o)))
        .collect();
    assert!(noisy.is_empty(), "a healthy container is silent: {noisy:?}");
}

#[test]
fn host_driver_upgraded_without_reboot_asks_for_a_reboot() {
    let build = tempfile::tempdir().unwrap();
    let mut m = image(build.path());
    with_host_driver(&mut m, build.path(), "550.54.15", NVRM_535);
    let (doc, _) = scan(&m);
    let f = finding(&doc, "driver-kernel-mismatch");
    assert_eq!(
        f["summary"],
        "Driver library libnvidia-ml.so.1 is 550.54.15 but the kernel module is 535.104.05"
    );
    assert!(
        f["fixes"][0]["summary"]
            .as_str()
            .unwrap()
            .starts_with("Reboot the host machine")
    );
}

#[test]
fn image_newer_than_the_host_driver_names_cuda_and_the_minimum_driver() {
    let build = tempfile::tempdir().unwrap();
    let mut m = image(build.path());
    with_host_driver(&mut m, build.path(), "550.54.15", NVRM_550);
    m.driver("550.54.15", "12.4")
        .env("CUDA_VERSION", "12.8.1")
        .env(
            "NVIDIA_REQUIRE_CUDA",
            "cuda>=12.8 brand=tesla,driver>=470,driver<471 brand=tesla,driver>=535,driver<536",
        );
    let (doc, _) = scan(&m);
    let f = finding(&doc, "container-cuda-too-new");
    let summary = f["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("The image needs CUDA 12.8, which needs driver 570."),
        "{summary}"
    );
    assert!(
        summary.contains("driver 550.54.15, which supports CUDA up to 12.4"),
        "{summary}"
    );
}

#[test]
fn image_compat_libcuda_in_front_of_the_host_driver_is_found_and_previewed() {
    let build = tempfile::tempdir().unwrap();
    let mut m = image(build.path());
    with_host_driver(&mut m, build.path(), "535.104.05", NVRM_535);
    let compat = "/usr/local/cuda-12.4/compat";
    m.copy(
        &format!("{compat}/libcuda.so.550.54.15"),
        &driver_lib(build.path(), "libcuda", "550.54.15"),
    )
    .symlink(&format!("{compat}/libcuda.so.1"), "libcuda.so.550.54.15")
    .env(
        "LD_LIBRARY_PATH",
        "/usr/local/cuda/compat:/usr/local/nvidia/lib64",
    )
    .driver("535.104.05", "12.2")
    .gpu("NVIDIA GeForce RTX 3090", "8.6");
    let (doc, file) = scan(&m);
    let f = finding(&doc, "cuda-compat-shadows-driver");
    assert_eq!(f["severity"], "error");
    assert!(f["detail"].as_str().unwrap().contains("error 804"));
    let remove = f["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == "remove-cuda-compat:/usr/local/cuda/compat")
        .unwrap();
    assert!(
        remove["summary"]
            .as_str()
            .unwrap()
            .contains("apt-get remove -y cuda-compat-12-4")
    );
    // The LD_LIBRARY_PATH edit is the user's own login profile: previewed as a diff.
    let shown = run_cli(&[
        "fix",
        "show",
        "ld-library-path-remove:/usr/local/cuda/compat",
        "--machine",
        &file,
        "--scope",
        "user",
    ]);
    let preview = stdout(&shown);
    assert!(shown.status.success(), "{}", stderr(&shown));
    assert!(preview.contains("/root/"), "{preview}");
    assert!(preview.contains("LD_LIBRARY_PATH"), "{preview}");
}

const WSL_KERNEL: &str = "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1) (gcc (GCC) 11.2.0, GNU ld (GNU Binutils) 2.37) #1 SMP Fri Mar 29 23:14:13 UTC 2024\n";

/// Ubuntu under WSL 2 with the Windows driver's files in /usr/lib/wsl/lib, listed by WSL's
/// ld.wsl.conf (WSL ships libcuda.so, .so.1 and .so.1.1 as copies, not links).
fn wsl2(build: &Path) -> FakeMachine {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    let libcuda = driver_lib(build, "libcuda", "1.1");
    for name in ["libcuda.so", "libcuda.so.1", "libcuda.so.1.1"] {
        m.copy(&format!("/usr/lib/wsl/lib/{name}"), &libcuda);
    }
    m.copy(
        "/usr/lib/wsl/lib/libnvidia-ml.so.1",
        &driver_lib(build, "libnvidia-ml", "1"),
    )
    .file("/proc/version", WSL_KERNEL)
    .file("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
    .file("/etc/ld.so.conf.d/ld.wsl.conf", "# This file was automatically generated by WSL. To stop automatic generation of this file, add the following entry to /etc/wsl.conf:\n# [automount]\n# ldconfig = false\n/usr/lib/wsl/lib\n")
    .file("/etc/ld.so.conf.d/x86_64-linux-gnu.conf", format!("{LIB}\n"))
    .copy(&format!("{CUDA}/libcudart.so.12"), &libcudart(build))
    .env("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/lib/wsl/lib")
    .env("HOME", "/home/u")
    .env("WSL_DISTRO_NAME", "Ubuntu-22.04")
    .driver("551.78", "12.4");
    m
}

#[test]
fn wsl2_with_the_windows_driver_is_named_and_silent() {
    let build = tempfile::tempdir().unwrap();
    let m = wsl2(build.path());
    let (doc, file) = scan(&m);
    assert_eq!(doc["machine"]["wsl"], true, "the kernel name says WSL");
    assert_eq!(doc["machine"]["runs_in"]["wsl"]["version"], 2);
    assert_eq!(doc["machine"]["runs_in"]["wsl"]["lib_dir"], true);
    assert!(doc["machine"]["runs_in"].get("container").is_none());
    let codes = codes(&doc);
    assert!(!codes.iter().any(|c| c.starts_with("wsl-")), "{codes:?}");
    let out = run_cli(&["scan", "--machine", &file]);
    let text = stdout(&out);
    assert!(
        text.contains("Machine: linux under WSL 2"),
        "{text}{}",
        stderr(&out)
    );
}

#[test]
fn wsl2_with_a_linux_driver_installed_inside_is_shadowed() {
    let build = tempfile::tempdir().unwrap();
    let mut m = wsl2(build.path());
    // A Linux driver package inside the distribution: ldconfig lists its folder first here.
    m.copy(
        &format!("{LIB}/libcuda.so.535.104.05"),
        &driver_lib(build.path(), "libcuda", "535.104.05"),
    )
    .symlink(&format!("{LIB}/libcuda.so.1"), "libcuda.so.535.104.05")
    .file("/etc/ld.so.conf.d/000-nvidia.conf", format!("{LIB}\n"));
    let (doc, _) = scan(&m);
    let f = finding(&doc, "wsl-libcuda-shadowed");
    assert_eq!(
        f["summary"],
        format!("libcuda.so.1 is loaded from {LIB}/libcuda.so.1, not from WSL's /usr/lib/wsl/lib")
    );
    assert!(
        f["detail"]
            .as_str()
            .unwrap()
            .contains("a Linux driver's libcuda (535.104.05)")
    );
}

#[test]
fn wsl2_with_ldconfig_turned_off_does_not_search_the_windows_driver() {
    let build = tempfile::tempdir().unwrap();
    let mut m = wsl2(build.path());
    std::fs::remove_file(m.host("/etc/ld.so.conf.d/ld.wsl.conf")).unwrap();
    m.file("/etc/wsl.conf", "[automount]\nldconfig = false\n");
    let (doc, file) = scan(&m);
    finding(&doc, "wsl-lib-not-searched");
    let shown = run_cli(&[
        "fix",
        "show",
        "ld-library-path-append:/usr/lib/wsl/lib",
        "--machine",
        &file,
        "--scope",
        "user",
    ]);
    assert!(shown.status.success(), "{}", stderr(&shown));
    assert!(
        stdout(&shown).contains("/usr/lib/wsl/lib"),
        "{}",
        stdout(&shown)
    );
}

#[test]
fn why_names_the_cuda_an_image_needs_and_the_minimum_driver() {
    let line = "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver to a newer version, or use an earlier cuda container: unknown";
    let doc = json(&run_cli(&["why", line, "--json"]));
    let f = finding(&doc, "log-container-cuda-requirement");
    assert_eq!(
        f["summary"],
        "The container image needs CUDA 12.8; the host driver supports an older CUDA"
    );
    let detail = f["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("CUDA 12.8 needs NVIDIA driver 570."),
        "{detail}"
    );
    assert!(detail.contains("on Windows"), "{detail}");
    let doc = json(&run_cli(&[
        "why",
        "Failed to initialize NVML: Unknown Error",
        "--json",
    ]));
    let fix = finding(&doc, "log-nvml-unknown-error-container")["fixes"][0]["summary"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        fix.contains("native.cgroupdriver=cgroupfs") && fix.contains("nvidia-ctk cdi generate"),
        "{fix}"
    );
}

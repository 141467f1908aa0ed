//! Container and WSL rules over fake machines: the driver not mounted, the kernel module of
//! another version than the libraries, an image's CUDA requirement the host driver does not
//! meet, a cuda-compat libcuda in front of the host's, WSL's libcuda shadowed or not searched;
//! and a healthy container, which must be silent.

use super::only;
use crate::engine::context::fake::FakeMachine;
use crate::engine::context::{Platform, SystemContext};
use crate::engine::findings::{Finding, Severity};
use crate::engine::inventory::Inventory;
use crate::engine::rules::RuleInput;
use crate::engine::rules::{container_require, containers, driver_presence, driver_versions, wsl};

const LIB: &str = "/usr/lib/x86_64-linux-gnu";
const NVRM_550: &str =
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n";
const NVRM_535: &str =
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n";

fn all(ctx: &SystemContext) -> Vec<Finding> {
    let mut out = driver_presence::check(&RuleInput::new(ctx, &Inventory::default()));
    out.extend(containers::check(&RuleInput::new(
        ctx,
        &Inventory::default(),
    )));
    out.extend(driver_versions::check(&RuleInput::new(
        ctx,
        &Inventory::default(),
    )));
    out.extend(container_require::check(&RuleInput::new(
        ctx,
        &Inventory::default(),
    )));
    out.extend(wsl::check(&RuleInput::new(ctx, &Inventory::default())));
    out
}

fn codes(f: &[Finding]) -> Vec<&str> {
    f.iter().map(|f| f.code.as_str()).collect()
}

/// A Docker container of a CUDA image: the image's variables, `/.dockerenv`, a cgroup line.
fn container() -> FakeMachine {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    m.file("/.dockerenv", "")
        .file("/proc/1/cgroup", "0::/\n")
        .file(
            "/etc/ld.so.conf.d/x86_64-linux-gnu.conf",
            format!("{LIB}\n"),
        )
        .file(
            "/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12",
            b"\x7fELF",
        )
        .env(
            "PATH",
            "/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/bin:/bin",
        )
        .env("NVIDIA_VISIBLE_DEVICES", "all")
        .env("NVIDIA_DRIVER_CAPABILITIES", "compute,utility")
        .env(
            "NVIDIA_REQUIRE_CUDA",
            "cuda>=12.4 brand=tesla,driver>=470,driver<471 brand=tesla,driver>=535,driver<536",
        )
        .env("CUDA_VERSION", "12.4.1");
    m
}

/// The toolkit's work: the host's driver files of `version` mounted, and its kernel module.
fn mount_driver(m: &mut FakeMachine, version: &str, nvrm: &str) {
    let mut mountinfo = String::new();
    for lib in ["libcuda.so", "libnvidia-ml.so"] {
        let file = format!("{LIB}/{lib}.{version}");
        m.file(&file, b"\x7fELF")
            .symlink(&format!("{LIB}/{lib}.1"), &format!("{lib}.{version}"));
        mountinfo.push_str(&format!(
            "701 670 8:1 {file} {file} ro,nosuid,nodev,relatime - ext4 /dev/sda1 rw\n"
        ));
    }
    m.file("/proc/self/mountinfo", mountinfo)
        .file("/proc/driver/nvidia/version", nvrm);
}

#[test]
fn container_started_without_gpus_says_so_and_how_to_start_it() {
    let m = container();
    let f = all(&m.context());
    assert_eq!(codes(&f), ["container-driver-not-mounted"], "{f:#?}");
    let f = only(&f, "container-driver-not-mounted");
    assert_eq!(f.severity, Severity::Error);
    assert!(
        f.detail.contains("NVIDIA_VISIBLE_DEVICES=all"),
        "{}",
        f.detail
    );
    let fixes: Vec<&str> = f.fixes.iter().map(|x| x.summary.as_str()).collect();
    assert!(
        fixes[0].contains("docker run --gpus all IMAGE"),
        "{fixes:?}"
    );
    assert!(
        fixes[1].contains("nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml"),
        "{fixes:?}"
    );
    assert!(
        fixes[2].contains("nvidia-ctk runtime configure --runtime=docker"),
        "{fixes:?}"
    );
    assert!(f.fixes.iter().all(|x| x.kind == "manual"));
}

#[test]
fn utility_only_capabilities_bring_nvml_without_libcuda() {
    let mut m = container();
    mount_driver(&mut m, "550.54.15", NVRM_550);
    std::fs::remove_file(m.host(&format!("{LIB}/libcuda.so.1"))).unwrap();
    m.env("NVIDIA_DRIVER_CAPABILITIES", "utility");
    let f = containers::check(&RuleInput::new(&m.context(), &Inventory::default()));
    let f = only(&f, "container-driver-not-mounted");
    assert!(f.detail.contains("leaves out `compute`"), "{}", f.detail);
    assert!(
        f.fixes[0]
            .summary
            .contains("-e NVIDIA_DRIVER_CAPABILITIES=compute,utility")
    );
}

#[test]
fn a_healthy_container_is_silent() {
    let mut m = container();
    mount_driver(&mut m, "550.54.15", NVRM_550);
    m.driver("550.54.15", "12.4")
        .gpu("NVIDIA GeForce RTX 3060", "8.6");
    let f = all(&m.context());
    assert!(f.is_empty(), "{f:#?}");
}

#[test]
fn host_upgraded_without_reboot_is_a_kernel_mismatch_with_a_reboot_fix() {
    let mut m = container();
    mount_driver(&mut m, "550.54.15", NVRM_535);
    let f = driver_versions::check(&RuleInput::new(&m.context(), &Inventory::default()));
    let f = only(&f, "driver-kernel-mismatch");
    assert_eq!(
        f.summary,
        "Driver library libnvidia-ml.so.1 is 550.54.15 but the kernel module is 535.104.05"
    );
    assert!(f.detail.contains("without a reboot"), "{}", f.detail);
    assert!(
        f.fixes[0].summary.starts_with("Reboot the host machine"),
        "{:?}",
        f.fixes
    );
}

#[test]
fn driver_libraries_baked_into_the_image_are_named() {
    let mut m = container();
    m.file(&format!("{LIB}/libnvidia-ml.so.565.57.01"), b"\x7fELF")
        .symlink(
            &format!("{LIB}/libnvidia-ml.so.1"),
            "libnvidia-ml.so.565.57.01",
        )
        .file("/proc/self/mountinfo", "")
        .file("/proc/driver/nvidia/version", NVRM_535);
    let f = driver_versions::check(&RuleInput::new(&m.context(), &Inventory::default()));
    let f = only(&f, "driver-kernel-mismatch");
    assert!(
        f.detail.contains("the image carries driver libraries"),
        "{}",
        f.detail
    );
    assert!(
        f.fixes[0]
            .summary
            .contains("dpkg -S /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1")
    );
}

#[test]
fn image_cuda_newer_than_the_host_driver_names_the_minimum_driver() {
    let mut m = container();
    mount_driver(&mut m, "550.54.15", NVRM_550);
    m.driver("550.54.15", "12.4")
        .gpu("NVIDIA GeForce RTX 4050 Laptop GPU", "8.9")
        .env(
            "NVIDIA_REQUIRE_CUDA",
            "cuda>=12.8 brand=unknown,driver>=470,driver<471 brand=geforce,driver>=535,driver<536",
        );
    let f = container_require::check(&RuleInput::new(&m.context(), &Inventory::default()));
    let f = only(&f, "container-cuda-too-new");
    assert!(
        f.summary
            .starts_with("The image needs CUDA 12.8, which needs driver 570."),
        "{}",
        f.summary
    );
    assert!(
        f.summary
            .ends_with("the host has driver 550.54.15, which supports CUDA up to 12.4"),
        "{}",
        f.summary
    );
    assert!(f.fixes[0].summary.contains("or newer and reboot the host"));
    // The legacy-image form: CUDA_VERSION alone implies cuda>=major.minor.
    let mut m = container();
    mount_driver(&mut m, "535.104.05", NVRM_535);
    m.driver("535.104.05", "12.2");
    let ctx = {
        let mut ctx = m.context();
        ctx.env = crate::engine::context::EnvVars::new(
            Platform::Linux,
            [("CUDA_VERSION".to_string(), "12.6.3".to_string())],
        );
        ctx
    };
    let f = container_require::check(&RuleInput::new(&ctx, &Inventory::default()));
    assert!(
        only(&f, "container-cuda-too-new")
            .summary
            .contains("CUDA 12.6"),
        "{f:#?}"
    );
}

#[test]
fn requirement_alternatives_and_the_disable_switch() {
    use container_require::holds_for;
    let nvidia =
        "cuda>=12.4 brand=tesla,driver>=535,driver<536 brand=geforce,driver>=535,driver<536";
    assert_eq!(
        holds_for(nvidia, "550.54.15", Some("12.4"), "NVIDIA A10"),
        Some(true)
    );
    assert_eq!(
        holds_for(nvidia, "535.104.05", Some("12.2"), "Tesla T4"),
        Some(true)
    );
    assert_eq!(
        holds_for(
            nvidia,
            "535.104.05",
            Some("12.2"),
            "NVIDIA GeForce GTX 1080"
        ),
        Some(true)
    );
    // An RTX's brand is not certain from its name: the 535 alternatives stay undecided.
    assert_eq!(
        holds_for(
            nvidia,
            "535.104.05",
            Some("12.2"),
            "NVIDIA GeForce RTX 3090"
        ),
        None
    );
    assert_eq!(
        holds_for(nvidia, "530.30.02", Some("12.1"), "NVIDIA GeForce RTX 3090"),
        Some(false)
    );
    // Brand unknown (an A10): the 535 alternatives cannot be decided, so no verdict.
    assert_eq!(
        holds_for(nvidia, "535.104.05", Some("12.2"), "NVIDIA A10"),
        None
    );
    // Without NVML's CUDA version the driver's minimum for the CUDA release decides.
    assert_eq!(holds_for("cuda>=12.4", "535.104.05", None, ""), Some(false));
    let mut m = container();
    mount_driver(&mut m, "535.104.05", NVRM_535);
    m.driver("535.104.05", "12.2")
        .env("NVIDIA_REQUIRE_CUDA", "cuda>=12.8")
        .env("NVIDIA_DISABLE_REQUIRE", "true");
    assert!(
        container_require::check(&RuleInput::new(&m.context(), &Inventory::default())).is_empty()
    );
}

/// The image's cuda-compat package on LD_LIBRARY_PATH, as many CUDA images set it.
fn compat_container(compat: &str, nvrm: &str, host: &str) -> FakeMachine {
    let mut m = container();
    mount_driver(&mut m, host, nvrm);
    let dir = "/usr/local/cuda-12.4/compat";
    m.file(&format!("{dir}/libcuda.so.{compat}"), b"\x7fELF")
        .symlink(
            &format!("{dir}/libcuda.so.1"),
            &format!("libcuda.so.{compat}"),
        )
        .symlink("/usr/local/cuda", "cuda-12.4")
        .env(
            "LD_LIBRARY_PATH",
            "/usr/local/cuda/compat:/usr/local/nvidia/lib64",
        );
    m
}

#[test]
fn compat_libcuda_on_a_geforce_is_error_804_with_the_package_to_remove() {
    let mut m = compat_container("550.54.15", NVRM_535, "535.104.05");
    m.gpu("NVIDIA GeForce RTX 3090", "8.6");
    let f = containers::check(&RuleInput::new(&m.context(), &Inventory::default()));
    let f = only(&f, "cuda-compat-shadows-driver");
    assert_eq!(f.severity, Severity::Error);
    assert!(f.detail.contains("error 804"), "{}", f.detail);
    let ids: Vec<&str> = f.fixes.iter().map(|x| x.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "ld-library-path-remove:/usr/local/cuda/compat",
            "remove-cuda-compat:/usr/local/cuda/compat",
            "install-driver-550.54.15"
        ]
    );
    assert!(
        f.fixes[1]
            .summary
            .contains("apt-get remove -y cuda-compat-12-4"),
        "{:?}",
        f.fixes[1]
    );
    // A data-center GPU may use forward compatibility: a warning only.
    let mut m = compat_container("550.54.15", NVRM_535, "535.104.05");
    m.gpu("NVIDIA A100-SXM4-80GB", "8.0");
    let f = containers::check(&RuleInput::new(&m.context(), &Inventory::default()));
    assert_eq!(
        only(&f, "cuda-compat-shadows-driver").severity,
        Severity::Warning
    );
}

#[test]
fn compat_older_than_the_host_driver_hides_it() {
    let m = compat_container("535.104.05", NVRM_550, "550.54.15");
    let f = containers::check(&RuleInput::new(&m.context(), &Inventory::default()));
    let f = only(&f, "cuda-compat-shadows-driver");
    assert!(f.detail.contains("error 803"), "{}", f.detail);
    assert!(!f.fixes.iter().any(|x| x.id.starts_with("install-driver")));
}

fn wsl2() -> FakeMachine {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    m.file("/proc/version", "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1) (gcc (GCC) 11.2.0, GNU ld (GNU Binutils) 2.37) #1 SMP Fri Mar 29 23:14:13 UTC 2024\n")
        .file("/usr/lib/wsl/lib/libcuda.so.1", b"\x7fELF")
        .file("/usr/lib/wsl/lib/libnvidia-ml.so.1", b"\x7fELF")
        .env("PATH", "/usr/bin:/bin:/usr/lib/wsl/lib");
    m
}

#[test]
fn wsl_with_the_windows_driver_found_is_silent() {
    let m = wsl2();
    let mut ctx = m.context();
    ctx.wsl = crate::engine::context::runs_in::wsl_kernel(&ctx.fs);
    assert!(
        all(&ctx)
            .iter()
            .all(|f| f.code != "wsl-libcuda-shadowed" && f.code != "wsl-lib-not-searched")
    );
    assert!(wsl::check(&RuleInput::new(&ctx, &Inventory::default())).is_empty());
}

#[test]
fn wsl_libcuda_copied_into_the_distribution_shadows_the_windows_one() {
    let mut m = wsl2();
    m.file("/usr/local/cuda/lib64/libcuda.so.1", b"\x7fELF")
        .env("LD_LIBRARY_PATH", "/usr/local/cuda/lib64");
    let mut ctx = m.context();
    ctx.wsl = true;
    let f = wsl::check(&RuleInput::new(&ctx, &Inventory::default()));
    let f = only(&f, "wsl-libcuda-shadowed");
    assert_eq!(
        f.summary,
        "libcuda.so.1 is loaded from /usr/local/cuda/lib64/libcuda.so.1, not from WSL's /usr/lib/wsl/lib"
    );
    assert!(
        f.fixes[0]
            .summary
            .contains("dpkg -S /usr/local/cuda/lib64/libcuda.so.1")
    );
    assert_eq!(f.fixes[1].kind, "path-edit");
}

#[test]
fn wsl_with_ldconfig_off_does_not_search_the_windows_driver() {
    let mut m = wsl2();
    m.file(
        "/etc/wsl.conf",
        "[automount]\nenabled = true\nldconfig = false\n",
    )
    .file("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
    .file("/etc/ld.so.conf.d/libc.conf", "/usr/local/lib\n");
    let mut ctx = m.context();
    ctx.wsl = true;
    let f = wsl::check(&RuleInput::new(&ctx, &Inventory::default()));
    let f = only(&f, "wsl-lib-not-searched");
    assert_eq!(f.fixes[0].kind, "path-edit");
    assert!(f.fixes[1].summary.contains("/etc/ld.so.conf.d/ld.wsl.conf"));
}

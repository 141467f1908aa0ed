//! `xla::check`: which ptxas XLA (TensorFlow, JAX) would run — none at all, one older than the
//! build's CUDA (an older toolkit first on PATH, or only an older toolkit installed), a toolkit
//! without libdevice — and nothing when a new enough, complete toolkit is reached.

use super::win_tf210;
use super::{CUDA, CUDA11_DLLS, PY, evidence_paths, fixes, linux_tf, linux_venv, only, scan};
use crate::engine::context::Platform;
use crate::engine::context::fake::FakeMachine;
use crate::engine::findings::Severity;
use crate::engine::rules::RuleInput;
use crate::engine::rules::xla::check;

const TF_215_CUDA_122: &str =
    "build_info = {'cuda_version': '12.2', 'cudnn_version': '8', 'is_cuda_build': True}\n";

/// A Linux toolkit `/usr/local/cuda-<v>` with ptxas (and libdevice when `libdevice`).
fn linux_toolkit(m: &mut FakeMachine, v: &str, libdevice: bool) -> String {
    let root = format!("/usr/local/cuda-{v}");
    m.file(&format!("{root}/bin/ptxas"), b"\x7fELF")
        .file(&format!("{root}/lib64/libcudart.so.12"), b"\x7fELF");
    if libdevice {
        m.file(&format!("{root}/nvvm/libdevice/libdevice.10.bc"), b"BC");
    }
    root
}

/// TensorFlow 2.15 (CUDA 12.2) in the venv `/home/u/tf`.
fn linux_tf215(m: &mut FakeMachine) {
    let site = linux_venv(m, "tf");
    linux_tf(m, &site, "2.15.0", TF_215_CUDA_122);
}

#[test]
fn older_toolkit_first_on_path_runs_an_old_ptxas() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    m.windows_toolkit("11.2", &CUDA11_DLLS);
    m.windows_toolkit("10.0", &["cudart64_100.dll"]);
    win_tf210(&mut m);
    m.env(
        "PATH",
        &format!(r"{CUDA}\v10.0\bin;{CUDA}\v11.2\bin;C:\Windows\System32;{PY}"),
    );
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = only(&findings, "ptxas-too-old");
    assert_eq!(
        f.severity,
        Severity::Warning,
        "TensorFlow: only XLA-compiled code fails"
    );
    assert!(
        f.summary
            .starts_with(&format!("TensorFlow 2.10.1 in {PY} runs ptxas 10.0")),
        "{}",
        f.summary
    );
    assert!(f.summary.ends_with("older than CUDA 11.2"), "{}", f.summary);
    assert!(f.detail.contains("comes first on PATH"), "{}", f.detail);
    assert_eq!(f.libraries, ["ptxas.exe"]);
    let old = format!(r"{CUDA}\v10.0\bin\ptxas.exe");
    let new = format!(r"{CUDA}\v11.2\bin\ptxas.exe");
    assert_eq!(f.evidence[0].path.as_deref(), Some(old.as_str()));
    assert!(evidence_paths(f).contains(&new.as_str()), "{f:#?}");
    assert_eq!(
        fixes(f),
        [(
            "path-edit",
            format!(r"path-prepend:{CUDA}\v11.2\bin").as_str()
        )]
    );
}

#[test]
fn only_an_older_toolkit_installed_gets_an_install_fix() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    let root = linux_toolkit(&mut m, "11.8", true);
    linux_tf215(&mut m);
    m.env("PATH", &format!("{root}/bin:/usr/bin:/bin"));
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    let f = only(&findings, "ptxas-too-old");
    assert_eq!(
        f.summary,
        "TensorFlow 2.15.0 in /home/u/tf runs ptxas 11.8, older than CUDA 12.2"
    );
    assert_eq!(
        f.evidence[0].path.as_deref(),
        Some("/usr/local/cuda-11.8/bin/ptxas")
    );
    assert!(!f.detail.contains("comes first on PATH"), "{}", f.detail);
    assert_eq!(fixes(f), [("install", "install-cuda-12.2")]);
    assert!(
        f.fixes[0].summary.contains("nvidia-cuda-nvcc-cu12"),
        "{:?}",
        f.fixes
    );
}

#[test]
fn no_ptxas_anywhere_lists_the_searched_folders() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    linux_tf215(&mut m);
    m.dir("/usr/bin").env("PATH", "/usr/bin:/bin");
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = only(&findings, "ptxas-not-found");
    assert_eq!(
        f.severity,
        Severity::Warning,
        "TensorFlow: only XLA-compiled code fails"
    );
    assert_eq!(
        f.summary,
        "TensorFlow 2.15.0 in /home/u/tf cannot find ptxas"
    );
    assert_eq!(f.libraries, ["ptxas"]);
    assert_eq!(
        evidence_paths(f),
        ["/usr/bin", "/bin", "/usr/local/cuda/bin"]
    );
    assert!(f.evidence.iter().all(|e| e.kind == "searched"));
    assert_eq!(fixes(f), [("install", "install-nvcc-wheel-cu12")]);
}

#[test]
fn path_typo_hides_an_installed_toolkit_and_the_fix_names_its_bin() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    m.windows_toolkit("11.2", &CUDA11_DLLS);
    win_tf210(&mut m);
    m.env(
        "PATH",
        &format!(r"{CUDA}\v11.2\bn;C:\Windows\System32;{PY}"),
    );
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    let f = only(&findings, "ptxas-not-found");
    assert!(
        evidence_paths(f).contains(&format!(r"{CUDA}\v11.2\bn").as_str()),
        "{f:#?}"
    );
    assert_eq!(
        fixes(f),
        [(
            "path-edit",
            format!(r"path-prepend:{CUDA}\v11.2\bin").as_str()
        )]
    );
}

#[test]
fn toolkit_without_libdevice() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    let root = linux_toolkit(&mut m, "12.3", false);
    linux_tf215(&mut m);
    m.env("PATH", &format!("{root}/bin:/usr/bin"));
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = only(&findings, "libdevice-missing");
    assert_eq!(
        f.severity,
        Severity::Warning,
        "TensorFlow: only XLA-compiled code fails"
    );
    assert_eq!(
        f.summary,
        "CUDA 12.3 at /usr/local/cuda-12.3 has no nvvm/libdevice/libdevice.10.bc"
    );
    assert_eq!(f.libraries, ["libdevice.10.bc"]);
    assert_eq!(evidence_paths(f), [root.as_str()]);
    assert_eq!(
        fixes(f),
        [("env-var", "env-xla-data-dir:/usr/local/cuda-12.3")]
    );
}

#[test]
fn healthy_new_complete_toolkit_through_path_or_xla_flags() {
    for (path, flags) in [
        ("/usr/local/cuda-12.3/bin:/usr/bin", None),
        (
            "/usr/bin",
            Some("--xla_gpu_cuda_data_dir=/usr/local/cuda-12.3"),
        ),
    ] {
        let mut m = FakeMachine::new(Platform::Linux).unwrap();
        linux_toolkit(&mut m, "12.3", true);
        linux_tf215(&mut m);
        m.env("PATH", path);
        if let Some(f) = flags {
            m.env("XLA_FLAGS", f);
        }
        let (ctx, inv) = scan(&m);
        let findings = check(&RuleInput::new(&ctx, &inv));
        assert!(findings.is_empty(), "PATH {path}: {findings:#?}");
    }
}

#[test]
fn cpu_builds_and_pytorch_are_not_xla_users() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    let site = linux_venv(&mut m, "cpu");
    linux_tf(
        &mut m,
        &site,
        "2.15.0",
        "build_info = {'cuda_version': '12.2', 'is_cuda_build': False}\n",
    );
    m.file(
        &format!("{site}/torch/version.py"),
        "__version__ = '2.3.1'\ncuda: Optional[str] = '12.1'\n",
    );
    m.env("PATH", "/usr/bin");
    let (ctx, inv) = scan(&m);
    assert_eq!(inv.python_envs[0].frameworks.len(), 2, "{inv:#?}");
    assert!(
        check(&RuleInput::new(&ctx, &inv)).is_empty(),
        "{:#?}",
        check(&RuleInput::new(&ctx, &inv))
    );
}

#[test]
fn ptxas_is_offered_only_from_a_wheel_that_exists() {
    use crate::engine::findings::FixKind;
    use crate::engine::rules::xla::install_ptxas;
    // CUDA 10: no nvidia-cuda-nvcc-cu10 was ever published; the toolkit archive instead.
    let f = install_ptxas("10.0", Platform::Linux, "x".into());
    assert_eq!(f.kind, FixKind::Manual, "{f:?}");
    assert!(!f.summary.contains("pip install"), "{}", f.summary);
    assert!(
        f.summary
            .contains("https://developer.nvidia.com/cuda-toolkit-archive")
    );
    // CUDA 11 and 12 have their -cuNN wheel; CUDA 13's is unsuffixed.
    for (cuda, wheel) in [
        ("11.8", "nvidia-cuda-nvcc-cu11"),
        ("12.4", "nvidia-cuda-nvcc-cu12"),
        ("13.0", "nvidia-cuda-nvcc~=13.0"),
    ] {
        let f = install_ptxas(cuda, Platform::Windows, "x".into());
        assert!(f.summary.contains(wheel), "{cuda}: {}", f.summary);
    }
}

/// The architectures a toolkit's ptxas knows are NVIDIA's own (`ptxas --help`, generated):
/// CUDA 11.8's does not know Blackwell (sm_120); with TensorFlow installed and that ptxas first
/// on PATH it is a warning, and an Ampere GPU (sm_86) gets nothing.
#[test]
fn a_ptxas_that_does_not_know_the_gpu_is_named() {
    use crate::engine::rules::ptxas_arch;
    for (cc, expect) in [("12.0", Some(Severity::Warning)), ("8.6", None)] {
        let mut m = FakeMachine::new(Platform::Linux).unwrap();
        let root = linux_toolkit(&mut m, "11.8", true);
        linux_tf215(&mut m);
        m.env("PATH", &format!("{root}/bin:/usr/bin:/bin"));
        m.gpu("NVIDIA GeForce RTX 5090", cc);
        let (ctx, inv) = scan(&m);
        let found = ptxas_arch::check(&RuleInput::new(&ctx, &inv));
        assert_eq!(
            found.first().map(|f| f.severity),
            expect,
            "{cc}: {found:#?}"
        );
        if let Some(f) = found.first() {
            assert!(f.detail.contains("from CUDA 12.8 on"), "{}", f.detail);
        }
    }
}

/// Issue 25 (d): TensorFlow 2.4.1 on Linux (CUDA 11.0) with CUDA 10.1 ahead of CUDA 11.0 on
/// PATH: XLA runs 10.1's ptxas, and the finding names it, its version and what fails.
#[test]
fn linux_tf_2_4_with_an_older_toolkit_first_on_path_names_the_ptxas_xla_runs() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    for v in ["10.1", "11.0"] {
        let root = linux_toolkit(&mut m, v, true);
        m.file(
            &format!("{root}/version.txt"),
            format!("CUDA Version {v}.243"),
        );
    }
    let site = linux_venv(&mut m, "tf");
    linux_tf(
        &mut m,
        &site,
        "2.4.1",
        "build_info = {'cuda_version': '11.0', 'cudnn_version': '8', 'is_cuda_build': True}\n",
    );
    m.env(
        "PATH",
        "/usr/local/cuda-10.1/bin:/usr/local/cuda-11.0/bin:/usr/bin",
    );
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    let f = only(&findings, "ptxas-too-old");
    assert!(f.summary.contains("runs ptxas 10.1"), "{}", f.summary);
    assert!(f.summary.ends_with("older than CUDA 11.0"), "{}", f.summary);
    assert_eq!(
        f.evidence[0].path.as_deref(),
        Some("/usr/local/cuda-10.1/bin/ptxas")
    );
    assert!(f.detail.contains("jit_compile"), "{}", f.detail);
    assert_eq!(
        fixes(f),
        [("path-edit", "path-prepend:/usr/local/cuda-11.0/bin")]
    );
}

/// A ptxas whose binary embeds the banner of CUDA `v` (`11.4.152`), as the real ones do.
fn ptxas_of(v: &str) -> Vec<u8> {
    let mm: Vec<&str> = v.split('.').take(2).collect();
    format!(
        "\x7fELF...Cuda compilation tools, release {}, V{v}\n",
        mm.join(".")
    )
    .into_bytes()
}

/// TensorFlow `version` (CUDA 12.5) in `/home/u/tf` with the pip nvidia-cuda-nvcc wheel's
/// ptxas 12.5.82, and CUDA `path_v`'s ptxas in `/opt/old/bin`, first on PATH.
fn tf_with_wheel_and_old_ptxas_first(version: &str, path_v: &str) -> FakeMachine {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    let site = linux_venv(&mut m, "tf");
    linux_tf(
        &mut m,
        &site,
        version,
        "build_info = {'cuda_version': '12.5.1', 'cudnn_version': '9', 'is_cuda_build': True}\n",
    );
    m.file(
        &format!("{site}/nvidia/cuda_nvcc/bin/ptxas"),
        ptxas_of("12.5.82"),
    )
    .file("/opt/old/bin/ptxas", ptxas_of(path_v))
    .env("PATH", "/opt/old/bin:/home/u/tf/bin:/usr/bin:/bin");
    m
}

/// XLA searches PATH before the pip wheel (TensorFlow 2.18.0's FindCudaExecutable, checked on
/// the real install by tests/integration/framework_loads_tensorflow.rs): an older ptxas there is
/// the one it runs, named with the fix that takes its folder off PATH (the wheel's then wins).
#[test]
fn tensorflow_runs_an_older_ptxas_on_path_before_its_nvcc_wheel() {
    let m = tf_with_wheel_and_old_ptxas_first("2.18.0", "11.8.89");
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    let f = only(&findings, "ptxas-too-old");
    assert!(f.summary.contains("runs ptxas 11.8.89"), "{}", f.summary);
    assert_eq!(f.evidence[0].path.as_deref(), Some("/opt/old/bin/ptxas"));
    assert!(
        f.detail.contains("XLA searches PATH before it"),
        "{}",
        f.detail
    );
    assert_eq!(fixes(f), [("path-edit", "path-remove:/opt/old/bin")]);
}

/// From TensorFlow 2.18 XLA passes over a ptxas older than 11.8 (FindPtxAsExecutable's
/// minimum): the wheel's 12.5 is what it runs, and nothing is said. TensorFlow 2.15 runs it.
#[test]
fn tensorflow_2_18_passes_over_a_ptxas_older_than_11_8() {
    let m = tf_with_wheel_and_old_ptxas_first("2.18.0", "11.4.152");
    let (ctx, inv) = scan(&m);
    assert!(
        check(&RuleInput::new(&ctx, &inv)).is_empty(),
        "{:#?}",
        check(&RuleInput::new(&ctx, &inv))
    );
    let m = tf_with_wheel_and_old_ptxas_first("2.15.0", "11.4.152");
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    let f = only(&findings, "ptxas-too-old");
    assert!(f.summary.contains("runs ptxas 11.4.152"), "{}", f.summary);
}

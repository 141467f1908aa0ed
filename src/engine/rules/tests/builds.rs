//! `builds::check`: TensorFlow ≥ 2.11 on native Windows, CPU-only builds, GPUs whose compute
//! capability a build lacks, and a driver older than a toolkit's or build's CUDA needs.

use super::{PY, evidence_paths, fixes, linux_tf, linux_venv, only, scan, win_tf};
use crate::engine::context::fake::FakeMachine;
use crate::engine::context::{GpuFacts, Platform};
use crate::engine::findings::Severity;
use crate::engine::rules::RuleInput;
use crate::engine::rules::builds::check;

fn gpu(name: &str, cc: &str) -> GpuFacts {
    GpuFacts {
        name: name.into(),
        compute_capability: Some(cc.into()),
        memory_mib: None,
    }
}

/// A Linux venv `/home/u/tf` with TensorFlow 2.15 built for CUDA `cuda` with `archs`.
fn linux_tf_build(m: &mut FakeMachine, cuda: &str, archs: &str) -> String {
    let site = linux_venv(m, "tf");
    linux_tf(
        m,
        &site,
        "2.15.0",
        &format!(
            "build_info = {{'cuda_version': '{cuda}', 'cudnn_version': '8', 'cuda_compute_capabilities': [{archs}], 'is_cuda_build': True}}\n"
        ),
    )
}

#[test]
fn tensorflow_2_12_on_native_windows_has_no_gpu() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    let tf = win_tf(&mut m, "2.12.0", "64_112", "64_8");
    // The real 2.12 Windows wheel is CPU-only; the Windows finding replaces the CPU-build one.
    m.file(
        &format!(r"{tf}\python\platform\build_info.py"),
        "build_info = {}\nbuild_info['is_cuda_build'] = False\n",
    );
    m.env("PATH", &format!(r"C:\Windows\System32;{PY}"));
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = only(&findings, "tensorflow-windows-no-gpu");
    assert_eq!(f.severity, Severity::Warning);
    assert!(
        f.summary.starts_with(&format!("TensorFlow 2.12.0 in {PY}")),
        "{}",
        f.summary
    );
    assert_eq!(evidence_paths(f), [tf.as_str()]);
    assert_eq!(f.evidence[0].text, "tensorflow 2.12.0");
    assert_eq!(
        fixes(f),
        [
            ("pin-version", "pin-tensorflow-2.10"),
            ("manual", "use-wsl2")
        ]
    );
    assert!(f.fixes[0].summary.contains("tensorflow<2.11"));
}

#[test]
fn cpu_only_pytorch_build() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    let site = linux_venv(&mut m, "torchcpu");
    m.file(
        &format!("{site}/torch-2.3.1+cpu.dist-info/METADATA"),
        "Metadata-Version: 2.1\nName: torch\nVersion: 2.3.1+cpu\n",
    );
    m.file(
        &format!("{site}/torch/version.py"),
        "__version__ = '2.3.1+cpu'\ndebug = False\ncuda: Optional[str] = None\n",
    );
    let (mut ctx, inv) = scan(&m);
    // With no GPU on the machine a CPU build is what it can use: a note.
    assert_eq!(
        only(&check(&RuleInput::new(&ctx, &inv)), "framework-cpu-build").severity,
        Severity::Info
    );
    // With a GPU that nothing in the environment uses, it is the warning.
    ctx.gpus = vec![gpu("NVIDIA GeForce RTX 3090", "8.6")];
    let findings = check(&RuleInput::new(&ctx, &inv));
    let f = only(&findings, "framework-cpu-build");
    assert_eq!(f.severity, Severity::Warning);
    assert_eq!(
        f.summary,
        "PyTorch 2.3.1+cpu in /home/u/torchcpu is a CPU-only build"
    );
    assert_eq!(evidence_paths(f), [format!("{site}/torch").as_str()]);
    assert_eq!(fixes(f), [("install", "install-cuda-build:torch")]);
    assert_eq!(findings.len(), 1, "{findings:#?}");
}

#[test]
fn gpu_without_code_in_the_build_is_arch_missing() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    linux_tf_build(&mut m, "12.2", "'sm_35', 'sm_50', 'sm_60'");
    let (mut ctx, inv) = scan(&m);
    ctx.gpus = vec![gpu("NVIDIA GeForce RTX 3090", "8.6")];
    let findings = check(&RuleInput::new(&ctx, &inv));
    let f = only(&findings, "gpu-arch-missing");
    assert_eq!(f.severity, Severity::Error);
    assert!(
        f.summary
            .contains("NVIDIA GeForce RTX 3090 (compute capability 8.6)"),
        "{}",
        f.summary
    );
    assert!(f.detail.contains("sm_35, sm_50, sm_60"), "{}", f.detail);
    assert_eq!(f.evidence[0].kind, "driver");
    assert_eq!(
        f.evidence[0].text,
        "NVIDIA GeForce RTX 3090: compute capability 8.6"
    );
    assert_eq!(fixes(f), [("install", "install-build-sm_86")]);
}

#[test]
fn exact_sass_or_older_ptx_covers_the_gpu() {
    for archs in ["'sm_75', 'sm_86'", "'sm_70', 'compute_80'"] {
        let mut m = FakeMachine::new(Platform::Linux).unwrap();
        linux_tf_build(&mut m, "12.2", archs);
        let (mut ctx, inv) = scan(&m);
        ctx.gpus = vec![gpu("NVIDIA GeForce RTX 3090", "8.6")];
        let findings = check(&RuleInput::new(&ctx, &inv));
        assert!(findings.is_empty(), "{archs}: {findings:#?}");
    }
}

#[test]
fn sm_80_code_runs_on_a_compute_capability_8_6_gpu() {
    // TensorFlow 2.14+ wheels are built for sm_50, sm_60, sm_70, sm_80 and compute_90.
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    linux_tf_build(
        &mut m,
        "12.2",
        "'sm_50', 'sm_60', 'sm_70', 'sm_80', 'compute_90'",
    );
    let (mut ctx, inv) = scan(&m);
    ctx.gpus = vec![gpu("NVIDIA GeForce RTX 3090", "8.6")];
    let findings = check(&RuleInput::new(&ctx, &inv));
    assert!(findings.is_empty(), "{findings:#?}");
}

#[test]
fn linux_driver_older_than_cuda_12_1_needs() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    m.file("/usr/local/cuda-12.1/bin/nvcc", b"\x7fELF")
        .file("/usr/local/cuda-12.1/lib64/libcudart.so.12", b"\x7fELF")
        .driver("470.82.01", "11.4");
    // The toolkit and the build both need CUDA 12.1: one finding, not two.
    linux_tf_build(&mut m, "12.1", "'sm_86'");
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    let f = only(&findings, "driver-too-old");
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(
        f.summary,
        "Driver 470.82.01 is older than CUDA 12.1 needs (530.30.02 or newer)"
    );
    assert!(
        f.detail
            .contains("the CUDA toolkit at /usr/local/cuda-12.1"),
        "{}",
        f.detail
    );
    assert_eq!(f.libraries, ["libcuda.so.1"]);
    assert_eq!(f.evidence[0].text, "installed driver 470.82.01");
    assert!(
        f.evidence[1].text.starts_with("CUDA 12.1 needs 530.30.02"),
        "{:?}",
        f.evidence[1]
    );
    assert_eq!(fixes(f), [("install", "install-driver-530.30.02")]);
}

#[test]
fn windows_driver_older_than_its_toolkit_needs() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    m.windows_toolkit("12.1", &["cudart64_12.dll"]);
    m.driver("516.94", "11.7");
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    let f = only(&findings, "driver-too-old");
    assert!(f.summary.contains("(531.14 or newer)"), "{}", f.summary);
    assert_eq!(f.libraries, ["nvcuda.dll"]);
    assert_eq!(fixes(f), [("install", "install-driver-531.14")]);
}

#[test]
fn a_driver_of_the_majors_compat_branch_is_information_not_an_error() {
    // Driver 546.33 (R545, CUDA 12.3) and a CUDA 12.4 toolkit: CUDA 12.4 asks for 551.61, but
    // any R525+ driver runs CUDA 12.x code by minor-version compatibility (NVIDIA's CUDA
    // Compatibility guide); the real TensorFlow 2.10 import under Wine loads its libraries there.
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    m.windows_toolkit("12.4", &["cudart64_12.dll"]);
    m.driver("546.33", "12.3");
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    let f = only(&findings, "driver-too-old");
    assert_eq!(f.severity, Severity::Info, "{f:#?}");
    assert!(
        f.summary.contains("minor-version compatibility"),
        "{}",
        f.summary
    );
    assert!(f.detail.contains("error 222"), "{}", f.detail);
    assert!(
        f.evidence
            .iter()
            .any(|e| e.text.contains("minor-version-compatibility.html")),
        "{:#?}",
        f.evidence
    );
}

#[test]
fn healthy_machines_get_nothing() {
    // Linux: new enough driver, a build with code for the GPU.
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    m.file("/usr/local/cuda-12.1/bin/nvcc", b"\x7fELF")
        .driver("550.54.15", "12.4");
    linux_tf_build(&mut m, "12.2", "'sm_80', 'sm_86', 'compute_90'");
    let (mut ctx, inv) = scan(&m);
    ctx.gpus = vec![gpu("NVIDIA GeForce RTX 3090", "8.6")];
    assert_eq!(inv.python_envs[0].frameworks.len(), 1, "{inv:#?}");
    assert!(
        check(&RuleInput::new(&ctx, &inv)).is_empty(),
        "{:#?}",
        check(&RuleInput::new(&ctx, &inv))
    );
    // Windows: TensorFlow 2.10 still has native GPU support; driver 546.33 runs CUDA 11.2.
    let mut w = FakeMachine::new(Platform::Windows).unwrap();
    w.windows_toolkit("11.2", &["cudart64_110.dll"]);
    super::win_tf210(&mut w);
    w.driver("546.33", "12.3");
    let (ctx, inv) = scan(&w);
    assert!(
        check(&RuleInput::new(&ctx, &inv)).is_empty(),
        "{:#?}",
        check(&RuleInput::new(&ctx, &inv))
    );
}

#[test]
fn a_release_newer_than_the_table_is_an_inferred_info_and_its_findings_say_so() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    let site = linux_venv(&mut m, "tf");
    // The 1.13-style build_info.py names no CUDA version; 2.99 is newer than every row.
    linux_tf(&mut m, &site, "2.99.0", "is_cuda_build = True\n");
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    let f = only(&findings, "framework-expectations-inferred");
    assert_eq!(f.severity, Severity::Info);
    assert!(
        f.summary.contains("inferred from TensorFlow"),
        "{}",
        f.summary
    );
    let all = crate::engine::rules::run_all(&ctx, &inv);
    let missing = all
        .iter()
        .find(|f| f.code == "library-missing")
        .unwrap_or_else(|| panic!("{all:#?}"));
    assert!(
        missing.detail.contains("inferred from TensorFlow"),
        "{}",
        missing.detail
    );
}

#[test]
fn a_cuda_build_whose_version_cannot_be_read_is_a_warning_saying_why() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    let site = linux_venv(&mut m, "ort");
    m.file(
        // 1.8 predates the requirements table's rows, and Linux wheels record nothing.
        &format!("{site}/onnxruntime_gpu-1.8.0.dist-info/METADATA"),
        "Metadata-Version: 2.1\nName: onnxruntime-gpu\nVersion: 1.8.0\n",
    );
    m.file(
        &format!("{site}/onnxruntime/capi/libonnxruntime_providers_cuda.so"),
        b"",
    );
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    let f = only(&findings, "framework-expectations-unknown");
    assert_eq!(f.severity, Severity::Warning);
    assert!(f.detail.contains("version_info.py"), "{}", f.detail);
    assert!(f.detail.contains("no row for 1.8.0"), "{}", f.detail);
}

//! `wheels::check`: pip `nvidia-*` wheel folders that no framework in the environment searches,
//! and one CUDA component reaching one process from two folders (a wheel and a toolkit copy).

use super::{PY, evidence_paths, fixes, linux_venv, only, scan, win_tf210};
use crate::engine::context::Platform;
use crate::engine::context::fake::FakeMachine;
use crate::engine::findings::Severity;
use crate::engine::rules::RuleInput;
use crate::engine::rules::wheels::check;

/// PyTorch 2.3.1 built for CUDA 12.1 in `site` (no bundled libraries: it uses the wheels).
fn linux_torch(m: &mut FakeMachine, site: &str) {
    m.file(
        &format!("{site}/torch-2.3.1.dist-info/METADATA"),
        "Metadata-Version: 2.1\nName: torch\nVersion: 2.3.1\nRequires-Dist: nvidia-cublas-cu12 ==12.1.3.1; platform_system == \"Linux\"\n",
    )
    .file(
        &format!("{site}/torch/version.py"),
        "__version__ = '2.3.1+cu121'\ncuda: Optional[str] = '12.1'\n",
    );
}

#[test]
fn linux_wheels_without_any_framework_are_not_searched() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    let site = linux_venv(&mut m, "w");
    let cublas = format!("{site}/nvidia/cublas/lib");
    let cudart = format!("{site}/nvidia/cuda_runtime/lib");
    m.file(&format!("{cublas}/libcublas.so.12"), b"\x7fELF")
        .file(&format!("{cudart}/libcudart.so.12"), b"\x7fELF");
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = only(&findings, "pip-cuda-wheels-not-searched");
    assert_eq!(f.severity, Severity::Warning);
    assert_eq!(
        f.summary,
        "pip nvidia-* libraries in /home/u/w are not searched by any loader"
    );
    let mut paths = evidence_paths(f);
    paths.sort_unstable();
    assert_eq!(paths, [cublas.as_str(), cudart.as_str()]);
    assert!(
        f.evidence.iter().any(|e| e.text == "cublas wheel folder"),
        "{f:#?}"
    );
    assert_eq!(fixes(f), [("manual", "manual-wheel-dirs:/home/u/w")]);
}

#[test]
fn windows_tf210_never_loads_a_pip_cublas_wheel() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    win_tf210(&mut m);
    // `pip install nvidia-cublas-cu11` next to TensorFlow 2.10, which only searches PATH.
    let bin = format!(r"{PY}\Lib\site-packages\nvidia\cublas\bin");
    m.file(&format!(r"{bin}\cublas64_11.dll"), b"MZ")
        .env("PATH", &format!(r"C:\Windows\System32;{PY}"));
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    let f = only(&findings, "pip-cuda-wheels-not-searched");
    assert!(f.summary.contains(PY), "{}", f.summary);
    assert_eq!(evidence_paths(f), [bin.as_str()]);
    assert_eq!(
        fixes(f),
        [("manual", format!("manual-wheel-dirs:{PY}").as_str())]
    );
}

#[test]
fn wheel_and_toolkit_cublas_in_one_process_are_duplicates() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    let site = linux_venv(&mut m, "torch");
    linux_torch(&mut m, &site);
    let wheel = format!("{site}/nvidia/cublas/lib/libcublas.so.12");
    let toolkit = "/usr/local/cuda-12.4/lib64/libcublas.so.12";
    m.file(&wheel, b"\x7fELF")
        .file(toolkit, b"\x7fELF")
        .file("/usr/local/cuda-12.4/lib64/libcudart.so.12", b"\x7fELF")
        .env("LD_LIBRARY_PATH", "/usr/local/cuda-12.4/lib64");
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    assert!(
        findings
            .iter()
            .all(|f| f.code != "pip-cuda-wheels-not-searched"),
        "PyTorch on Linux uses the wheels: {findings:#?}"
    );
    let f = findings
        .iter()
        .find(|f| f.code == "duplicate-library" && f.summary.starts_with("cuBLAS "))
        .unwrap_or_else(|| panic!("no duplicate cuBLAS: {findings:#?}"));
    // One file name: a process keeps one copy per name, so it is a note, not an alarm.
    assert_eq!(f.severity, Severity::Info);
    assert_eq!(
        f.summary,
        "cuBLAS is in 2 folders reachable from /home/u/torch"
    );
    assert_eq!(evidence_paths(f), [wheel.as_str(), toolkit]);
    assert_eq!(f.libraries, ["libcublas.so.12", "libcublas.so.12"]);
    assert_eq!(fixes(f), [("manual", "manual-one-copy:cuBLAS")]);
    // cudart exists only in the toolkit: one copy is no duplicate.
    assert!(
        !findings.iter().any(|f| f.summary.contains("CUDA runtime")),
        "{findings:#?}"
    );
}

#[test]
fn windows_torch_bundled_and_cupy_through_path_are_duplicates() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    let sp = format!(r"{PY}\Lib\site-packages");
    win_torch_bundled(&mut m);
    // CuPy for CUDA 12 in the same environment loads the toolkit's copies through PATH.
    let root = m.windows_toolkit("12.4", &["cudart64_12.dll", "cublas64_12.dll"]);
    m.file(
        &format!(r"{sp}\cupy_cuda12x-13.2.0.dist-info\METADATA"),
        "Metadata-Version: 2.1\nName: cupy-cuda12x\nVersion: 13.2.0\n",
    )
    .file(&format!(r"{sp}\cupy\__init__.py"), "")
    .env("PATH", &format!(r"{root}\bin;C:\Windows\System32;{PY}"));
    let (ctx, inv) = scan(&m);
    let findings = check(&RuleInput::new(&ctx, &inv));
    let f = findings
        .iter()
        .find(|f| f.fixes.iter().any(|x| x.id == "manual-one-copy:cuBLAS"))
        .unwrap_or_else(|| panic!("no duplicate cuBLAS: {findings:#?}"));
    assert_eq!(f.code, "duplicate-library");
    assert_eq!(
        evidence_paths(f),
        [
            format!(r"{sp}\torch\lib\cublas64_12.dll").as_str(),
            format!(r"{root}\bin\cublas64_12.dll").as_str()
        ]
    );
    assert!(
        f.detail.contains("from 2 different folders"),
        "{}",
        f.detail
    );
}

#[test]
fn healthy_wheels_used_by_pytorch_and_nothing_else_on_the_search_path() {
    let mut m = FakeMachine::new(Platform::Linux).unwrap();
    let site = linux_venv(&mut m, "torch");
    linux_torch(&mut m, &site);
    m.file(
        &format!("{site}/nvidia/cublas/lib/libcublas.so.12"),
        b"\x7fELF",
    )
    .file(
        &format!("{site}/nvidia/cuda_runtime/lib/libcudart.so.12"),
        b"\x7fELF",
    );
    let (ctx, inv) = scan(&m);
    assert_eq!(inv.python_envs[0].nvidia_lib_dirs.len(), 2, "{inv:#?}");
    let findings = check(&RuleInput::new(&ctx, &inv));
    assert!(findings.is_empty(), "{findings:#?}");
}

/// PyTorch 2.3.1+cu121 in [`PY`] with cuBLAS, the CUDA runtime and cuDNN bundled in `torch\lib`.
fn win_torch_bundled(m: &mut FakeMachine) {
    m.file(&format!(r"{PY}\python.exe"), b"MZ")
        .file(&format!(r"{PY}\python310.dll"), b"MZ");
    let sp = format!(r"{PY}\Lib\site-packages");
    m.file(
        &format!(r"{sp}\torch-2.3.1+cu121.dist-info\METADATA"),
        "Metadata-Version: 2.1\nName: torch\nVersion: 2.3.1+cu121\n",
    )
    .file(
        &format!(r"{sp}\torch\version.py"),
        "__version__ = '2.3.1+cu121'\ncuda: Optional[str] = '12.1'\n",
    );
    for d in ["cublas64_12.dll", "cudart64_12.dll", "cudnn64_8.dll"] {
        m.file(&format!(r"{sp}\torch\lib\{d}"), b"MZ");
    }
}

#[test]
fn healthy_windows_pytorch_with_its_bundled_libraries_only() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    win_torch_bundled(&mut m);
    m.env("PATH", &format!(r"C:\Windows\System32;{PY}"));
    let (ctx, inv) = scan(&m);
    assert_eq!(inv.python_envs[0].frameworks[0].bundled_libraries.len(), 3);
    let findings = check(&RuleInput::new(&ctx, &inv));
    assert!(findings.is_empty(), "{findings:#?}");
}

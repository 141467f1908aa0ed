//! Would it load, on Windows: a venv with torch whose `torch\lib` DLLs are built with mingw at
//! test time (exact import and export tables; no real torch DLL can be had without a 2.5 GB
//! wheel), scanned through a machine file. torch imports its DLLs with `LoadLibraryExW(dll, 0,
//! 0x1100)` after `os.add_dll_directory(torch\lib)`; a `cublas64_12.dll` there that lacks a
//! function `torch_cuda.dll` imports fails with error 127, which no presence check can see —
//! the closure check must, naming both DLLs and the function, and stay quiet when it is there.

use crate::fixtures_build::DllSpec;
use crate::support::{json, run_cli};
use cuda_triage::engine::context::Platform;
use cuda_triage::engine::context::fake::FakeMachine;
use serde_json::Value;

const VENV: &str = r"C:\Users\ana\projects\vision\.venv";

fn built(spec: DllSpec, dir: &std::path::Path) -> std::path::PathBuf {
    spec.build(dir)
        .expect("mingw builds the DLL (install gcc-mingw-w64-x86-64)")
}

/// The venv's machine file; `gemm` says whether cublas64_12.dll exports cublasGemmEx.
fn machine(gemm: bool) -> (tempfile::TempDir, FakeMachine, String) {
    let work = tempfile::tempdir().unwrap();
    let mut cublas = DllSpec::new("cublas64_12.dll").export("cublasCreate_v2", None);
    if gemm {
        cublas = cublas.export("cublasGemmEx", None);
    }
    let cublas = built(cublas, work.path());
    let cudart = built(
        DllSpec::new("cudart64_12.dll").export("cudaMalloc", None),
        work.path(),
    );
    let torch_cuda = built(
        DllSpec::new("torch_cuda.dll")
            .import("cudart64_12.dll", &["cudaMalloc"])
            .import("cublas64_12.dll", &["cublasCreate_v2", "cublasGemmEx"])
            .export("torch_cuda_entry", None),
        work.path(),
    );
    let lib = format!(r"{VENV}\Lib\site-packages\torch\lib");
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    m.dir(r"C:\Windows\System32")
        .file(
            &format!(r"{VENV}\pyvenv.cfg"),
            "home = C:\\Users\\ana\\AppData\\Local\\Programs\\Python\\Python311\nversion = 3.11.7\n",
        )
        .file(&format!(r"{VENV}\Scripts\python.exe"), b"MZ")
        .file(
            &format!(r"{VENV}\Lib\site-packages\torch\version.py"),
            "__version__ = '2.5.1+cu124'\ndebug = False\ncuda: Optional[str] = '12.4'\n",
        )
        .file(
            &format!(r"{VENV}\Lib\site-packages\torch-2.5.1+cu124.dist-info\METADATA"),
            "Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1+cu124\n",
        )
        .copy(&format!(r"{lib}\torch_cuda.dll"), &torch_cuda)
        .copy(&format!(r"{lib}\cublas64_12.dll"), &cublas)
        .copy(&format!(r"{lib}\cudart64_12.dll"), &cudart);
    m.env("PATH", &format!(r"C:\Windows\system32;{VENV}\Scripts"))
        .env("VIRTUAL_ENV", VENV)
        .env("SystemRoot", r"C:\Windows")
        .driver("551.61", "12.4");
    let file = m.write_machine_file().unwrap().display().to_string();
    (work, m, file)
}

fn closure_findings(doc: &Value) -> Vec<&Value> {
    crate::support::findings_with_evidence(doc, "entry library")
}

#[test]
fn a_torch_dll_missing_an_export_it_imports_is_error_127_in_the_scan() {
    let (_w, _m, file) = machine(false);
    let doc = json(&run_cli(&["scan", "--machine", &file, "--json"]));
    let found = closure_findings(&doc);
    let f = found
        .iter()
        .find(|f| f["code"] == "missing-export")
        .unwrap_or_else(|| panic!("error 127 is found: {doc:#}"));
    assert_eq!(f["severity"], "error", "{f:#}");
    let text = f.to_string();
    for needle in [
        "cublasGemmEx",
        "cublas64_12.dll",
        "torch_cuda.dll",
        "PyTorch 2.5.1",
    ] {
        assert!(text.contains(needle), "{needle}: {f:#}");
    }
}

#[test]
fn a_torch_dll_whose_imports_all_resolve_raises_nothing() {
    let (_w, _m, file) = machine(true);
    let doc = json(&run_cli(&["scan", "--machine", &file, "--json"]));
    assert_eq!(closure_findings(&doc), Vec::<&Value>::new(), "{doc:#}");
}

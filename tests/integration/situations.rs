//! The five situations people write about most (issue 3 item 5), each on a fake machine built
//! at test time and checked end to end through the built binary: `scan --machine M --json` and
//! `why "<error text>" --machine M --json` must name the root cause and the fix.

use crate::support::{json, run_cli};
use cuda_triage::engine::context::Platform;
use cuda_triage::engine::context::fake::{FakeMachine, WINDOWS_TOOLKITS};
use serde_json::Value;

const CUDA: &str = WINDOWS_TOOLKITS;
const PY: &str = r"C:\Users\u\AppData\Local\Programs\Python\Python310";

/// Writes machine.toml (drive C, env, driver) next to the fake drive and returns its path.
pub(crate) fn machine_file(m: &FakeMachine, env: &[(&str, &str)]) -> String {
    let root = m.host(r"C:\").parent().expect("fake root").to_path_buf();
    let mut toml = String::from("platform = \"windows\"\n[drives]\nC = \"C\"\n[env]\n");
    for (k, v) in env {
        toml.push_str(&format!("{k} = '{v}'\n"));
    }
    toml.push_str("[driver]\nversion = \"546.33\"\ncuda = \"12.3\"\n");
    let path = root.join("machine.toml");
    std::fs::write(&path, toml).expect("write machine.toml");
    path.display().to_string()
}

/// TensorFlow 2.10.1 in [`PY`], with the real files of its Windows wheel (build_info.py,
/// METADATA) — until issue 11 this was a hand-written imitation in a form no release used.
/// CUDA 11.2's toolkit with the DLLs TensorFlow 2.10 loads (situations a and d).
pub(crate) fn cuda_11_2(m: &mut FakeMachine) {
    m.windows_toolkit("11.2", crate::release_machines::CUDA11_DLLS);
}

/// Situation e's install: CUDA 10.0 with CUPTI only in `extras\CUPTI\libx64`, and a real
/// Anaconda layout (the base environment with conda-meta, `envs\tf1` inside it) whose tf1 env
/// has TensorFlow 1.14 built for CUDA 10.0. Returns the env's folder.
pub(crate) fn anaconda_tf1_cuda10(m: &mut FakeMachine) -> &'static str {
    m.windows_toolkit("10.0", &["cudart64_100.dll", "cublas64_100.dll"]);
    m.file(
        &format!(r"{CUDA}\v10.0\extras\CUPTI\libx64\cupti64_100.dll"),
        b"MZ",
    );
    m.file(
        r"C:\Users\u\Anaconda3\conda-meta\python-3.7.6-h60c2a47_2.json",
        "{}",
    );
    m.file(r"C:\Users\u\Anaconda3\python.exe", b"MZ");
    let env = r"C:\Users\u\Anaconda3\envs\tf1";
    m.file(&format!(r"{env}\python.exe"), b"MZ");
    m.file(&format!(r"{env}\conda-meta\python-3.6.13-h0.json"), "{}");
    m.file(
        &format!(r"{env}\Lib\site-packages\tensorflow_gpu-1.14.0.dist-info\METADATA"),
        "Name: tensorflow-gpu\nVersion: 1.14.0\n",
    );
    m.file(
        &format!(r"{env}\Lib\site-packages\tensorflow\python\platform\build_info.py"),
        "cuda_version_number = '10.0'\ncudnn_version_number = '7'\nis_cuda_build = True\n",
    );
    env
}

pub(crate) fn tf210(m: &mut FakeMachine) {
    m.file(&format!(r"{PY}\python.exe"), b"MZ");
    m.file(&format!(r"{PY}\python310.dll"), b"MZ");
    let rel = crate::release_files::release("tensorflow", "2.10.1", "windows");
    crate::release_machines::install_into(m, &rel, &format!(r"{PY}\Lib\site-packages"));
}

fn scan(machine: &str) -> Value {
    json(&run_cli(&["scan", "--machine", machine, "--json"]))
}

fn why(machine: &str, text: &str) -> Value {
    json(&run_cli(&["why", text, "--machine", machine, "--json"]))
}

fn find<'a>(doc: &'a Value, code: &str) -> Option<&'a Value> {
    doc["findings"]
        .as_array()?
        .iter()
        .find(|f| f["code"] == code)
}

fn has<'a>(doc: &'a Value, code: &str) -> &'a Value {
    find(doc, code).unwrap_or_else(|| panic!("no {code} finding in {:#}", doc["findings"]))
}

fn fix_kinds(f: &Value) -> Vec<String> {
    f["fixes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|x| x["kind"].as_str().unwrap_or("").to_string())
        .collect()
}

const TF_ERR: &str = "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cublas64_11.dll'; dlerror: cublas64_11.dll not found";

#[test]
fn a_tf210_only_cuda12_installed_is_wrong_major() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    m.windows_toolkit(
        "12.1",
        &["cudart64_12.dll", "cublas64_12.dll", "cublasLt64_12.dll"],
    );
    tf210(&mut m);
    let path = format!(r"{CUDA}\v12.1\bin;C:\Windows\System32;{PY}");
    let mf = machine_file(
        &m,
        &[("PATH", &path), ("CUDA_PATH", &format!(r"{CUDA}\v12.1"))],
    );
    let doc = scan(&mf);
    let all = doc["findings"].as_array().unwrap();
    let f = all
        .iter()
        .find(|f| {
            f["code"] == "library-wrong-major"
                && f["libraries"].to_string().contains("cublas64_11.dll")
        })
        .unwrap_or_else(|| panic!("no wrong-major finding for cublas64_11.dll: {all:#?}"));
    assert!(
        f["evidence"].to_string().contains("cublas64_12.dll"),
        "{f:#}"
    );
    assert!(fix_kinds(f).contains(&"install".to_string()));
    let w = why(&mf, TF_ERR);
    assert!(
        find(&w, "library-wrong-major").is_some(),
        "{:#}",
        w["findings"]
    );
}

#[test]
fn a_tf210_cuda11_bin_not_on_host_path_is_not_searched() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    cuda_11_2(&mut m);
    tf210(&mut m);
    // A .NET host through Python.NET: its PATH lacks the toolkit's bin folder.
    let mf = machine_file(
        &m,
        &[
            ("PATH", r"C:\Windows\System32;C:\Program Files\dotnet"),
            ("PYTHONNET_PYDLL", &format!(r"{PY}\python310.dll")),
        ],
    );
    let doc = scan(&mf);
    let f = has(&doc, "library-not-searched");
    let text = f.to_string();
    assert!(text.contains(r"v11.2\\bin"), "{f:#}");
    assert!(fix_kinds(f).contains(&"path-edit".to_string()), "{f:#}");
    assert!(
        f["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["kind"] == "searched")
    );
    assert!(
        text.contains("Python.NET") && text.contains("PYTHONNET_PYDLL"),
        "{f:#}"
    );
    assert!(text.contains("pythonnet/pythonnet#1444"), "{f:#}");
    // The log as a Python.NET host prints it: TensorFlow's line, then the .NET stack.
    let log = format!("{TF_ERR}\n   at Python.Runtime.PythonException.ThrowLastAsClrException()\n");
    let w = why(&mf, &log);
    assert!(
        find(&w, "library-not-searched").is_some(),
        "{:#}",
        w["findings"]
    );
    assert!(find(&w, "library-on-machine").is_some());
    let host = w["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f.to_string().contains("Python.NET"))
        .unwrap_or_else(|| panic!("Python.NET not named: {:#}", w["findings"]));
    assert!(host.to_string().contains("append"), "{host:#}");
}

/// Situation c: a real 64-bit cuDNN 7 (importing CUDA 10.0's cudart and cuBLAS, which are
/// nowhere) beside a 32-bit program, `C:\Apps\AleaApp`; the PE files are built in `work`.
pub(crate) fn cudnn7_beside_a_32bit_app(m: &mut FakeMachine, work: &std::path::Path) {
    use crate::fixtures_build::{DllSpec, PeArch};
    let cudnn = DllSpec::new("cudnn64_7.dll")
        .import("cudart64_100.dll", &["cudaMalloc"])
        .import("cublas64_100.dll", &["cublasCreate_v2"])
        .export("cudnnCreate", None)
        .build(work)
        .unwrap();
    let app = DllSpec::new("AleaApp.dll")
        .arch(PeArch::I686)
        .export("Main", None)
        .build(work)
        .unwrap();
    m.copy(r"C:\Apps\AleaApp\cudnn64_7.dll", &cudnn);
    m.copy(r"C:\Apps\AleaApp\AleaApp.exe", &app);
}

pub(crate) fn cudnn8(m: &mut FakeMachine) -> String {
    let dir = r"C:\Program Files\NVIDIA\CUDNN\v8.9\bin".to_string();
    for d in [
        "cudnn64_8.dll",
        "cudnn_cnn_infer64_8.dll",
        "cudnn_ops_infer64_8.dll",
    ] {
        m.file(&format!(r"{dir}\{d}"), b"MZ");
    }
    m.file(
        r"C:\Program Files\NVIDIA\CUDNN\v8.9\include\cudnn_version.h",
        "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 9\n#define CUDNN_PATCHLEVEL 7\n",
    );
    dir
}

#[test]
fn b_cudnn8_without_zlibwapi() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    let dir = cudnn8(&mut m);
    let mf = machine_file(&m, &[("PATH", &format!(r"{dir};C:\Windows\System32"))]);
    let doc = scan(&mf);
    let f = has(&doc, "cudnn8-zlibwapi-missing");
    assert!(fix_kinds(f).contains(&"copy-file".to_string()));
    let w = why(
        &mf,
        "Could not locate zlibwapi.dll. Please make sure it is in your library path!\ncudnn_cnn_infer64_8.dll cannot be loaded",
    );
    assert!(
        find(&w, "cudnn8-zlibwapi-missing").is_some(),
        "{:#}",
        w["findings"]
    );
}

#[test]
fn b_cudnn8_with_a_32bit_zlibwapi_found_first() {
    use crate::fixtures_build::{DllSpec, PeArch, tool_available};
    assert!(
        tool_available("i686-w64-mingw32-gcc"),
        "i686-w64-mingw32-gcc is needed (.ci/run installs it)"
    );
    let work = tempfile::tempdir().unwrap();
    let zlib32 = DllSpec::new("zlibwapi.dll")
        .arch(PeArch::I686)
        .export("uncompress", None)
        .build(work.path())
        .expect("i686 build");
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    let dir = cudnn8(&mut m);
    // The 32-bit copy (from winimage's dll32 folder) sits in a folder that comes first on PATH.
    m.copy(r"C:\tools\zlib\zlibwapi.dll", &zlib32);
    let mf = machine_file(
        &m,
        &[("PATH", &format!(r"C:\tools\zlib;{dir};C:\Windows\System32"))],
    );
    let doc = scan(&mf);
    let f = has(&doc, "zlibwapi-wrong-bitness");
    assert!(f.to_string().contains(r"C:\\tools\\zlib"), "{f:#}");
    let w = why(&mf, "Could not load library zlibwapi.dll. Error code 193");
    assert!(
        find(&w, "zlibwapi-wrong-bitness").is_some(),
        "{:#}",
        w["findings"]
    );
}

#[test]
fn c_cudnn7_deps_absent_and_32bit_process() {
    // Real PE files, built here: a missing compiler is a failure that names its package.
    for tool in ["x86_64-w64-mingw32-gcc", "i686-w64-mingw32-gcc"] {
        assert!(
            crate::fixtures_build::tool_available(tool),
            "{tool} is needed (Debian gcc-mingw-w64-x86-64 / gcc-mingw-w64-i686)"
        );
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    cudnn7_beside_a_32bit_app(&mut m, tmp.path());
    let mf = machine_file(&m, &[("PATH", r"C:\Windows\System32;C:\Apps\AleaApp")]);
    let w = why(
        &mf,
        "System.DllNotFoundException: Unable to load DLL 'cudnn64_7.dll' (Exception from HRESULT: 0x8007000B)",
    );
    let f = has(&w, "process-bitness-mismatch");
    assert!(f["evidence"].to_string().contains("AleaApp.exe"), "{f:#}");
    let text = w["findings"].to_string();
    assert!(text.contains("cudart64_100.dll"), "{text}");
}

#[test]
fn d_ptxas_typo_and_older_toolkit_first() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    cuda_11_2(&mut m);
    m.windows_toolkit("10.0", &["cudart64_100.dll"]);
    tf210(&mut m);
    cudnn8(&mut m);
    m.file(r"C:\Windows\System32\zlibwapi.dll", b"MZ");
    // Typo: v11.2\bn.
    let typo = machine_file(
        &m,
        &[
            (
                "PATH",
                &format!(r"{CUDA}\v11.2\bn;C:\Windows\System32;{PY}"),
            ),
            ("CUDA_HOME", &format!(r"{CUDA}\v11.2")),
        ],
    );
    let doc = why(
        &typo,
        "W external/xla/xla/stream_executor/cuda/ptx_compiler_helpers.cc] Couldn't invoke ptxas --version",
    );
    assert!(
        find(&doc, "path-entry-typo").is_some(),
        "{:#}",
        doc["findings"]
    );
    assert!(
        find(&doc, "ptxas-not-found").is_some(),
        "{:#}",
        doc["findings"]
    );
    let older = machine_file(
        &m,
        &[(
            "PATH",
            &format!(r"{CUDA}\v10.0\bin;{CUDA}\v11.2\bin;C:\Windows\System32;{PY}"),
        )],
    );
    let doc = scan(&older);
    let f = has(&doc, "ptxas-too-old");
    assert!(
        f["detail"]
            .as_str()
            .unwrap()
            .contains("comes first on PATH"),
        "{f:#}"
    );
    assert!(fix_kinds(f).contains(&"path-edit".to_string()));
}

#[test]
fn e_cupti_in_libx64_not_on_path() {
    let mut m = FakeMachine::new(Platform::Windows).unwrap();
    let env = anaconda_tf1_cuda10(&mut m);
    let mf = machine_file(
        &m,
        &[
            (
                "PATH",
                &format!(r"{CUDA}\v10.0\bin;C:\Windows\System32;{env}"),
            ),
            ("CUDA_PATH", &format!(r"{CUDA}\v10.0")),
        ],
    );
    let doc = scan(&mf);
    let f = has(&doc, "cupti-not-searched");
    assert!(f["summary"].as_str().unwrap().contains("libx64"), "{f:#}");
    // The Anaconda environment's TensorFlow is what needs it: the finding says so.
    assert!(
        f["detail"].as_str().unwrap().contains("TensorFlow"),
        "{f:#}"
    );
    assert_eq!(f["severity"], "warning", "{f:#}");
    assert!(fix_kinds(f).contains(&"path-edit".to_string()));
    let w = why(&mf, "Could not load dynamic library 'cupti64_100.dll'");
    assert!(
        find(&w, "cupti-not-searched").is_some(),
        "{:#}",
        w["findings"]
    );
}

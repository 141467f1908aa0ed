//! A CUDA 12 CuPy (cupy-cuda12x 13.3.0) under Python 3.11 and 3.12 (its newest minor), judged by
//! the same probe and machinery as the CUDA 11 one (`cupy`): with `CUDA_PATH` naming the CUDA 12.4 toolkit made of
//! the `nvidia-*-cu12` wheels' DLLs ([`super::TOOLKIT12_BIN`]), as CuPy's install guide says
//! (https://docs.cupy.dev/en/v13.3.0/install.html: CUDA_PATH names the toolkit CuPy uses),
//! every CUDA module imports and the scan is silent; with `CUDA_PATH` naming the CUDA 11.8
//! toolkit instead, the modules whose CUDA 12 library that toolkit does not hold fail, and the
//! scan names exactly the libraries Wine could not load.

use super::cupy::{Build, DRIVER, TOOLKIT, assert_healthy, judge, ready};
use super::{TOOLKIT12_BIN, ZLIB, error_libraries, scan, without_wine_stubs};

/// cupy-cuda12x 13.3.0: its modules import the CUDA 12 names (cuRAND 10 and cuSOLVER 11 kept
/// theirs), and NVRTC is opened as `nvrtc64_120_0.dll`.
const CUDA12: Build = Build {
    python: "3.11",
    env: "cupy-cuda12x-13.3.0",
    wheel: "cupy-cuda12x",
    version: "13.3.0",
    modules: &[
        ("cupy_backends.cuda.libs.cublas", "cublas64_12.dll"),
        ("cupy_backends.cuda.libs.cusolver", "cusolver64_11.dll"),
        ("cupy_backends.cuda.libs.cusparse", "cusparse64_12.dll"),
        ("cupy_backends.cuda.libs.curand", "curand64_10.dll"),
        ("cupy.cuda.cufft", "cufft64_11.dll"),
    ],
    nvrtc: "nvrtc64_120_0.dll",
};

/// The same build under the newest Python it has wheels for, 3.12: its own downloads are the
/// cp312 wheels of cupy-cuda12x (67 MB) and fastrlock (numpy's is ONNX Runtime's).
const CUDA12_PY312: Build = Build {
    python: "3.12",
    ..CUDA12
};

/// The CUDA 12.4 toolkit's root.
fn toolkit12() -> &'static str {
    TOOLKIT12_BIN.trim_end_matches(r"\bin")
}

/// `CUDA_PATH` naming the CUDA 12.4 toolkit: every module imports, NVRTC opens, the scan is
/// silent and `tree` resolves each module's library where Wine mapped it.
#[test]
fn cupy_13_cuda12_with_cuda_path_imports_every_module_and_the_scan_is_silent() {
    assert_healthy(&CUDA12, toolkit12());
}

/// Under Python 3.12, the newest CuPy 13 supports: healthy with `CUDA_PATH` naming CUDA 12.4;
/// the scan reads the environment's Python as 3.12.
#[test]
fn cupy_13_cuda12_python312_with_cuda_path_imports_every_module_and_the_scan_is_silent() {
    assert_healthy(&CUDA12_PY312, toolkit12());
}

/// `CUDA_PATH` naming the CUDA 11.8 toolkit (an older install the variable still points to):
/// the cuBLAS, cuFFT and cuSPARSE modules fail on their CUDA 12 names (cublas64_12.dll,
/// cufft64_11.dll, cusparse64_12.dll), the cuRAND and cuSOLVER modules import from 11.8's
/// curand64_10.dll and cusolver64_11.dll, whose names CUDA 12 kept, and NVRTC 12's name is not
/// there. The scan's errors name exactly the libraries Wine could not load.
#[test]
fn cupy_13_cuda12_with_cuda_path_naming_cuda_11_fails_and_the_scan_names_each_library() {
    assert_cuda_11_named(&CUDA12);
}

/// The same under Python 3.12.
#[test]
fn cupy_13_cuda12_python312_with_cuda_path_naming_cuda_11_fails_and_the_scan_names_each_library() {
    assert_cuda_11_named(&CUDA12_PY312);
}

fn assert_cuda_11_named(build: &'static Build) {
    let env = ready(build);
    let front = vec![ZLIB.to_string()];
    let vars = [("CUDA_PATH", TOOLKIT)];
    let judged = judge(build, env, &front, &vars);
    let wine = judged.missing();
    assert_eq!(
        wine,
        [
            "cublas64_12.dll",
            "cufft64_11.dll",
            "cusparse64_12.dll",
            build.nvrtc
        ],
        "Wine's loader: {}\n{}",
        judged.doc,
        judged.run.stderr
    );
    for (m, dll) in build.modules {
        let failed = !judged.doc["modules"][m].is_null();
        assert_eq!(failed, wine.iter().any(|l| l == dll), "{m}: {}", judged.doc);
    }
    let (loud, _dir, _) = scan(env, &front, &vars, DRIVER);
    let loud = without_wine_stubs(loud, &judged.run);
    assert_eq!(
        error_libraries(&loud),
        wine,
        "the scan names what the real import misses: {loud:#?}\n{}",
        judged.doc
    );
}

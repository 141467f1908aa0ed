//! The CUDA 11.8 toolkit of the shared prefix, as NVIDIA's installer lays it out (a toolkit
//! installed without the compiler driver: no nvcc.exe), made of the real files of the
//! `nvidia-*-cu11` Windows wheels: `bin` with the libraries, NVRTC and `ptxas.exe`,
//! `nvvm\libdevice`, `extras\CUPTI\lib64` and the root's `version.json`; and a copy of its `bin`
//! without cuBLAS (the installer's custom choice) in [`NO_CUBLAS`]. TensorFlow and CuPy use the
//! same folders, so one function places all of it: what a case finds there must not depend on
//! which framework's environment was made first.

use super::{PyEnv, place_dll, place_member};

/// The toolkit's root.
pub const TOOLKIT: &str = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8";
pub const TOOLKIT_BIN: &str = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8\bin";
const LIBDEVICE_DIR: &str =
    r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8\nvvm\libdevice";
pub const CUPTI_DIR: &str =
    r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.8\extras\CUPTI\lib64";
/// A CUDA 11.8 toolkit installed without cuBLAS: its `bin` holds the other libraries of
/// [`DLLS`].
pub const NO_CUBLAS: &str = r"C:\tools\cuda-11.8-without-cublas";

/// The libraries in `bin`: `(wheel, version, DLL)`, CUDA 11.8's releases of each.
pub const DLLS: &[(&str, &str, &str)] = &[
    ("nvidia-cuda-runtime-cu11", "11.8.89", "cudart64_110.dll"),
    ("nvidia-cublas-cu11", "11.11.3.6", "cublas64_11.dll"),
    ("nvidia-cublas-cu11", "11.11.3.6", "cublasLt64_11.dll"),
    ("nvidia-cufft-cu11", "10.9.0.58", "cufft64_10.dll"),
    ("nvidia-curand-cu11", "10.3.0.86", "curand64_10.dll"),
    ("nvidia-cusolver-cu11", "11.4.1.48", "cusolver64_11.dll"),
    ("nvidia-cusparse-cu11", "11.7.5.86", "cusparse64_11.dll"),
    ("nvidia-cuda-nvrtc-cu11", "11.8.89", "nvrtc64_112_0.dll"),
    (
        "nvidia-cuda-nvrtc-cu11",
        "11.8.89",
        "nvrtc-builtins64_118.dll",
    ),
];

/// The toolkit's other files the scan looks at: `(wheel, version, member path, folder)`.
const EXTRAS: &[(&str, &str, &str, &str)] = &[
    (
        "nvidia-cuda-nvcc-cu11",
        "11.8.89",
        "bin/ptxas.exe",
        TOOLKIT_BIN,
    ),
    (
        "nvidia-cuda-nvcc-cu11",
        "11.8.89",
        "nvvm/libdevice/libdevice.10.bc",
        LIBDEVICE_DIR,
    ),
    (
        "nvidia-cuda-cupti-cu11",
        "11.8.87",
        "bin/cupti64_2022.3.0.dll",
        CUPTI_DIR,
    ),
];

/// Places the toolkit and the copy without cuBLAS (files already there are kept).
pub fn place(env: &PyEnv) {
    let no_cublas = format!(r"{NO_CUBLAS}\bin");
    for (dist, version, dll) in DLLS {
        place_dll(env, dist, version, dll, TOOLKIT_BIN);
        if !dist.contains("cublas") {
            place_dll(env, dist, version, dll, &no_cublas);
        }
    }
    for (dist, version, member, dir) in EXTRAS {
        place_member(env, dist, version, member, dir);
    }
    std::fs::write(
        env.host(&format!(r"{TOOLKIT}\version.json")),
        r#"{"cuda" : {"name" : "CUDA SDK", "version" : "11.8.0"}}"#,
    )
    .unwrap();
}

//! ONNX Runtime with cuDNN 8 (issue 25): the real onnxruntime-gpu 1.18.0 from PyPI — the CUDA
//! 11.8 + cuDNN 8 build (its CUDA provider imports libcudnn.so.8, libcublas.so.11,
//! libcudart.so.11.0, libcufft.so.10, libcurand.so.10) — with the `nvidia-*-cu11` wheels and
//! nvidia-cudnn-cu11 8.9.6.50, installed once with pip into `tests/.cache/venvs/
//! onnxruntime-1.18.0-cu11` (~2.9 GB, ~1.4 GB downloaded). ONNX Runtime 1.18 does not look in the
//! wheel folders itself, so the user's LD_LIBRARY_PATH names them, as in the 1.20.2 case. The
//! oracle is the real ld.so resolving the provider's closure in the copy's environment. The
//! breakages are the majors issue 25 names for ONNX Runtime: cuDNN 9 instead of 8, and CUDA 12's
//! libraries instead of 11's.

use crate::closure_installs::{Copy, cached_venv, naming, torch_venv};
use crate::framework_loads::{cites_load_list, ld_so_list_provider, loud_about_libraries};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const ORT_CUDNN8: &[&str] = &[
    "onnxruntime-gpu==1.18.0",
    "nvidia-cudnn-cu11==8.9.6.50",
    "nvidia-cublas-cu11==11.11.3.6",
    "nvidia-cuda-runtime-cu11==11.8.89",
    "nvidia-cufft-cu11==10.9.0.58",
    "nvidia-curand-cu11==10.3.0.86",
];

pub(crate) fn ort_cudnn8_venv() -> &'static Path {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| cached_venv("onnxruntime-1.18.0-cu11", None, ORT_CUDNN8))
}

/// Healthy: the provider's whole closure resolves in the wheels (cuDNN 8 included), and the
/// scan says nothing about any library.
#[test]
fn onnxruntime_1_18_with_cudnn_8_loads_its_provider_and_the_scan_is_silent() {
    let c = Copy::of(ort_cudnn8_venv(), "ort-1.18-healthy");
    let path = c.nvidia_lib_path();
    let ld = Path::new(&path);
    let loaded = ld_so_list_provider(&c, Some(ld)).expect("the real ld.so loads the provider");
    for lib in [
        "libcudnn.so.8 =>",
        "libcublas.so.11 =>",
        "libcudart.so.11.0 =>",
    ] {
        assert!(loaded.contains(lib), "{lib}: {loaded}");
    }
    let doc = c.scan(Some(ld));
    let ort = doc["inventory"]["python_envs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["frameworks"].as_array().unwrap())
        .find(|f| f["package"] == "onnxruntime-gpu")
        .unwrap_or_else(|| panic!("onnxruntime-gpu is found: {doc:#}"));
    assert_eq!(ort["version"], "1.18.0", "{ort:#}");
    assert_eq!(loud_about_libraries(&doc), Vec::<&Value>::new(), "{doc:#}");
    assert_eq!(c.errors_here(&doc), Vec::<&Value>::new(), "{doc:#}");
}

/// cuDNN 9 instead of 8 — `pip uninstall nvidia-cudnn-cu11` and the cuDNN 9 wheel in its place
/// (nvidia-cudnn-cu12 9.1.0.70, hard-linked from the torch venv: the files pip would unpack):
/// the real ld.so cannot load the provider (no libcudnn.so.8), and the scan names libcudnn.so.8
/// as an error citing the provider's import table.
#[test]
fn onnxruntime_1_18_with_cudnn_9_instead_of_8_fails_to_load_and_is_named() {
    let c = Copy::of(ort_cudnn8_venv(), "ort-1.18-cudnn9");
    c.swap_wheel(
        "nvidia-cudnn-cu11",
        torch_venv(),
        "nvidia/cudnn",
        "nvidia_cudnn_cu12-9.1.0.70.dist-info",
    );
    let path = c.nvidia_lib_path();
    let ld = Path::new(&path);
    let err = ld_so_list_provider(&c, Some(ld)).expect_err("the provider cannot load");
    assert!(err.contains("libcudnn.so.8"), "{err}");
    let doc = c.scan(Some(ld));
    let named = naming(&c.errors_here(&doc), "libcudnn.so.8");
    assert_eq!(named.len(), 1, "{doc:#}");
    assert!(cites_load_list(named[0], "import table"), "{:#}", named[0]);
    assert!(
        named[0]["detail"]
            .as_str()
            .unwrap()
            .contains("nvidia-cudnn-cu12 9.1.0.70 in its place"),
        "{:#}",
        named[0]
    );
}

/// CUDA 12's cuBLAS and runtime instead of CUDA 11's — `pip uninstall` of the `-cu11` wheels and
/// the `-cu12` ones torch 2.5.1 pins in their folders: the real ld.so cannot load the provider
/// (it asks for libcublasLt.so.11), and the scan names each CUDA 11 file the provider's import
/// table asks for, the CUDA 12 package installed in its place, the wheel folder LD_LIBRARY_PATH
/// searched, and the CUDA 11 package to install.
#[test]
fn onnxruntime_1_18_with_cuda_12_libraries_instead_of_11_fails_to_load_and_is_named() {
    let c = Copy::of(ort_cudnn8_venv(), "ort-1.18-cuda12");
    for (cu11, folder, cu12) in [
        (
            "nvidia-cublas-cu11",
            "nvidia/cublas",
            "nvidia_cublas_cu12-12.4.5.8.dist-info",
        ),
        (
            "nvidia-cuda-runtime-cu11",
            "nvidia/cuda_runtime",
            "nvidia_cuda_runtime_cu12-12.4.127.dist-info",
        ),
    ] {
        c.swap_wheel(cu11, torch_venv(), folder, cu12);
    }
    let path = c.nvidia_lib_path();
    let ld = Path::new(&path);
    let err = ld_so_list_provider(&c, Some(ld)).expect_err("the provider cannot load");
    assert!(err.contains("libcublasLt.so.11"), "{err}");
    let doc = c.scan(Some(ld));
    let errors = c.errors_here(&doc);
    for (lib, other, wanted) in [
        (
            "libcublasLt.so.11",
            "nvidia-cublas-cu12 12.4.5.8",
            "nvidia-cublas-cu11",
        ),
        (
            "libcublas.so.11",
            "nvidia-cublas-cu12 12.4.5.8",
            "nvidia-cublas-cu11",
        ),
        (
            "libcudart.so.11.0",
            "nvidia-cuda-runtime-cu12 12.4.127",
            "nvidia-cuda-runtime-cu11",
        ),
    ] {
        let named = naming(&errors, lib);
        assert_eq!(named.len(), 1, "{lib}: {doc:#}");
        let f = named[0];
        assert!(cites_load_list(f, "import table"), "{f:#}");
        let detail = f["detail"].as_str().unwrap();
        assert!(
            detail.contains(&format!("{other} in its place")) && detail.contains("CUDA 11.8"),
            "{f:#}"
        );
        let wheel = c.site().join(format!(
            "nvidia/{}/lib",
            if lib.starts_with("libcudart") {
                "cuda_runtime"
            } else {
                "cublas"
            }
        ));
        assert!(
            f["evidence"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["kind"] == "attempt"
                    && e["path"] == wheel.display().to_string()
                    && e["text"].as_str().unwrap().starts_with("ld_library_path")),
            "the LD_LIBRARY_PATH folder searched: {f:#}"
        );
        assert!(
            f["fixes"][0]["summary"].as_str().unwrap().contains(wanted),
            "{f:#}"
        );
    }
}

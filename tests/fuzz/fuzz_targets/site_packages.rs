//! Fuzzes the framework readers as a scan meets them: the input, cut at `--8<--` lines, becomes
//! the files of a venv's site-packages on a scratch Linux machine — TensorFlow's METADATA and
//! build_info.py, PyTorch's METADATA and version.py, an `nvidia-cudnn-cu12` wheel's METADATA and
//! RECORD, CuPy's `_wheel.json`, ONNX Runtime's `version_info.py`, jaxlib's `version.py`, the
//! venv's `pyvenv.cfg` — and the whole inventory scan runs over it.
#![no_main]

use cuda_triage_fuzz::engine::progress::Progress;
use cuda_triage_fuzz::engine::scan;
use cuda_triage_fuzz::{Scratch, pieces};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const SITE: &str = "/venv/lib/python3.11/site-packages";
/// Where each piece of the input goes, in order.
const FILES: &[&str] = &[
    "tensorflow-2.15.0.dist-info/METADATA",
    "tensorflow/python/platform/build_info.py",
    "torch-2.1.0.dist-info/METADATA",
    "torch/version.py",
    "nvidia_cudnn_cu12-8.9.2.26.dist-info/METADATA",
    "nvidia_cudnn_cu12-8.9.2.26.dist-info/RECORD",
    "cupy/.data/_wheel.json",
    "onnxruntime/capi/version_info.py",
    "jaxlib/version.py",
    "../../../pyvenv.cfg",
];

fn scratch() -> &'static Scratch {
    static S: OnceLock<Scratch> = OnceLock::new();
    S.get_or_init(|| {
        let s = Scratch::new();
        s.write("/venv/bin/python", b"");
        for empty in [
            "tensorflow/__init__.py",
            "torch/__init__.py",
            "torch/lib/libtorch_cuda.so",
            "nvidia/cudnn/lib/libcudnn.so.8",
            "cupy/__init__.py",
            "cupy_cuda12x-13.0.0.dist-info/METADATA",
            "onnxruntime/__init__.py",
            "onnxruntime_gpu-1.17.0.dist-info/METADATA",
            "jaxlib-0.4.26.dist-info/METADATA",
            "jax/__init__.py",
        ] {
            s.write(&format!("{SITE}/{empty}"), b"");
        }
        s
    })
}

fuzz_target!(|data: &[u8]| {
    let s = scratch();
    for (file, content) in FILES.iter().zip(pieces(data, FILES.len())) {
        s.write(&format!("{SITE}/{file}"), content);
    }
    let ctx = s.linux(
        false,
        &[("VIRTUAL_ENV", "/venv"), ("PATH", "/venv/bin:/usr/bin")],
    );
    let opts = cuda_triage_fuzz::scan_options();
    let _ = scan::inventory(&ctx, &Progress::new(), &opts);
});

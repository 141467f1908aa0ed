//! The chain, version-integer and version-pair readers of [`super::super::chains`] on real
//! message forms: the second library of a chain is the missing one, CUDA and cuDNN version
//! integers decoded, built-with and found versions paired.

use super::super::chains::*;

#[test]
fn the_second_library_of_a_chain_is_the_missing_one() {
    let c = chains("Unable to open library: libnvinfer_plugin.so.8 due to libcudnn.so.8");
    assert_eq!(c[0].needed_by, "libnvinfer_plugin.so.8");
    assert_eq!(c[0].missing, "libcudnn.so.8");
    let c = chains(
        "Could not load dynamic library 'libnvinfer.so.7'; dlerror: libnvrtc.so.11.1: cannot open shared object file: No such file or directory",
    );
    assert_eq!(
        (c[0].needed_by.as_str(), c[0].missing.as_str()),
        ("libnvinfer.so.7", "libnvrtc.so.11.1")
    );
    let plain = chains(
        "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file",
    );
    assert!(plain.is_empty(), "{plain:?}");
}

#[test]
fn a_kernel_release_is_not_a_driver_version() {
    // NVIDIA/gpu-operator#234: dnf could not find this kernel's headers.
    assert!(
        driver_versions(
            "Error: Unable to find a match: kernel-headers-4.18.0-240.23.2.el8_3.x86_64 kernel-devel-4.18.0-240.23.2.el8_3.x86_64"
        )
        .is_empty()
    );
    assert_eq!(
        driver_versions("Missing 6.2.1-zen1-1-zen kernel headers for module nvidia/525.89.02.")[0]
            .0,
        "525.89.02"
    );
}

#[test]
fn version_integers_decode() {
    let v = version_integers("Found CUDA version 12010, but JAX was built against version 12020");
    let d: Vec<&str> = v.iter().map(|v| v.decoded.as_str()).collect();
    assert_eq!(d, ["12.1", "12.2"]);
    assert!(version_integers("listening on port 8080 for CUDA jobs in 2023").is_empty());
    // darknet's device line (AlexeyAB/darknet#8835): the GPU's model, not cuDNN 2.0.80.
    assert!(
        version_integers(
            " 0 : compute_capability = 750, cudnn_half = 0, GPU: NVIDIA GeForce RTX 2080 SUPER"
        )
        .is_empty()
    );
    // ggml's device line (CrispStrobe/CrispASR#30): the GPU's memory, not CUDA 8.15.
    assert!(
        version_integers("ggml_cuda_init: found 1 CUDA devices (Total VRAM: 8150 MiB):").is_empty()
    );
}

#[test]
fn built_and_loaded_versions_pair_up() {
    let v = version_pairs(
        "Loaded TensorRT 4.0.1 but linked TensorFlow against TensorRT 3.0.4. TensorRT does not support forward compatibility.",
    );
    assert_eq!(
        (
            v[0].product.as_str(),
            v[0].built.as_str(),
            v[0].loaded.as_str()
        ),
        ("TensorRT", "3.0.4", "4.0.1")
    );
    // https://github.com/onnx/onnx-caffe2/issues/288
    let v = version_pairs(
        "RuntimeError: [enforce fail at common_cudnn.h:118] version_match. cuDNN compiled (6021) and runtime (7003) versions mismatch",
    );
    assert_eq!(
        (v[0].built.as_str(), v[0].loaded.as_str()),
        ("6.0.21", "7.0.3")
    );
    let v = version_pairs(
        "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (9, 1, 0) but found runtime version (9, 0, 0).",
    );
    assert_eq!(
        (
            v[0].product.as_str(),
            v[0].built.as_str(),
            v[0].loaded.as_str()
        ),
        ("cuDNN", "9.1.0", "9.0.0")
    );
    assert!(version_pairs("Loaded cuDNN 8.9.7 and CUDA 12.4 fine").is_empty());
    let v = version_pairs(
        "RuntimeError: cuDNN version mismatch: PyTorch was compiled against 7102 but linked against 7005",
    );
    assert_eq!(
        (v[0].built.as_str(), v[0].loaded.as_str()),
        ("7.1.2", "7.0.5")
    );
}

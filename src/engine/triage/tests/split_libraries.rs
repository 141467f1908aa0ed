//! Readings of loader lines whose cause is elsewhere than the library named: a glibc function
//! older releases keep in librt, a soname no release ships, TensorFlow looking a function up in
//! its own module, and numbers that are statuses or ABI floors rather than versions. On real
//! lines from public issues (each cited), and the lines that must not be read so.

use super::*;

#[test]
fn a_glibc_function_outside_libc_names_the_library_not_loaded() {
    // https://github.com/rapidsai/kvikio/pull/1000 (nvidia-cufile wheel on Rocky Linux 8)
    let t = triage(
        "OSError: /pyenv/versions/3.12.13/lib/python3.12/site-packages/nvidia/cu13/lib/libcufile.so.0: undefined symbol: shm_open",
    );
    let f = finding(&t, "missing-symbol").expect("the symbol is read");
    assert!(f.summary.contains("librt"), "{}", f.summary);
    assert!(f.summary.contains("2.34"), "{}", f.summary);
    assert!(
        f.fixes[0].summary.contains("RTLD_GLOBAL"),
        "{}",
        f.fixes[0].summary
    );
    // A CUDA function is still read as the library's own.
    let t = triage("OSError: libfoo.so: undefined symbol: cublasLtMatmul");
    assert!(!all_text(&t).contains("librt"));
}

#[test]
fn a_soname_no_release_ships_names_the_shipped_one() {
    // https://github.com/rapidsai/kvikio/issues/140 (KvikIO asked for libcufile.so.1)
    let t = triage(
        "RuntimeError: libcufile.so.1: cannot open shared object file: No such file or directory",
    );
    assert!(all_text(&t).contains("ship this library as libcufile.so.0"));
    // A shipped name gets no such note.
    let t = triage(
        "OSError: libcufile.so.0: cannot open shared object file: No such file or directory",
    );
    assert!(!all_text(&t).contains("ship this library as"));
}

#[test]
fn tensorflow_looking_in_its_own_module_is_not_an_older_cudnn() {
    // https://github.com/tensorflow/tensorflow/issues/2525 (libcudnn.so.4 only; TF asked for libcudnn.so)
    let t = triage(
        "F tensorflow/stream_executor/cuda/cuda_dnn.cc:204] could not find cudnnCreate in cudnn DSO; dlerror: /usr/local/lib/python2.7/dist-packages/tensorflow/python/_pywrap_tensorflow.so: undefined symbol: cudnnCreate",
    );
    assert!(finding(&t, "log-tensorflow-dso-symbol-in-own-module").is_some());
    assert!(finding(&t, "missing-symbol").is_none(), "{:#?}", t.findings);
}

#[test]
fn status_numbers_and_abi_floors_are_not_versions() {
    // https://github.com/pykeio/ort/issues/467
    let t = triage(
        "onnxruntime::CudaCall CUDNN failure 1001: CUDNN_STATUS_NOT_INITIALIZED ; GPU=0 ; expr=cudnnCreate(&cudnn_handle_);",
    );
    assert!(!all_text(&t).contains("cuDNN 1.0.1"));
    assert!(all_text(&t).contains("CUDA 12.x with cuDNN 9"));
    // https://github.com/qianguih/voxelnet/issues/50
    let t = triage(
        "E tensorflow/stream_executor/cuda/cuda_dnn.cc:378] Loaded runtime CuDNN library: 7103 (compatibility version 7100) but source was compiled with 7005 (compatibility version 7000).",
    );
    let pairs: Vec<_> = t
        .findings
        .iter()
        .filter(|f| f.code == "version-mismatch-reported")
        .collect();
    assert_eq!(pairs.len(), 1, "{pairs:#?}");
    assert!(
        pairs[0]
            .summary
            .contains("built with cuDNN 7.0.5, but cuDNN 7.1.3")
    );
    assert!(pairs[0].detail.contains("conda environment"));
}

#[test]
fn windows_error_182_is_a_dependency_of_another_build() {
    // https://github.com/pytorch/pytorch/issues/72293 (conda-forge's Pillow 9 in the same env)
    let t = triage(
        "E   OSError: [WinError 182] The operating system cannot run %1. Error loading \"C:\\Miniconda\\envs\\ads_venv\\lib\\site-packages\\torch\\lib\\caffe2_detectron_ops.dll\" or one of its dependencies.",
    );
    assert!(!all_text(&t).contains("Unrecognised code"));
    assert!(all_text(&t).contains("ERROR_INVALID_ORDINAL"));
}

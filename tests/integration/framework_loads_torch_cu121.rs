//! The second torch CUDA build of issue 25's healthy matrix: the real torch 2.4.1 from PyPI,
//! built for CUDA 12.1 (`tests/.cache/venvs/torch-2.4.1`, hard-linked from the 2.5.1 venv; see
//! `closure_installs::torch_cu121_venv`). The cases the 2.5.1 (CUDA 12.4) build runs, on this
//! build, with the real `import torch` and torch's own cuDNN check as oracles — and one that
//! differs between the two builds: CUDA 12.1's nvJitLink first on LD_LIBRARY_PATH breaks the
//! 12.4 build (its cuSPARSE needs `__nvJitLinkComplete_12_4`) and not this one, so the scan must
//! name it for 2.5.1 (`closure_installs`) and stay quiet here.

use crate::closure_installs::{
    Copy, cudnn_gone_is_named, healthy_torch_is_quiet, nvjitlink_12_1_folder, torch_cu121_venv,
};
use crate::framework_loads::{
    an_older_cudnn_first_is_refused_as_torch_refuses_it, loud_about_libraries,
    torch_without_nvrtc_is_a_warning, with_code,
};
use serde_json::Value;

#[test]
fn torch_2_4_1_cu121_healthy_imports_and_the_scan_is_silent() {
    healthy_torch_is_quiet(torch_cu121_venv(), "2.4.1", "12.1");
}

#[test]
fn torch_2_4_1_cu121_without_cudnn_fails_to_import_and_is_named() {
    cudnn_gone_is_named(torch_cu121_venv());
}

#[test]
fn torch_2_4_1_cu121_without_nvrtc_imports_and_the_scan_warns() {
    torch_without_nvrtc_is_a_warning(torch_cu121_venv());
}

#[test]
fn torch_2_4_1_cu121_refuses_an_older_cudnn_first_and_so_does_the_scan() {
    an_older_cudnn_first_is_refused_as_torch_refuses_it(torch_cu121_venv());
}

/// nvJitLink 12.1.105 first on LD_LIBRARY_PATH: the 12.1 build's cuSPARSE (12.1.0.106) finds
/// every symbol it needs there, so `import torch` works — and the scan, which names the same
/// file for the 2.5.1 build, says nothing (no missing-symbol finding, no library warning).
#[test]
fn torch_2_4_1_cu121_imports_with_nvjitlink_12_1_first_and_the_scan_is_silent() {
    let c = Copy::of(torch_cu121_venv(), "old-nvjitlink");
    let old = nvjitlink_12_1_folder(&c);
    c.import_torch(Some(&old))
        .expect("torch 2.4.1+cu121 imports with nvJitLink 12.1 first");
    let doc = c.scan(Some(&old));
    assert_eq!(
        with_code(&doc, "missing-symbol"),
        Vec::<&Value>::new(),
        "{doc:#}"
    );
    assert_eq!(loud_about_libraries(&doc), Vec::<&Value>::new(), "{doc:#}");
}

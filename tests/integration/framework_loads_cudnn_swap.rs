//! torch and TensorFlow in one environment, as users make it: `pip install` of one after the
//! other leaves the cuDNN wheel the last one pins (TensorFlow 2.18.0 `[and-cuda]` pins
//! nvidia-cudnn-cu12==9.3.0.75, torch 2.5.1 pins 9.1.0.70; pip cannot satisfy both) — and cuDNN 8
//! where TensorFlow 2.18 needs 9, and TensorFlow's wheel folders on torch's LD_LIBRARY_PATH. Each
//! swap case swaps the cuDNN wheel of a hard-linked copy of one venv (pip uninstalls it; the files
//! of the other wheel, from the other framework's venv or the ONNX Runtime 1.18 venv's
//! nvidia-cudnn-cu11 8.9.6.50, are linked in). The oracles: torch's own import and cuDNN check,
//! TensorFlow registering its GPU or not, and the version the cuDNN TensorFlow's process mapped
//! reports (TensorFlow refuses an older minor in CudnnSupport::Init, which needs a real GPU).

use crate::closure_installs::{Copy, torch_venv};
use crate::framework_loads::cites_load_list;
use crate::framework_loads::{CUDNN_VERSION, loud_about_libraries, python, with_code};
use crate::framework_loads_ort_cudnn8::ort_cudnn8_venv;
use crate::framework_loads_tensorflow::{TF_GPUS, ld_path, mapped, run_python, scan, tf_venv};
use serde_json::Value;

/// torch installed after TensorFlow: cuDNN 9.1.0.70 in the wheel folder TensorFlow's RUNPATH
/// names. TensorFlow still registers its GPU and maps that 9.1 from the wheel, and — built with
/// 9.3 — refuses it at its first cuDNN use: the scan's error names the file, 9.1.0.70, the pin
/// nvidia-cudnn-cu12==9.3.0.75 and the wheel folder that put it first.
#[test]
fn tensorflow_with_torchs_cudnn_9_1_wheel_maps_it_and_the_scan_refuses_it() {
    let c = Copy::of(tf_venv(), "tf-cudnn-9.1-wheel");
    c.swap_wheel(
        "nvidia-cudnn-cu12",
        torch_venv(),
        "nvidia/cudnn",
        "nvidia_cudnn_cu12-9.1.0.70.dist-info",
    );
    let ld = ld_path(&[]);
    let out = run_python(&c, TF_GPUS, &ld, None);
    assert!(out.contains("/physical_device:GPU:0"), "{out}");
    assert!(
        mapped(&out)
            .iter()
            .any(|m| m.ends_with("nvidia/cudnn/lib/libcudnn.so.9")),
        "{out}"
    );
    assert!(out.contains("CUDNN 90100"), "{out}");
    let doc = scan(&c, &ld, None);
    let refused = with_code(&doc, "library-version-refused");
    assert_eq!(refused.len(), 1, "{doc:#}");
    let r = refused[0];
    assert_eq!(r["severity"], "error", "{r:#}");
    let wheel_lib = c.site().join("nvidia/cudnn/lib").display().to_string();
    let summary = r["summary"].as_str().unwrap();
    assert!(
        summary.contains(&wheel_lib)
            && summary.contains("9.1.0.70")
            && summary.contains("TensorFlow"),
        "{r:#}"
    );
    let detail = r["detail"].as_str().unwrap();
    assert!(detail.contains("nvidia-cudnn-cu12==9.3.0.75"), "{r:#}");
    assert!(
        detail.contains("nvidia_cudnn_cu12-9.1.0.70.dist-info"),
        "{r:#}"
    );
}

/// TensorFlow installed after torch: cuDNN 9.3.0.75 where torch pins 9.1.0.70. torch accepts a
/// newer minor of its major (`torch.backends.cudnn.version()` gives 90300), so the scan says
/// nothing about any library — a differing pin is not a refusal.
#[test]
fn torch_with_tensorflows_cudnn_9_3_wheel_accepts_it_and_the_scan_is_silent() {
    let c = Copy::of(torch_venv(), "torch-cudnn-9.3-wheel");
    c.swap_wheel(
        "nvidia-cudnn-cu12",
        tf_venv(),
        "nvidia/cudnn",
        "nvidia_cudnn_cu12-9.3.0.75.dist-info",
    );
    let out = python(&c, CUDNN_VERSION, None).expect("torch accepts cuDNN 9.3");
    assert!(out.contains("90300"), "{out}");
    let doc = c.scan(None);
    assert_eq!(
        with_code(&doc, "library-version-refused"),
        Vec::<&Value>::new(),
        "{doc:#}"
    );
    assert_eq!(loud_about_libraries(&doc), Vec::<&Value>::new(), "{doc:#}");
}

/// cuDNN 8 in place of TensorFlow 2.18's cuDNN 9 (`pip install nvidia-cudnn-cu11==8.9.6.50`
/// after uninstalling the `-cu12` one, as old install guides say): TensorFlow cannot dlopen
/// libcudnn.so.9 and registers no GPU; the scan's error names libcudnn.so.9, the cuDNN 8 files
/// that are there instead, the load-list row and the pinned cuDNN 9 reinstall.
#[test]
fn tensorflow_with_cudnn_8_in_place_of_9_registers_no_gpu_and_the_scan_names_the_major() {
    let c = Copy::of(tf_venv(), "tf-cudnn-8-wheel");
    c.swap_wheel(
        "nvidia-cudnn-cu12",
        ort_cudnn8_venv(),
        "nvidia/cudnn",
        "nvidia_cudnn_cu11-8.9.6.50.dist-info",
    );
    let ld = ld_path(&[]);
    let out = run_python(&c, TF_GPUS, &ld, None);
    assert!(out.contains("GPUS []"), "{out}");
    assert!(out.contains("Cannot dlopen some GPU libraries"), "{out}");
    let doc = scan(&c, &ld, None);
    let errors = crate::closure_installs::naming(&c.errors_here(&doc), "libcudnn.so.9");
    assert_eq!(errors.len(), 1, "{doc:#}");
    let f = errors[0];
    assert_eq!(f["code"], "library-wrong-major", "{f:#}");
    let wheel_lib = c.site().join("nvidia/cudnn/lib/libcudnn.so.8");
    assert!(
        f["detail"]
            .as_str()
            .unwrap()
            .contains(&format!("{} (cuDNN 8)", wheel_lib.display())),
        "{f:#}"
    );
    assert!(cites_load_list(f, "dlopen_checker.cc"), "{f:#}");
    assert!(
        f["fixes"][0]["summary"]
            .as_str()
            .unwrap()
            .contains("nvidia-cudnn-cu12==9.3.0.75"),
        "{f:#}"
    );
}

/// Another environment's wheel folders on LD_LIBRARY_PATH (TensorFlow 2.18's: CUDA 12.5, cuDNN
/// 9.3, nvJitLink 12.5) ahead of torch 2.5.1's own: torch's libraries keep the wheels their RPATH
/// names, while what is loaded through a RUNPATH (cuSPARSE's nvJitLink at import, cuDNN's graph
/// library at the first cuDNN call) takes the newer copies — and torch imports and accepts cuDNN
/// 9.3. The real import's mapped files agree with the emulation (`scan --probe`: no
/// disagreement), and the scan is silent about every library.
#[test]
fn torch_with_tensorflows_wheel_folders_first_on_ld_library_path_is_silent() {
    let c = Copy::of(torch_venv(), "tf-folders-first");
    let tf = crate::closure_installs::site_of(tf_venv()).join("nvidia");
    let ld = std::path::PathBuf::from(crate::closure_installs::nvidia_lib_path_of(tf_venv()));
    let out = python(&c, CUDNN_VERSION, Some(&ld)).expect("torch imports and accepts cuDNN 9.3");
    assert!(out.contains("90300"), "{out}");
    let doc = c.scan_with(&["--probe"], Some(&ld));
    let probe = crate::closure_installs::torch_probe(&doc);
    assert_eq!(probe["outcome"], "ok", "{probe:#}");
    let real_tf = tf.canonicalize().unwrap().display().to_string();
    assert!(
        probe["mapped"].as_array().unwrap().iter().any(|m| m
            .as_str()
            .unwrap()
            .starts_with(&format!("{real_tf}/nvjitlink/lib/libnvJitLink.so.12"))),
        "the import maps TensorFlow's nvJitLink (cuSPARSE's RUNPATH comes after LD_LIBRARY_PATH): {probe:#}"
    );
    assert_eq!(
        with_code(&doc, "loader-disagrees"),
        Vec::<&Value>::new(),
        "{doc:#}"
    );
    assert_eq!(loud_about_libraries(&doc), Vec::<&Value>::new(), "{doc:#}");
}

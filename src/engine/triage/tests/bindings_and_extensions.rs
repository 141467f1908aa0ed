//! Modules and bindings the tables do not list: a compiled extension Windows refused while Python
//! imported it (by the module's name and its package's traceback frame), a language binding's
//! missing entry point, and driver-library functions (NVCUVID) read as the driver's. On real lines
//! from public issues (each cited), and the lines that must not be read so; dlib's CUDA build refused by
//! Windows, a DLL in a Julia artifact that Julia itself would not load, and CUDA.jl loading another
//! CUDA than it was precompiled for.

use super::*;
use crate::engine::finding_codes as codes;

#[test]
fn an_unlisted_extension_refused_with_127_was_built_for_another_torch() {
    // https://github.com/dreamgaussian/dreamgaussian/issues/100 (Japanese Windows)
    let t = triage(
        "  File \"C:\\Users\\haijin\\miniconda3\\envs\\DreamGaussian\\lib\\site-packages\\diff_gaussian_rasterization\\__init__.py\", line 15, in <module>\n\
             from . import _C\n\
         ImportError: DLL load failed while importing _C: 指定されたプロシージャが見つかりません。",
    );
    let f = finding(&t, codes::TORCH_EXTENSION_OTHER_TORCH).expect("the extension is read");
    assert!(
        f.summary.starts_with("_C (a compiled extension of diff_gaussian_rasterization) was built against another PyTorch"),
        "{}",
        f.summary
    );
    assert!(
        f.fixes[0]
            .summary
            .contains("Rebuild or reinstall diff_gaussian_rasterization")
    );
}

#[test]
fn an_unlisted_extension_refused_with_126_is_imported_before_torch() {
    // https://github.com/kijai/ComfyUI-Hunyuan3DWrapper/pull/112 (Chinese Windows)
    let t = triage(
        "ImportError: DLL load failed while importing custom_rasterizer_kernel: 找不到指定的模块。",
    );
    let f = finding(&t, codes::TORCH_EXTENSION_OTHER_TORCH).expect("the extension is read");
    assert!(
        f.fixes[0]
            .summary
            .starts_with("Import torch before custom_rasterizer_kernel")
    );
    // Qt's, numpy's and torch's own modules are no GPU extension of a package.
    for line in [
        "ImportError: DLL load failed while importing QtCore: Die angegebene Prozedur wurde nicht gefunden.",
        "ImportError: DLL load failed while importing _multiarray_umath: The specified module could not be found.",
    ] {
        assert!(
            finding(&triage(line), codes::TORCH_EXTENSION_OTHER_TORCH).is_none(),
            "{line}"
        );
    }
}

#[test]
fn a_bindings_missing_entry_point_names_the_declaration() {
    // https://github.com/kunzmi/managedCuda/issues/94 (watershed bound to nppist instead of nppif)
    let t = triage(
        "System.EntryPointNotFoundException: 'Unable to find an entry point named 'nppiSegmentWatershedGetBufferSize_8u_C1R' in DLL 'nppist64_11'.'",
    );
    let f = finding(&t, "missing-symbol").expect("the entry point is read");
    assert!(f.summary.contains("NPP function"), "{}", f.summary);
    assert!(
        f.detail.contains("the declaration names the wrong one"),
        "{}",
        f.detail
    );
    assert!(
        f.detail.contains("nppif (filtering, segmentation)"),
        "{}",
        f.detail
    );
}

#[test]
fn a_video_decoder_function_missing_is_the_drivers() {
    // https://github.com/NVIDIA/nvvl/issues/77 (a driver older than cuvidGetDecoderCaps)
    let t = triage("ImportError: /usr/local/lib/libnvvl.so: undefined symbol: cuvidGetDecoderCaps");
    let f = finding(&t, "missing-symbol").expect("the symbol is read");
    assert!(f.summary.contains("NVCUVID"), "{}", f.summary);
    assert!(
        f.fixes[0].summary.starts_with("Update the driver"),
        "{}",
        f.fixes[0].summary
    );
}

#[test]
fn a_programs_entry_point_dialog_names_the_library_looked_in() {
    // https://github.com/nicehash/NiceHashQuickMiner/issues/192 (a driver older than the call)
    let t = triage("Cannot find the entry point \"nvmlInitWithFlags\" in the \"nvml\" DLL.");
    let f = finding(&t, "missing-symbol").expect("the entry point is read");
    assert!(f.summary.contains("NVML"), "{}", f.summary);
    assert!(
        f.summary.ends_with("the program was built against"),
        "{}",
        f.summary
    );
    assert!(
        f.fixes[0].summary.starts_with("Update the driver"),
        "{}",
        f.fixes[0].summary
    );
}

#[test]
fn dlib_refused_by_windows_is_read_as_its_cuda_build() {
    // https://github.com/davisking/dlib/issues/792 (a wheel built with CUDA 8.0 by mistake) and
    // https://github.com/davisking/dlib/issues/2039 (Python 3.8 no longer searching PATH)
    for text in [
        "  File \"C:\\Python36-64\\lib\\site-packages\\dlib\\__init__.py\", line 1, in <module>\n    from .dlib import *\nImportError: DLL load failed: the given module is not found.",
        "ImportError: DLL load failed while importing dlib: The specified module could not be found.",
    ] {
        let t = triage(text);
        assert!(message_ids(&t).contains(&"dlib-cuda-dlls"), "{text}");
        assert!(all_text(&t).contains("os.add_dll_directory"), "{text}");
    }
}

#[test]
fn a_julia_artifact_dll_is_not_a_missing_toolkit() {
    // https://github.com/JuliaGPU/CUDA.jl/issues/670 (Julia 1.6.0-beta1, JuliaLang/julia#38993)
    let t = triage(
        "┌ Error: Error during initialization of CUDA.jl\n│   exception =\n│    could not load library \"C:\\Users\\username\\.julia\\artifacts\\6c9c066b7cbed1a2dff086b79fb6c3ab8dd70140\\bin\\cublas64_11.dll\"",
    );
    let ids = message_ids(&t);
    assert!(ids.contains(&"julia-artifact-dll-not-loadable"), "{ids:?}");
    let text = all_text(&t);
    assert!(text.contains("Update Julia"), "{text}");
    assert!(text.contains("JuliaLang/julia#38993"), "{text}");
}

#[test]
fn djl_without_the_cuda_runtime_falls_back_to_its_cpu_engine() {
    // https://github.com/deepjavalibrary/djl/issues/2902
    let t = triage(
        "ai.djl.util.cuda.CudaUtils               : cudart library not found.\nai.djl.util.Platform : The bundled library: cu121-linux-x86_64:2.1.1-20231129 doesn't match system: cpu-linux-x86_64:2.1.1",
    );
    assert!(message_ids(&t).contains(&"djl-cudart-not-found"));
    assert!(all_text(&t).contains("LD_LIBRARY_PATH"));
}

#[test]
fn cuda_jl_loading_another_cuda_than_it_was_precompiled_for() {
    // https://github.com/JuliaGPU/CUDA.jl/pull/3116 (a system CUDA 13.2 on the CI agents'
    // LD_LIBRARY_PATH)
    let t = triage(
        "│  ┌ Error: You are using a local CUDA 13.2.0 toolkit, but CUDA.jl was precompiled for CUDA 13.0.0. This is unsupported.\n│  │ Call `CUDA.set_runtime_version!` to update the CUDA version to match your local installation.",
    );
    let f = finding(&t, "log-cudajl-runtime-not-precompiled-version")
        .unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert!(
        f.summary
            .contains("precompiled for CUDA 13.0 but loads CUDA 13.2"),
        "{}",
        f.summary
    );
    assert!(
        f.fixes
            .iter()
            .any(|x| x.summary.contains("unset LD_LIBRARY_PATH")),
        "{:?}",
        f.fixes
    );
}

//! The driver's own library reported missing, and PTX the driver refused with the ISA named,
//! and a GPU the kernel driver's release does not list, on real lines from public issues (each
//! cited); and the words that must not trigger either.

use super::*;
use crate::engine::finding_codes as codes;
use crate::engine::findings::Severity;

#[test]
fn a_driver_library_that_did_not_load_is_the_driver_missing() {
    // https://github.com/tensorflow/tensorflow/issues/45930 (Windows, no NVIDIA driver)
    let t = triage(
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic library 'nvcuda.dll'; dlerror: nvcuda.dll not found",
    );
    let f = finding(&t, codes::DRIVER_LIBRARY_NOT_LOADED).expect("the driver library is named");
    assert_eq!(f.severity, Severity::Error);
    assert!(
        f.summary.starts_with("nvcuda.dll could not be loaded"),
        "{}",
        f.summary
    );
    assert!(f.libraries.contains(&"nvcuda.dll".to_string()));

    // https://github.com/NVIDIA/nvidia-docker/issues/1163 (libnvidia-ml from the driver)
    let t = triage(
        "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown",
    );
    assert!(finding(&t, codes::DRIVER_LIBRARY_NOT_LOADED).is_some());
}

#[test]
fn a_driver_library_only_named_is_not_an_error() {
    // Named in a listing, not reported as failing.
    let t = triage("C:\\Windows\\System32\\nvcuda.dll 31.0.15.3699");
    assert!(finding(&t, codes::DRIVER_LIBRARY_NOT_LOADED).is_none());
    // A toolkit library that did not load is not the driver.
    let t = triage(
        "Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found",
    );
    assert!(finding(&t, codes::DRIVER_LIBRARY_NOT_LOADED).is_none());
}

#[test]
fn ptx_the_driver_refused_names_the_cuda_release_and_its_driver() {
    let g = crate::engine::knowledge::generated::generated();
    let isa = g
        .ptxas_releases()
        .last()
        .map(|r| r.ptx_isa.clone())
        .expect("the generated ptxas table has releases");
    let text = format!(
        "CUDA_ERROR_UNSUPPORTED_PTX_VERSION: the provided PTX was compiled with an unsupported toolchain.\n\
         .version {isa}"
    );
    let t = triage(&text);
    let f = finding(&t, codes::DRIVER_TOO_OLD).expect("the ISA's release and driver are named");
    assert!(f.summary.contains(&format!(
        "CUDA {}",
        g.first_release_for_ptx_isa(&isa).unwrap().cuda
    )));
    assert!(f.detail.contains("driver"), "{}", f.detail);
    // The refusal alone, with no ISA, says nothing more than the code's meaning.
    let t = triage(
        "CUDA_ERROR_UNSUPPORTED_PTX_VERSION: the provided PTX was compiled with an unsupported toolchain.",
    );
    assert!(finding(&t, codes::DRIVER_TOO_OLD).is_none());
    // An ISA older than the generated table is named from NVIDIA's release history ...
    let t = triage("the provided PTX was compiled with an unsupported toolchain. PTX ISA 6.0");
    let f = finding(&t, codes::DRIVER_TOO_OLD).expect("PTX ISA 6.0 is CUDA 9.0's");
    assert!(f.summary.contains("CUDA 9.0"), "{}", f.summary);
    // ... and one older than every known release is not guessed.
    let t = triage("the provided PTX was compiled with an unsupported toolchain. PTX ISA 3.1");
    assert!(finding(&t, codes::DRIVER_TOO_OLD).is_none());
}

#[test]
fn a_ptx_isa_older_than_the_generated_table_names_its_cuda_releases() {
    // https://github.com/open-mmlab/OpenPCDet/issues/934 (numba; fixed with driver 465 for CUDA 11.3)
    let t = triage(
        "ptxas application ptx input, line 9; fatal : Unsupported .version 7.3; current version is '7.2'",
    );
    let f = finding(&t, codes::PTXAS_TOO_OLD).expect("the refusal is read");
    assert!(f.summary.contains("CUDA 11.3"), "{}", f.summary);
    assert!(
        f.summary.contains("PTX ISA 7.2, CUDA 11.2"),
        "{}",
        f.summary
    );
    assert!(f.detail.contains("465.19.01"), "{}", f.detail);
    // https://github.com/numba/numba/issues/3794 (cudatoolkit 10 on driver 390)
    let t = triage(
        "ptxas application ptx input, line 9; fatal   : Unsupported .version 6.3; current version is '6.1'",
    );
    let f = finding(&t, codes::PTXAS_TOO_OLD).expect("the refusal is read");
    assert!(f.summary.contains("CUDA 10.0"), "{}", f.summary);
    assert!(f.summary.contains("PTX ISA 6.1, CUDA 9.1"), "{}", f.summary);
}

#[test]
fn nvidia_smi_without_a_device_handle_is_a_gpu_the_driver_lost() {
    // https://github.com/meta-llama/llama-models/issues/200 (one of four A30s lost after an interrupted run)
    let t = triage("Unable to determine the device handle for GPU0000:17:00.0: Unknown Error");
    let m = t
        .messages
        .iter()
        .find(|m| m.id == "nvidia-smi-device-handle-unknown")
        .unwrap_or_else(|| panic!("{:?}", message_ids(&t)));
    assert_eq!(m.groups, vec!["0000:17:00.0".to_string()]);
    let text = all_text(&t);
    assert!(text.contains("Xid"), "{text}");
    assert!(text.contains("nvidia-smi -r"), "{text}");
}

#[test]
fn a_cuda_symbol_missing_from_a_stub_blames_the_stub_not_an_old_runtime() {
    // https://github.com/flashinfer-ai/flashinfer/issues/3676 (a co-loaded libcudart_stub.so was
    // taken for the CUDA runtime)
    let t = triage("AttributeError: .../libcudart_stub.so: undefined symbol: cudaDeviceReset");
    let f = finding(&t, codes::DRIVER_ENTRY_POINT_MISSING).expect("the symbol is read");
    assert!(f.summary.contains("stub library"), "{}", f.summary);
    assert!(!f.summary.contains("older"), "{}", f.summary);
    // The real runtime lacking a newer function is still an old runtime.
    let t = triage(
        "ImportError: /usr/lib/libcudart.so.11.0: undefined symbol: cudaGraphInstantiateWithParams",
    );
    let f = finding(&t, codes::DRIVER_ENTRY_POINT_MISSING).expect("a runtime function");
    assert!(f.summary.contains("older"), "{}", f.summary);
}

#[test]
fn a_function_every_driver_exports_missing_is_no_old_driver() {
    // https://github.com/numba/numba/issues/7104 (WSL2: the bindings did not find
    // /usr/lib/wsl/lib/libcuda.so.1)
    let t = triage("RuntimeError: Function \"cuDeviceGetCount\" not found");
    let f = finding(&t, codes::DRIVER_ENTRY_POINT_MISSING).expect("the entry point is read");
    assert!(
        f.summary.contains("not a working NVIDIA driver"),
        "{}",
        f.summary
    );
    assert!(!f.summary.contains("older"), "{}", f.summary);
    assert!(f.detail.contains("/usr/lib/wsl/lib"), "{}", f.detail);
    // A function a newer CUDA introduced still means an older driver (the issue's own example).
    let t =
        triage("ImportError: /lib/x86_64-linux-gnu/libcuda.so.1: undefined symbol: cuCtxCreate_v4");
    let f = finding(&t, codes::DRIVER_ENTRY_POINT_MISSING).expect("the entry point is read");
    assert!(f.summary.contains("older"), "{}", f.summary);
}

#[test]
fn cuinit_not_finding_a_symbol_is_the_driver_not_a_kernel() {
    // https://github.com/tensorflow/tensorflow/issues/68711 (Docker Desktop on WSL2 with a
    // Windows driver of the 555 series)
    let t = triage("failed call to cuInit: CUDA_ERROR_NOT_FOUND: named symbol not found");
    let text = all_text(&t);
    assert!(text.contains("the first CUDA call (cuInit"), "{text}");
    assert!(text.contains("/usr/lib/wsl/lib"), "{text}");
    // The same status from a kernel lookup keeps the architecture reading.
    let t = triage("CUDA error: named symbol not found");
    assert!(!all_text(&t).contains("the first CUDA call (cuInit"));
    // PyTorch's first call, cudaGetDeviceCount, under Docker Desktop
    // (https://github.com/jhj0517/Whisper-WebUI/issues/279: updating Docker Desktop fixed it).
    let t = triage(
        "Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 500: named symbol not found",
    );
    assert!(all_text(&t).contains("Docker Desktop"), "{}", all_text(&t));
}

#[test]
fn a_driver_floor_in_a_containers_words_names_both_drivers() {
    // https://github.com/NVIDIA/TensorRT-LLM/issues/23
    let t = triage(
        "ERROR: This container was built for NVIDIA Driver Release 535.86 or later, but\n       version 510.85.02 was detected and compatibility mode is UNAVAILABLE.",
    );
    let f = finding(&t, codes::DRIVER_TOO_OLD).expect("the floor is read");
    assert_eq!(f.severity, Severity::Error);
    assert!(f.summary.contains("535.86 or newer"), "{}", f.summary);
    assert!(f.detail.contains("510.85.02"), "{}", f.detail);
}

#[test]
fn a_loaders_unquoted_function_name_is_a_driver_entry_point() {
    // https://github.com/taichi-dev/taichi/issues/7826 (a driver older than the memory-pool API)
    let t = triage(
        "[E 04/17/23 11:09:22.656 3152] [dynamic_loader.cpp:taichi::DynamicLoader::load_function@32] Function cuDeviceGetDefaultMemPool not found",
    );
    let f = finding(&t, codes::DRIVER_ENTRY_POINT_MISSING).expect("the entry point is read");
    assert!(f.summary.contains("older"), "{}", f.summary);
}

#[test]
fn a_gpu_the_driver_release_does_not_list_names_its_device_id() {
    // https://github.com/MrMEEE/bumblebee-Old-and-abbandoned/issues/583 (the kernel log wraps the
    // message over NVRM lines)
    let t = triage(
        "[  652.483304] NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:1050) installed\n[  652.483305] NVRM: in this system is not supported by the 280.13 NVIDIA Linux\n[  652.483306] NVRM: graphics driver release.  Please see 'Appendix A -",
    );
    assert!(message_ids(&t).contains(&"nvrm-gpu-not-supported-by-release"));
    let text = all_text(&t);
    assert!(text.contains("10de:1050"), "{text}");
    assert!(text.contains("legacy branch"), "{text}");
}

#[test]
fn a_compile_error_naming_a_rebound_entry_point_says_which_cuda_changed_it() {
    // https://github.com/beehive-lab/TornadoVM/issues/710 has a Docker build's lines in this form;
    // this is GCC's wording for the same call against CUDA 13's cuda.h.
    let t = triage(
        "PTXContext.cpp:42:40: error: cannot convert 'CUctx_flags_enum' to 'CUctxCreateParams*'\n   42 |     CUresult result = cuCtxCreate(ctx, CU_CTX_SCHED_YIELD, *dev);\n/usr/local/cuda/include/cuda.h:6275:66: note:   initializing argument 2 of 'CUresult cuCtxCreate_v4(CUctx_st**, CUctxCreateParams*, unsigned int, CUdevice)'",
    );
    let f = t
        .findings
        .iter()
        .find(|f| f.code == "cuda-api-changed")
        .unwrap_or_else(|| panic!("{:#?}", t.findings));
    assert!(f.summary.contains("CUDA 13.0"), "{}", f.summary);
    assert!(f.detail.contains("cuCtxCreate_v2"), "{}", f.detail);
    assert!(
        f.fixes[0].summary.contains("13000"),
        "{}",
        f.fixes[0].summary
    );
    // A missing cuCtxCreate_v4 at run time is an old driver, not an API change.
    let t = triage("libcuda.so.1: undefined symbol: cuCtxCreate_v4");
    assert!(!t.findings.iter().any(|f| f.code == "cuda-api-changed"));
}

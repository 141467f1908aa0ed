//! Lines where the system around CUDA refuses it, not CUDA itself: the driver failing to start
//! with "unknown error" after a suspend, a Kubernetes node whose containerd has no `nvidia`
//! runtime, cuda-gdb without the driver's debugger back-end (a container that did not inject it),
//! and nvidia-container-cli denied its capabilities (SELinux, unprivileged containers). Each input
//! is a real line from the public thread cited above it.

use super::*;

#[test]
fn an_unknown_error_at_gpu_start_points_to_suspend_and_nvidia_uvm() {
    // https://github.com/ollama/ollama/issues/2934 (fixed by reloading nvidia_uvm after resume)
    let t = triage("Unable to init GPU: unknown error");
    assert!(message_ids(&t).contains(&"gpu-init-unknown-error"));
    let text = all_text(&t);
    assert!(text.contains("suspend"), "{text}");
    assert!(text.contains("modprobe nvidia_uvm"), "{text}");
}

#[test]
fn a_pod_asking_for_a_runtime_containerd_lacks_names_containerd() {
    // https://github.com/NVIDIA/gpu-operator/issues/759 (typographic quotes as pasted)
    let t = triage(
        "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for “nvidia” is configured",
    );
    assert!(message_ids(&t).contains(&"k8s-no-nvidia-runtime-configured"));
    let text = all_text(&t);
    assert!(
        text.contains("nvidia-ctk runtime configure --runtime=containerd"),
        "{text}"
    );
    assert!(text.contains("MicroK8s"), "{text}");
}

#[test]
fn cuda_gdb_without_its_back_end_names_libcudadebugger() {
    // https://github.com/apptainer/apptainer/issues/2261 (apptainer --nv did not inject it)
    let t = triage(
        "Could not find CUDA Debugger back-end. Please try upgrading/re-installing the GPU driver",
    );
    assert!(message_ids(&t).contains(&"cuda-gdb-debugger-backend-missing"));
    let text = all_text(&t);
    assert!(text.contains("libcudadebugger.so.1"), "{text}");
    assert!(text.contains("nvliblist.conf"), "{text}");
}

#[test]
fn a_refused_capability_change_names_selinux() {
    // https://github.com/NVIDIA/enroot/issues/88 (SELinux enforcing; setenforce 0 fixed it)
    let t = triage(
        "nvidia-container-cli: permission error: capability change failed: operation not permitted\n[ERROR] /etc/enroot/hooks.d/98-nvidia.sh exited with return code 1",
    );
    assert!(message_ids(&t).contains(&"container-cli-capability-change-refused"));
    let text = all_text(&t);
    assert!(text.contains("SELinux"), "{text}");
    assert!(text.contains("no-cgroups = true"), "{text}");
}

#[test]
fn a_capability_refusal_broken_over_two_lines_drops_the_generic_reading_of_its_first_half() {
    // The line of https://github.com/NVIDIA/enroot/issues/88 as a narrow terminal wraps it: the
    // first half alone reads as a generic nvidia-container-cli error, the two together as the
    // refused capability change, which overrides it.
    let t = triage(
        "nvidia-container-cli: permission error: capability change\nfailed: operation not permitted",
    );
    let ids = message_ids(&t);
    assert!(
        ids.contains(&"container-cli-capability-change-refused"),
        "{ids:?}"
    );
    assert!(!ids.contains(&"container-cli-error"), "{ids:?}");
}

#[test]
fn a_torch_symbol_missing_from_an_extension_names_its_package() {
    // https://github.com/Dao-AILab/flash-attention/issues/940 (fixed by reinstalling flash-attn
    // for the installed torch)
    let t = triage(
        "flash-attn error flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
    );
    let f = finding(&t, "torch-extension-other-torch").expect("package finding");
    assert!(
        f.summary.contains("flash_attn_2_cuda (part of flash-attn)"),
        "{}",
        f.summary
    );
    assert!(all_text(&t).contains("pip install flash-attn --no-build-isolation"));
}

#[test]
fn windows_error_127_while_importing_an_extension_names_its_package() {
    // https://github.com/turboderp-org/exllamav2/issues/434 (the wheels were compiled for
    // PyTorch 2.3.0; torch 2.2.1 was installed)
    let t = triage(
        " DLL load failed while importing exllamav2_ext: The specified procedure could not be found.",
    );
    let f = finding(&t, "torch-extension-other-torch").expect("package finding");
    assert!(f.summary.contains("part of exllamav2"), "{}", f.summary);
    assert!(all_text(&t).contains("+cu121.torch2.3.1"));
}

#[test]
fn a_bare_c_module_names_no_package_without_its_folder() {
    // https://github.com/kijai/ComfyUI-WanVideoWrapper/issues/854: every extension calls its
    // module _C, so the line alone names no package
    let t = triage(
        "WanVideoModelLoader DLL load failed while importing _C: The specified procedure could not be found.",
    );
    assert!(finding(&t, "torch-extension-other-torch").is_none());
    // The traceback above it does: https://github.com/facebookresearch/pytorch3d/issues/1515
    // (the maintainers, in #1169 and #1872: the wheel must be built for the installed torch)
    let t = triage(
        "  File \"D:\\_programsLarge\\envs\\hybrik\\lib\\site-packages\\pytorch3d-0.7.2-py3.8-win-amd64.egg\\pytorch3d\\renderer\\blending.py\", line 10, in <module>\n    from pytorch3d import _C\nImportError: DLL load failed while importing _C: 找不到指定的程序。",
    );
    let f = finding(&t, "torch-extension-other-torch").expect("package finding");
    assert!(
        f.summary.contains("pytorch3d's compiled extension"),
        "{}",
        f.summary
    );
}

#[test]
fn a_library_of_torch_itself_missing_a_symbol_names_no_extension() {
    // https://github.com/Dao-AILab/flash-attention/issues/723 quotes only the symbol: no module,
    // no package named
    let t = triage(
        "undefined symbol: _ZN2at4_ops9_pad_enum4callERKNS_6TensorEN3c108ArrayRefINS5_6SymIntEEElNS5_8optionalIdEE",
    );
    assert!(finding(&t, "torch-extension-other-torch").is_none());
}

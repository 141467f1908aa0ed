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

//! Container runtime lines: Docker's own errors about GPUs (`--gpus` unknown to an old client, a
//! configured nvidia runtime whose binary is gone, a container started without GPUs so nothing
//! was mounted), DCGM's host engine without NVML in a pod, and OptiX without the driver's
//! libnvoptix (a container's driver capabilities). Each input is a real line from the public
//! thread cited above it.

use super::*;

#[test]
fn an_old_docker_client_does_not_know_gpus() {
    // https://github.com/NVIDIA/gpu-monitoring-tools/issues/81 (fixed with the old --runtime=nvidia)
    let t = triage("I tried to launch the times：unknown flag: --gpus");
    assert!(message_ids(&t).contains(&"docker-gpus-flag-unknown"));
    let text = all_text(&t);
    assert!(text.contains("Docker 19.03"), "{text}");
    assert!(text.contains("--runtime=nvidia"), "{text}");
}

#[test]
fn gpus_and_its_value_as_one_argument_are_named() {
    // https://github.com/google/fuzzbench/issues/1947 (a script passed "--gpus all" to docker run)
    let t = triage("unknown flag: --gpus all");
    assert!(message_ids(&t).contains(&"docker-gpus-flag-unknown"));
    let text = all_text(&t);
    assert!(text.contains("as two arguments"), "{text}");
}

#[test]
fn a_configured_nvidia_runtime_without_its_binary_points_to_gpus() {
    // https://github.com/NVIDIA/nvidia-docker/issues/1190
    let t = triage(
        "Docker: Error response from daemon: OCI runtime create failed: unable to retrieve OCI runtime error exec: \"nvidia-container-runtime\": executable file not found in $PATH: : unknown.",
    );
    assert!(message_ids(&t).contains(&"docker-nvidia-runtime-binary-missing"));
    let text = all_text(&t);
    assert!(
        text.contains("nvidia-container-runtime is not installed"),
        "{text}"
    );
    assert!(text.contains("--gpus all"), "{text}");
}

#[test]
fn nvidia_smi_missing_at_container_start_means_no_gpus_were_given() {
    // https://github.com/google-deepmind/alphafold/issues/374 (docker run -e NVIDIA_VISIBLE_DEVICES=all, no --gpus)
    let t = triage(
        "docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: starting container process caused: exec: \"nvidia-smi\": executable file not found in $PATH: unknown.",
    );
    assert!(message_ids(&t).contains(&"container-nvidia-smi-not-injected"));
    let text = all_text(&t);
    assert!(text.contains("--gpus all"), "{text}");
}

#[test]
fn nvidia_smi_by_a_host_path_that_was_not_mounted() {
    // https://github.com/canonical/docker-snap/issues/184 (snap Docker, --runtime=nvidia)
    let t = triage(
        "docker: Error response from daemon: failed to create task for container: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: \"/var/lib/snapd/hostfs/usr/bin/nvidia-smi\": stat /var/lib/snapd/hostfs/usr/bin/nvidia-smi: no such file or directory: unknown.",
    );
    assert!(message_ids(&t).contains(&"container-nvidia-smi-not-injected"));
}

#[test]
fn dcgm_without_nvml_needs_the_nvidia_runtime_or_a_privileged_host_engine() {
    // https://github.com/NVIDIA/dcgm-exporter/issues/34 (DaemonSet; privileged pod)
    let t = triage(
        "Error: Failed to initialize NVML\ntime=\"2022-05-24T08:06:48Z\" level=fatal msg=\"Error starting nv-hostengine: DCGM initialization error\"",
    );
    assert!(message_ids(&t).contains(&"dcgm-hostengine-no-nvml"));
    let text = all_text(&t);
    assert!(text.contains("runtimeClassName: nvidia"), "{text}");
    assert!(text.contains("privileged container"), "{text}");
}

#[test]
fn optix_without_libnvoptix_names_the_driver_and_the_container_capability() {
    // https://github.com/78ij/NU-NeRF/issues/2
    let t = triage("RuntimeError: OPTIX_ERROR_LIBRARY_NOT_FOUND: Library not found");
    assert!(message_ids(&t).contains(&"optix-library-not-found"));
    let text = all_text(&t);
    assert!(text.contains("libnvoptix.so.1"), "{text}");
    assert!(text.contains("NVIDIA_DRIVER_CAPABILITIES=all"), "{text}");
}

#[test]
fn compose_3x_without_runtime_points_at_device_reservations() {
    // https://github.com/blakeblackshear/frigate/issues/767 (version: '3.6', runtime: nvidia)
    let t = triage(
        "ERROR: The Compose file './docker-compose.yaml' is invalid because:\nUnsupported config option for services.frigate: 'runtime'",
    );
    assert!(message_ids(&t).contains(&"compose-runtime-option-unsupported"));
    let text = all_text(&t);
    assert!(text.contains("capabilities: [gpu]"), "{text}");
    assert!(text.contains("version: '2.4'"), "{text}");
}

#[test]
fn the_device_plugins_incompatible_strategy_is_a_node_without_the_nvidia_runtime() {
    // https://github.com/NVIDIA/k8s-device-plugin/issues/1220 (kubespray, containerd)
    let t =
        triage("E0506 17:45:45.421956       1 factory.go:112] Incompatible strategy detected auto");
    assert!(message_ids(&t).contains(&"k8s-device-plugin-no-nvml"));
    let text = all_text(&t);
    assert!(text.contains("--set-as-default"), "{text}");
    assert!(text.contains("runtimeClassName=nvidia"), "{text}");
}

#[test]
fn the_hook_failing_to_open_the_driver_names_wsl_and_the_host_driver() {
    // https://github.com/apache/mxnet/issues/20451 (an Insider build too old for GPUs in WSL 2)
    let t = triage(
        "docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: starting container process caused: process_linux.go:545: container init caused: Running hook #0:: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: initialization error: driver error: failed to process request: unknown.",
    );
    let ids = message_ids(&t);
    assert!(ids.contains(&"container-cli-driver-error"), "{ids:?}");
    assert!(!ids.contains(&"container-cli-error"), "{ids:?}");
    let text = all_text(&t);
    assert!(text.contains("Windows 10 21H2"), "{text}");
    assert!(text.contains("nvidia-smi"), "{text}");
}

#[test]
fn an_unresolvable_cdi_device_names_an_engine_too_old_for_the_spec() {
    // https://github.com/NVIDIA/nvidia-container-toolkit/issues/1940 (Podman 4.9.3, toolkit 1.19.1)
    let t = triage("Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=0");
    assert!(message_ids(&t).contains(&"cdi-device-unresolvable"));
    let text = all_text(&t);
    assert!(text.contains("upgrade Podman"), "{text}");
    assert!(text.contains("cdiVersion"), "{text}");
}

//! Version rules of host programs read from their own messages: JAX's start-up check of the
//! CUDA components it loads, Docker Compose's schema before GPU device reservations. Each input
//! is a real line from the public thread cited above it.

use super::*;
use crate::engine::finding_codes as codes;

#[test]
fn jaxs_component_check_is_decoded_with_the_minimum_to_install() {
    // https://github.com/conda-forge/jax-feedstock/issues/149
    let t = triage(
        "CUDA backend failed to initialize: Unable to use CUDA because of the following issues with CUDA components:\n\
         Outdated cuDNN installation found.\n\
         Version JAX was built against: 8907\n\
         Minimum supported: 9100\n\
         Installed version: 8907\n\
         The local installation version must be no lower than 9100..(Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)",
    );
    let f = finding(&t, codes::VERSION_MISMATCH_REPORTED).expect("JAX's check is read");
    assert!(
        f.summary.contains("needs cuDNN 9100 (9.1.0) or newer"),
        "{}",
        f.summary
    );
    assert!(f.detail.contains("installed 8907 (8.9.7)"), "{}", f.detail);
    assert!(
        f.fixes[0].summary.contains("jax[cuda12]"),
        "{}",
        f.fixes[0].summary
    );
}

#[test]
fn compose_before_device_reservations_needs_1_28() {
    // https://github.com/iot-salzburg/gpu-jupyter/issues/46
    let t = triage(
        "The Compose file './docker-compose.yml' is invalid because:\n\
         services.gpu-jupyter.deploy.resources.reservations value Additional properties are not allowed ('devices' was unexpected)",
    );
    assert!(
        t.messages
            .iter()
            .any(|m| m.id == "compose-gpu-reservations-unsupported"),
        "{:?}",
        t.messages
    );
    let text = all_text(&t);
    assert!(text.contains("Compose 1.28.0"), "{text}");
}

#[test]
fn a_version_pair_the_program_prints_as_a_warning_is_not_made_an_error() {
    // https://github.com/NVIDIA/TensorRT/issues/3534 (maintainer: a warning, it can be ignored)
    let t = triage("[TRT] TensorRT was linked against cuDNN 8.9.0 but loaded cuDNN 8.8.0");
    assert!(
        finding(&t, codes::VERSION_MISMATCH_REPORTED).is_none(),
        "{:?}",
        t.findings
    );
    assert!(
        t.findings
            .iter()
            .all(|f| f.severity != crate::engine::findings::Severity::Error),
        "{:?}",
        t.findings
    );
    // The same pair printed as an error by its program stays one.
    // https://github.com/google-research/deeplab2/issues/66
    let t = triage(
        "E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded runtime CuDNN library: 8.0.4 but source was compiled with: 8.1.0.",
    );
    assert!(
        t.findings
            .iter()
            .any(|f| f.severity == crate::engine::findings::Severity::Error),
        "{:?}",
        t.findings
    );
}

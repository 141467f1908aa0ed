//! Version rules of host programs read from their own messages: JAX's start-up check of the
//! CUDA components it loads, Docker Compose's schema before GPU device reservations. Each input
//! is a real line from the public thread cited above it.

use super::*;
use crate::engine::finding_codes as codes;
use crate::engine::findings::Severity;

fn has_error(t: &Triage) -> bool {
    t.findings.iter().any(|f| f.severity == Severity::Error)
}

fn has_warning(t: &Triage) -> bool {
    t.findings.iter().any(|f| f.severity == Severity::Warning)
}

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
    assert!(!has_error(&t), "{:?}", t.findings);
    // The same pair printed as an error by its program stays one.
    // https://github.com/google-research/deeplab2/issues/66
    let t = triage(
        "E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded runtime CuDNN library: 8.0.4 but source was compiled with: 8.1.0.",
    );
    assert!(has_error(&t), "{:?}", t.findings);
}

#[test]
fn a_cuda_minor_mismatch_deepspeed_accepts_is_no_error() {
    // https://github.com/deepspeedai/DeepSpeed/issues/1846 (DeepSpeed's op builder accepts it)
    let t = triage(
        "Installed CUDA version 11.4 does not match the version torch was compiled with 11.5 but since the APIs are compatible, accepting this combination",
    );
    assert!(!has_error(&t) && !has_warning(&t), "{:?}", t.findings);
    assert!(message_ids(&t).contains(&"deepspeed-cuda-minor-mismatch-accepted"));
}

#[test]
fn an_architecture_a_notice_names_is_not_made_an_error() {
    // https://github.com/jax-ml/jax/issues/10083 (XLA falls back to the driver's PTX compiler)
    let t = triage(
        "Falling back to the CUDA driver for PTX compilation; ptxas does not support CC 9.0",
    );
    assert!(message_ids(&t).contains(&"xla-ptxas-cc-unsupported"));
    assert!(!has_error(&t), "{:?}", t.findings);
}

#[test]
fn no_row_that_reads_its_line_as_a_notice_has_an_error_beside_it() {
    // Every info or warning row, on its own example line (a real line from its source): no
    // other reading of that line is an error, unless a more specific row overrides the notice.
    use crate::engine::findings::Evidence;
    let k = crate::engine::knowledge::knowledge();
    let mut loud = Vec::new();
    for row in k
        .catalog
        .messages
        .iter()
        .filter(|r| r.severity != Severity::Error)
    {
        let t = triage(&row.example);
        for f in t.findings.iter().filter(|f| f.severity == Severity::Error) {
            let from_text = f.evidence.iter().any(|e: &Evidence| e.kind == "log");
            let overriding = f
                .code
                .strip_prefix("log-")
                .and_then(|id| k.catalog.message(id))
                .is_some_and(|o| o.overrides.contains(&row.id));
            if from_text && !overriding {
                loud.push(format!("{} -> {}: {}", row.id, f.code, f.summary));
            }
        }
    }
    assert!(loud.is_empty(), "{loud:#?}");
}

#[test]
fn a_floor_a_specific_row_reads_is_that_rows_reading() {
    // https://github.com/Comfy-Org/ComfyUI/issues/7770: the line a SageAttention wheel built for
    // another torch prints names a floor; its row says what it means, with no GPU-generation
    // verdict beside it.
    let t = triage(
        "AssertionError: SM80 kernel is not available. make sure you GPUs with compute capability 8.0 or higher.",
    );
    assert!(message_ids(&t).contains(&"sageattention-kernel-not-available"));
    assert!(
        finding(&t, codes::GPU_ARCH_REFUSED).is_none(),
        "{:?}",
        t.findings
    );
    // A floor no specific row reads is still a verdict.
    // https://github.com/Dao-AILab/flash-attention/issues/762
    let t = triage("RuntimeError: FlashAttention only supports Ampere GPUs or newer.");
    assert!(
        finding(&t, codes::GPU_ARCH_REFUSED).is_some(),
        "{:?}",
        t.findings
    );
}

//! Statuses as bindings and hosts print them and as pastes cut them: CUDA.jl's exception per
//! library with its number, a runtime message missing its last letters, MATLAB's wording of
//! the launch timeout, and a PTX JIT failure whose ptxas line says the generated PTX is wrong.
//! Each input is a real line from the public thread cited above it.

use super::*;

#[test]
fn a_julia_library_exception_carries_its_status_number() {
    // https://github.com/JuliaGPU/CuArrays.jl/issues/392 (randn of an odd length)
    let t = triage(
        "julia> CuArrays.randn(11, 5)\nERROR: CURANDError(code 105, Length requested is not a multple of dimension)\nStacktrace:",
    );
    let f = finding(&t, "curand-status-curand-status-length-not-multiple")
        .expect("CURAND_STATUS_LENGTH_NOT_MULTIPLE");
    assert!(f.summary.contains("105"), "{}", f.summary);
}

#[test]
fn a_runtime_message_cut_short_is_still_read() {
    // https://github.com/efeslab/Nanoflow/issues/22 (RTX 3090s without P2P)
    let t = triage("peer access is not supported between these two device");
    assert!(finding(&t, "cuda-error-217").is_some(), "{:?}", codes(&t));
}

#[test]
fn matlabs_driver_timeout_is_the_launch_timeout() {
    // https://www.mathworks.com/matlabcentral/answers/99300-why-do-i-receive-the-cuda_error_launch_timeout-error-when-trying-to-run-gpu-code-in-parallel-compu
    let t = triage(
        "Warning: An unexpected error occurred during CUDA execution. The CUDA error\nError using arrayfun\nThe kernel execution failed because the CUDA driver timeout was encountered.",
    );
    let f = finding(&t, "cuda-error-702").expect("launch timeout");
    assert!(f.detail.contains("TDR"), "{}", f.detail);
}

#[test]
fn a_ptxas_error_inside_generated_ptx_is_the_generators_bug() {
    // https://github.com/JuliaGPU/CUDAnative.jl/issues/653 (a codegen bug, fixed in the package)
    let t = triage(
        "CUDA error: a PTX JIT compilation failed (code 218, ERROR_INVALID_PTX)\nptxas application ptx input, line 488; error   : Call has wrong number of parameters\nptxas fatal   : Ptx assembly aborted due to errors",
    );
    let f = finding(&t, "cuda-error-218").expect("invalid PTX");
    assert!(f.detail.starts_with("Here"), "{}", f.detail);
    assert!(f.detail.contains("invalid PTX"), "{}", f.detail);
}

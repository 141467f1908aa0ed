//! cuSPARSE's own words on entering a routine (a refused layout, a CUDA context that could not
//! be created), a library that could not initialise under a command that hides every GPU, a row
//! overridden on one line that a rejoined pair of lines does not bring back, and a tensor past the
//! 32-bit size limit beside a library's refusal. Each line is from
//! the public thread cited.

use super::*;
use crate::engine::finding_codes as codes;

#[test]
fn cusparse_says_why_it_refused_a_call() {
    // https://github.com/NVIDIA/CUDALibrarySamples/issues/97 (row-major B before cuSPARSE 11.7.1)
    let t = triage(
        "E   RuntimeError: jaxlib/gpu/sparse.cc:538: operation gpusparseSpMM_bufferSize( handle.get(), op_A, GPUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat_a, mat_b, &beta, mat_c, C.type, GPUSPARSE_SPMM_COO_ALG, &buffer_size) failed: invalid value\n\
         ----------------------------- Captured stderr call -----------------------------\n\
         \x20** On entry to cusparseSpMM_bufferSize(): matrix B must be in column-major order",
    );
    let f = message(&t, "sparse-on-entry-refused");
    assert!(
        f.summary
            .contains("cusparseSpMM_bufferSize refused the call: matrix B must be in column-major"),
        "{}",
        f.summary
    );
    assert!(f.detail.contains("11.7 Update 1"), "{}", f.detail);
}

#[test]
fn a_context_that_cannot_be_created_is_the_driver_not_memory() {
    // https://github.com/cvxgrp/CuClarabel/issues/15 (fixed by a newer driver and CUDA runtime)
    let t = triage(
        "** On entry to cusparseCreate(): CUDA context cannot be initialized\n\
         \n\
         ERROR: CUSPARSEError: initialization error (code 1, CUSPARSE_STATUS_NOT_INITIALIZED)\n\
         Stacktrace:\n\
         \x20 [1] throw_api_error(res::CUDA.CUSPARSE.cusparseStatus_t)",
    );
    let ids = message_ids(&t);
    assert!(ids.contains(&"sparse-on-entry-context-failed"), "{ids:?}");
    // The general refusal does not come back through the two lines read as one.
    assert!(!ids.contains(&"sparse-on-entry-refused"), "{ids:?}");
    let status = finding(&t, "cusparse-status-cusparse-status-not-initialized")
        .expect("the status is explained");
    assert!(
        status
            .detail
            .starts_with("Here (the text says \"context cannot be initialized\")"),
        "{}",
        status.detail
    );
}

#[test]
fn a_library_that_cannot_initialise_with_every_gpu_hidden() {
    // https://github.com/dmlc/dgl/issues/4216 (DGL seeded cuRAND with no GPU visible)
    let t = triage(
        "root@9f3cc11c6496:/opt/dgl# CUDA_VISIBLE_DEVICES=-1 python -c \"import dgl; dgl.random.seed(42)\"\n\
         dgl._ffi.base.DGLError: [07:36:20] /opt/dgl/dgl-source/src/random/random.cc:34: Check failed: e == CURAND_STATUS_SUCCESS: CURAND Error: CURAND_STATUS_INITIALIZATION_FAILED at /opt/dgl/dgl-source/src/random/random.cc:34",
    );
    let f = finding(&t, "curand-status-curand-status-initialization-failed")
        .expect("the status is explained");
    assert!(
        f.detail
            .starts_with("Here (the text says \"CUDA_VISIBLE_DEVICES=-1\")"),
        "{}",
        f.detail
    );
    // With a GPU visible, the general causes lead.
    let t = triage(
        "dgl._ffi.base.DGLError: [07:36:20] /opt/dgl/dgl-source/src/random/random.cc:34: Check failed: e == CURAND_STATUS_SUCCESS: CURAND Error: CURAND_STATUS_INITIALIZATION_FAILED at /opt/dgl/dgl-source/src/random/random.cc:34",
    );
    let f = finding(&t, "curand-status-curand-status-initialization-failed")
        .expect("the status is explained");
    assert!(!f.detail.contains("CUDA_VISIBLE_DEVICES"), "{}", f.detail);
}

#[test]
fn a_tensor_past_the_32_bit_limit_beside_a_refusal() {
    // https://github.com/PaddlePaddle/Paddle/pull/74280 (lstsq on a 253522376 x 9 tensor)
    let t = triage(
        "test begin: paddle.linalg.lstsq(Tensor([253522376, 9],\"float32\"), Tensor([253522376, 5],\"float32\"), rcond=1e-15, driver=\"gels\", )\n\
         OSError: (External) CUSOLVER error(3). ",
    );
    let f = finding(&t, codes::TENSOR_PAST_32BIT_LIMIT).expect("the size is named");
    assert!(f.summary.contains("2281701384 elements"), "{}", f.summary);
    assert_eq!(t.findings[0].code, codes::TENSOR_PAST_32BIT_LIMIT);
    // A shape within the limit is no reading.
    let t = triage(
        "test begin: paddle.linalg.lstsq(Tensor([253522, 9],\"float32\"), Tensor([253522, 5],\"float32\"), rcond=1e-15, driver=\"gels\", )\n\
         OSError: (External) CUSOLVER error(3). ",
    );
    assert!(finding(&t, codes::TENSOR_PAST_32BIT_LIMIT).is_none());
}

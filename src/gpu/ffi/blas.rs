//! cuBLAS (cublas64_11/12/13.dll, libcublas.so.11/12/13) as a function table, and the runtime's
//! one call the test needs (`cudaRuntimeGetVersion`). All names exist in cuBLAS 11, 12 and 13.

use super::api_table;
use std::ffi::c_void;

pub type CublasHandle = *mut c_void;

api_table!(
    /// The version query, which needs no GPU.
    CublasVersion {
        cublasGetProperty: fn(i32, *mut i32) -> i32;
    }
);

api_table!(
    /// Handle management and the GEMMs.
    CublasApi {
        cublasCreate_v2: fn(*mut CublasHandle) -> i32;
        cublasDestroy_v2: fn(CublasHandle) -> i32;
        cublasGetVersion_v2: fn(CublasHandle, *mut i32) -> i32;
        cublasSetMathMode: fn(CublasHandle, i32) -> i32;
        cublasSgemm_v2: fn(
            CublasHandle, i32, i32, i32, i32, i32,
            *const f32, *const c_void, i32, *const c_void, i32,
            *const f32, *mut c_void, i32
        ) -> i32;
        cublasGemmEx: fn(
            CublasHandle, i32, i32, i32, i32, i32,
            *const c_void, *const c_void, i32, i32, *const c_void, i32, i32,
            *const c_void, *mut c_void, i32, i32, i32, i32
        ) -> i32;
    }
);

api_table!(
    /// libcudart's version call.
    CudartApi {
        cudaRuntimeGetVersion: fn(*mut i32) -> i32;
    }
);

pub const OP_N: i32 = 0;
/// cublasMath_t
pub const DEFAULT_MATH: i32 = 0;
/// cudaDataType_t
pub const CUDA_R_32F: i32 = 0;
pub const CUDA_R_16F: i32 = 2;
pub const CUDA_R_16BF: i32 = 14;
/// cublasComputeType_t
pub const COMPUTE_32F: i32 = 68;
pub const COMPUTE_32F_FAST_TF32: i32 = 77;
pub const GEMM_DEFAULT: i32 = -1;
/// libraryPropertyType
pub const MAJOR_VERSION: i32 = 0;
pub const MINOR_VERSION: i32 = 1;
pub const PATCH_LEVEL: i32 = 2;

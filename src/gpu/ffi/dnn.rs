//! cuDNN (cudnn64_8/9.dll, libcudnn.so.8/9) as a function table: the legacy convolution API,
//! which both cuDNN 8 and cuDNN 9 export with the same signatures.

use super::api_table;
use std::ffi::{c_char, c_void};

pub type CudnnHandle = *mut c_void;
pub type Descriptor = *mut c_void;

api_table!(
    /// The version query, which needs no GPU.
    CudnnVersion {
        cudnnGetVersion: fn() -> usize;
    }
);

api_table!(
    /// Descriptors, the algorithm search and the forward convolution.
    CudnnApi {
        cudnnCreate: fn(*mut CudnnHandle) -> i32;
        cudnnDestroy: fn(CudnnHandle) -> i32;
        cudnnGetErrorString: fn(i32) -> *const c_char;
        cudnnCreateTensorDescriptor: fn(*mut Descriptor) -> i32;
        cudnnDestroyTensorDescriptor: fn(Descriptor) -> i32;
        cudnnSetTensor4dDescriptor: fn(Descriptor, i32, i32, i32, i32, i32, i32) -> i32;
        cudnnCreateFilterDescriptor: fn(*mut Descriptor) -> i32;
        cudnnDestroyFilterDescriptor: fn(Descriptor) -> i32;
        cudnnSetFilter4dDescriptor: fn(Descriptor, i32, i32, i32, i32, i32, i32) -> i32;
        cudnnCreateConvolutionDescriptor: fn(*mut Descriptor) -> i32;
        cudnnDestroyConvolutionDescriptor: fn(Descriptor) -> i32;
        cudnnSetConvolution2dDescriptor: fn(Descriptor, i32, i32, i32, i32, i32, i32, i32, i32) -> i32;
        cudnnSetConvolutionMathType: fn(Descriptor, i32) -> i32;
        cudnnGetConvolution2dForwardOutputDim: fn(Descriptor, Descriptor, Descriptor, *mut i32, *mut i32, *mut i32, *mut i32) -> i32;
        cudnnFindConvolutionForwardAlgorithm: fn(CudnnHandle, Descriptor, Descriptor, Descriptor, Descriptor, i32, *mut i32, *mut AlgoPerf) -> i32;
        cudnnGetConvolutionForwardWorkspaceSize: fn(CudnnHandle, Descriptor, Descriptor, Descriptor, Descriptor, i32, *mut usize) -> i32;
        cudnnConvolutionForward: fn(
            CudnnHandle, *const c_void, Descriptor, *const c_void, Descriptor, *const c_void,
            Descriptor, i32, *mut c_void, usize, *const c_void, Descriptor, *mut c_void
        ) -> i32;
    }
);

/// `cudnnConvolutionFwdAlgoPerf_t` (identical in cuDNN 8 and 9).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct AlgoPerf {
    pub algo: i32,
    pub status: i32,
    pub time: f32,
    pub memory: usize,
    pub determinism: i32,
    pub math_type: i32,
    pub reserved: [i32; 3],
}

pub const TENSOR_NCHW: i32 = 0;
pub const TENSOR_NHWC: i32 = 1;
pub const DATA_FLOAT: i32 = 0;
pub const CROSS_CORRELATION: i32 = 1;
/// cudnnMathType_t: tensor cores allowed (TF32 for float data), as PyTorch's default does.
pub const DEFAULT_MATH: i32 = 0;

/// `cudnnConvolutionFwdAlgo_t` names.
pub fn algo_name(algo: i32) -> &'static str {
    match algo {
        0 => "IMPLICIT_GEMM",
        1 => "IMPLICIT_PRECOMP_GEMM",
        2 => "GEMM",
        3 => "DIRECT",
        4 => "FFT",
        5 => "FFT_TILING",
        6 => "WINOGRAD",
        7 => "WINOGRAD_NONFUSED",
        _ => "unknown",
    }
}

/// Formats `cudnnGetVersion()`: cuDNN 8 encodes major*1000 + minor*100 + patch (8902 = 8.9.2),
/// cuDNN 9 major*10000 + minor*100 + patch (90100 = 9.1.0).
pub fn version_string(v: usize) -> String {
    if v >= 90000 {
        format!("{}.{}.{}", v / 10000, (v % 10000) / 100, v % 100)
    } else {
        format!("{}.{}.{}", v / 1000, (v % 1000) / 100, v % 100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cudnn_versions_of_both_encodings() {
        assert_eq!(version_string(8902), "8.9.2");
        assert_eq!(version_string(8600), "8.6.0");
        assert_eq!(version_string(90100), "9.1.0");
        assert_eq!(version_string(91002), "9.10.2");
    }

    #[test]
    fn perf_struct_has_the_c_layout() {
        assert_eq!(std::mem::size_of::<AlgoPerf>(), 48);
        assert_eq!(std::mem::offset_of!(AlgoPerf, memory), 16);
        assert_eq!(algo_name(1), "IMPLICIT_PRECOMP_GEMM");
    }
}

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

// Enum values from cudarc's bindings of `cudnn_graph.h`/`cudnn_cnn.h` (bindgen), not typed by
// hand; they are the same in cuDNN 8 and 9. cudarc's function bindings are not used: they are
// built for one cuDNN major, and cuDNN 8 and 9 number their status codes differently (3 vs
// 2000 for BAD_PARAM), so an 8.x status read as a 9.x Rust enum would be undefined behaviour.
use cudarc::cudnn::sys as nv;

pub const TENSOR_NCHW: i32 = nv::cudnnTensorFormat_t::CUDNN_TENSOR_NCHW as i32;
pub const TENSOR_NHWC: i32 = nv::cudnnTensorFormat_t::CUDNN_TENSOR_NHWC as i32;
pub const DATA_FLOAT: i32 = nv::cudnnDataType_t::CUDNN_DATA_FLOAT as i32;
pub const CROSS_CORRELATION: i32 = nv::cudnnConvolutionMode_t::CUDNN_CROSS_CORRELATION as i32;
/// cudnnMathType_t: tensor cores allowed (TF32 for float data), as PyTorch's default does.
pub const DEFAULT_MATH: i32 = nv::cudnnMathType_t::CUDNN_DEFAULT_MATH as i32;

/// `cudnnConvolutionFwdAlgo_t` names, as cuDNN spells them without the `CUDNN_CONVOLUTION_FWD_ALGO_`
/// prefix.
pub fn algo_name(algo: i32) -> &'static str {
    use nv::cudnnConvolutionFwdAlgo_t as A;
    const ALGOS: [(A, &str); 8] = [
        (A::CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, "IMPLICIT_GEMM"),
        (
            A::CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
            "IMPLICIT_PRECOMP_GEMM",
        ),
        (A::CUDNN_CONVOLUTION_FWD_ALGO_GEMM, "GEMM"),
        (A::CUDNN_CONVOLUTION_FWD_ALGO_DIRECT, "DIRECT"),
        (A::CUDNN_CONVOLUTION_FWD_ALGO_FFT, "FFT"),
        (A::CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING, "FFT_TILING"),
        (A::CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, "WINOGRAD"),
        (
            A::CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED,
            "WINOGRAD_NONFUSED",
        ),
    ];
    ALGOS
        .iter()
        .find(|(a, _)| *a as i32 == algo)
        .map_or("unknown", |(_, name)| name)
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
    fn perf_struct_has_the_layout_of_the_generated_binding() {
        use std::mem::{offset_of, size_of};
        type Nv = nv::cudnnConvolutionFwdAlgoPerf_t;
        assert_eq!(size_of::<AlgoPerf>(), size_of::<Nv>());
        assert_eq!(size_of::<AlgoPerf>(), 48);
        assert_eq!(offset_of!(AlgoPerf, time), offset_of!(Nv, time));
        assert_eq!(offset_of!(AlgoPerf, memory), offset_of!(Nv, memory));
        assert_eq!(
            offset_of!(AlgoPerf, determinism),
            offset_of!(Nv, determinism)
        );
        assert_eq!(offset_of!(AlgoPerf, math_type), offset_of!(Nv, mathType));
        assert_eq!(offset_of!(AlgoPerf, reserved), offset_of!(Nv, reserved));
    }

    #[test]
    fn algorithm_names_and_enum_values() {
        assert_eq!(algo_name(0), "IMPLICIT_GEMM");
        assert_eq!(algo_name(1), "IMPLICIT_PRECOMP_GEMM");
        assert_eq!(algo_name(7), "WINOGRAD_NONFUSED");
        assert_eq!(algo_name(8), "unknown");
        assert_eq!(algo_name(-1), "unknown");
        assert_eq!((TENSOR_NCHW, TENSOR_NHWC, DATA_FLOAT), (0, 1, 0));
        assert_eq!((CROSS_CORRELATION, DEFAULT_MATH), (1, 0));
    }
}

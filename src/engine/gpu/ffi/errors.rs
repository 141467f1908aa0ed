//! Names of CUDA driver and cuBLAS status codes, so a finding says `CUDA_ERROR_NO_DEVICE (100)`
//! even when the driver cannot (or is a fake that does not export `cuGetErrorName`).

/// The `CUresult` name of a driver status code.
pub fn cuda_error_name(code: i32) -> &'static str {
    match code {
        0 => "CUDA_SUCCESS",
        1 => "CUDA_ERROR_INVALID_VALUE",
        2 => "CUDA_ERROR_OUT_OF_MEMORY",
        3 => "CUDA_ERROR_NOT_INITIALIZED",
        4 => "CUDA_ERROR_DEINITIALIZED",
        34 => "CUDA_ERROR_STUB_LIBRARY",
        46 => "CUDA_ERROR_DEVICE_UNAVAILABLE",
        100 => "CUDA_ERROR_NO_DEVICE",
        101 => "CUDA_ERROR_INVALID_DEVICE",
        102 => "CUDA_ERROR_DEVICE_NOT_LICENSED",
        200 => "CUDA_ERROR_INVALID_IMAGE",
        201 => "CUDA_ERROR_INVALID_CONTEXT",
        209 => "CUDA_ERROR_NO_BINARY_FOR_GPU",
        214 => "CUDA_ERROR_ECC_UNCORRECTABLE",
        216 => "CUDA_ERROR_CONTEXT_ALREADY_IN_USE",
        222 => "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
        302 => "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND",
        303 => "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED",
        304 => "CUDA_ERROR_OPERATING_SYSTEM",
        400 => "CUDA_ERROR_INVALID_HANDLE",
        500 => "CUDA_ERROR_NOT_FOUND",
        700 => "CUDA_ERROR_ILLEGAL_ADDRESS",
        701 => "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
        702 => "CUDA_ERROR_LAUNCH_TIMEOUT",
        719 => "CUDA_ERROR_LAUNCH_FAILED",
        800 => "CUDA_ERROR_NOT_PERMITTED",
        801 => "CUDA_ERROR_NOT_SUPPORTED",
        802 => "CUDA_ERROR_SYSTEM_NOT_READY",
        803 => "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
        804 => "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
        999 => "CUDA_ERROR_UNKNOWN",
        _ => "CUDA_ERROR_(unrecognised)",
    }
}

/// What a driver status usually means for someone whose GPU stack will not load.
pub fn cuda_error_hint(code: i32) -> &'static str {
    match code {
        100 => {
            "The driver loaded but sees no CUDA-capable GPU: check that the GPU is present (nvidia-smi), that CUDA_VISIBLE_DEVICES does not hide it, and, in a container, that it was started with GPU access."
        }
        34 => {
            "The file is the stub libcuda from the CUDA toolkit (lib64/stubs), meant only for linking: the real driver library must come first in the search path."
        }
        803 => {
            "The user-space driver library and the kernel module are different versions (often after a driver update without a reboot): reboot, or reinstall the driver."
        }
        804 => {
            "A forward-compatibility libcuda was used on a GPU that does not support it: remove the cuda-compat directory from the library path."
        }
        999 | 304 => {
            "The driver failed in an unexpected way; the system log (dmesg / Event Viewer) usually says why."
        }
        3 | 4 => {
            "The driver was not initialised; this points to a broken or partial driver install."
        }
        2 => "The GPU ran out of memory; close other GPU programs and try again.",
        _ => "See the CUDA driver API documentation for this error.",
    }
}

/// The `cublasStatus_t` name of a cuBLAS status code.
pub fn cublas_status_name(code: i32) -> &'static str {
    match code {
        0 => "CUBLAS_STATUS_SUCCESS",
        1 => "CUBLAS_STATUS_NOT_INITIALIZED",
        3 => "CUBLAS_STATUS_ALLOC_FAILED",
        7 => "CUBLAS_STATUS_INVALID_VALUE",
        8 => "CUBLAS_STATUS_ARCH_MISMATCH",
        11 => "CUBLAS_STATUS_MAPPING_ERROR",
        13 => "CUBLAS_STATUS_EXECUTION_FAILED",
        14 => "CUBLAS_STATUS_INTERNAL_ERROR",
        15 => "CUBLAS_STATUS_NOT_SUPPORTED",
        16 => "CUBLAS_STATUS_LICENSE_ERROR",
        _ => "CUBLAS_STATUS_(unrecognised)",
    }
}

/// A failed library call: which call, its status code and the status's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallError {
    pub call: String,
    pub code: i32,
    pub name: String,
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} failed with {} ({})", self.call, self.name, self.code)
    }
}

impl CallError {
    pub fn cuda(call: &str, code: i32) -> CallError {
        CallError {
            call: call.to_string(),
            code,
            name: cuda_error_name(code).to_string(),
        }
    }

    pub fn cublas(call: &str, code: i32) -> CallError {
        CallError {
            call: call.to_string(),
            code,
            name: cublas_status_name(code).to_string(),
        }
    }

    /// Anything else that stopped a workload (a missing symbol, a bad size).
    pub fn other(call: &str, message: impl Into<String>) -> CallError {
        CallError {
            call: call.to_string(),
            code: -1,
            name: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_codes_have_names_and_hints() {
        assert_eq!(cuda_error_name(100), "CUDA_ERROR_NO_DEVICE");
        assert_eq!(cuda_error_name(34), "CUDA_ERROR_STUB_LIBRARY");
        assert_eq!(cuda_error_name(-7), "CUDA_ERROR_(unrecognised)");
        assert!(cuda_error_hint(100).contains("no CUDA-capable GPU"));
        assert!(cuda_error_hint(803).contains("kernel module"));
        assert_eq!(cublas_status_name(8), "CUBLAS_STATUS_ARCH_MISMATCH");
    }

    #[test]
    fn call_errors_read_as_sentences() {
        let e = CallError::cuda("cuInit", 100);
        assert_eq!(
            e.to_string(),
            "cuInit failed with CUDA_ERROR_NO_DEVICE (100)"
        );
        assert!(
            CallError::cublas("cublasCreate_v2", 1)
                .to_string()
                .contains("NOT_INITIALIZED")
        );
    }
}

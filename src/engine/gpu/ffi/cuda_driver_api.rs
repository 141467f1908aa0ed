//! The CUDA driver API (libcuda.so.1 / nvcuda.dll) as function tables, in two stages: the two
//! calls every driver back to CUDA 2 exports (`cuInit`, `cuDriverGetVersion`) and the rest,
//! resolved only after `cuInit` succeeds. `_v2` names are the ABI every CUDA 11–13 driver exports.
//! Small RAII wrappers free device memory, pinned memory and events on every path.

use super::errors::CallError;
use super::{OpenLibrary, api_table};
use std::ffi::{c_char, c_void};

pub type CuDevicePtr = u64;
pub type CuContext = *mut c_void;
pub type CuEvent = *mut c_void;
pub type CuStream = *mut c_void;

api_table!(
    /// Present in every driver.
    DriverBasic {
        cuInit: fn(u32) -> i32;
        cuDriverGetVersion: fn(*mut i32) -> i32;
    }
);

api_table!(
    /// What the workloads need, resolved after `cuInit`.
    DriverApi {
        cuDeviceGetCount: fn(*mut i32) -> i32;
        cuDeviceGet: fn(*mut i32, i32) -> i32;
        cuDeviceGetName: fn(*mut c_char, i32, i32) -> i32;
        cuDeviceGetPCIBusId: fn(*mut c_char, i32, i32) -> i32;
        cuDeviceGetAttribute: fn(*mut i32, i32, i32) -> i32;
        cuDeviceTotalMem_v2: fn(*mut usize, i32) -> i32;
        cuDevicePrimaryCtxRetain: fn(*mut CuContext, i32) -> i32;
        cuDevicePrimaryCtxRelease_v2: fn(i32) -> i32;
        cuCtxSetCurrent: fn(CuContext) -> i32;
        cuCtxSynchronize: fn() -> i32;
        cuMemGetInfo_v2: fn(*mut usize, *mut usize) -> i32;
        cuMemAlloc_v2: fn(*mut CuDevicePtr, usize) -> i32;
        cuMemFree_v2: fn(CuDevicePtr) -> i32;
        cuMemAllocHost_v2: fn(*mut *mut c_void, usize) -> i32;
        cuMemFreeHost: fn(*mut c_void) -> i32;
        cuMemcpyHtoD_v2: fn(CuDevicePtr, *const c_void, usize) -> i32;
        cuMemcpyDtoH_v2: fn(*mut c_void, CuDevicePtr, usize) -> i32;
        cuMemcpyDtoD_v2: fn(CuDevicePtr, CuDevicePtr, usize) -> i32;
        cuMemsetD32_v2: fn(CuDevicePtr, u32, usize) -> i32;
        cuMemsetD16_v2: fn(CuDevicePtr, u16, usize) -> i32;
        cuEventCreate: fn(*mut CuEvent, u32) -> i32;
        cuEventRecord: fn(CuEvent, CuStream) -> i32;
        cuEventSynchronize: fn(CuEvent) -> i32;
        cuEventElapsedTime: fn(*mut f32, CuEvent, CuEvent) -> i32;
        cuEventDestroy_v2: fn(CuEvent) -> i32;
    }
);

/// Device attributes used for the device card: `CUdevice_attribute` values from cudarc's
/// bindings of `cuda.h`.
pub mod attr {
    use cudarc::driver::sys::CUdevice_attribute_enum as A;
    pub const CLOCK_RATE_KHZ: i32 = A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE as i32;
    pub const MULTIPROCESSOR_COUNT: i32 = A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT as i32;
    pub const MEMORY_CLOCK_RATE_KHZ: i32 = A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE as i32;
    pub const COMPUTE_CAPABILITY_MAJOR: i32 =
        A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR as i32;
    pub const COMPUTE_CAPABILITY_MINOR: i32 =
        A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR as i32;
}

/// Turns a status into a result.
pub fn check(call: &str, status: i32) -> Result<(), CallError> {
    if status == 0 {
        Ok(())
    } else {
        Err(CallError::cuda(call, status))
    }
}

/// Formats a CUDA version integer (`12040` → `12.4`).
pub fn cuda_version_string(v: i32) -> String {
    format!("{}.{}", v / 1000, (v % 1000) / 10)
}

/// The driver after a successful `cuInit`, with the primary context of one device current.
pub struct Cuda<'lib> {
    pub api: DriverApi,
    pub device: i32,
    _lib: &'lib OpenLibrary,
}

impl<'lib> Cuda<'lib> {
    /// Resolves the full table and makes device `index`'s primary context current (the one
    /// cuBLAS and cuDNN use through the runtime).
    pub fn open(lib: &'lib OpenLibrary, index: i32) -> Result<Cuda<'lib>, CallError> {
        // SAFETY: the symbols are the documented driver API with these C signatures.
        let api = unsafe { DriverApi::load(&lib.lib) }
            .map_err(|e| CallError::other("resolving driver symbols", e.to_string()))?;
        let mut count = 0;
        check("cuDeviceGetCount", unsafe {
            (api.cuDeviceGetCount)(&mut count)
        })?;
        if count <= index {
            // No device at all is CUDA_ERROR_NO_DEVICE; a number past the last one is what
            // cuDeviceGet itself answers, CUDA_ERROR_INVALID_DEVICE.
            return Err(if count == 0 {
                CallError::cuda("cuDeviceGetCount", 100)
            } else {
                CallError::cuda("cuDeviceGet", 101)
            });
        }
        let mut device = 0;
        check("cuDeviceGet", unsafe {
            (api.cuDeviceGet)(&mut device, index)
        })?;
        let mut ctx: CuContext = std::ptr::null_mut();
        check("cuDevicePrimaryCtxRetain", unsafe {
            (api.cuDevicePrimaryCtxRetain)(&mut ctx, device)
        })?;
        check("cuCtxSetCurrent", unsafe { (api.cuCtxSetCurrent)(ctx) })?;
        Ok(Cuda {
            api,
            device,
            _lib: lib,
        })
    }

    pub fn attribute(&self, attribute: i32) -> Option<i32> {
        let mut v = 0;
        let status = unsafe { (self.api.cuDeviceGetAttribute)(&mut v, attribute, self.device) };
        (status == 0).then_some(v)
    }

    pub fn name(&self) -> Option<String> {
        self.device_string(self.api.cuDeviceGetName)
    }

    /// A string the driver writes for this device into a caller's buffer
    /// (`cuDeviceGetName`, `cuDeviceGetPCIBusId`: `(char *buf, int len, CUdevice)`); `None` on
    /// an error status or an empty answer.
    fn device_string(
        &self,
        call: unsafe extern "system" fn(*mut c_char, i32, i32) -> i32,
    ) -> Option<String> {
        let mut buf = [0 as c_char; 256];
        // SAFETY: the call writes at most `len` bytes; the last byte is forced to NUL after.
        let status = unsafe { call(buf.as_mut_ptr(), buf.len() as i32, self.device) };
        buf[255] = 0;
        let text = unsafe { super::c_string(buf.as_ptr()) };
        (status == 0 && !text.is_empty()).then_some(text)
    }

    /// The PCI address (`0000:65:00.0`): how NVML is asked about the same board, since NVML's
    /// device numbers follow PCI order and ignore `CUDA_VISIBLE_DEVICES`, unlike CUDA's.
    pub fn pci_bus_id(&self) -> Option<String> {
        self.device_string(self.api.cuDeviceGetPCIBusId)
    }

    pub fn total_memory(&self) -> Option<usize> {
        let mut v = 0usize;
        (unsafe { (self.api.cuDeviceTotalMem_v2)(&mut v, self.device) } == 0).then_some(v)
    }

    /// Free device memory in bytes.
    pub fn free_memory(&self) -> Option<usize> {
        let (mut free, mut total) = (0usize, 0usize);
        (unsafe { (self.api.cuMemGetInfo_v2)(&mut free, &mut total) } == 0).then_some(free)
    }

    pub fn synchronize(&self) -> Result<(), CallError> {
        check("cuCtxSynchronize", unsafe { (self.api.cuCtxSynchronize)() })
    }

    pub fn alloc(&self, bytes: usize) -> Result<DeviceBuffer<'_>, CallError> {
        let mut ptr = 0;
        check("cuMemAlloc_v2", unsafe {
            (self.api.cuMemAlloc_v2)(&mut ptr, bytes.max(1))
        })?;
        Ok(DeviceBuffer {
            cuda: self,
            ptr,
            bytes,
        })
    }

    pub fn alloc_pinned(&self, bytes: usize) -> Result<PinnedBuffer<'_>, CallError> {
        let mut ptr: *mut c_void = std::ptr::null_mut();
        check("cuMemAllocHost_v2", unsafe {
            (self.api.cuMemAllocHost_v2)(&mut ptr, bytes.max(1))
        })?;
        if ptr.is_null() {
            // A slice over it would be undefined behaviour; only a broken driver does this.
            return Err(CallError::other(
                "cuMemAllocHost_v2",
                "reported success but returned no memory",
            ));
        }
        Ok(PinnedBuffer {
            cuda: self,
            ptr,
            bytes,
        })
    }

    pub fn event(&self) -> Result<Event<'_>, CallError> {
        let mut ev: CuEvent = std::ptr::null_mut();
        check("cuEventCreate", unsafe {
            (self.api.cuEventCreate)(&mut ev, 0)
        })?;
        Ok(Event { cuda: self, ev })
    }

    /// Milliseconds between two events recorded on the default stream around `work`.
    pub fn time_ms(
        &self,
        mut work: impl FnMut() -> Result<(), CallError>,
    ) -> Result<f64, CallError> {
        let (start, stop) = (self.event()?, self.event()?);
        check("cuEventRecord", unsafe {
            (self.api.cuEventRecord)(start.ev, std::ptr::null_mut())
        })?;
        work()?;
        check("cuEventRecord", unsafe {
            (self.api.cuEventRecord)(stop.ev, std::ptr::null_mut())
        })?;
        check("cuEventSynchronize", unsafe {
            (self.api.cuEventSynchronize)(stop.ev)
        })?;
        let mut ms = 0f32;
        check("cuEventElapsedTime", unsafe {
            (self.api.cuEventElapsedTime)(&mut ms, start.ev, stop.ev)
        })?;
        Ok(ms as f64)
    }

    pub fn upload<T: Copy>(&self, dst: &DeviceBuffer<'_>, src: &[T]) -> Result<(), CallError> {
        let bytes = std::mem::size_of_val(src);
        if bytes > dst.bytes {
            return Err(CallError::other(
                "cuMemcpyHtoD_v2",
                "source larger than buffer",
            ));
        }
        check("cuMemcpyHtoD_v2", unsafe {
            (self.api.cuMemcpyHtoD_v2)(dst.ptr, src.as_ptr().cast(), bytes)
        })
    }

    /// Reads `out.len()` elements starting at element `offset` of `src`.
    pub fn download_at<T: Copy>(
        &self,
        src: &DeviceBuffer<'_>,
        offset: usize,
        out: &mut [T],
    ) -> Result<(), CallError> {
        let size = std::mem::size_of::<T>();
        let bytes = std::mem::size_of_val(out);
        if (offset + out.len()) * size > src.bytes {
            return Err(CallError::other("cuMemcpyDtoH_v2", "read past the buffer"));
        }
        check("cuMemcpyDtoH_v2", unsafe {
            (self.api.cuMemcpyDtoH_v2)(
                out.as_mut_ptr().cast(),
                src.ptr + (offset * size) as u64,
                bytes,
            )
        })
    }

    /// Fills a buffer with NaN of the element size (0x7FC00000 for 4 bytes, 0x7E00 for fp16,
    /// 0x7FC0 for bf16) so an output the library never wrote cannot pass the check.
    pub fn poison(&self, buf: &DeviceBuffer<'_>, pattern: Poison) -> Result<(), CallError> {
        match pattern {
            Poison::F32 => check("cuMemsetD32_v2", unsafe {
                (self.api.cuMemsetD32_v2)(buf.ptr, 0x7FC0_0000, buf.bytes / 4)
            }),
            Poison::F16 => check("cuMemsetD16_v2", unsafe {
                (self.api.cuMemsetD16_v2)(buf.ptr, 0x7E00, buf.bytes / 2)
            }),
            Poison::Bf16 => check("cuMemsetD16_v2", unsafe {
                (self.api.cuMemsetD16_v2)(buf.ptr, 0x7FC0, buf.bytes / 2)
            }),
        }
    }
}

impl Drop for Cuda<'_> {
    fn drop(&mut self) {
        unsafe {
            (self.api.cuCtxSynchronize)();
            (self.api.cuDevicePrimaryCtxRelease_v2)(self.device);
        }
    }
}

/// The NaN pattern for an element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Poison {
    F32,
    F16,
    Bf16,
}

/// Device memory, freed on drop.
pub struct DeviceBuffer<'c> {
    cuda: &'c Cuda<'c>,
    pub ptr: CuDevicePtr,
    pub bytes: usize,
}

impl Drop for DeviceBuffer<'_> {
    fn drop(&mut self) {
        unsafe { (self.cuda.api.cuMemFree_v2)(self.ptr) };
    }
}

/// Page-locked host memory, freed on drop.
pub struct PinnedBuffer<'c> {
    cuda: &'c Cuda<'c>,
    pub ptr: *mut c_void,
    pub bytes: usize,
}

impl PinnedBuffer<'_> {
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: cuMemAllocHost returned `bytes` bytes owned by this buffer.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.cast::<u8>(), self.bytes) }
    }
}

impl Drop for PinnedBuffer<'_> {
    fn drop(&mut self) {
        unsafe { (self.cuda.api.cuMemFreeHost)(self.ptr) };
    }
}

/// A CUDA event, destroyed on drop.
pub struct Event<'c> {
    cuda: &'c Cuda<'c>,
    pub ev: CuEvent,
}

impl Drop for Event<'_> {
    fn drop(&mut self) {
        unsafe { (self.cuda.api.cuEventDestroy_v2)(self.ev) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_status_checks() {
        assert_eq!(cuda_version_string(12040), "12.4");
        assert_eq!(cuda_version_string(11080), "11.8");
        assert_eq!(cuda_version_string(13000), "13.0");
        assert!(check("x", 0).is_ok());
        assert_eq!(
            check("cuInit", 100).unwrap_err().name,
            "CUDA_ERROR_NO_DEVICE"
        );
    }
}

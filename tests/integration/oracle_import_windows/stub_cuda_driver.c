/*
 * A stand-in for NVIDIA's CUDA driver library that reports one GPU, so a framework that asks
 * the driver before it loads its CUDA libraries goes on to load them on a machine without a
 * GPU (the import oracle runs under Wine). Built at test time as nvcuda.dll
 * (x86_64-w64-mingw32-gcc -shared) and portable to Linux as libcuda.so.1
 * (gcc -shared -fPIC -Wl,-soname,libcuda.so.1).
 *
 * It exports the driver entry points TensorFlow 2.10's GPU device registration calls through
 * its lazy driver stub (tensorflow/stream_executor/cuda/cuda_stub.cc: each cu* symbol is looked
 * up in the driver library when first called) before DsoLoader::MaybeTryDlopenGPULibraries:
 * cuInit, cuDriverGetVersion, cuDeviceGetCount, cuDeviceGet, cuDeviceGetName,
 * cuDeviceGetAttribute, cuDeviceTotalMem_v2, cuDeviceGetPCIBusId (gpu_device.cc
 * GetValidDeviceIds -> GpuExecutor::CreateDeviceDescription, v2.10.1), and a few neighbours.
 * The device: an "NVIDIA GeForce RTX 3080 (stub)", compute capability 8.6, 68 SMs, 10 GiB,
 * PCI bus 0000:01:00.0, driver API 12.4 (551.61). Creating a context fails
 * (CUDA_ERROR_NOT_SUPPORTED): nothing here can run a kernel.
 */
#include <stddef.h>
#include <string.h>

#ifdef _WIN32
/* x64 has one calling convention: CUDAAPI (__stdcall) changes nothing there. */
#define STUB_API __declspec(dllexport)
#else
#define STUB_API __attribute__((visibility("default")))
#endif

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_NOT_SUPPORTED = 801,
};

#define STUB_DRIVER_VERSION 12040
#define STUB_TOTAL_MEMORY ((size_t)10 << 30)

static int initialized;

static CUresult check_device(CUdevice dev) {
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
    return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

STUB_API CUresult cuInit(unsigned int flags) {
    (void)flags;
    initialized = 1;
    return CUDA_SUCCESS;
}

STUB_API CUresult cuDriverGetVersion(int *version) {
    if (!version) return CUDA_ERROR_INVALID_VALUE;
    *version = STUB_DRIVER_VERSION;
    return CUDA_SUCCESS;
}

STUB_API CUresult cuDeviceGetCount(int *count) {
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
    *count = 1;
    return CUDA_SUCCESS;
}

STUB_API CUresult cuDeviceGet(CUdevice *dev, int ordinal) {
    if (!dev) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_device(ordinal);
    if (r == CUDA_SUCCESS) *dev = ordinal;
    return r;
}

STUB_API CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
    static const char NAME[] = "NVIDIA GeForce RTX 3080 (stub)";
    if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_device(dev);
    if (r != CUDA_SUCCESS) return r;
    strncpy(name, NAME, (size_t)len - 1);
    name[len - 1] = '\0';
    return CUDA_SUCCESS;
}

STUB_API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
    if (!bytes) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_device(dev);
    if (r == CUDA_SUCCESS) *bytes = STUB_TOTAL_MEMORY;
    return r;
}

STUB_API CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev) {
    return cuDeviceTotalMem_v2(bytes, dev);
}

STUB_API CUresult cuDeviceGetPCIBusId(char *id, int len, CUdevice dev) {
    static const char BUS[] = "0000:01:00.0";
    if (!id || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_device(dev);
    if (r != CUDA_SUCCESS) return r;
    strncpy(id, BUS, (size_t)len - 1);
    id[len - 1] = '\0';
    return CUDA_SUCCESS;
}

STUB_API CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev) {
    if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_device(dev);
    if (r == CUDA_SUCCESS) {
        *major = 8;
        *minor = 6;
    }
    return r;
}

/* CUdevice_attribute values (cuda.h) and what an RTX 3080 reports; anything else is 0. */
static int attribute(int attr) {
    switch (attr) {
    case 1: return 1024;        /* MAX_THREADS_PER_BLOCK */
    case 2: return 1024;        /* MAX_BLOCK_DIM_X */
    case 3: return 1024;        /* MAX_BLOCK_DIM_Y */
    case 4: return 64;          /* MAX_BLOCK_DIM_Z */
    case 5: return 2147483647;  /* MAX_GRID_DIM_X */
    case 6: return 65535;       /* MAX_GRID_DIM_Y */
    case 7: return 65535;       /* MAX_GRID_DIM_Z */
    case 8: return 49152;       /* MAX_SHARED_MEMORY_PER_BLOCK */
    case 9: return 65536;       /* TOTAL_CONSTANT_MEMORY */
    case 10: return 32;         /* WARP_SIZE */
    case 11: return 2147483647; /* MAX_PITCH */
    case 12: return 65536;      /* MAX_REGISTERS_PER_BLOCK */
    case 13: return 1710000;    /* CLOCK_RATE (kHz) */
    case 14: return 512;        /* TEXTURE_ALIGNMENT */
    case 15: return 1;          /* GPU_OVERLAP */
    case 16: return 68;         /* MULTIPROCESSOR_COUNT */
    case 19: return 1;          /* CAN_MAP_HOST_MEMORY */
    case 31: return 1;          /* CONCURRENT_KERNELS */
    case 33: return 1;          /* PCI_BUS_ID */
    case 36: return 9501000;    /* MEMORY_CLOCK_RATE (kHz) */
    case 37: return 320;        /* GLOBAL_MEMORY_BUS_WIDTH */
    case 38: return 5242880;    /* L2_CACHE_SIZE */
    case 39: return 1536;       /* MAX_THREADS_PER_MULTIPROCESSOR */
    case 40: return 2;          /* ASYNC_ENGINE_COUNT */
    case 41: return 1;          /* UNIFIED_ADDRESSING */
    case 75: return 8;          /* COMPUTE_CAPABILITY_MAJOR */
    case 76: return 6;          /* COMPUTE_CAPABILITY_MINOR */
    case 81: return 102400;     /* MAX_SHARED_MEMORY_PER_MULTIPROCESSOR */
    case 82: return 65536;      /* MAX_REGISTERS_PER_MULTIPROCESSOR */
    case 97: return 101376;     /* MAX_SHARED_MEMORY_PER_BLOCK_OPTIN */
    default: return 0;
    }
}

STUB_API CUresult cuDeviceGetAttribute(int *value, int attr, CUdevice dev) {
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_device(dev);
    if (r == CUDA_SUCCESS) *value = attribute(attr);
    return r;
}

STUB_API CUresult cuDeviceGetUuid(unsigned char uuid[16], CUdevice dev) {
    if (!uuid) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_device(dev);
    if (r == CUDA_SUCCESS) memset(uuid, 0x5a, 16);
    return r;
}

STUB_API CUresult cuDeviceGetUuid_v2(unsigned char uuid[16], CUdevice dev) {
    return cuDeviceGetUuid(uuid, dev);
}

STUB_API CUresult cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer) {
    if (!can) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_device(dev);
    if (r == CUDA_SUCCESS) r = check_device(peer);
    if (r == CUDA_SUCCESS) *can = 0;
    return r;
}

STUB_API CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active) {
    if (!flags || !active) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = check_device(dev);
    if (r == CUDA_SUCCESS) {
        *flags = 0;
        *active = 0;
    }
    return r;
}

STUB_API CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev) {
    (void)ctx;
    (void)dev;
    return CUDA_ERROR_NOT_SUPPORTED;
}

STUB_API CUresult cuCtxCreate_v2(CUcontext *ctx, unsigned int flags, CUdevice dev) {
    (void)ctx;
    (void)flags;
    (void)dev;
    return CUDA_ERROR_NOT_SUPPORTED;
}

STUB_API CUresult cuCtxGetCurrent(CUcontext *ctx) {
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    *ctx = NULL;
    return CUDA_SUCCESS;
}

STUB_API CUresult cuGetErrorName(CUresult error, const char **name) {
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    switch (error) {
    case CUDA_SUCCESS: *name = "CUDA_SUCCESS"; break;
    case CUDA_ERROR_INVALID_VALUE: *name = "CUDA_ERROR_INVALID_VALUE"; break;
    case CUDA_ERROR_NOT_INITIALIZED: *name = "CUDA_ERROR_NOT_INITIALIZED"; break;
    case CUDA_ERROR_INVALID_DEVICE: *name = "CUDA_ERROR_INVALID_DEVICE"; break;
    case CUDA_ERROR_NOT_SUPPORTED: *name = "CUDA_ERROR_NOT_SUPPORTED"; break;
    default: *name = "CUDA_ERROR_UNKNOWN"; break;
    }
    return CUDA_SUCCESS;
}

STUB_API CUresult cuGetErrorString(CUresult error, const char **text) {
    if (!text) return CUDA_ERROR_INVALID_VALUE;
    *text = error == CUDA_ERROR_NOT_SUPPORTED ? "operation not supported (a stub driver)"
                                              : "stub CUDA driver";
    return CUDA_SUCCESS;
}

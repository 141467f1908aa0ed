/* A cuBLAS that identifies itself as 13.1.0 and aborts the process as soon as it is used: the
 * device check (device_check.sh) points `gpu-test --cublas` at it to see that a library which
 * aborts inside the test becomes a finding naming the stage, not a lost test.
 * Build: cc -shared -fPIC -o libcublas.so.13 aborting_cublas.c */
#include <stdlib.h>

int cublasGetProperty(int type, int *value) {
    static const int parts[] = {13, 1, 0};
    if (type < 0 || type > 2) return 7; /* CUBLAS_STATUS_INVALID_VALUE */
    *value = parts[type];
    return 0;
}

int cublasCreate_v2(void **handle) { (void)handle; abort(); }
int cublasDestroy_v2(void *handle) { (void)handle; abort(); }
int cublasGetVersion_v2(void *handle, int *version) { (void)handle; (void)version; abort(); }
int cublasSetMathMode(void *handle, int mode) { (void)handle; (void)mode; abort(); }
int cublasSgemm_v2(void) { abort(); }
int cublasGemmEx(void) { abort(); }

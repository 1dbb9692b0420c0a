/* cuda_check.c -- CUDA's, cuBLAS's and cuSPARSE's statuses as spk errors
 * naming the call and the cause; whether a device is usable; device
 * memory with a message that says how much was asked and free. */
#include "exec_cuda.h"

#include <dlfcn.h>
#include <stdio.h>

int spk_cuda_check(spk_err *err, cudaError_t st, const char *call)
{
    if (st == cudaSuccess) return SPK_OK;
    cudaGetLastError(); /* clear a non-sticky error so the next launch check does not see it */
    int code = st == cudaErrorMemoryAllocation ? SPK_ERR_NOMEM : SPK_ERR_DEVICE;
    return spk_err_set(err, code, "%s failed: %s (%s)", call, cudaGetErrorString(st),
                       cudaGetErrorName(st));
}

int spk_cublas_check(spk_err *err, cublasStatus_t st, const char *call)
{
    if (st == CUBLAS_STATUS_SUCCESS) return SPK_OK;
    int code = st == CUBLAS_STATUS_ALLOC_FAILED ? SPK_ERR_NOMEM : SPK_ERR_DEVICE;
    return spk_err_set(err, code, "%s failed: %s (%s)", call, cublasGetStatusString(st),
                       cublasGetStatusName(st));
}

int spk_cusparse_check(spk_err *err, cusparseStatus_t st, const char *call)
{
    if (st == CUSPARSE_STATUS_SUCCESS) return SPK_OK;
    int code = st == CUSPARSE_STATUS_ALLOC_FAILED ? SPK_ERR_NOMEM : SPK_ERR_DEVICE;
    return spk_err_set(err, code, "%s failed: %s (%s)", call, cusparseGetErrorString(st),
                       cusparseGetErrorName(st));
}

/* Why no device is usable, in words a user can act on: no driver at all,
 * a driver older than the runtime spk was built with, or no GPU. */
static const char *why_unusable(cudaError_t st)
{
    static char buf[200];
    if (st == cudaErrorInsufficientDriver) {
        void *drv = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
        if (!drv) return "no NVIDIA driver found (libcuda.so.1 cannot be loaded): the host is used";
        dlclose(drv);
        int d = 0, r = 0;
        cudaDriverGetVersion(&d);
        cudaRuntimeGetVersion(&r);
        snprintf(buf, sizeof buf,
                 "the NVIDIA driver supports CUDA %d.%d, older than the CUDA %d.%d runtime spk was built with: "
                 "update the driver", d / 1000, d % 1000 / 10, r / 1000, r % 1000 / 10);
        return buf;
    }
    if (st == cudaErrorNoDevice) return "no NVIDIA GPU found (the driver sees none)";
    return cudaGetErrorString(st);
}

int spk_cuda_available(const char **why)
{
    int count = 0;
    cudaError_t st = cudaGetDeviceCount(&count);
    if (st != cudaSuccess) {
        if (why) *why = why_unusable(st);
        cudaGetLastError(); /* clear the sticky-free error state */
        return 0;
    }
    if (count == 0) {
        if (why) *why = "no NVIDIA GPU found (the driver sees none)";
        return 0;
    }
    return 1;
}

int spk_cuda_alloc(spk_exec *e, size_t bytes, const char *what, void **p)
{
    *p = NULL;
    cudaError_t st = cudaMalloc(p, bytes ? bytes : 1);
    if (st == cudaSuccess) return SPK_OK;
    cudaGetLastError();
    *p = NULL;
    size_t freeb = 0, total = 0;
    cudaMemGetInfo(&freeb, &total);
    if (st == cudaErrorMemoryAllocation)
        return spk_err_set(e->err, SPK_ERR_NOMEM,
                           "out of device memory: %s needs %zu bytes but only %zu of %zu bytes "
                           "are free on the GPU",
                           what ? what : "an allocation", bytes, freeb, total);
    return spk_cuda_check(e->err, st, "cudaMalloc");
}

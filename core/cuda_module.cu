// cuda_module.cu -- spk_module_preload (cuda_module.h): the driver's calls
// for a module's kernels, found at run time (no link to the driver library).
#include <cuda.h>
#include <cuda_runtime.h>

#include <stdlib.h>

#include "core/cuda_module.h"

// The driver's calls for loading a module's kernels, found at run time (no
// link to the driver library); 0 where the driver has none (before 12.4).
typedef CUresult (*fn_get_module)(CUmodule *, CUfunction);
typedef CUresult (*fn_count)(unsigned *, CUmodule);
typedef CUresult (*fn_enumerate)(CUfunction *, unsigned, CUmodule);
typedef CUresult (*fn_load)(CUfunction);

static int driver_call(const char *name, void **fn)
{
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    *fn = NULL;
    return cudaGetDriverEntryPointByVersion(name, fn, 12040, cudaEnableDefault, &q) == cudaSuccess &&
           q == cudaDriverEntryPointSuccess && *fn;
}

extern "C" cudaError_t spk_module_preload(const void *kernel, int *done)
{
    *done = 0;
    void *g = NULL, *c = NULL, *en = NULL, *ld = NULL;
    if (!driver_call("cuFuncGetModule", &g) || !driver_call("cuModuleGetFunctionCount", &c) ||
        !driver_call("cuModuleEnumerateFunctions", &en) || !driver_call("cuFuncLoad", &ld))
        return cudaSuccess;
    cudaFunction_t f = NULL;
    cudaError_t st = cudaGetFuncBySymbol(&f, kernel);
    if (st != cudaSuccess) return st;
    CUmodule m = NULL;
    unsigned count = 0;
    if (((fn_get_module)g)(&m, (CUfunction)f) != CUDA_SUCCESS || ((fn_count)c)(&count, m) != CUDA_SUCCESS)
        return cudaErrorUnknown;
    CUfunction *all = (CUfunction *)calloc(count ? count : 1, sizeof *all);
    if (!all) return cudaErrorMemoryAllocation;
    st = ((fn_enumerate)en)(all, count, m) == CUDA_SUCCESS ? cudaSuccess : cudaErrorUnknown;
    for (unsigned i = 0; st == cudaSuccess && i < count; i++)
        if (((fn_load)ld)(all[i]) != CUDA_SUCCESS) st = cudaErrorUnknown;
    free(all);
    *done = st == cudaSuccess;
    return st;
}


/* devfactor_common.cuh -- what the parts of devfactor.cu share: the block
 * size of the elementwise kernels, the grids of their launches, a search in
 * a sorted row.  Part of devfactor.cu's module: included there (and by its
 * parts), never built on its own. */
#ifndef SPK_PRECOND_DEVFACTOR_COMMON_CUH
#define SPK_PRECOND_DEVFACTOR_COMMON_CUH

#include <cuda_runtime_api.h>

#define FULL_MASK 0xffffffffu

namespace {

constexpr int kBlock = 256;

unsigned blocks_for(long long threads)
{
    return (unsigned)((threads + kBlock - 1) / kBlock);
}

/* First position in [lo, hi) whose column is >= c. */
__device__ __forceinline__ int lower_bound(const int *ci, int lo, int hi, int c)
{
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (ci[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Enough blocks of `per_block` workers to fill the GPU, at most 16 per SM
 * and no more than the work needs (any grid is safe: see order_kernel). */
cudaError_t resident_grid(long long work, int per_block, unsigned *grid)
{
    int dev = 0, sms = 0;
    cudaError_t st = cudaGetDevice(&dev);
    if (st == cudaSuccess) st = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (st != cudaSuccess) return st;
    long long g = (work + per_block - 1) / per_block;
    if (g > 16LL * sms) g = 16LL * sms;
    *grid = (unsigned)(g > 0 ? g : 1);
    return cudaSuccess;
}

} // namespace

#endif

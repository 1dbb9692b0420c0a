/* devfactor_check.cuh -- the vectors and norms of the sweeps' check: the
 * probe, a scaled difference, and norms summed in a fixed order, so that
 * the check's result does not depend on timing (devfactor.h).  Part of
 * devfactor.cu's module: included there once. */
#ifndef SPK_PRECOND_DEVFACTOR_CHECK_CUH
#define SPK_PRECOND_DEVFACTOR_CHECK_CUH

#include "devfactor.h"
#include "devfactor_common.cuh"

namespace {

__global__ void probe_kernel(int n, double *x)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    unsigned h = (unsigned)i * 2654435761u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    x[i] = 0.5 + ((h >> 8) & 0xffff) * (1.0 / 65536.0);
}

/* y = (a - b) / idiag (idiag NULL: a - b); y may be a or b. */
__global__ void sub_scaled_kernel(int n, const double *idiag, const double *a, const double *b, double *y)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    const double d = a[i] - b[i];
    y[i] = idiag ? d / idiag[i] : d;
}

/* The sum of s over a block of kBlock threads, in thread 0 (warps, then the
 * warps' sums in order: the same bits on every run). */
__device__ __forceinline__ double block_sum(double s)
{
    __shared__ double warp_sum[kBlock / 32];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(FULL_MASK, s, o);
    if ((threadIdx.x & 31) == 0) warp_sum[threadIdx.x / 32] = s;
    __syncthreads();
    double t = 0;
    if (threadIdx.x == 0)
        for (int w = 0; w < kBlock / 32; w++) t += warp_sum[w];
    return t;
}

/* part[blockIdx.x] = the block's sum of ((a - b) / idiag)^2 (b, idiag
 * NULL: 0, 1), a grid-stride loop; partial sums in a fixed order, so the
 * check's result does not depend on timing. */
__global__ void scaled_sq_kernel(int n, const double *__restrict__ idiag, const double *__restrict__ a,
                                 const double *__restrict__ b, double *__restrict__ part)
{
    double s = 0;
    for (int i = blockIdx.x * kBlock + threadIdx.x; i < n; i += gridDim.x * kBlock) {
        double d = a[i] - (b ? b[i] : 0.0);
        if (idiag) d /= idiag[i];
        s += d * d;
    }
    const double t = block_sum(s);
    if (threadIdx.x == 0) part[blockIdx.x] = t;
}

/* out[j] = sqrt(sum of part[j * parts .. (j + 1) * parts - 1]), a block per
 * j (the same order of additions on every run). */
__global__ void sum_parts_kernel(int parts, const double *__restrict__ part, double *__restrict__ out)
{
    const double *p = part + (size_t)blockIdx.x * parts;
    double t = 0;
    for (int k = threadIdx.x; k < parts; k += kBlock) t += p[k];
    const double u = block_sum(t);
    if (threadIdx.x == 0) out[blockIdx.x] = sqrt(u);
}

} // namespace

extern "C" cudaError_t spk_dev_probe(cudaStream_t s, int n, double *x)
{
    if (n == 0) return cudaSuccess;
    probe_kernel<<<blocks_for(n), kBlock, 0, s>>>(n, x);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_sub_scaled(cudaStream_t s, int n, const double *idiag, const double *a, const double *b,
                                          double *y)
{
    if (n == 0) return cudaSuccess;
    sub_scaled_kernel<<<blocks_for(n), kBlock, 0, s>>>(n, idiag, a, b, y);
    return cudaGetLastError();
}

/* Up to 1024 blocks of partial sums: a GPU's worth of threads, so that a
 * norm of a large vector reads at the memory's rate (a few dozen blocks
 * leave most of the GPU idle). */
extern "C" int spk_dev_norm_parts(int n)
{
    const long long b = blocks_for(n);
    return (int)(b < 1 ? 1 : b > 1024 ? 1024 : b);
}

extern "C" cudaError_t spk_dev_scaled_norm_part(cudaStream_t s, int n, const double *idiag, const double *a,
                                                const double *b, double *part)
{
    scaled_sq_kernel<<<(unsigned)spk_dev_norm_parts(n), kBlock, 0, s>>>(n, idiag, a, b, part);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_norm_finish(cudaStream_t s, int m, int parts, const double *part, double *out)
{
    if (m == 0) return cudaSuccess;
    sum_parts_kernel<<<(unsigned)m, kBlock, 0, s>>>(parts, part, out);
    return cudaGetLastError();
}

#endif

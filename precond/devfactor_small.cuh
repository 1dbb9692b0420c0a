/* devfactor_small.cuh -- a small system's whole apply in one thread block:
 * both triangles' sweeps on their sliced copies, or both exact solves, with
 * the iterates in shared memory (devtri.cuh's device functions; devfactor.h).
 * Part of devfactor.cu's module: included there once. */
#ifndef SPK_PRECOND_DEVFACTOR_SMALL_CUH
#define SPK_PRECOND_DEVFACTOR_SMALL_CUH

#include "devfactor.h"
#include "devtri.cuh"

namespace {

using namespace spk_devtri;

template <typename V>
__global__ void __launch_bounds__(kSmallBlock) small_apply_kernel(int n, int k, const int *sp0, const int *sc0,
                                                                  const V *sv0, const double *id0, const int *sp1,
                                                                  const int *sc1, const V *sv1, const double *id1,
                                                                  const double *r, double *y, double *z)
{
    extern __shared__ double small_x[];
    small_tri(n, k, sp0, sc0, sv0, id0, r, small_x, small_x + n, y);
    small_tri(n, k, sp1, sc1, sv1, id1, y, small_x, small_x + n, z);
}

__global__ void __launch_bounds__(kSmallBlock) small_solve_kernel(int n, spk_dev_tri l, spk_dev_tri u,
                                                                  const double *r, double *y, double *z)
{
    extern __shared__ double small_x[];
    small_solve_tri(n, 0, l, r, small_x, y);
    small_solve_tri(n, 1, u, y, small_x, z);
}

} // namespace

extern "C" cudaError_t spk_dev_small_init(int n)
{
    const size_t bytes = 2 * (size_t)n * sizeof(double);
    if (n > SPK_DEV_SMALL_ROWS) return cudaErrorInvalidValue;
    cudaError_t st = cudaFuncSetAttribute(small_apply_kernel<float>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          (int)bytes);
    if (st == cudaSuccess)
        st = cudaFuncSetAttribute(small_apply_kernel<double>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)bytes);
    return st;
}

extern "C" cudaError_t spk_dev_small_apply(cudaStream_t s, int n, int k, int single, const int *const sp[2],
                                           const int *const scol[2], const void *const sval[2],
                                           const double *const id[2], const double *r, double *y, double *z)
{
    if (n == 0 || k < 1) return cudaSuccess;
    if (n > SPK_DEV_SMALL_ROWS) return cudaErrorInvalidValue;
    const size_t bytes = 2 * (size_t)n * sizeof(double);
    if (single)
        small_apply_kernel<float><<<1, kSmallBlock, bytes, s>>>(n, k, sp[0], scol[0], (const float *)sval[0], id[0],
                                                                sp[1], scol[1], (const float *)sval[1], id[1], r, y,
                                                                z);
    else
        small_apply_kernel<double><<<1, kSmallBlock, bytes, s>>>(n, k, sp[0], scol[0], (const double *)sval[0],
                                                                 id[0], sp[1], scol[1], (const double *)sval[1],
                                                                 id[1], r, y, z);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_small_solve_init(int n)
{
    if (n > SPK_DEV_SOLVE_ROWS) return cudaErrorInvalidValue;
    return cudaFuncSetAttribute(small_solve_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)((size_t)n * sizeof(double)));
}

extern "C" cudaError_t spk_dev_small_solve(cudaStream_t s, int n, spk_dev_tri l, spk_dev_tri u, const double *r,
                                           double *y, double *z)
{
    if (n == 0) return cudaSuccess;
    if (n > SPK_DEV_SOLVE_ROWS) return cudaErrorInvalidValue;
    small_solve_kernel<<<1, kSmallBlock, (size_t)n * sizeof(double), s>>>(n, l, u, r, y, z);
    return cudaGetLastError();
}

#endif

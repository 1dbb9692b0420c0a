// zops_kernels.cu -- element-wise complex kernels (core/zops_kernels.h).
#include "zcomplex.cuh"
#include "zops_kernels.h"

namespace {

__global__ void zaxpby_kernel(int n, spk_zc a, const spk_zc *__restrict__ x, spk_zc b, int bzero,
                              spk_zc *__restrict__ y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const spk_zc ax = a * x[i];
    y[i] = bzero ? ax : ax + b * y[i];
}

__global__ void zmul_kernel(int n, const spk_zc *__restrict__ d, const spk_zc *x, spk_zc *z)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = d[i] * x[i];
}

unsigned blocks_for(int n)
{
    return (unsigned)((n + 255) / 256);
}

}  // namespace

extern "C" cudaError_t spk_cuda_zaxpby(cudaStream_t s, int n, double ar, double ai, const double *x, double br,
                                       double bi, int bzero, double *y)
{
    if (n <= 0) return cudaSuccess;
    zaxpby_kernel<<<blocks_for(n), 256, 0, s>>>(n, spk_zc(ar, ai), reinterpret_cast<const spk_zc *>(x),
                                                 spk_zc(br, bi), bzero, reinterpret_cast<spk_zc *>(y));
    return cudaGetLastError();
}

extern "C" cudaError_t spk_cuda_zmul(cudaStream_t s, int n, const double *d, const double *x, double *z)
{
    if (n <= 0) return cudaSuccess;
    zmul_kernel<<<blocks_for(n), 256, 0, s>>>(n, reinterpret_cast<const spk_zc *>(d),
                                               reinterpret_cast<const spk_zc *>(x), reinterpret_cast<spk_zc *>(z));
    return cudaGetLastError();
}

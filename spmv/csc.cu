// csc.cu -- CSC kernels: y = beta*y (0 where beta is 0: y is not read), then
// a thread per column j adds alpha * a_ij * x_j into y_i with an atomic add
// for each of its entries.
#include "csc.h"
#include "real.cuh"

namespace {

template <typename T>
__global__ void csc_scale_kernel(int n, T beta, T *__restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = beta == T(0) ? T(0) : beta * y[i];
}

template <typename T>
__global__ void csc_kernel(int ncols, const int *__restrict__ colptr, const int *__restrict__ rowind,
                           const T *__restrict__ val, T alpha, const T *__restrict__ x, T *y)
{
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < ncols; j += gridDim.x * blockDim.x) {
        const T xj = __ldg(&x[j]);
        for (int q = colptr[j], e = colptr[j + 1]; q < e; q++) atomicAdd(&y[rowind[q]], alpha * (val[q] * xj));
    }
}

template <typename T>
cudaError_t csc_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_csc *C = static_cast<const spk_fmt_csc *>(fmt);
    if (C->nrows == 0) return cudaSuccess;
    csc_scale_kernel<T><<<(C->nrows + 255) / 256, 256, 0, s>>>(C->nrows, beta, y);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess || C->nnz == 0) return e;
    csc_kernel<T><<<(C->ncols + 255) / 256, 256, 0, s>>>(C->ncols, C->colptr, C->rowind, spk_real<T>(C->val), alpha,
                                                         x, y);
    return cudaGetLastError();
}

}  // namespace

SPK_LAUNCH_BOTH(spk_csc_launch, csc_launch)

// csc.cu -- CSC kernels: y = beta*y (0 where beta is 0: y is not read), then
// a thread per column j adds alpha * a_ij * x_j into y_i with an atomic add
// for each of its entries.
#include "csc.h"

namespace {

__global__ void csc_scale_kernel(int n, double beta, double *__restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = beta == 0.0 ? 0.0 : beta * y[i];
}

__global__ void csc_kernel(int ncols, const int *__restrict__ colptr, const int *__restrict__ rowind,
                           const double *__restrict__ val, double alpha, const double *__restrict__ x, double *y)
{
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < ncols; j += gridDim.x * blockDim.x) {
        const double xj = __ldg(&x[j]);
        for (int q = colptr[j], e = colptr[j + 1]; q < e; q++) atomicAdd(&y[rowind[q]], alpha * (val[q] * xj));
    }
}

}  // namespace

extern "C" cudaError_t spk_csc_launch(const void *fmt, cudaStream_t s, double alpha, const double *x, double beta,
                                      double *y)
{
    const spk_fmt_csc *C = static_cast<const spk_fmt_csc *>(fmt);
    if (C->nrows == 0) return cudaSuccess;
    csc_scale_kernel<<<(C->nrows + 255) / 256, 256, 0, s>>>(C->nrows, beta, y);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess || C->nnz == 0) return e;
    csc_kernel<<<(C->ncols + 255) / 256, 256, 0, s>>>(C->ncols, C->colptr, C->rowind, C->val, alpha, x, y);
    return cudaGetLastError();
}

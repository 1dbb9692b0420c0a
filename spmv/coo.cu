// coo.cu -- COO kernels: y = beta*y, then each thread adds a run of RUN
// consecutive (row-sorted) entries, with one atomic add per row it touches.
#include "coo.h"

namespace {

constexpr int RUN = 8;

__global__ void scale_kernel(int n, double beta, double *__restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = beta == 0.0 ? 0.0 : beta * y[i];
}

__global__ void coo_kernel(int nnz, const int *__restrict__ row, const int *__restrict__ col,
                           const double *__restrict__ val, double alpha, const double *__restrict__ x,
                           double *y)
{
    const long long first = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * RUN;
    if (first >= nnz) return;
    const int last = first + RUN < nnz ? (int)first + RUN : nnz;
    int r = row[first];
    double s = 0;
    for (int k = (int)first; k < last; k++) {
        if (row[k] != r) {
            atomicAdd(&y[r], alpha * s);
            r = row[k];
            s = 0;
        }
        s += val[k] * __ldg(&x[col[k]]);
    }
    atomicAdd(&y[r], alpha * s);
}

}  // namespace

extern "C" cudaError_t spk_coo_accumulate(const spk_fmt_coo *C, cudaStream_t s, double alpha,
                                          const double *x, double *y)
{
    if (C->nnz == 0) return cudaSuccess;
    long long threads = ((long long)C->nnz + RUN - 1) / RUN;
    coo_kernel<<<(unsigned)((threads + 255) / 256), 256, 0, s>>>(C->nnz, C->row, C->col, C->val, alpha, x,
                                                                  y);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_coo_launch(const void *fmt, cudaStream_t s, double alpha, const double *x,
                                      double beta, double *y)
{
    const spk_fmt_coo *C = static_cast<const spk_fmt_coo *>(fmt);
    if (C->nrows == 0) return cudaSuccess;
    scale_kernel<<<(C->nrows + 255) / 256, 256, 0, s>>>(C->nrows, beta, y);
    cudaError_t e = cudaGetLastError();
    return e != cudaSuccess ? e : spk_coo_accumulate(C, s, alpha, x, y);
}

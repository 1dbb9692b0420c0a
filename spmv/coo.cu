// coo.cu -- COO kernels: y = beta*y, then each thread adds a run of RUN
// consecutive (row-sorted) entries, with one atomic add per row it touches.
#include "coo.h"
#include "real.cuh"

namespace {

constexpr int RUN = 8;

template <typename T>
__global__ void scale_kernel(int n, T beta, T *__restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = beta == T(0) ? T(0) : beta * y[i];
}

template <typename T>
__global__ void coo_kernel(int nnz, const int *__restrict__ row, const int *__restrict__ col,
                           const T *__restrict__ val, T alpha, const T *__restrict__ x, T *y)
{
    const long long first = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * RUN;
    if (first >= nnz) return;
    const int last = first + RUN < nnz ? (int)first + RUN : nnz;
    int r = row[first];
    T s = 0;
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

template <typename T>
cudaError_t coo_accumulate(const spk_fmt_coo *C, cudaStream_t s, T alpha, const T *x, T *y)
{
    if (C->nnz == 0) return cudaSuccess;
    long long threads = ((long long)C->nnz + RUN - 1) / RUN;
    coo_kernel<T><<<(unsigned)((threads + 255) / 256), 256, 0, s>>>(C->nnz, C->row, C->col, spk_real<T>(C->val),
                                                                     alpha, x, y);
    return cudaGetLastError();
}

template <typename T>
cudaError_t coo_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_coo *C = static_cast<const spk_fmt_coo *>(fmt);
    if (C->nrows == 0) return cudaSuccess;
    scale_kernel<T><<<(C->nrows + 255) / 256, 256, 0, s>>>(C->nrows, beta, y);
    cudaError_t e = cudaGetLastError();
    return e != cudaSuccess ? e : coo_accumulate<T>(C, s, alpha, x, y);
}

}  // namespace

extern "C" cudaError_t spk_coo_accumulate(const spk_fmt_coo *C, cudaStream_t s, double alpha, const double *x,
                                          double *y)
{
    return coo_accumulate<double>(C, s, alpha, x, y);
}

extern "C" cudaError_t spk_coo_accumulate_float(const spk_fmt_coo *C, cudaStream_t s, float alpha, const float *x,
                                                float *y)
{
    return coo_accumulate<float>(C, s, alpha, x, y);
}

SPK_LAUNCH_BOTH(spk_coo_launch, coo_launch)

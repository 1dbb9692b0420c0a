// scsr.cu -- streamed CSR and BCSR kernels (scsr.h).  scsr: a warp per
// block row, lane s the row of stream s, reading its stream sequentially.
// sbcsr: a thread per row of A, reading its stream (its row of each block)
// sequentially along its block row.
#include "scsr.h"
#include "real.cuh"

namespace {

template <typename T>
__global__ void scsr_kernel(int nrows, long long len, const int *__restrict__ ptr, const int *__restrict__ colind,
                            const T *__restrict__ val, T alpha, const T *__restrict__ x, T beta, T *__restrict__ y)
{
    constexpr int S = SPK_SCSR_STREAMS;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nrows; i += gridDim.x * blockDim.x) {
        const int br = i / S;
        const size_t base = (size_t)(i % S) * (size_t)len + (size_t)ptr[br];
        T s = 0;
        for (int k = 0, w = ptr[br + 1] - ptr[br]; k < w; k++) s += val[base + k] * __ldg(&x[colind[base + k]]);
        y[i] = beta == T(0) ? alpha * s : alpha * s + beta * y[i];
    }
}

template <typename T>
__global__ void sbcsr_kernel(int nrows, int ncols, int b, int nblocks, const int *__restrict__ browptr,
                             const int *__restrict__ bcol, const T *__restrict__ val, T alpha,
                             const T *__restrict__ x, T beta, T *__restrict__ y)
{
    const size_t stream = (size_t)nblocks * (size_t)b;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nrows; i += gridDim.x * blockDim.x) {
        const int br = i / b, r = i % b;
        const T *v = val + (size_t)r * stream;
        T s = 0;
        for (int q = browptr[br], e = browptr[br + 1]; q < e; q++) {
            const long long c0 = (long long)bcol[q] * b;
            for (int c = 0; c < b; c++)
                if (c0 + c < ncols) s += v[(size_t)q * b + c] * __ldg(&x[c0 + c]);
        }
        y[i] = beta == T(0) ? alpha * s : alpha * s + beta * y[i];
    }
}

template <typename T>
cudaError_t scsr_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_scsr *F = static_cast<const spk_fmt_scsr *>(fmt);
    if (F->nrows == 0) return cudaSuccess;
    scsr_kernel<T><<<(F->nrows + 255) / 256, 256, 0, s>>>(F->nrows, F->len, F->ptr, F->colind, spk_real<T>(F->val),
                                                          alpha, x, beta, y);
    return cudaGetLastError();
}

template <typename T>
cudaError_t sbcsr_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_sbcsr *F = static_cast<const spk_fmt_sbcsr *>(fmt);
    if (F->nrows == 0) return cudaSuccess;
    sbcsr_kernel<T><<<(F->nrows + 255) / 256, 256, 0, s>>>(F->nrows, F->ncols, F->b, F->nblocks, F->browptr,
                                                            F->bcol, spk_real<T>(F->val), alpha, x, beta, y);
    return cudaGetLastError();
}

}  // namespace

SPK_LAUNCH_BOTH(spk_scsr_launch, scsr_launch)
SPK_LAUNCH_BOTH(spk_sbcsr_launch, sbcsr_launch)

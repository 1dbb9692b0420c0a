// teb.cu -- TEB kernels.  y = alpha*A*x + beta*y; beta == 0 does not read y.
//   teb:      Alg. 3 -- one thread block per sub-block, one thread per row
//             (looping when a sub-block has more rows than threads).
//   teb-fast: the same partition; W threads per row (W = 2^k <= the average
//             row length, <= 32) share the row's nonzeros and meet in a shuffle
//             reduction, so one long row no longer holds up its sub-block.
#include "teb.h"
#include "real.cuh"

namespace {

template <typename T>
__global__ void teb_kernel(const int *__restrict__ blo, const int *__restrict__ rs,
                           const int *__restrict__ col, const T *__restrict__ val,
                           const int *__restrict__ orig, T alpha, const T *__restrict__ x,
                           T beta, T *__restrict__ y)
{
    const int first = blo[blockIdx.x], last = blo[blockIdx.x + 1];
    for (int r = first + threadIdx.x; r < last; r += blockDim.x) {
        T s = 0;
        for (int q = rs[r]; q < rs[r + 1]; q++) s += val[q] * __ldg(&x[col[q]]);
        const int i = orig[r];
        y[i] = beta == T(0) ? alpha * s : alpha * s + beta * y[i];
    }
}

template <typename T, int W>
__global__ void teb_fast_kernel(const int *__restrict__ blo, const int *__restrict__ rs,
                                const int *__restrict__ col, const T *__restrict__ val,
                                const int *__restrict__ orig, T alpha, const T *__restrict__ x,
                                T beta, T *__restrict__ y)
{
    const int first = blo[blockIdx.x], last = blo[blockIdx.x + 1];
    const int group = threadIdx.x / W, lane = threadIdx.x % W, groups = blockDim.x / W;
    // every thread runs the same rounds, so the shuffles see whole warps
    for (int base = first; base < last; base += groups) {
        const int r = base + group;
        T s = 0;
        if (r < last)
            for (int q = rs[r] + lane; q < rs[r + 1]; q += W) s += val[q] * __ldg(&x[col[q]]);
        for (int off = W / 2; off > 0; off /= 2) s += __shfl_down_sync(0xffffffffu, s, off, W);
        if (r < last && lane == 0) {
            const int i = orig[r];
            y[i] = beta == T(0) ? alpha * s : alpha * s + beta * y[i];
        }
    }
}

int round_threads(long long want)
{
    int t = 32;
    while (t < 1024 && t < want) t *= 2;
    return t;
}

template <typename T, int W>
cudaError_t fast_t(const spk_fmt_teb *F, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    int threads = round_threads((long long)F->max_rows * W);
    if (threads > 256) threads = 256;
    teb_fast_kernel<T, W><<<F->nblocks, threads, 0, s>>>(F->blo, F->rs, F->col, spk_real<T>(F->val), F->orig,
                                                          alpha, x, beta, y);
    return cudaGetLastError();
}

template <typename T>
cudaError_t teb_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_teb *F = static_cast<const spk_fmt_teb *>(fmt);
    if (F->nrows == 0 || F->nblocks == 0) return cudaSuccess;
    teb_kernel<T><<<F->nblocks, round_threads(F->max_rows), 0, s>>>(F->blo, F->rs, F->col, spk_real<T>(F->val),
                                                                    F->orig, alpha, x, beta, y);
    return cudaGetLastError();
}

template <typename T>
cudaError_t teb_fast_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_teb *F = static_cast<const spk_fmt_teb *>(fmt);
    if (F->nrows == 0 || F->nblocks == 0) return cudaSuccess;
    switch (F->threads) {
    case 1: return fast_t<T, 1>(F, s, alpha, x, beta, y);
    case 2: return fast_t<T, 2>(F, s, alpha, x, beta, y);
    case 4: return fast_t<T, 4>(F, s, alpha, x, beta, y);
    case 8: return fast_t<T, 8>(F, s, alpha, x, beta, y);
    case 16: return fast_t<T, 16>(F, s, alpha, x, beta, y);
    default: return fast_t<T, 32>(F, s, alpha, x, beta, y);
    }
}

}  // namespace

SPK_LAUNCH_BOTH(spk_teb_launch, teb_launch)
SPK_LAUNCH_BOTH(spk_teb_fast_launch, teb_fast_launch)

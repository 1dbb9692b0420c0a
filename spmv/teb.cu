// teb.cu -- TEB kernels.  y = alpha*A*x + beta*y; beta == 0 does not read y.
//   teb:      Alg. 3 -- one thread block per sub-block, one thread per row
//             (looping when a sub-block has more rows than threads).
//   teb-fast: the same partition; W threads per row (W = 2^k <= the average
//             row length, <= 32) share the row's nonzeros and meet in a shuffle
//             reduction, so one long row no longer holds up its sub-block.
#include "teb.h"

namespace {

__global__ void teb_kernel(const int *__restrict__ blo, const int *__restrict__ rs,
                           const int *__restrict__ col, const double *__restrict__ val,
                           const int *__restrict__ orig, double alpha, const double *__restrict__ x,
                           double beta, double *__restrict__ y)
{
    const int first = blo[blockIdx.x], last = blo[blockIdx.x + 1];
    for (int r = first + threadIdx.x; r < last; r += blockDim.x) {
        double s = 0;
        for (int q = rs[r]; q < rs[r + 1]; q++) s += val[q] * __ldg(&x[col[q]]);
        const int i = orig[r];
        y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
    }
}

template <int W>
__global__ void teb_fast_kernel(const int *__restrict__ blo, const int *__restrict__ rs,
                                const int *__restrict__ col, const double *__restrict__ val,
                                const int *__restrict__ orig, double alpha, const double *__restrict__ x,
                                double beta, double *__restrict__ y)
{
    const int first = blo[blockIdx.x], last = blo[blockIdx.x + 1];
    const int group = threadIdx.x / W, lane = threadIdx.x % W, groups = blockDim.x / W;
    // every thread runs the same rounds, so the shuffles see whole warps
    for (int base = first; base < last; base += groups) {
        const int r = base + group;
        double s = 0;
        if (r < last)
            for (int q = rs[r] + lane; q < rs[r + 1]; q += W) s += val[q] * __ldg(&x[col[q]]);
        for (int off = W / 2; off > 0; off /= 2) s += __shfl_down_sync(0xffffffffu, s, off, W);
        if (r < last && lane == 0) {
            const int i = orig[r];
            y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
        }
    }
}

int round_threads(long long want)
{
    int t = 32;
    while (t < 1024 && t < want) t *= 2;
    return t;
}

template <int W>
cudaError_t fast_t(const spk_fmt_teb *T, cudaStream_t s, double alpha, const double *x, double beta,
                   double *y)
{
    int threads = round_threads((long long)T->max_rows * W);
    if (threads > 256) threads = 256;
    teb_fast_kernel<W><<<T->nblocks, threads, 0, s>>>(T->blo, T->rs, T->col, T->val, T->orig, alpha, x, beta,
                                                       y);
    return cudaGetLastError();
}

}  // namespace

extern "C" cudaError_t spk_teb_launch(const void *fmt, cudaStream_t s, double alpha, const double *x,
                                      double beta, double *y)
{
    const spk_fmt_teb *T = static_cast<const spk_fmt_teb *>(fmt);
    if (T->nrows == 0 || T->nblocks == 0) return cudaSuccess;
    teb_kernel<<<T->nblocks, round_threads(T->max_rows), 0, s>>>(T->blo, T->rs, T->col, T->val, T->orig, alpha,
                                                                 x, beta, y);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_teb_fast_launch(const void *fmt, cudaStream_t s, double alpha, const double *x,
                                           double beta, double *y)
{
    const spk_fmt_teb *T = static_cast<const spk_fmt_teb *>(fmt);
    if (T->nrows == 0 || T->nblocks == 0) return cudaSuccess;
    switch (T->threads) {
    case 1: return fast_t<1>(T, s, alpha, x, beta, y);
    case 2: return fast_t<2>(T, s, alpha, x, beta, y);
    case 4: return fast_t<4>(T, s, alpha, x, beta, y);
    case 8: return fast_t<8>(T, s, alpha, x, beta, y);
    case 16: return fast_t<16>(T, s, alpha, x, beta, y);
    default: return fast_t<32>(T, s, alpha, x, beta, y);
    }
}

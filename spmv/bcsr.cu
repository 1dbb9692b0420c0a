// bcsr.cu -- BCSR kernel: one warp per block row.  The block row's blocks
// are one run of values (column-major blocks, bcsr.h) in which position t
// holds row t mod b; with W = b * floor(32 / b) lanes striding by W, lane
// l = r + b*j (l < W) meets only row r's entries, reads the run coalesced,
// and finds the column from its block's bcolind and t's place in the block.
// Columns past the matrix (a partial last block column) are zeros and skip
// x.  The G = floor(32 / b) lanes of a row then meet pairwise in a tree of
// shuffles (offsets b, 2b, 4b, ...), and lane r writes row r (rows past the
// matrix, in a partial last block row, are not written).  The host
// reference forms the same sums in the same order.  y = alpha*A*x + beta*y;
// beta == 0 does not read y.
#include "bcsr.h"
#include "real.cuh"

namespace {

constexpr int kWarpsPerBlock = 8;

// BS > 0: the block size known at compile time (cheap divisions); 0: b at run time.
template <typename T, int BS>
__global__ void bcsr_kernel(int nrows, int ncols, int mb, int b_rt, const int *__restrict__ browptr,
                            const int *__restrict__ bcolind, const T *__restrict__ val, T alpha,
                            const T *__restrict__ x, T beta, T *__restrict__ y)
{
    const int b = BS > 0 ? BS : b_rt, bb = b * b, G = 32 / b, W = b * G;
    const int lane = threadIdx.x & 31;
    const int r = lane % b, j = lane / b; // lanes >= W have j >= G: they add nothing
    const int warps = gridDim.x * kWarpsPerBlock;
    for (int br = blockIdx.x * kWarpsPerBlock + (int)(threadIdx.x >> 5); br < mb; br += warps) {
        const int start = browptr[br], L = (browptr[br + 1] - start) * bb;
        const T *v = val + (size_t)start * (size_t)bb;
        const int *bc = bcolind + start;
        T s = 0;
        if (lane < W)
            for (int t = lane; t < L; t += W) {
                const int kk = t / bb, col = __ldg(&bc[kk]) * b + (t - kk * bb) / b;
                if (col < ncols) s += v[t] * __ldg(&x[col]);
            }
        for (int h = 1; h < G; h *= 2) {
            const T o = __shfl_down_sync(0xffffffffu, s, h * b);
            if (j % (2 * h) == 0 && j + h < G) s += o;
        }
        const int i = br * b + r;
        if (j == 0 && i < nrows) y[i] = beta == T(0) ? alpha * s : alpha * s + beta * y[i];
    }
}

template <typename T>
cudaError_t bcsr_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_bcsr *B = static_cast<const spk_fmt_bcsr *>(fmt);
    if (B->mb == 0) return cudaSuccess; /* no rows */
    /* no blocks (no entries, or no columns): every run is empty, y = beta y */
    const int blocks = (int)(((long long)B->mb + kWarpsPerBlock - 1) / kWarpsPerBlock);
    const int threads = 32 * kWarpsPerBlock;
    const T *val = spk_real<T>(B->val);
    switch (B->b) {
    case 2:
        bcsr_kernel<T, 2><<<blocks, threads, 0, s>>>(B->nrows, B->ncols, B->mb, B->b, B->browptr, B->bcolind, val,
                                                     alpha, x, beta, y);
        break;
    case 4:
        bcsr_kernel<T, 4><<<blocks, threads, 0, s>>>(B->nrows, B->ncols, B->mb, B->b, B->browptr, B->bcolind, val,
                                                     alpha, x, beta, y);
        break;
    case 8:
        bcsr_kernel<T, 8><<<blocks, threads, 0, s>>>(B->nrows, B->ncols, B->mb, B->b, B->browptr, B->bcolind, val,
                                                     alpha, x, beta, y);
        break;
    default:
        bcsr_kernel<T, 0><<<blocks, threads, 0, s>>>(B->nrows, B->ncols, B->mb, B->b, B->browptr, B->bcolind, val,
                                                     alpha, x, beta, y);
        break;
    }
    return cudaGetLastError();
}

}  // namespace

SPK_LAUNCH_BOTH(spk_bcsr_launch, bcsr_launch)

// csr_adaptive.cu -- CSR-Adaptive kernel (csr_adaptive.h): one thread block
// per row block.  A block of several rows (CSR-stream) stages its products
// val*x[col] in shared memory with coalesced loads and reduces each row from
// there, L threads a row; a block of one row (CSR-vector) strides along the
// row with all its threads and reduces through shuffles and shared memory.
// y = alpha*A*x + beta*y; beta == 0 does not read y.
#include "csr_adaptive.h"
#include "real.cuh"

namespace {

constexpr int THREADS = SPK_ADAPTIVE_THREADS;
constexpr int WARPS = THREADS / 32;

template <typename T>
__global__ void __launch_bounds__(THREADS)
    adaptive_kernel(const int *__restrict__ row_blocks, const int *__restrict__ rowptr,
                    const int *__restrict__ colind, const T *__restrict__ val, T alpha, const T *__restrict__ x,
                    T beta, T *__restrict__ y)
{
    __shared__ T prod[SPK_ADAPTIVE_NNZ];
    const int r0 = row_blocks[blockIdx.x], r1 = row_blocks[blockIdx.x + 1];
    const int tid = threadIdx.x;
    if (r1 - r0 == 1) { /* CSR-vector: the whole block on one row (the branch is the block's) */
        T s = 0;
        for (int q = rowptr[r0] + tid, e = rowptr[r0 + 1]; q < e; q += THREADS) s += val[q] * __ldg(&x[colind[q]]);
        for (int off = 16; off > 0; off /= 2) s += __shfl_down_sync(0xffffffffu, s, off);
        T *warp = prod; /* the tile is free: the warps' sums */
        if ((tid & 31) == 0) warp[tid / 32] = s;
        __syncthreads();
        if (tid < 32) {
            T v = tid < WARPS ? warp[tid] : T(0);
            for (int off = WARPS / 2; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
            if (tid == 0) y[r0] = beta == T(0) ? alpha * v : alpha * v + beta * y[r0];
        }
        return;
    }
    /* CSR-stream: the block's nonzeros (at most the tile) as products, consecutive threads on consecutive entries */
    const int k0 = rowptr[r0], n = rowptr[r1] - k0;
    for (int q = tid; q < n; q += THREADS) prod[q] = val[k0 + q] * __ldg(&x[colind[k0 + q]]);
    __syncthreads();
    const int rows = r1 - r0, lanes = spk_adaptive_lanes(rows), groups = THREADS / lanes;
    const int g = tid / lanes, lane = tid % lanes;
    /* the same number of rounds for every thread, so the shuffles see every lane of the warp */
    for (int base = 0; base < rows; base += groups) {
        const int r = r0 + base + g;
        T s = 0;
        if (r < r1)
            for (int q = rowptr[r] - k0 + lane, e = rowptr[r + 1] - k0; q < e; q += lanes) s += prod[q];
        for (int off = lanes / 2; off > 0; off /= 2) s += __shfl_down_sync(0xffffffffu, s, off, lanes);
        if (r < r1 && lane == 0) y[r] = beta == T(0) ? alpha * s : alpha * s + beta * y[r];
    }
}

template <typename T>
cudaError_t csr_adaptive_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_csr_adaptive *C = static_cast<const spk_fmt_csr_adaptive *>(fmt);
    if (C->nblocks == 0) return cudaSuccess; /* no rows */
    adaptive_kernel<T><<<C->nblocks, THREADS, 0, s>>>(C->row_blocks, C->rowptr, C->colind, spk_real<T>(C->val), alpha,
                                                      x, beta, y);
    return cudaGetLastError();
}

}  // namespace

SPK_LAUNCH_BOTH(spk_csr_adaptive_launch, csr_adaptive_launch)

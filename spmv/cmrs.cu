// cmrs.cu -- CMRS kernel: a warp per strip of SPK_CMRS_STRIP rows.  Lane l
// reads the strip's entries l, l + 32, ... (consecutive addresses across the
// warp) and adds each product into its own sum for the entry's row in the
// strip; the lanes' sums meet with xor shuffles, and lane r writes row r.
#include "cmrs.h"
#include "real.cuh"

namespace {

constexpr int kH = SPK_CMRS_STRIP;

template <typename T>
__global__ void cmrs_kernel(int nrows, int nstrips, const int *__restrict__ sptr, const unsigned char *__restrict__ rin,
                            const int *__restrict__ colind, const T *__restrict__ val, T alpha,
                            const T *__restrict__ x, T beta, T *__restrict__ y)
{
    const int lane = threadIdx.x & 31;
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, warps = (gridDim.x * blockDim.x) >> 5;
    for (int s = warp; s < nstrips; s += warps) {
        T acc[kH];
#pragma unroll
        for (int r = 0; r < kH; r++) acc[r] = 0;
        for (int k = sptr[s] + lane, e = sptr[s + 1]; k < e; k += 32) {
            const T p = val[k] * __ldg(&x[colind[k]]);
            const int row = rin[k];
            /* a register sum by the row, without indexing registers at run time */
#pragma unroll
            for (int r = 0; r < kH; r++)
                if (r == row) acc[r] += p;
        }
#pragma unroll
        for (int r = 0; r < kH; r++)
            for (int o = 16; o > 0; o >>= 1) acc[r] += __shfl_xor_sync(0xffffffffu, acc[r], o);
        T mine = 0;
#pragma unroll
        for (int r = 0; r < kH; r++)
            if (r == lane) mine = acc[r];
        const int i = s * kH + lane;
        if (lane < kH && i < nrows) y[i] = beta == T(0) ? alpha * mine : alpha * mine + beta * y[i];
    }
}

template <typename T>
cudaError_t cmrs_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_cmrs *C = static_cast<const spk_fmt_cmrs *>(fmt);
    if (C->nrows == 0) return cudaSuccess;
    const int per_block = 256 / 32; /* strips a block of 256 threads takes */
    cmrs_kernel<T><<<(C->nstrips + per_block - 1) / per_block, 256, 0, s>>>(
        C->nrows, C->nstrips, C->sptr, C->rin, C->colind, spk_real<T>(C->val), alpha, x, beta, y);
    return cudaGetLastError();
}

}  // namespace

SPK_LAUNCH_BOTH(spk_cmrs_launch, cmrs_launch)

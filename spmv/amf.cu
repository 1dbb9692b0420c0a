// amf.cu -- AMF-CSR kernel: a block of 128 threads per sub-block, its four
// warps taking the sub-block's row blocks in turn.  A row block of one row
// (which may be long) is summed by the warp's 32 lanes, strided, then
// reduced with shuffles; a row block of several short rows (below T_s
// entries in all) gives each row to a lane, which sums it in order.
#include "amf.h"
#include "real.cuh"

namespace {

constexpr int kThreads = 128;

template <typename T>
__global__ void amf_kernel(const int *__restrict__ rowptr, const int *__restrict__ rbrow, const int *__restrict__ sbrb,
                           const int *__restrict__ colind, const T *__restrict__ val, T alpha, const T *__restrict__ x,
                           T beta, T *__restrict__ y)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int b0 = sbrb[blockIdx.x], b1 = sbrb[blockIdx.x + 1];
    for (int b = b0 + warp; b < b1; b += kThreads / 32) {
        const int r0 = rbrow[b], r1 = rbrow[b + 1];
        if (r1 - r0 == 1) {
            T s = 0;
            for (int k = rowptr[r0] + lane, e = rowptr[r0 + 1]; k < e; k += 32) s += val[k] * __ldg(&x[colind[k]]);
            for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
            if (lane == 0) y[r0] = beta == T(0) ? alpha * s : alpha * s + beta * y[r0];
        } else {
            for (int i = r0 + lane; i < r1; i += 32) {
                T s = 0;
                for (int k = rowptr[i], e = rowptr[i + 1]; k < e; k++) s += val[k] * __ldg(&x[colind[k]]);
                y[i] = beta == T(0) ? alpha * s : alpha * s + beta * y[i];
            }
        }
    }
}

template <typename T>
cudaError_t amf_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_amf *F = static_cast<const spk_fmt_amf *>(fmt);
    if (F->nsb == 0) return cudaSuccess;
    amf_kernel<T><<<F->nsb, kThreads, 0, s>>>(F->rowptr, F->rbrow, F->sbrb, F->colind, spk_real<T>(F->val), alpha, x,
                                              beta, y);
    return cudaGetLastError();
}

}  // namespace

SPK_LAUNCH_BOTH(spk_amf_launch, amf_launch)

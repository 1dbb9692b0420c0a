// qcsr.cu -- QCSR kernel: a warp per band of SPK_QCSR_DENSITY rows, lane l
// taking the band's rows l and l + 32; each row's sum runs over the band's
// leaves in column order, then over the row's entries in the leaf.
#include "qcsr.h"
#include "real.cuh"

namespace {

constexpr int kD = SPK_QCSR_DENSITY;
static_assert(kD % 32 == 0, "a band's rows are dealt to a warp's lanes");

template <typename T>
__global__ void qcsr_kernel(int nrows, int nbands, const int *__restrict__ bandptr, const int *__restrict__ leafcol,
                            const int *__restrict__ leafent, const unsigned short *__restrict__ leafrp,
                            const unsigned char *__restrict__ lcol, const T *__restrict__ val, T alpha,
                            const T *__restrict__ x, T beta, T *__restrict__ y)
{
    const int lane = threadIdx.x & 31;
    const int band = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (band >= nbands) return;
    T s[kD / 32];
#pragma unroll
    for (int q = 0; q < kD / 32; q++) s[q] = 0;
    for (int l = bandptr[band], le = bandptr[band + 1]; l < le; l++) {
        const unsigned short *rp = leafrp + (size_t)l * (kD + 1);
        const int e = leafent[l], c0 = leafcol[l] * kD;
#pragma unroll
        for (int q = 0; q < kD / 32; q++) {
            const int r = lane + 32 * q;
            for (int k = e + rp[r], ke = e + rp[r + 1]; k < ke; k++) s[q] += val[k] * __ldg(&x[c0 + lcol[k]]);
        }
    }
#pragma unroll
    for (int q = 0; q < kD / 32; q++) {
        const int i = band * kD + lane + 32 * q;
        if (i < nrows) y[i] = beta == T(0) ? alpha * s[q] : alpha * s[q] + beta * y[i];
    }
}

template <typename T>
cudaError_t qcsr_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_qcsr *Q = static_cast<const spk_fmt_qcsr *>(fmt);
    if (Q->nrows == 0) return cudaSuccess;
    const int per_block = 256 / 32; /* bands a block of 256 threads takes */
    qcsr_kernel<T><<<(Q->nbands + per_block - 1) / per_block, 256, 0, s>>>(Q->nrows, Q->nbands, Q->bandptr,
                                                                          Q->leafcol, Q->leafent, Q->leafrp, Q->lcol,
                                                                          spk_real<T>(Q->val), alpha, x, beta, y);
    return cudaGetLastError();
}

}  // namespace

SPK_LAUNCH_BOTH(spk_qcsr_launch, qcsr_launch)

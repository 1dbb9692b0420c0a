// bell.cu -- blocked ELL kernel: one warp per group of 32 rows, one thread
// per row; the group's column-major block is read coalesced.
#include "bell.h"
#include "real.cuh"

namespace {

template <typename T>
__global__ void bell_kernel(int nrows, const int *__restrict__ gptr, const int *__restrict__ colind,
                            const T *__restrict__ val, T alpha, const T *__restrict__ x, T beta, T *__restrict__ y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nrows) return;
    const int g = i / SPK_BELL_ROWS, r = i % SPK_BELL_ROWS;
    const int start = gptr[g], w = (gptr[g + 1] - start) / SPK_BELL_ROWS;
    T s = 0;
    for (int k = 0; k < w; k++) {
        const int q = start + k * SPK_BELL_ROWS + r;
        s += val[q] * __ldg(&x[colind[q]]);
    }
    y[i] = beta == T(0) ? alpha * s : alpha * s + beta * y[i];
}

template <typename T>
cudaError_t bell_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_bell *B = static_cast<const spk_fmt_bell *>(fmt);
    if (B->nrows == 0) return cudaSuccess;
    bell_kernel<T><<<(B->nrows + 255) / 256, 256, 0, s>>>(B->nrows, B->gptr, B->colind, spk_real<T>(B->val), alpha,
                                                          x, beta, y);
    return cudaGetLastError();
}

}  // namespace

SPK_LAUNCH_BOTH(spk_bell_launch, bell_launch)

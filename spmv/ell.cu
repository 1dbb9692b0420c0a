// ell.cu -- ELL kernel: one thread per row, column-major reads are coalesced
// across a warp.  y = alpha*A*x + beta*y; beta == 0 does not read y.
#include "ell.h"
#include "real.cuh"

namespace {

template <typename T>
__global__ void ell_kernel(int nrows, int width, const int *__restrict__ colind, const T *__restrict__ val, T alpha,
                           const T *__restrict__ x, T beta, T *__restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nrows; i += gridDim.x * blockDim.x) {
        T s = 0;
        for (int k = 0; k < width; k++) {
            size_t q = (size_t)k * nrows + i;
            s += val[q] * __ldg(&x[colind[q]]);
        }
        y[i] = beta == T(0) ? alpha * s : alpha * s + beta * y[i];
    }
}

template <typename T>
cudaError_t ell_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_ell *E = static_cast<const spk_fmt_ell *>(fmt);
    if (E->nrows == 0) return cudaSuccess;
    int blocks = (E->nrows + 255) / 256;
    ell_kernel<T><<<blocks, 256, 0, s>>>(E->nrows, E->width, E->colind, spk_real<T>(E->val), alpha, x, beta, y);
    return cudaGetLastError();
}

}  // namespace

SPK_LAUNCH_BOTH(spk_ell_launch, ell_launch)

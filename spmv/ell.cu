// ell.cu -- ELL kernel: one thread per row, column-major reads are coalesced
// across a warp.  y = alpha*A*x + beta*y; beta == 0 does not read y.
#include "ell.h"

namespace {

__global__ void ell_kernel(int nrows, int width, const int *__restrict__ colind,
                           const double *__restrict__ val, double alpha, const double *__restrict__ x,
                           double beta, double *__restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nrows; i += gridDim.x * blockDim.x) {
        double s = 0;
        for (int k = 0; k < width; k++) {
            size_t q = (size_t)k * nrows + i;
            s += val[q] * __ldg(&x[colind[q]]);
        }
        y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
    }
}

}  // namespace

extern "C" cudaError_t spk_ell_launch(const void *fmt, cudaStream_t s, double alpha, const double *x,
                                      double beta, double *y)
{
    const spk_fmt_ell *E = static_cast<const spk_fmt_ell *>(fmt);
    if (E->nrows == 0) return cudaSuccess;
    int blocks = (E->nrows + 255) / 256;
    ell_kernel<<<blocks, 256, 0, s>>>(E->nrows, E->width, E->colind, E->val, alpha, x, beta, y);
    return cudaGetLastError();
}

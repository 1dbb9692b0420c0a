// dia.cu -- DIA kernel: one thread per row, each diagonal's entries
// consecutive across the rows (coalesced), the diagonals in increasing
// offset.  y = alpha*A*x + beta*y; beta == 0 does not read y.
#include "dia.h"

namespace {

__global__ void dia_kernel(int nrows, int ncols, int ndiag, const int *__restrict__ offset,
                           const double *__restrict__ val, double alpha, const double *__restrict__ x, double beta,
                           double *__restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nrows; i += gridDim.x * blockDim.x) {
        double s = 0;
        for (int d = 0; d < ndiag; d++) {
            const long long c = (long long)i + __ldg(&offset[d]);
            if (c >= 0 && c < ncols) s += val[(size_t)d * nrows + i] * __ldg(&x[c]);
        }
        y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
    }
}

}  // namespace

extern "C" cudaError_t spk_dia_launch(const void *fmt, cudaStream_t s, double alpha, const double *x, double beta,
                                      double *y)
{
    const spk_fmt_dia *D = static_cast<const spk_fmt_dia *>(fmt);
    if (D->nrows == 0) return cudaSuccess;
    const int blocks = (D->nrows + 255) / 256;
    /* no diagonals (no entries): the loop adds nothing, y = beta y */
    dia_kernel<<<blocks, 256, 0, s>>>(D->nrows, D->ncols, D->ndiag, D->offset, D->val, alpha, x, beta, y);
    return cudaGetLastError();
}

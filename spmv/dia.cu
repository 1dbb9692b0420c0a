// dia.cu -- DIA kernel: one thread per row, each diagonal's entries
// consecutive across the rows (coalesced), the diagonals in increasing
// offset.  y = alpha*A*x + beta*y; beta == 0 does not read y.
#include "dia.h"
#include "real.cuh"

namespace {

template <typename T>
__global__ void dia_kernel(int nrows, int ncols, int ndiag, const int *__restrict__ offset,
                           const T *__restrict__ val, T alpha, const T *__restrict__ x, T beta, T *__restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nrows; i += gridDim.x * blockDim.x) {
        T s = 0;
        for (int d = 0; d < ndiag; d++) {
            const long long c = (long long)i + __ldg(&offset[d]);
            if (c >= 0 && c < ncols) s += val[(size_t)d * nrows + i] * __ldg(&x[c]);
        }
        y[i] = beta == T(0) ? alpha * s : alpha * s + beta * y[i];
    }
}

template <typename T>
cudaError_t dia_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_dia *D = static_cast<const spk_fmt_dia *>(fmt);
    if (D->nrows == 0) return cudaSuccess;
    const int blocks = (D->nrows + 255) / 256;
    /* no diagonals (no entries): the loop adds nothing, y = beta y */
    dia_kernel<T><<<blocks, 256, 0, s>>>(D->nrows, D->ncols, D->ndiag, D->offset, spk_real<T>(D->val), alpha, x,
                                         beta, y);
    return cudaGetLastError();
}

}  // namespace

SPK_LAUNCH_BOTH(spk_dia_launch, dia_launch)

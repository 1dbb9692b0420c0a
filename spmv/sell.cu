// sell.cu -- SELL-C-sigma kernel: one thread per sorted position p (its
// slice p / C, its local row p % C), so the C threads of a slice are
// consecutive and read consecutive addresses at each step k of the slice's
// width (a warp per slice when C = 32).  Positions beyond the rows (the last
// slice's tail) get no thread.  Every thread runs over its slice's whole
// width, padding included: the padding's value 0 times x at a valid column
// adds nothing for finite x (as ELL's does), and no thread needs its row's
// length.  The result goes to y[perm[p]], the original row.
// y = alpha*A*x + beta*y; beta == 0 does not read y.
#include "sell.h"
#include "real.cuh"

namespace {

template <typename T>
__global__ void sell_kernel(int nrows, int c, const int *__restrict__ slice_ptr, const int *__restrict__ colind,
                            const T *__restrict__ val, const int *__restrict__ perm, T alpha,
                            const T *__restrict__ x, T beta, T *__restrict__ y)
{
    /* the grid covers the rows: one position per thread */
    const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (g < nrows) {
        const int p = (int)g, s = p / c, r = p - s * c;
        const int begin = __ldg(&slice_ptr[s]);
        const int width = (__ldg(&slice_ptr[s + 1]) - begin) / c;
        T t = 0;
        for (int k = 0; k < width; k++) {
            const size_t q = (size_t)begin + (size_t)k * c + r;
            t += val[q] * __ldg(&x[colind[q]]);
        }
        const int i = __ldg(&perm[p]);
        y[i] = beta == T(0) ? alpha * t : alpha * t + beta * y[i];
    }
}

template <typename T>
cudaError_t sell_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_sell *S = static_cast<const spk_fmt_sell *>(fmt);
    if (S->nrows == 0) return cudaSuccess;
    const int blocks = (int)(((long long)S->nrows + 255) / 256);
    /* no entries: every width is 0, y = beta y */
    sell_kernel<T><<<blocks, 256, 0, s>>>(S->nrows, S->c, S->slice_ptr, S->colind, spk_real<T>(S->val), S->perm,
                                          alpha, x, beta, y);
    return cudaGetLastError();
}

}  // namespace

SPK_LAUNCH_BOTH(spk_sell_launch, sell_launch)

// pbc.cu -- PBC kernel: a thread block per block of sorted rows, a thread
// per row, the block's ELL slab read column-major (consecutive rows at
// consecutive addresses); y written at each row's place in A.
#include "pbc.h"
#include "real.cuh"

namespace {

template <typename T>
__global__ void pbc_kernel(const int *__restrict__ pos, const int *__restrict__ width, const int *__restrict__ first,
                           const int *__restrict__ data, const int *__restrict__ colind, const T *__restrict__ val,
                           T alpha, const T *__restrict__ x, T beta, T *__restrict__ y)
{
    const int b = blockIdx.x, p0 = first[b], rows = first[b + 1] - p0, w = width[b];
    const size_t base = (size_t)data[b];
    for (int r = threadIdx.x; r < rows; r += blockDim.x) {
        T s = 0;
        for (int k = 0; k < w; k++) {
            const size_t q = base + (size_t)k * rows + (size_t)r;
            s += val[q] * __ldg(&x[colind[q]]);
        }
        const int i = pos[p0 + r];
        y[i] = beta == T(0) ? alpha * s : alpha * s + beta * y[i];
    }
}

template <typename T>
cudaError_t pbc_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_pbc *P = static_cast<const spk_fmt_pbc *>(fmt);
    if (P->nblocks == 0) return cudaSuccess;
    pbc_kernel<T><<<P->nblocks, 256, 0, s>>>(P->pos, P->width, P->first, P->data, P->colind, spk_real<T>(P->val),
                                             alpha, x, beta, y);
    return cudaGetLastError();
}

}  // namespace

SPK_LAUNCH_BOTH(spk_pbc_launch, pbc_launch)

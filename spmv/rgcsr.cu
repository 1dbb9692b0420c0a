// rgcsr.cu -- RgCSR kernel: one thread per row, a group's rows in
// consecutive threads, so that the k-th entries of a group's rows are read
// at consecutive addresses; each row stops at its own length.
#include "rgcsr.h"
#include "real.cuh"

namespace {

template <typename T>
__global__ void rgcsr_kernel(int nrows, const int *__restrict__ gptr, const int *__restrict__ rowlen,
                             const int *__restrict__ colind, const T *__restrict__ val, T alpha,
                             const T *__restrict__ x, T beta, T *__restrict__ y)
{
    constexpr int g = SPK_RGCSR_GROUP;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nrows; i += gridDim.x * blockDim.x) {
        const size_t base = (size_t)gptr[i / g] + (size_t)(i % g);
        T s = 0;
        for (int k = 0, len = rowlen[i]; k < len; k++) {
            const size_t p = base + (size_t)k * g;
            s += val[p] * __ldg(&x[colind[p]]);
        }
        y[i] = beta == T(0) ? alpha * s : alpha * s + beta * y[i];
    }
}

template <typename T>
cudaError_t rgcsr_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_rgcsr *G = static_cast<const spk_fmt_rgcsr *>(fmt);
    if (G->nrows == 0) return cudaSuccess;
    rgcsr_kernel<T><<<(G->nrows + 255) / 256, 256, 0, s>>>(G->nrows, G->gptr, G->rowlen, G->colind,
                                                            spk_real<T>(G->val), alpha, x, beta, y);
    return cudaGetLastError();
}

}  // namespace

SPK_LAUNCH_BOTH(spk_rgcsr_launch, rgcsr_launch)

// rgcsr.cu -- RgCSR kernel: one thread per row, a group's rows in
// consecutive threads, so that the k-th entries of a group's rows are read
// at consecutive addresses; each row stops at its own length.
#include "rgcsr.h"

namespace {

__global__ void rgcsr_kernel(int nrows, const int *__restrict__ gptr, const int *__restrict__ rowlen,
                             const int *__restrict__ colind, const double *__restrict__ val, double alpha,
                             const double *__restrict__ x, double beta, double *__restrict__ y)
{
    constexpr int g = SPK_RGCSR_GROUP;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nrows; i += gridDim.x * blockDim.x) {
        const size_t base = (size_t)gptr[i / g] + (size_t)(i % g);
        double s = 0;
        for (int k = 0, len = rowlen[i]; k < len; k++) {
            const size_t p = base + (size_t)k * g;
            s += val[p] * __ldg(&x[colind[p]]);
        }
        y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
    }
}

}  // namespace

extern "C" cudaError_t spk_rgcsr_launch(const void *fmt, cudaStream_t s, double alpha, const double *x, double beta,
                                        double *y)
{
    const spk_fmt_rgcsr *G = static_cast<const spk_fmt_rgcsr *>(fmt);
    if (G->nrows == 0) return cudaSuccess;
    rgcsr_kernel<<<(G->nrows + 255) / 256, 256, 0, s>>>(G->nrows, G->gptr, G->rowlen, G->colind, G->val, alpha, x,
                                                         beta, y);
    return cudaGetLastError();
}

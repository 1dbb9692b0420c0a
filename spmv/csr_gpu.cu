// csr_gpu.cu -- CSR kernels: T threads per row (T = 1: scalar), partial sums
// meet through warp shuffles.  y = alpha*A*x + beta*y; beta == 0 does not read y.
// V is the value type (double, or float in single precision).
#include "csr_gpu.h"
#include "core/zcomplex.cuh"
#include "real.cuh"

namespace {

template <typename V, int T>
__global__ void csr_kernel(int nrows, const int *__restrict__ rowptr, const int *__restrict__ colind,
                           const V *__restrict__ val, V alpha, const V *__restrict__ x, V beta, V *__restrict__ y)
{
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const int row = (int)(tid / T), lane = (int)(tid % T);
    V s = 0;
    if (row < nrows)
        for (int k = rowptr[row] + lane; k < rowptr[row + 1]; k += T) s += val[k] * __ldg(&x[colind[k]]);
    if (T > 1) /* every thread of the warp takes part, rows past the end with s = 0 */
        for (int off = T / 2; off > 0; off /= 2) s += __shfl_down_sync(0xffffffffu, s, off, T);
    if (row < nrows && lane == 0) y[row] = beta == V(0) ? alpha * s : alpha * s + beta * y[row];
}

template <typename V, int T>
cudaError_t launch_t(const spk_fmt_csr *F, cudaStream_t s, V alpha, const V *x, V beta, V *y)
{
    const int threads = 256;
    long long total = (long long)F->nrows * T;
    unsigned blocks = (unsigned)((total + threads - 1) / threads);
    csr_kernel<V, T><<<blocks, threads, 0, s>>>(F->nrows, F->rowptr, F->colind, spk_real<V>(F->val), alpha, x,
                                                beta, y);
    return cudaGetLastError();
}

template <typename V>
cudaError_t csr_gpu_launch(const void *fmt, cudaStream_t s, V alpha, const V *x, V beta, V *y)
{
    const spk_fmt_csr *F = static_cast<const spk_fmt_csr *>(fmt);
    if (F->nrows == 0) return cudaSuccess;
    switch (F->threads) {
    case 1: return launch_t<V, 1>(F, s, alpha, x, beta, y);
    case 2: return launch_t<V, 2>(F, s, alpha, x, beta, y);
    case 4: return launch_t<V, 4>(F, s, alpha, x, beta, y);
    case 8: return launch_t<V, 8>(F, s, alpha, x, beta, y);
    case 16: return launch_t<V, 16>(F, s, alpha, x, beta, y);
    default: return launch_t<V, 32>(F, s, alpha, x, beta, y);
    }
}

}  // namespace

SPK_LAUNCH_BOTH(spk_csr_gpu_launch, csr_gpu_launch)

// The same kernels in complex (spmv/zspmv_cuda.c): y = A x, values, x and y
// interleaved (re, im) pairs.
extern "C" cudaError_t spk_csr_gpu_launch_complex(const void *f, cudaStream_t s, const double *x, double *y)
{
    return csr_gpu_launch<spk_zc>(f, s, spk_zc(1.0), reinterpret_cast<const spk_zc *>(x), spk_zc(0.0),
                                  reinterpret_cast<spk_zc *>(y));
}

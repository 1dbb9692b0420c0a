// mqt.cu -- MQT kernels (mqt.h): y = beta*y (0 where beta is 0: y is not
// read), then a thread per subtree decodes its part of the bit stream depth
// first (mqt_decode.h, the host reference's decoding), sums its rows'
// products locally and adds each touched row's sum into y atomically.
#include "mqt.h"
#include "mqt_decode.h"
#include "real.cuh"

namespace {

template <typename T>
__global__ void mqt_scale_kernel(int n, T beta, T *__restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = beta == T(0) ? T(0) : beta * y[i];
}

template <typename T>
__global__ void mqt_kernel(int nsub, int sub, const unsigned *__restrict__ bits, const T *__restrict__ val,
                           const int *__restrict__ sub_row, const int *__restrict__ sub_col,
                           const int *__restrict__ sub_bit, const int *__restrict__ sub_val, T alpha,
                           const T *__restrict__ x, T *y)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nsub) return;
    const int r0 = sub_row[t];
    T sum[SPK_MQT_SUB];
    const unsigned touched = spk_mqt_decode(sub, bits, val, r0, sub_col[t], sub_bit[t], sub_val[t], x, sum);
    for (int r = 0; r < sub; r++)
        if ((touched >> r) & 1) atomicAdd(&y[r0 + r], alpha * sum[r]);
}

template <typename T>
cudaError_t mqt_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_mqt *M = static_cast<const spk_fmt_mqt *>(fmt);
    if (M->nrows == 0) return cudaSuccess;
    mqt_scale_kernel<T><<<(M->nrows + 255) / 256, 256, 0, s>>>(M->nrows, beta, y);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess || M->nsub == 0) return e;
    mqt_kernel<T><<<(M->nsub + 127) / 128, 128, 0, s>>>(M->nsub, M->sub, M->bits, spk_real<T>(M->val), M->sub_row,
                                                       M->sub_col, M->sub_bit, M->sub_val, alpha, x, y);
    return cudaGetLastError();
}

}  // namespace

SPK_LAUNCH_BOTH(spk_mqt_launch, mqt_launch)

// mqt.cu -- MQT kernels (mqt.h): y = beta*y (0 where beta is 0: y is not
// read), then a thread per subtree decodes its part of the bit stream depth
// first (mqt_decode.h, the host reference's decoding), sums its rows'
// products locally and adds each touched row's sum into y atomically.
#include "mqt.h"
#include "mqt_decode.h"

namespace {

__global__ void mqt_scale_kernel(int n, double beta, double *__restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = beta == 0.0 ? 0.0 : beta * y[i];
}

__global__ void mqt_kernel(int nsub, int sub, const unsigned *__restrict__ bits, const double *__restrict__ val,
                           const int *__restrict__ sub_row, const int *__restrict__ sub_col,
                           const int *__restrict__ sub_bit, const int *__restrict__ sub_val, double alpha,
                           const double *__restrict__ x, double *y)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nsub) return;
    const int r0 = sub_row[t];
    double sum[SPK_MQT_SUB];
    const unsigned touched = spk_mqt_decode(sub, bits, val, r0, sub_col[t], sub_bit[t], sub_val[t], x, sum);
    for (int r = 0; r < sub; r++)
        if ((touched >> r) & 1) atomicAdd(&y[r0 + r], alpha * sum[r]);
}

}  // namespace

extern "C" cudaError_t spk_mqt_launch(const void *fmt, cudaStream_t s, double alpha, const double *x, double beta,
                                      double *y)
{
    const spk_fmt_mqt *M = static_cast<const spk_fmt_mqt *>(fmt);
    if (M->nrows == 0) return cudaSuccess;
    mqt_scale_kernel<<<(M->nrows + 255) / 256, 256, 0, s>>>(M->nrows, beta, y);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess || M->nsub == 0) return e;
    mqt_kernel<<<(M->nsub + 127) / 128, 128, 0, s>>>(M->nsub, M->sub, M->bits, M->val, M->sub_row, M->sub_col,
                                                    M->sub_bit, M->sub_val, alpha, x, y);
    return cudaGetLastError();
}

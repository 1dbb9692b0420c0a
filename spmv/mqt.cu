// mqt.cu -- MQT kernels (mqt.h): y = beta*y (0 where beta is 0: y is not
// read), then a thread per subtree decodes its part of the bit stream depth
// first (the host reference's decode, step for step), sums its rows'
// products locally and adds each touched row's sum into y atomically.
#include "mqt.h"

namespace {

__global__ void mqt_scale_kernel(int n, double beta, double *__restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = beta == 0.0 ? 0.0 : beta * y[i];
}

__device__ __forceinline__ int get4(const unsigned *__restrict__ bits, long long b)
{
    int v = 0;
    for (int k = 0; k < 4; k++, b++) v |= (int)((bits[b / 32] >> (b % 32)) & 1u) << k;
    return v;
}

__global__ void mqt_kernel(int nsub, int sub, const unsigned *__restrict__ bits, const double *__restrict__ val,
                           const int *__restrict__ sub_row, const int *__restrict__ sub_col,
                           const int *__restrict__ sub_bit, const int *__restrict__ sub_val, double alpha,
                           const double *__restrict__ x, double *y)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nsub) return;
    const int r0 = sub_row[t], c0 = sub_col[t];
    int v = sub_val[t];
    double sum[SPK_MQT_SUB];
    unsigned touched = 0;
    for (int r = 0; r < sub; r++) sum[r] = 0;
    if (sub == 1) {
        sum[0] = val[v] * __ldg(&x[c0]);
        touched = 1;
    } else {
        long long bit = sub_bit[t];
        int sr[8], sc[8], ss[8], sb[8], sn[8], depth = 0;
        sr[0] = r0;
        sc[0] = c0;
        ss[0] = sub;
        sb[0] = get4(bits, bit);
        bit += 4;
        sn[0] = 0;
        while (depth >= 0) {
            int q = sn[depth];
            while (q < 4 && !((sb[depth] >> q) & 1)) q++;
            if (q == 4) {
                depth--;
                continue;
            }
            sn[depth] = q + 1;
            const int h = ss[depth] / 2, cr = sr[depth] + (q >> 1) * h, cc = sc[depth] + (q & 1) * h;
            if (h == 1) {
                sum[cr - r0] += val[v++] * __ldg(&x[cc]);
                touched |= 1u << (cr - r0);
                continue;
            }
            depth++;
            sr[depth] = cr;
            sc[depth] = cc;
            ss[depth] = h;
            sb[depth] = get4(bits, bit);
            bit += 4;
            sn[depth] = 0;
        }
    }
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

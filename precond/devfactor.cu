/* devfactor.cu -- the kernels of devfactor.h. */
#include <cub/device/device_scan.cuh>
#include <cuda/atomic>

#include "devfactor.h"

#define FULL_MASK 0xffffffffu
#define PIVOT_RTOL 1e-14 /* the host's pivot test (ic0.c, ilu0.c) */

namespace {

constexpr int kBlock = 256;
constexpr int kFactorBlock = 128; /* four warps, a row each */

/* Position of column c in fci[lo, hi) (sorted), or -1. */
__device__ __forceinline__ int find_col(const int *fci, int lo, int hi, int c)
{
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        const int v = fci[mid];
        if (v == c) return mid;
        if (v < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* First position in [lo, hi) whose column is >= c. */
__device__ __forceinline__ int lower_bound(const int *ci, int lo, int hi, int c)
{
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (ci[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

__device__ __forceinline__ double warp_sum(double v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL_MASK, v, o);
    return v;
}

__device__ __forceinline__ double warp_max(double v)
{
    for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(FULL_MASK, v, o));
    return v;
}

/* Every lane waits until row j is published; the acquire orders the reads of
 * its values after it. */
__device__ __forceinline__ void wait_row(int *done, int j)
{
    cuda::atomic_ref<int, cuda::thread_scope_device> flag(done[j]);
    while (flag.load(cuda::memory_order_acquire) == 0) {
    }
}

/* Lane 0 publishes row i once every lane's writes are fenced. */
__device__ __forceinline__ void publish_row(int *done, int i, int lane)
{
    __threadfence();
    __syncwarp();
    if (lane == 0) {
        cuda::atomic_ref<int, cuda::thread_scope_device> flag(done[i]);
        flag.store(1, cuda::memory_order_release);
    }
}

__device__ __forceinline__ int next_row(int *ticket, int lane)
{
    int i = 0;
    if (lane == 0) i = atomicAdd(ticket, 1);
    return __shfl_sync(FULL_MASK, i, 0);
}

__global__ void rows_kernel(int n, int lower, const int *__restrict__ rp, const int *__restrict__ ci, int *cnt)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i == 0) cnt[0] = 0;
    if (i >= n) return;
    const int b = rp[i], e = rp[i + 1];
    const int lo = lower_bound(ci, b, e, i);
    const int has = lo < e && ci[lo] == i;
    cnt[i + 1] = lower ? lo - b + 1 : e - b + !has;
}

__global__ void fill_kernel(int n, int lower, const int *__restrict__ rp, const int *__restrict__ ci,
                            const double *__restrict__ val, const int *__restrict__ frp, int *__restrict__ fci,
                            double *__restrict__ fval, int *__restrict__ dpos, double *__restrict__ adiag,
                            unsigned char *__restrict__ missing)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    int q = frp[i], placed = 0;
    double ad = 0;
    unsigned char miss = 1;
    for (int k = rp[i], e = rp[i + 1]; k < e; k++) {
        const int c = ci[k];
        if (lower && c > i) break;
        if (!placed && c > i) { /* the diagonal goes before the first column beyond it */
            fci[q] = i;
            fval[q] = 0;
            dpos[i] = q++;
            placed = 1;
        }
        if (c == i) {
            dpos[i] = q;
            placed = 1;
            ad = val[k];
            miss = 0;
        }
        fci[q] = c;
        fval[q++] = val[k];
    }
    if (!placed) {
        fci[q] = i;
        fval[q] = 0;
        dpos[i] = q;
    }
    adiag[i] = ad;
    missing[i] = miss;
}

/* Up-looking IC(0) on the lower pattern (diagonal last in each row):
 *   l_ij = (a_ij - sum_{k<j} l_ik l_jk) / l_jj,  d_i = a_ii - sum_k l_ik^2.
 * Lane 0 writes the row; the lanes share each sparse dot product. */
__global__ void __launch_bounds__(kFactorBlock) ic0_kernel(int n, const int *__restrict__ rp, const int *__restrict__ ci,
                                                           double *v, double alpha, int *done, int *ticket,
                                                           double *piv, double *idiag, unsigned char *flag,
                                                           int *failrow)
{
    const int lane = threadIdx.x & 31;
    for (int i = next_row(ticket, lane); i < n; i = next_row(ticket, lane)) {
        const int b = rp[i], d = rp[i + 1] - 1;
        const double aii = v[d] * (1.0 + alpha);
        double di = aii;
        for (int p = b; p < d; p++) {
            const int j = ci[p];
            wait_row(done, j);
            const int dj = rp[j + 1] - 1;
            double acc = 0;
            for (int q = rp[j] + lane; q < dj; q += 32) {
                const int m = find_col(ci, b, p, ci[q]);
                if (m >= 0) acc += v[m] * __ldcg(v + q);
            }
            acc = warp_sum(acc);
            const double l = (v[p] - acc) / __ldcg(v + dj);
            di -= l * l;
            __syncwarp();
            if (lane == 0) v[p] = l;
            __syncwarp();
        }
        if (lane == 0) {
            piv[i] = di;
            if (di > PIVOT_RTOL * fabs(aii) && isfinite(di)) {
                const double lii = sqrt(di);
                v[d] = lii;
                idiag[i] = 1.0 / lii;
            } else {
                flag[i] = 1;
                atomicMin(failrow, i);
                v[d] = 1.0; /* keeps the rows after it finite */
                idiag[i] = 1.0;
            }
        }
        publish_row(done, i, lane);
    }
}

/* IKJ ILU(0) on A's pattern with the diagonal at dpos:
 *   for k < i in row i: l_ik = a_ik / u_kk; a_ij -= l_ik u_kj for (i,j), j > k.
 * The lanes share each row update (distinct columns, so no two lanes write
 * one entry). */
__global__ void __launch_bounds__(kFactorBlock) ilu0_kernel(int n, const int *__restrict__ rp, const int *__restrict__ ci,
                                                            const int *__restrict__ dpos, double *v, double alpha,
                                                            int *done, int *ticket, double *piv, double *idiag,
                                                            unsigned char *flag, int *failrow)
{
    const int lane = threadIdx.x & 31;
    for (int i = next_row(ticket, lane); i < n; i = next_row(ticket, lane)) {
        const int b = rp[i], t = rp[i + 1], d = dpos[i];
        if (lane == 0) v[d] *= 1.0 + alpha;
        __syncwarp();
        double mx = 0;
        for (int k = b + lane; k < t; k += 32) mx = fmax(mx, fabs(v[k]));
        mx = warp_max(mx);
        for (int p = b; p < d; p++) {
            const int k = ci[p], dk = dpos[k];
            wait_row(done, k);
            const double l = v[p] / __ldcg(v + dk);
            __syncwarp();
            if (lane == 0) v[p] = l;
            for (int q = dk + 1 + lane, e = rp[k + 1]; q < e; q += 32) {
                const int m = find_col(ci, p + 1, t, ci[q]);
                if (m >= 0) v[m] -= l * __ldcg(v + q);
            }
            __syncwarp();
        }
        int fin = 1;
        for (int k = b + lane; k < t; k += 32) fin &= isfinite(v[k]) ? 1 : 0;
        fin = __all_sync(FULL_MASK, fin);
        const double u = v[d];
        if (lane == 0) {
            piv[i] = u;
            if (fabs(u) > PIVOT_RTOL * mx && fin) {
                idiag[i] = 1.0 / u;
            } else {
                flag[i] = isfinite(u) && !fin ? 2 : 1;
                atomicMin(failrow, i);
                v[d] = 1.0;
                idiag[i] = 1.0;
            }
        }
        publish_row(done, i, lane);
    }
}

template <int T>
__global__ void sweep_kernel(int n, const int *__restrict__ beg, int boff, const int *__restrict__ end, int eoff,
                             const int *__restrict__ col, const double *__restrict__ val,
                             const double *__restrict__ idiag, const double *__restrict__ b,
                             const double *__restrict__ x, double *__restrict__ out)
{
    const int g = blockIdx.x * (kBlock / T) + threadIdx.x / T, lane = threadIdx.x % T;
    const bool ok = g < n;
    double s = 0;
    if (ok) {
        const int e = end[g] + eoff;
        for (int k = beg[g] + boff + lane; k < e; k += T) {
            const int c = col[k];
            const double xc = x ? x[c] : (idiag ? idiag[c] * b[c] : b[c]);
            s += val[k] * xc;
        }
    }
    for (int o = T / 2; o > 0; o >>= 1) s += __shfl_xor_sync(FULL_MASK, s, o, T);
    if (ok && lane == 0) {
        const double r = b[g] - s;
        out[g] = idiag ? r * idiag[g] : r;
    }
}

unsigned blocks_for(long long threads)
{
    return (unsigned)((threads + kBlock - 1) / kBlock);
}

} // namespace

extern "C" cudaError_t spk_dev_pattern_temp(int n, size_t *temp_bytes)
{
    *temp_bytes = 0;
    return cub::DeviceScan::InclusiveSum(nullptr, *temp_bytes, (int *)nullptr, (int *)nullptr, n > 0 ? n : 1);
}

extern "C" cudaError_t spk_dev_pattern_rows(cudaStream_t s, int n, int lower, const int *rp, const int *ci, int *cnt,
                                            void *temp, size_t temp_bytes)
{
    if (n == 0) return cudaMemsetAsync(cnt, 0, sizeof(int), s);
    rows_kernel<<<blocks_for(n), kBlock, 0, s>>>(n, lower, rp, ci, cnt);
    cudaError_t st = cudaGetLastError();
    if (st != cudaSuccess) return st;
    return cub::DeviceScan::InclusiveSum(temp, temp_bytes, cnt + 1, cnt + 1, n, s);
}

extern "C" cudaError_t spk_dev_pattern_fill(cudaStream_t s, int n, int lower, const int *rp, const int *ci,
                                            const double *val, const int *frp, int *fci, double *fval, int *dpos,
                                            double *adiag, unsigned char *missing)
{
    if (n == 0) return cudaSuccess;
    fill_kernel<<<blocks_for(n), kBlock, 0, s>>>(n, lower, rp, ci, val, frp, fci, fval, dpos, adiag, missing);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_factor(cudaStream_t s, int n, int ic, const int *frp, const int *fci, const int *dpos,
                                      double *fval, double alpha, int *done, int *ticket, double *piv, double *idiag,
                                      unsigned char *flag, int *failrow)
{
    if (n == 0) return cudaSuccess;
    int dev = 0, sms = 0;
    cudaError_t st = cudaGetDevice(&dev);
    if (st == cudaSuccess) st = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (st != cudaSuccess) return st;
    /* any grid is safe (tickets go to running warps); enough to fill the GPU */
    const long long rows_per_block = kFactorBlock / 32;
    long long grid = (n + rows_per_block - 1) / rows_per_block;
    if (grid > 16LL * sms) grid = 16LL * sms;
    if (ic)
        ic0_kernel<<<(unsigned)grid, kFactorBlock, 0, s>>>(n, frp, fci, fval, alpha, done, ticket, piv, idiag, flag,
                                                           failrow);
    else
        ilu0_kernel<<<(unsigned)grid, kFactorBlock, 0, s>>>(n, frp, fci, dpos, fval, alpha, done, ticket, piv, idiag,
                                                            flag, failrow);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_sweep(cudaStream_t s, int n, int threads, const int *beg, int boff, const int *end,
                                     int eoff, const int *col, const double *val, const double *idiag, const double *b,
                                     const double *x, double *out)
{
    if (n == 0) return cudaSuccess;
    const unsigned grid = blocks_for((long long)n * threads);
#define SPK_SWEEP(T)                                                                                                 \
    case T: sweep_kernel<T><<<grid, kBlock, 0, s>>>(n, beg, boff, end, eoff, col, val, idiag, b, x, out); break;
    switch (threads) {
        SPK_SWEEP(1)
        SPK_SWEEP(2)
        SPK_SWEEP(4)
        SPK_SWEEP(8)
        SPK_SWEEP(16)
        SPK_SWEEP(32)
    default: return cudaErrorInvalidValue;
    }
#undef SPK_SWEEP
    return cudaGetLastError();
}

/* devfactor.cu -- the kernels of devfactor.h. */
#include <cub/device/device_scan.cuh>
#include <cuda/atomic>

#include "core/csr_device.cuh"
#include "devfactor.h"

#define FULL_MASK 0xffffffffu
#define PIVOT_RTOL 1e-14 /* the host's pivot test (ic0.c, ilu0.c) */

namespace {

constexpr int kBlock = 256;
constexpr int kFactorBlock = 128; /* four warps, a row each */

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

/* A group of G lanes (G a power of two, <= 32) works on one row: its lanes
 * within the warp, and reductions over them. */
template <int G>
struct group {
    unsigned mask;
    int lane;
    __device__ group()
    {
        const int l = threadIdx.x & 31;
        lane = l & (G - 1);
        mask = G == 32 ? 0xffffffffu : ((1u << G) - 1u) << (l & ~(G - 1));
    }
    __device__ void sync() const { __syncwarp(mask); }
    __device__ double sum(double v) const
    {
        for (int o = G / 2; o > 0; o >>= 1) v += __shfl_xor_sync(mask, v, o, G);
        return v;
    }
    __device__ double max(double v) const
    {
        for (int o = G / 2; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(mask, v, o, G));
        return v;
    }
    __device__ int all(int v) const
    {
        for (int o = G / 2; o > 0; o >>= 1) v &= __shfl_xor_sync(mask, v, o, G);
        return v;
    }
    /* the next row, by the ticket (in row order) */
    __device__ int next(int *ticket) const
    {
        int i = 0;
        if (lane == 0) i = atomicAdd(ticket, 1);
        return __shfl_sync(mask, i, 0, G);
    }
};

/* Wait until row j is published: relaxed polls, backing off (a poll is an
 * L2 access, and many waiting rows would otherwise crowd out the work they
 * wait for), then one acquire load that orders the reads of its values
 * after it.  Groups of one warp that wait for each other make progress by
 * independent thread scheduling (sm_70 and later). */
__device__ __forceinline__ void wait_row(int *done, int j)
{
    cuda::atomic_ref<int, cuda::thread_scope_device> flag(done[j]);
    unsigned ns = 8;
    while (flag.load(cuda::memory_order_relaxed) == 0) {
        __nanosleep(ns);
        if (ns < 256) ns *= 2;
    }
    (void)flag.load(cuda::memory_order_acquire);
}

/* Publish row i once every lane's writes are fenced. */
template <int G>
__device__ __forceinline__ void publish_row(const group<G> &g, int *done, int i)
{
    __threadfence();
    g.sync();
    if (g.lane == 0) {
        cuda::atomic_ref<int, cuda::thread_scope_device> flag(done[i]);
        flag.store(1, cuda::memory_order_release);
    }
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
 * The group's first lane writes the row; its lanes share each sparse dot
 * product. */
template <int G>
__global__ void __launch_bounds__(kFactorBlock) ic0_kernel(int n, const int *__restrict__ rp, const int *__restrict__ ci,
                                                           double *v, double alpha, int *done, int *ticket,
                                                           double *piv, double *idiag, unsigned char *flag,
                                                           int *failrow)
{
    const group<G> g;
    for (int i = g.next(ticket); i < n; i = g.next(ticket)) {
        const int b = rp[i], d = rp[i + 1] - 1;
        const double aii = v[d] * (1.0 + alpha);
        double di = aii;
        for (int p = b; p < d; p++) {
            const int j = ci[p];
            wait_row(done, j);
            const int dj = rp[j + 1] - 1;
            double acc = 0;
            for (int q = rp[j] + g.lane; q < dj; q += G) {
                const int m = spk_find_col(ci, b, p, ci[q]);
                if (m >= 0) acc += v[m] * __ldcg(v + q);
            }
            acc = g.sum(acc);
            const double l = (v[p] - acc) / __ldcg(v + dj);
            di -= l * l;
            g.sync();
            if (g.lane == 0) v[p] = l;
            g.sync();
        }
        if (g.lane == 0) {
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
        publish_row(g, done, i);
    }
}

/* IKJ ILU(0) on A's pattern with the diagonal at dpos:
 *   for k < i in row i: l_ik = a_ik / u_kk; a_ij -= l_ik u_kj for (i,j), j > k.
 * The group's lanes share each row update (distinct columns, so no two
 * lanes write one entry). */
template <int G>
__global__ void __launch_bounds__(kFactorBlock) ilu0_kernel(int n, const int *__restrict__ rp, const int *__restrict__ ci,
                                                            const int *__restrict__ dpos, double *v, double alpha,
                                                            int *done, int *ticket, double *piv, double *idiag,
                                                            unsigned char *flag, int *failrow)
{
    const group<G> g;
    for (int i = g.next(ticket); i < n; i = g.next(ticket)) {
        const int b = rp[i], t = rp[i + 1], d = dpos[i];
        if (g.lane == 0) v[d] *= 1.0 + alpha;
        g.sync();
        double mx = 0;
        for (int k = b + g.lane; k < t; k += G) mx = fmax(mx, fabs(v[k]));
        mx = g.max(mx);
        for (int p = b; p < d; p++) {
            const int k = ci[p], dk = dpos[k];
            wait_row(done, k);
            const double l = v[p] / __ldcg(v + dk);
            g.sync();
            if (g.lane == 0) v[p] = l;
            for (int q = dk + 1 + g.lane, e = rp[k + 1]; q < e; q += G) {
                const int m = spk_find_col(ci, p + 1, t, ci[q]);
                if (m >= 0) v[m] -= l * __ldcg(v + q);
            }
            g.sync();
        }
        int fin = 1;
        for (int k = b + g.lane; k < t; k += G) fin &= isfinite(v[k]) ? 1 : 0;
        fin = g.all(fin);
        const double u = v[d];
        if (g.lane == 0) {
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
        publish_row(g, done, i);
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

__global__ void probe_kernel(int n, double *x)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    unsigned h = (unsigned)i * 2654435761u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    const double m = 0.5 + ((h >> 8) & 0xffff) * (1.0 / 65536.0);
    x[i] = h & 1 ? m : -m;
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

template <int G>
cudaError_t launch_factor(cudaStream_t s, unsigned grid, int n, int ic, const int *frp, const int *fci,
                          const int *dpos, double *fval, double alpha, int *done, int *ticket, double *piv,
                          double *idiag, unsigned char *flag, int *failrow)
{
    if (ic)
        ic0_kernel<G><<<grid, kFactorBlock, 0, s>>>(n, frp, fci, fval, alpha, done, ticket, piv, idiag, flag, failrow);
    else
        ilu0_kernel<G><<<grid, kFactorBlock, 0, s>>>(n, frp, fci, dpos, fval, alpha, done, ticket, piv, idiag, flag,
                                                     failrow);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_factor(cudaStream_t s, int n, int ic, int group, const int *frp, const int *fci,
                                      const int *dpos, double *fval, double alpha, int *done, int *ticket, double *piv,
                                      double *idiag, unsigned char *flag, int *failrow)
{
    if (n == 0) return cudaSuccess;
    int dev = 0, sms = 0;
    cudaError_t st = cudaGetDevice(&dev);
    if (st == cudaSuccess) st = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (st != cudaSuccess) return st;
    /* any grid is safe (tickets go to running groups); enough to fill the GPU */
    const long long rows_per_block = kFactorBlock / (group > 0 ? group : 1);
    long long grid = (n + rows_per_block - 1) / rows_per_block;
    if (grid > 16LL * sms) grid = 16LL * sms;
    switch (group) { /* the sizes devsweep.c chooses */
    case 4: return launch_factor<4>(s, (unsigned)grid, n, ic, frp, fci, dpos, fval, alpha, done, ticket, piv, idiag, flag, failrow);
    case 8: return launch_factor<8>(s, (unsigned)grid, n, ic, frp, fci, dpos, fval, alpha, done, ticket, piv, idiag, flag, failrow);
    default: return cudaErrorInvalidValue;
    }
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

extern "C" cudaError_t spk_dev_probe(cudaStream_t s, int n, double *x)
{
    if (n == 0) return cudaSuccess;
    probe_kernel<<<blocks_for(n), kBlock, 0, s>>>(n, x);
    return cudaGetLastError();
}

/* devfactor_numeric.cuh -- the numeric IC(0) and ILU(0) on F, without
 * synchronization between rows: groups of lanes take rows in the order of
 * devfactor_pattern.cuh by ticket and wait per entry for the rows it
 * depends on (devfactor.h).  Part of devfactor.cu's module: included there
 * once. */
#ifndef SPK_PRECOND_DEVFACTOR_NUMERIC_CUH
#define SPK_PRECOND_DEVFACTOR_NUMERIC_CUH

#include <cuda/atomic>

#include "core/csr_device.cuh"
#include "devfactor.h"
#include "devfactor_common.cuh"

#define PIVOT_RTOL 1e-14 /* the host's pivot test (ic0.c, ilu0.c) */

namespace {

constexpr int kFactorBlock = 128; /* four warps, a row each */

/* The stopping request of a factorization (spk_dev_factor): *flag == value. */
struct stop_req {
    const int *flag;
    int value;
    __device__ __forceinline__ int seen() const { return flag && *(const volatile int *)flag == value; }
};

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
    /* the next slot of the ready-row queue, by ticket; n (the end) when
     * the request `req` (lane 0's) is nonzero, after marking ctl[2] */
    __device__ int next(int *ctl, int req, int n) const
    {
        int i = 0;
        if (lane == 0) {
            if (req) {
                *(volatile int *)(ctl + 2) = 1;
                i = n;
            } else {
                i = atomicAdd(ctl, 1);
            }
        }
        return __shfl_sync(mask, i, 0, G);
    }
    /* lane 0: the stopping request, loaded at the start of a row and used at
     * its end */
    __device__ int request(const stop_req &stop) const
    {
        return lane == 0 && stop.seen();
    }
};

/* Is row j published?  An acquire load: reads of its values come after. */
__device__ __forceinline__ int row_done(int *done, int j)
{
    return cuda::atomic_ref<int, cuda::thread_scope_device>(done[j]).load(cuda::memory_order_acquire) != 0;
}

/* Wait until row j is published (polls as in take_slot, then acquire), or
 * until the stopping request is seen: then ctl[2] = 1 and the row is taken
 * as it stands (the factor is not wanted; every row ends soon, published
 * with whatever it holds, and so does every wait on it). */
__device__ __forceinline__ void wait_row(int *done, int j, const stop_req &stop, int *ctl)
{
    cuda::atomic_ref<int, cuda::thread_scope_device> flag(done[j]);
    unsigned ns = 8;
    while (flag.load(cuda::memory_order_relaxed) == 0) {
        if (stop.seen()) {
            *(volatile int *)(ctl + 2) = 1;
            return;
        }
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
    if (g.lane == 0)
        cuda::atomic_ref<int, cuda::thread_scope_device>(done[i]).store(1, cuda::memory_order_release);
}

/* A group's row of F while it factorizes it: in shared memory when it has
 * at most kRowCap(G) entries (every access then on chip; the rows a row
 * depends on are read from L2), else in place in global memory. */
template <int G>
constexpr int kRowCap = G >= 8 ? 64 : 32;

template <int G>
struct row_buf {
    int col[kFactorBlock / G][kRowCap<G>];
    double val[kFactorBlock / G][kRowCap<G>];
    /* for the entry at p, where the row it depends on has the positions to
     * read ([lo, hi)) and its pivot: loaded at once for the whole row (the
     * pivot where that row is done by then), so a step of the (sequential)
     * elimination waits for one L2 access, not four */
    int lo[kFactorBlock / G][kRowCap<G>], hi[kFactorBlock / G][kRowCap<G>];
    double piv[kFactorBlock / G][kRowCap<G>];
    unsigned char rdy[kFactorBlock / G][kRowCap<G>]; /* piv loaded: its row was done then */
};

/* Point rc/rv at row [b, b + len) of (ci, v): the group's shared copy when
 * it fits (loaded here), else the row itself; 1 when it is the copy. */
template <int G>
__device__ __forceinline__ int row_open(const group<G> &g, row_buf<G> &buf, const int *ci, double *v, int b, int len,
                                        const int **rc, double **rv)
{
    const int slot = threadIdx.x / G, fits = len <= kRowCap<G>;
    if (fits) {
        for (int k = g.lane; k < len; k += G) {
            buf.col[slot][k] = ci[b + k];
            buf.val[slot][k] = v[b + k];
        }
        g.sync();
        *rc = buf.col[slot];
        *rv = buf.val[slot];
    } else {
        *rc = ci + b;
        *rv = v + b;
    }
    return fits;
}

/* Write the shared copy back (after a g.sync that ends its writes). */
template <int G>
__device__ __forceinline__ void row_close(const group<G> &g, int fits, const double *rv, double *v, int b, int len)
{
    if (fits)
        for (int k = g.lane; k < len; k += G) v[b + k] = rv[k];
}

/* Up-looking IC(0) on the lower pattern (diagonal last in each row):
 *   l_ij = (a_ij - sum_{k<j} l_ik l_jk) / l_jj,  d_i = a_ii - sum_k l_ik^2.
 * The group's first lane writes the row; its lanes share each sparse dot
 * product.  Rows are taken in the order of order_kernel. */
template <int G>
__global__ void __launch_bounds__(kFactorBlock) ic0_kernel(int n, const int *__restrict__ rp, const int *__restrict__ ci,
                                                           double *v, double alpha, const int *__restrict__ order,
                                                           int *done, int *ctl, double *piv, double *idiag,
                                                           unsigned char *flag, stop_req stop)
{
    __shared__ row_buf<G> buf;
    const group<G> g;
    const int sl = threadIdx.x / G;
    int req = 0;
    for (int slot = g.next(ctl, 0, n); slot < n; slot = g.next(ctl, req, n)) {
        req = g.request(stop);
        const int i = order ? order[slot] : slot;
        const int b = rp[i], d = rp[i + 1] - 1, len = d - b;
        const int *rc;
        double *rv;
        const int fits = row_open(g, buf, ci, v, b, len, &rc, &rv);
        if (fits) {
            for (int p = g.lane; p < len; p += G) {
                const int j = rc[p], dj = __ldg(rp + j + 1) - 1, r = row_done(done, j);
                buf.lo[sl][p] = __ldg(rp + j);
                buf.hi[sl][p] = dj;
                buf.rdy[sl][p] = (unsigned char)r;
                if (r) buf.piv[sl][p] = __ldcg(v + dj);
            }
            g.sync();
        }
        const double aii = v[d] * (1.0 + alpha);
        double di = aii;
        for (int p = 0; p < len; p++) {
            const int j = rc[p];
            int lo, dj;
            double ljj;
            if (fits && buf.rdy[sl][p]) {
                lo = buf.lo[sl][p], dj = buf.hi[sl][p], ljj = buf.piv[sl][p];
            } else {
                wait_row(done, j, stop, ctl);
                lo = __ldg(rp + j), dj = __ldg(rp + j + 1) - 1, ljj = __ldcg(v + dj);
            }
            double acc = 0;
            for (int q = lo + g.lane; q < dj; q += G) {
                const int c = __ldg(ci + q);
                const double vq = __ldcg(v + q);
                const int m = spk_find_col(rc, 0, p, c);
                if (m >= 0) acc += rv[m] * vq;
            }
            acc = g.sum(acc);
            const double l = (rv[p] - acc) / ljj;
            di -= l * l;
            g.sync();
            if (g.lane == 0) rv[p] = l;
            g.sync();
        }
        row_close(g, fits, rv, v, b, len);
        if (g.lane == 0) {
            piv[i] = di;
            if (di > PIVOT_RTOL * fabs(aii) && isfinite(di)) {
                const double lii = sqrt(di);
                v[d] = lii;
                idiag[i] = 1.0 / lii;
            } else {
                flag[i] = 1;
                atomicMin(ctl + 1, i);
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
 * lanes write one entry).  Rows are taken in the order of order_kernel. */
template <int G>
__global__ void __launch_bounds__(kFactorBlock) ilu0_kernel(int n, const int *__restrict__ rp, const int *__restrict__ ci,
                                                            const int *__restrict__ dpos, double *v, double alpha,
                                                            const int *__restrict__ order, int *done, int *ctl,
                                                            double *piv, double *idiag, unsigned char *flag,
                                                            stop_req stop)
{
    __shared__ row_buf<G> buf;
    const group<G> g;
    const int sl = threadIdx.x / G;
    int req = 0;
    for (int slot = g.next(ctl, 0, n); slot < n; slot = g.next(ctl, req, n)) {
        req = g.request(stop);
        const int i = order ? order[slot] : slot;
        const int b = rp[i], len = rp[i + 1] - b, dl = dpos[i] - b;
        const int *rc;
        double *rv;
        const int fits = row_open(g, buf, ci, v, b, len, &rc, &rv);
        if (fits)
            for (int p = g.lane; p < dl; p += G) {
                const int k = rc[p], dk = __ldg(dpos + k), r = row_done(done, k);
                buf.lo[sl][p] = dk + 1;
                buf.hi[sl][p] = __ldg(rp + k + 1);
                buf.rdy[sl][p] = (unsigned char)r;
                if (r) buf.piv[sl][p] = __ldcg(v + dk);
            }
        if (g.lane == 0) rv[dl] *= 1.0 + alpha;
        g.sync();
        double mx = 0;
        for (int k = g.lane; k < len; k += G) mx = fmax(mx, fabs(rv[k]));
        mx = g.max(mx);
        for (int p = 0; p < dl; p++) {
            const int k = rc[p];
            int lo, hi;
            double ukk;
            if (fits && buf.rdy[sl][p]) {
                lo = buf.lo[sl][p], hi = buf.hi[sl][p], ukk = buf.piv[sl][p];
            } else {
                const int dk = __ldg(dpos + k);
                wait_row(done, k, stop, ctl);
                lo = dk + 1, hi = __ldg(rp + k + 1), ukk = __ldcg(v + dk);
            }
            const double l = rv[p] / ukk;
            g.sync();
            if (g.lane == 0) rv[p] = l;
            for (int q = lo + g.lane; q < hi; q += G) {
                const int c = __ldg(ci + q);
                const double vq = __ldcg(v + q);
                const int m = spk_find_col(rc, p + 1, len, c);
                if (m >= 0) rv[m] -= l * vq;
            }
            g.sync();
        }
        int fin = 1;
        for (int k = g.lane; k < len; k += G) fin &= isfinite(rv[k]) ? 1 : 0;
        fin = g.all(fin);
        const double u = rv[dl];
        if (g.lane == 0) {
            piv[i] = u;
            if (fabs(u) > PIVOT_RTOL * mx && fin) {
                idiag[i] = 1.0 / u;
            } else {
                flag[i] = isfinite(u) && !fin ? 2 : 1;
                atomicMin(ctl + 1, i);
                rv[dl] = 1.0;
                idiag[i] = 1.0;
            }
        }
        g.sync();
        row_close(g, fits, rv, v, b, len);
        publish_row(g, done, i);
    }
}

template <int G>
cudaError_t launch_factor(cudaStream_t s, unsigned grid, int n, int ic, const int *frp, const int *fci,
                          const int *dpos, double *fval, double alpha, const int *order, int *done, int *ctl,
                          double *piv, double *idiag, unsigned char *flag, stop_req stop)
{
    if (ic)
        ic0_kernel<G>
            <<<grid, kFactorBlock, 0, s>>>(n, frp, fci, fval, alpha, order, done, ctl, piv, idiag, flag, stop);
    else
        ilu0_kernel<G><<<grid, kFactorBlock, 0, s>>>(n, frp, fci, dpos, fval, alpha, order, done, ctl, piv, idiag,
                                                     flag, stop);
    return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t spk_dev_factor(cudaStream_t s, int n, int ic, int group, const int *frp, const int *fci,
                                      const int *dpos, double *fval, double alpha, const int *order, int *done,
                                      int *ctl, double *piv, double *idiag, unsigned char *flag,
                                      const int *stop_flag, int stop_value)
{
    if (n == 0) return cudaSuccess;
    const stop_req stop = {stop_flag, stop_value};
    unsigned grid = 0;
    cudaError_t st = resident_grid(n, kFactorBlock / (group > 0 ? group : 1), &grid);
    if (st == cudaSuccess) st = cudaMemsetAsync(done, 0, (size_t)n * sizeof(int), s);
    if (st != cudaSuccess) return st;
    switch (group) { /* the sizes devsweep_build.c chooses */
    case 4:
        return launch_factor<4>(s, grid, n, ic, frp, fci, dpos, fval, alpha, order, done, ctl, piv, idiag, flag, stop);
    case 8:
        return launch_factor<8>(s, grid, n, ic, frp, fci, dpos, fval, alpha, order, done, ctl, piv, idiag, flag, stop);
    default: return cudaErrorInvalidValue;
    }
}

#endif

/* devfactor.cu -- the kernels of devfactor.h. */
#include <cub/device/device_scan.cuh>
#include <cuda/atomic>

#include "core/csr_device.cuh"
#include "devtri.cuh"
#include "devfactor.h"

#define FULL_MASK 0xffffffffu
#define PIVOT_RTOL 1e-14 /* the host's pivot test (ic0.c, ilu0.c) */

namespace {

using namespace spk_devtri;

constexpr int kBlock = 256;
/* the lean sweeps' loop over a row's entries unrolled 4 times: loads of
 * several entries in flight (rows of a dozen entries gain; rows of three
 * lose nothing) */
constexpr int kLeanUnroll = 4;
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

/* The order of the factorization.  Handing out rows in row order lets the
 * groups in flight (a few planes of a 3D grid) wait on each other's chains,
 * which serialized the factorization; handing out only rows whose
 * dependencies are all done (a ready queue) removes that, but a row then
 * starts only when its last dependency is done, where row order let it work
 * through its first entries meanwhile: on banded matrices with long rows
 * that cost many times more.  So the order is computed once per
 * pattern, without arithmetic (order_kernel: a ready queue of rows, each
 * counted off in its dependents), and the factorization hands out rows in
 * that order (topological: each row after all its dependencies) and waits
 * per entry, as row order did.
 *
 * Wait for slot t of the queue: polls (relaxed, backing off: a poll is an L2
 * access, and many pollers would crowd out the work they wait for), then an
 * acquire load.  Threads of one warp that wait for each other make progress
 * by independent thread scheduling (sm_70 and later). */
__device__ __forceinline__ int take_slot(int *queue, int t)
{
    cuda::atomic_ref<int, cuda::thread_scope_device> slot(queue[t]);
    unsigned ns = 32;
    while (slot.load(cuda::memory_order_relaxed) < 0) {
        __nanosleep(ns);
        if (ns < 512) ns *= 2;
    }
    return slot.load(cuda::memory_order_acquire);
}

/* A thread per queue slot: take the slot's row, count it off in the rows that
 * depend on it, and queue those whose count reaches zero.  Slots are handed
 * out to running threads by ticket, and the row of a slot is queued by a
 * thread holding an earlier one, so every wait ends. */
__global__ void order_kernel(int n, const int *__restrict__ dptr, const int *__restrict__ dep, int *indeg,
                             int *queue, int *ctl)
{
    for (int t = atomicAdd(ctl, 1); t < n; t = atomicAdd(ctl, 1)) {
        const int i = take_slot(queue, t);
        for (int q = dptr[i], e = dptr[i + 1]; q < e; q++) {
            const int d = dep[q];
            if (atomicSub(indeg + d, 1) == 1) {
                const int pos = atomicAdd(ctl + 2, 1);
                cuda::atomic_ref<int, cuda::thread_scope_device>(queue[pos]).store(d, cuda::memory_order_release);
            }
        }
    }
}

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

/* Positions [lo, hi) of row i's strictly lower entries in F. */
__device__ __forceinline__ int strict_end(int ic, const int *rp, const int *dpos, int i)
{
    return ic ? rp[i + 1] - 1 : dpos[i];
}

/* dcnt[c + 1] += 1 for each strictly lower entry (i, c) of F. */
__global__ void deps_count_kernel(int n, int ic, const int *__restrict__ rp, const int *__restrict__ ci,
                                  const int *__restrict__ dpos, int *dcnt)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    for (int k = rp[i], e = strict_end(ic, rp, dpos, i); k < e; k++) atomicAdd(dcnt + ci[k] + 1, 1);
}

/* dep[dptr[c] ..]: the rows with a strictly lower entry in column c. */
__global__ void deps_fill_kernel(int n, int ic, const int *__restrict__ rp, const int *__restrict__ ci,
                                 const int *__restrict__ dpos, const int *__restrict__ dptr, int *fill,
                                 int *__restrict__ dep)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    for (int k = rp[i], e = strict_end(ic, rp, dpos, i); k < e; k++) {
        const int c = ci[k];
        dep[dptr[c] + atomicAdd(fill + c, 1)] = i;
    }
}

/* indeg[i] = the rows row i depends on; the rows without any are queued. */
__global__ void queue_init_kernel(int n, int ic, const int *__restrict__ rp, const int *__restrict__ dpos,
                                  int *__restrict__ indeg, int *queue, int *tail)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    const int c = strict_end(ic, rp, dpos, i) - rp[i];
    indeg[i] = c;
    if (c == 0) queue[atomicAdd(tail, 1)] = i;
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


__global__ void sell_width_kernel(int n, const int *__restrict__ beg, int boff, const int *__restrict__ end, int eoff,
                                  int *sp)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    const int len = i < n ? end[i] + eoff - (beg[i] + boff) : 0;
    int w = len;
    for (int o = 16; o > 0; o >>= 1) w = max(w, __shfl_xor_sync(FULL_MASK, w, o));
    if (i < n && (i & (kSlice - 1)) == 0) sp[i / kSlice + 1] = w * kSlice;
    if (i == 0) sp[0] = 0;
}

/* The sliced copy: columns (offsets: c - i) and values (scale: times
 * scale[i]); padding at the row's own column with value 0. */
template <typename C, typename V>
__global__ void sell_fill_kernel(int n, const int *__restrict__ beg, int boff, const int *__restrict__ end, int eoff,
                                 const int *__restrict__ col, const double *__restrict__ val,
                                 const double *__restrict__ scale, int offsets, const int *__restrict__ sp,
                                 C *__restrict__ scol, V *__restrict__ sval)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    const int base = sp[i / kSlice] + (i & (kSlice - 1)), w = (sp[i / kSlice + 1] - sp[i / kSlice]) / kSlice;
    const int b = beg[i] + boff, len = end[i] + eoff - b, from = offsets ? i : 0;
    const double d = scale ? scale[i] : 1.0;
    for (int k = 0; k < w; k++) {
        scol[base + k * kSlice] = (C)((k < len ? col[b + k] : i) - from);
        sval[base + k * kSlice] = k < len ? (V)(d * val[b + k]) : (V)0;
    }
}

/* The sweep of sweep_kernel on the sliced copy, a thread per row. */
template <typename V>
__global__ void sell_sweep_kernel(int n, const int *__restrict__ sp, const int *__restrict__ scol,
                                  const V *__restrict__ sval, const double *__restrict__ idiag,
                                  const double *__restrict__ b, const double *__restrict__ x, double *__restrict__ out)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    const int s0 = sp[i / kSlice], base = s0 + (i & (kSlice - 1)), w = (sp[i / kSlice + 1] - s0) / kSlice;
    double s = 0;
    for (int k = 0; k < w; k++) {
        const int c = scol[base + k * kSlice];
        const double xc = x ? x[c] : (idiag ? idiag[c] * b[c] : b[c]);
        s += (double)sval[base + k * kSlice] * xc;
    }
    const double r = b[i] - s;
    out[i] = idiag ? r * idiag[i] : r;
}

/* The lean copy's pattern: the largest |c - i| of the strict part, into
 * *span (atomicMax; zeroed by the caller). */
__global__ void span_kernel(int n, const int *__restrict__ beg, int boff, const int *__restrict__ end, int eoff,
                            const int *__restrict__ col, int *span)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    int m = 0;
    if (i < n)
        for (int k = beg[i] + boff; k < end[i] + eoff; k++) m = max(m, abs(col[k] - i));
    for (int o = 16; o > 0; o >>= 1) m = max(m, __shfl_xor_sync(FULL_MASK, m, o));
    if ((threadIdx.x & 31) == 0 && m > 0) atomicMax(span, m);
}

/* 2^e, e in [-1022, 1023]. */
__device__ __forceinline__ double pow2(int e)
{
    return __longlong_as_double((long long)(1023 + e) << 52);
}

/* The least e with |v| < 2^e (v finite), kept in [-1022, 1022]. */
__device__ __forceinline__ int exponent_above(double v)
{
    const int e = (int)((__double_as_longlong(v) >> 52) & 0x7ff) - 1022;
    return e < -1022 ? -1022 : (e > 1022 ? 1022 : e);
}

/* The float iterates' scale 2^-(eb + ef): m (the bits of a non-negative
 * double) < 2^eb and f < 2^ef (within a factor 4 at the ends of double's
 * range); 2^0 where there is no m, or it is 0 or not finite (then the
 * result is not finite either).  Applied as two factors, each in double's
 * range. */
__device__ __forceinline__ void lean_exponents(const unsigned long long *m, double f, int *eb, int *ef)
{
    *eb = *ef = 0;
    if (!m) return;
    const double v = __longlong_as_double((long long)*m);
    if (!(v > 0) || !isfinite(v)) return;
    *eb = exponent_above(v);
    *ef = exponent_above(f);
}

/* *m = max(*m, v over the block) (the bits of a non-negative double): one
 * atomic per block, and only where it raises *m (atomics on one address
 * from every warp of a large grid cost more than the sweep). */
__device__ __forceinline__ void raise_max(double v, unsigned long long *m)
{
    __shared__ double warp_max[kBlock / 32];
    for (int k = 16; k > 0; k >>= 1) v = fmax(v, __shfl_xor_sync(FULL_MASK, v, k));
    if ((threadIdx.x & 31) == 0) warp_max[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < kBlock / 32; w++) v = fmax(v, warp_max[w]);
        const unsigned long long bits = (unsigned long long)__double_as_longlong(v);
        if (v > 0 && bits > *(volatile unsigned long long *)m) atomicMax(m, bits);
    }
}

/* One sweep on the lean copy (devfactor.h, spk_dev_lean_sweep): a thread
 * per R rows kBlock apart, their loads issued together (a short row alone
 * reads too few bytes per dependent load to keep the memory busy). */
template <int R, typename C, typename V, typename X, typename XO>
__global__ void lean_sweep_kernel(int n, const int *__restrict__ sp, const C *__restrict__ scol,
                                  const V *__restrict__ sval, const double *__restrict__ idiag,
                                  const double *__restrict__ b, const unsigned long long *bmax, double f, X *c,
                                  const X *__restrict__ x, XO *__restrict__ out, int last, unsigned long long *omax)
{
    const int i0 = blockIdx.x * kBlock * R + threadIdx.x;
    int eb, ef;
    lean_exponents(bmax, f, &eb, &ef);
    const double sb = pow2(-eb), sf = pow2(-ef);
    /* c_j = d_j b_j, scaled */
    auto cj = [&](int j) { return (b[j] * sb) * (idiag ? idiag[j] * sf : sf); };
    int base[R], w[R], wmax = 0;
    double s[R], ci[R];
#pragma unroll
    for (int r = 0; r < R; r++) {
        const int i = i0 + r * kBlock;
        s[r] = 0;
        ci[r] = 0;
        w[r] = 0;
        base[r] = 0;
        if (i < n) {
            const int s0 = sp[i / kSlice];
            base[r] = s0 + (i & (kSlice - 1));
            w[r] = (sp[i / kSlice + 1] - s0) / kSlice;
            ci[r] = x && c ? (double)c[i] : cj(i);
        }
        wmax = max(wmax, w[r]);
    }
#pragma unroll kLeanUnroll
    for (int k = 0; k < wmax; k++) {
#pragma unroll
        for (int r = 0; r < R; r++)
            if (k < w[r]) {
                const int j = i0 + r * kBlock + (int)scol[base[r] + k * kSlice];
                s[r] += (double)sval[base[r] + k * kSlice] * (x ? (double)x[j] : cj(j));
            }
    }
    double m = 0;
#pragma unroll
    for (int r = 0; r < R; r++) {
        const int i = i0 + r * kBlock;
        if (i >= n) continue;
        if (!x && c) c[i] = (X)ci[r];
        double o = ci[r] - s[r];
        if (last) o = eb + ef >= -1022 && eb + ef <= 1023 ? o * pow2(eb + ef) : o * pow2(eb) * pow2(ef);
        out[i] = (XO)o;
        m = fmax(m, fabs(o));
    }
    if (omax) raise_max(m, omax);
}

/* *m = max(*m, max_i |x_i|) as the bits of a double (zeroed by the caller). */
__global__ void absmax_kernel(int n, const double *__restrict__ x, unsigned long long *m)
{
    double v = 0;
    for (int i = blockIdx.x * kBlock + threadIdx.x; i < n; i += gridDim.x * kBlock) v = fmax(v, fabs(x[i]));
    raise_max(v, m);
}

template <typename V>
__global__ void __launch_bounds__(kSmallBlock) small_apply_kernel(int n, int k, const int *sp0, const int *sc0,
                                                                  const V *sv0, const double *id0, const int *sp1,
                                                                  const int *sc1, const V *sv1, const double *id1,
                                                                  const double *r, double *y, double *z)
{
    extern __shared__ double small_x[];
    small_tri(n, k, sp0, sc0, sv0, id0, r, small_x, small_x + n, y);
    small_tri(n, k, sp1, sc1, sv1, id1, y, small_x, small_x + n, z);
}

__global__ void __launch_bounds__(kSmallBlock) small_solve_kernel(int n, spk_dev_tri l, spk_dev_tri u,
                                                                  const double *r, double *y, double *z)
{
    extern __shared__ double small_x[];
    small_solve_tri(n, 0, l, r, small_x, y);
    small_solve_tri(n, 1, u, y, small_x, z);
}

__global__ void round_kernel(long long m, double *v)
{
    const long long k = (long long)blockIdx.x * kBlock + threadIdx.x;
    if (k < m) v[k] = (double)(float)v[k];
}

__global__ void probe_kernel(int n, double *x)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    unsigned h = (unsigned)i * 2654435761u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    x[i] = 0.5 + ((h >> 8) & 0xffff) * (1.0 / 65536.0);
}

/* y = (a - b) / idiag (idiag NULL: a - b); y may be a or b. */
__global__ void sub_scaled_kernel(int n, const double *idiag, const double *a, const double *b, double *y)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    const double d = a[i] - b[i];
    y[i] = idiag ? d / idiag[i] : d;
}

/* The sum of s over a block of kBlock threads, in thread 0 (warps, then the
 * warps' sums in order: the same bits on every run). */
__device__ __forceinline__ double block_sum(double s)
{
    __shared__ double warp_sum[kBlock / 32];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(FULL_MASK, s, o);
    if ((threadIdx.x & 31) == 0) warp_sum[threadIdx.x / 32] = s;
    __syncthreads();
    double t = 0;
    if (threadIdx.x == 0)
        for (int w = 0; w < kBlock / 32; w++) t += warp_sum[w];
    return t;
}

/* part[blockIdx.x] = the block's sum of ((a - b) / idiag)^2 (b, idiag
 * NULL: 0, 1), a grid-stride loop; partial sums in a fixed order, so the
 * check's result does not depend on timing. */
__global__ void scaled_sq_kernel(int n, const double *__restrict__ idiag, const double *__restrict__ a,
                                 const double *__restrict__ b, double *__restrict__ part)
{
    double s = 0;
    for (int i = blockIdx.x * kBlock + threadIdx.x; i < n; i += gridDim.x * kBlock) {
        double d = a[i] - (b ? b[i] : 0.0);
        if (idiag) d /= idiag[i];
        s += d * d;
    }
    const double t = block_sum(s);
    if (threadIdx.x == 0) part[blockIdx.x] = t;
}

/* out[j] = sqrt(sum of part[j * parts .. (j + 1) * parts - 1]), a block per
 * j (the same order of additions on every run). */
__global__ void sum_parts_kernel(int parts, const double *__restrict__ part, double *__restrict__ out)
{
    const double *p = part + (size_t)blockIdx.x * parts;
    double t = 0;
    for (int k = threadIdx.x; k < parts; k += kBlock) t += p[k];
    const double u = block_sum(t);
    if (threadIdx.x == 0) out[blockIdx.x] = sqrt(u);
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

/* Enough blocks of `per_block` workers to fill the GPU, at most 16 per SM
 * and no more than the work needs (any grid is safe: see order_kernel). */
cudaError_t resident_grid(long long work, int per_block, unsigned *grid)
{
    int dev = 0, sms = 0;
    cudaError_t st = cudaGetDevice(&dev);
    if (st == cudaSuccess) st = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (st != cudaSuccess) return st;
    long long g = (work + per_block - 1) / per_block;
    if (g > 16LL * sms) g = 16LL * sms;
    *grid = (unsigned)(g > 0 ? g : 1);
    return cudaSuccess;
}

extern "C" cudaError_t spk_dev_deps(cudaStream_t s, int n, int ic, const int *frp, const int *fci, const int *dpos,
                                    int *dptr, int *dep, int *work, void *temp, size_t temp_bytes)
{
    cudaError_t st = cudaMemsetAsync(dptr, 0, ((size_t)n + 1) * sizeof(int), s);
    if (st != cudaSuccess || n == 0) return st;
    deps_count_kernel<<<blocks_for(n), kBlock, 0, s>>>(n, ic, frp, fci, dpos, dptr);
    st = cudaGetLastError();
    if (st == cudaSuccess) st = cub::DeviceScan::InclusiveSum(temp, temp_bytes, dptr + 1, dptr + 1, n, s);
    if (st == cudaSuccess) st = cudaMemsetAsync(work, 0, (size_t)n * sizeof(int), s);
    if (st != cudaSuccess) return st;
    deps_fill_kernel<<<blocks_for(n), kBlock, 0, s>>>(n, ic, frp, fci, dpos, dptr, work, dep);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_order(cudaStream_t s, int n, int ic, const int *frp, const int *dpos,
                                     const int *dptr, const int *dep, int *indeg, int *order, int *ctl)
{
    if (n == 0) return cudaSuccess;
    unsigned grid = 0;
    cudaError_t st = resident_grid(n, kBlock, &grid);
    if (st == cudaSuccess) st = cudaMemsetAsync(ctl, 0, 3 * sizeof(int), s);
    if (st == cudaSuccess) st = cudaMemsetAsync(order, 0xff, (size_t)n * sizeof(int), s);
    if (st != cudaSuccess) return st;
    queue_init_kernel<<<blocks_for(n), kBlock, 0, s>>>(n, ic, frp, dpos, indeg, order, ctl + 2);
    st = cudaGetLastError();
    if (st != cudaSuccess) return st;
    order_kernel<<<grid, kBlock, 0, s>>>(n, dptr, dep, indeg, order, ctl);
    return cudaGetLastError();
}

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
    switch (group) { /* the sizes devsweep.c chooses */
    case 4:
        return launch_factor<4>(s, grid, n, ic, frp, fci, dpos, fval, alpha, order, done, ctl, piv, idiag, flag, stop);
    case 8:
        return launch_factor<8>(s, grid, n, ic, frp, fci, dpos, fval, alpha, order, done, ctl, piv, idiag, flag, stop);
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

extern "C" cudaError_t spk_dev_sub_scaled(cudaStream_t s, int n, const double *idiag, const double *a, const double *b,
                                          double *y)
{
    if (n == 0) return cudaSuccess;
    sub_scaled_kernel<<<blocks_for(n), kBlock, 0, s>>>(n, idiag, a, b, y);
    return cudaGetLastError();
}

extern "C" int spk_dev_sell_slices(int n)
{
    return (n + kSlice - 1) / kSlice;
}

extern "C" cudaError_t spk_dev_sell_pattern(cudaStream_t s, int n, const int *beg, int boff, const int *end, int eoff,
                                            int *sp, void *temp, size_t temp_bytes)
{
    const int ns = spk_dev_sell_slices(n);
    if (n == 0) return cudaMemsetAsync(sp, 0, sizeof(int), s);
    sell_width_kernel<<<blocks_for((long long)ns * kSlice), kBlock, 0, s>>>(n, beg, boff, end, eoff, sp);
    cudaError_t st = cudaGetLastError();
    if (st != cudaSuccess) return st;
    return cub::DeviceScan::InclusiveSum(temp, temp_bytes, sp + 1, sp + 1, ns, s);
}

namespace {
cudaError_t sell_fill(cudaStream_t s, int n, const int *beg, int boff, const int *end, int eoff, const int *col,
                      const double *val, const double *scale, int offsets, const int *sp, void *scol, int narrow,
                      void *sval, int single)
{
    if (n == 0) return cudaSuccess;
    const unsigned g = blocks_for(n);
    if (narrow && single)
        sell_fill_kernel<short, float><<<g, kBlock, 0, s>>>(n, beg, boff, end, eoff, col, val, scale, offsets, sp,
                                                            (short *)scol, (float *)sval);
    else if (narrow)
        sell_fill_kernel<short, double><<<g, kBlock, 0, s>>>(n, beg, boff, end, eoff, col, val, scale, offsets, sp,
                                                             (short *)scol, (double *)sval);
    else if (single)
        sell_fill_kernel<int, float><<<g, kBlock, 0, s>>>(n, beg, boff, end, eoff, col, val, scale, offsets, sp,
                                                          (int *)scol, (float *)sval);
    else
        sell_fill_kernel<int, double><<<g, kBlock, 0, s>>>(n, beg, boff, end, eoff, col, val, scale, offsets, sp,
                                                           (int *)scol, (double *)sval);
    return cudaGetLastError();
}
} // namespace

extern "C" cudaError_t spk_dev_sell_fill(cudaStream_t s, int n, const int *beg, int boff, const int *end, int eoff,
                                         const int *col, const double *val, const int *sp, int *scol, void *sval,
                                         int single)
{
    return sell_fill(s, n, beg, boff, end, eoff, col, val, NULL, 0, sp, scol, 0, sval, single);
}

extern "C" cudaError_t spk_dev_sell_sweep(cudaStream_t s, int n, const int *sp, const int *scol, const void *sval,
                                          int single, const double *idiag, const double *b, const double *x,
                                          double *out)
{
    if (n == 0) return cudaSuccess;
    if (single)
        sell_sweep_kernel<float><<<blocks_for(n), kBlock, 0, s>>>(n, sp, scol, (const float *)sval, idiag, b, x, out);
    else
        sell_sweep_kernel<double><<<blocks_for(n), kBlock, 0, s>>>(n, sp, scol, (const double *)sval, idiag, b, x,
                                                                   out);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_tri_span(cudaStream_t s, int n, const int *beg, int boff, const int *end, int eoff,
                                       const int *col, int *span)
{
    cudaError_t st = cudaMemsetAsync(span, 0, sizeof(int), s);
    if (st != cudaSuccess || n == 0) return st;
    span_kernel<<<blocks_for(n), kBlock, 0, s>>>(n, beg, boff, end, eoff, col, span);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_lean_fill(cudaStream_t s, int n, const int *beg, int boff, const int *end, int eoff,
                                        const int *col, const double *val, const double *idiag, const int *sp,
                                        void *scol, int narrow, void *sval, int single)
{
    return sell_fill(s, n, beg, boff, end, eoff, col, val, idiag, 1, sp, scol, narrow, sval, single);
}

namespace {
/* wide: a thread per row (devsweep.c, LEAN_SHORT_ROWS), else per two */
template <typename C, typename V, typename X, typename XO>
cudaError_t lean_launch(cudaStream_t s, int n, int wide, const int *sp, const void *scol, const void *sval,
                        const double *idiag, const double *b, const unsigned long long *bmax, double f, void *c,
                        const void *x, void *out, int last, unsigned long long *omax)
{
    if (wide)
        lean_sweep_kernel<1, C, V, X, XO><<<blocks_for(n), kBlock, 0, s>>>(
            n, sp, (const C *)scol, (const V *)sval, idiag, b, bmax, f, (X *)c, (const X *)x, (XO *)out, last, omax);
    else
        lean_sweep_kernel<2, C, V, X, XO><<<blocks_for(((long long)n + 1) / 2), kBlock, 0, s>>>(
            n, sp, (const C *)scol, (const V *)sval, idiag, b, bmax, f, (X *)c, (const X *)x, (XO *)out, last, omax);
    return cudaGetLastError();
}

template <typename C>
cudaError_t lean_by_type(cudaStream_t s, int n, int wide, const int *sp, const void *scol, const void *sval, int single,
                         int xf, int of, const double *idiag, const double *b, const unsigned long long *bmax, double f,
                         void *c, const void *x, void *out, int last, unsigned long long *omax)
{
#define LEAN_ARGS s, n, wide, sp, scol, sval, idiag, b, bmax, f, c, x, out, last, omax
    if (!single && (xf || of)) return cudaErrorInvalidValue; /* double values: double iterates */
    if (!single) return lean_launch<C, double, double, double>(LEAN_ARGS);
    if (xf && of) return lean_launch<C, float, float, float>(LEAN_ARGS);
    if (xf) return lean_launch<C, float, float, double>(LEAN_ARGS);
    if (of) return cudaErrorInvalidValue; /* float out from double iterates: not used */
    return lean_launch<C, float, double, double>(LEAN_ARGS);
#undef LEAN_ARGS
}
} // namespace

extern "C" cudaError_t spk_dev_lean_sweep(cudaStream_t s, int n, int wide, const int *sp, const void *scol, int narrow,
                                         const void *sval, int single, int xf, int of, const double *idiag,
                                         const double *b, const unsigned long long *bmax, double f, void *c,
                                         const void *x, void *out, int last, unsigned long long *omax)
{
    if (n == 0) return cudaSuccess;
    if (narrow)
        return lean_by_type<short>(s, n, wide, sp, scol, sval, single, xf, of, idiag, b, bmax, f, c, x, out, last,
                                   omax);
    return lean_by_type<int>(s, n, wide, sp, scol, sval, single, xf, of, idiag, b, bmax, f, c, x, out, last, omax);
}

extern "C" cudaError_t spk_dev_absmax(cudaStream_t s, int n, const double *x, unsigned long long *m)
{
    if (n == 0) return cudaSuccess;
    /* a grid-stride loop over at most 1024 blocks: a GPU's worth of blocks in flight, and few atomics */
    const long long t = (long long)n < 1024LL * kBlock ? n : 1024LL * kBlock;
    absmax_kernel<<<blocks_for(t), kBlock, 0, s>>>(n, x, m);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_round_float(cudaStream_t s, long long m, double *v)
{
    if (m == 0) return cudaSuccess;
    round_kernel<<<blocks_for(m), kBlock, 0, s>>>(m, v);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_small_init(int n)
{
    const size_t bytes = 2 * (size_t)n * sizeof(double);
    if (n > SPK_DEV_SMALL_ROWS) return cudaErrorInvalidValue;
    cudaError_t st = cudaFuncSetAttribute(small_apply_kernel<float>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          (int)bytes);
    if (st == cudaSuccess)
        st = cudaFuncSetAttribute(small_apply_kernel<double>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)bytes);
    return st;
}

extern "C" cudaError_t spk_dev_small_apply(cudaStream_t s, int n, int k, int single, const int *const sp[2],
                                           const int *const scol[2], const void *const sval[2],
                                           const double *const id[2], const double *r, double *y, double *z)
{
    if (n == 0 || k < 1) return cudaSuccess;
    if (n > SPK_DEV_SMALL_ROWS) return cudaErrorInvalidValue;
    const size_t bytes = 2 * (size_t)n * sizeof(double);
    if (single)
        small_apply_kernel<float><<<1, kSmallBlock, bytes, s>>>(n, k, sp[0], scol[0], (const float *)sval[0], id[0],
                                                                sp[1], scol[1], (const float *)sval[1], id[1], r, y,
                                                                z);
    else
        small_apply_kernel<double><<<1, kSmallBlock, bytes, s>>>(n, k, sp[0], scol[0], (const double *)sval[0],
                                                                 id[0], sp[1], scol[1], (const double *)sval[1],
                                                                 id[1], r, y, z);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_small_solve_init(int n)
{
    if (n > SPK_DEV_SOLVE_ROWS) return cudaErrorInvalidValue;
    return cudaFuncSetAttribute(small_solve_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)((size_t)n * sizeof(double)));
}

extern "C" cudaError_t spk_dev_small_solve(cudaStream_t s, int n, spk_dev_tri l, spk_dev_tri u, const double *r,
                                           double *y, double *z)
{
    if (n == 0) return cudaSuccess;
    if (n > SPK_DEV_SOLVE_ROWS) return cudaErrorInvalidValue;
    small_solve_kernel<<<1, kSmallBlock, (size_t)n * sizeof(double), s>>>(n, l, u, r, y, z);
    return cudaGetLastError();
}

/* Up to 1024 blocks of partial sums: a GPU's worth of threads, so that a
 * norm of a large vector reads at the memory's rate (a few dozen blocks
 * leave most of the GPU idle). */
extern "C" int spk_dev_norm_parts(int n)
{
    const long long b = blocks_for(n);
    return (int)(b < 1 ? 1 : b > 1024 ? 1024 : b);
}

extern "C" cudaError_t spk_dev_scaled_norm_part(cudaStream_t s, int n, const double *idiag, const double *a,
                                                const double *b, double *part)
{
    scaled_sq_kernel<<<(unsigned)spk_dev_norm_parts(n), kBlock, 0, s>>>(n, idiag, a, b, part);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_norm_finish(cudaStream_t s, int m, int parts, const double *part, double *out)
{
    if (m == 0) return cudaSuccess;
    sum_parts_kernel<<<(unsigned)m, kBlock, 0, s>>>(parts, part, out);
    return cudaGetLastError();
}

extern "C" const void *spk_devfactor_probe(void)
{
    return (const void *)order_kernel;
}

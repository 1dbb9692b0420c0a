/* devtri.cuh -- applying a triangular pair (precond/devtri.h) inside one
 * thread block of kSmallBlock threads: the device functions shared by the
 * small-system applies of precond/devfactor.cu and the block iterations of
 * solver/engine/block_kernels.cu, so both do the same arithmetic in the same order. */
#ifndef SPK_PRECOND_DEVTRI_CUH
#define SPK_PRECOND_DEVTRI_CUH

#include <climits>

#include <cooperative_groups.h>

#include "precond/devtri.h"

namespace spk_devtri {

constexpr int kSmallBlock = 1024;

/* Who runs an apply or an iteration, as a policy of the functions below:
 *   OneBlock: one thread block of kSmallBlock threads, barriers
 *     __syncthreads, the vectors read as any load (they may be in shared
 *     memory);
 *   Cluster: the blocks of one thread block cluster (sm_90), rows dealt over
 *     all their threads in the same rounds, barriers over the whole cluster
 *     (release and acquire at cluster scope), and every vector written during
 *     the run read from L2 (ld.global.cg): the blocks sit on different SMs,
 *     whose L1 caches do not see each other's stores.
 * The arithmetic of a row, and its order, is the same in both. */
struct OneBlock {
    static constexpr bool kCluster = false;
    __device__ static __forceinline__ int rank() { return 0; }
    __device__ static __forceinline__ int blocks() { return 1; }
    __device__ static __forceinline__ int first() { return threadIdx.x; }
    __device__ static __forceinline__ int stride() { return kSmallBlock; }
    __device__ static __forceinline__ void sync() { __syncthreads(); }
    __device__ static __forceinline__ double ld(const double *p) { return *p; }
    __device__ static __forceinline__ void put(double *v, int, double a) { *v = a; }
    __device__ static __forceinline__ void put(double2 *v, int, double2 a) { *v = a; }
};

struct Cluster {
    static constexpr bool kCluster = true;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __device__ static __forceinline__ int rank() { return (int)cooperative_groups::this_cluster().block_rank(); }
    __device__ static __forceinline__ int blocks() { return (int)cooperative_groups::this_cluster().num_blocks(); }
    __device__ static __forceinline__ void sync() { cooperative_groups::this_cluster().sync(); }
    /* a into block r's copy of v (at the address of this block's own v);
     * visible there after the next sync.  A block's values for the others go
     * out before a barrier, not fetched after it: the remote writes overlap
     * the barrier, the reads would wait after it (the same bits). */
    __device__ static __forceinline__ void put(double *v, int r, double a)
    {
        *cooperative_groups::this_cluster().map_shared_rank(v, (unsigned)r) = a;
    }
    __device__ static __forceinline__ void put(double2 *v, int r, double2 a)
    {
        *cooperative_groups::this_cluster().map_shared_rank(v, (unsigned)r) = a;
    }
#else
    __device__ static __forceinline__ int rank() { __trap(); return 0; }
    __device__ static __forceinline__ int blocks() { __trap(); return 1; }
    __device__ static __forceinline__ void sync() { __trap(); }
    __device__ static __forceinline__ void put(double *, int, double) { __trap(); }
    __device__ static __forceinline__ void put(double2 *, int, double2) { __trap(); }
#endif
    __device__ static __forceinline__ int first() { return rank() * kSmallBlock + (int)threadIdx.x; }
    __device__ static __forceinline__ int stride() { return blocks() * kSmallBlock; }
    __device__ static __forceinline__ double ld(const double *p) { return __ldcg(p); }
};

/* Sliced ELL copies of a triangle's strict part for the sweeps: slices of
 * kSlice rows, each as wide as its longest row, stored column by column
 * (entry k of row r at sp[r / kSlice] + k * kSlice + r % kSlice), padded with
 * zeros at the row's own column, so a sweep reads the factor coalesced. */
constexpr int kSlice = SPK_DEV_SLICE;

/* The whole apply of a small factor in one block: K sweeps on triangle 0
 * for b = r into y, then K on triangle 1 for b = y into z, the iterates in
 * shared memory (x_0 = D^-1 b staged, then x_1 .. x_{K-1}; x_K written to
 * y or z), the factor read through the read-only cache, where it stays
 * between sweeps.  Each sweep is sell_sweep_kernel's arithmetic in its
 * order, so the result is the same to the bit; z may be r (r is not read
 * after the first triangle).  G (OneBlock or Cluster) runs it; with a
 * cluster the iterates are in global memory. */
template <typename V, typename G = OneBlock>
__device__ __forceinline__ void small_tri(int n, int k, const int *__restrict__ sp, const int *__restrict__ scol,
                                          const V *__restrict__ sval, const double *__restrict__ id,
                                          const double *b, double *xa, double *xb, double *out)
{
    for (int i = G::first(); i < n; i += G::stride()) xa[i] = id ? id[i] * G::ld(b + i) : G::ld(b + i);
    G::sync();
    double *cur = xa, *nxt = xb;
    for (int j = 0; j < k; j++) {
        double *dst = j == k - 1 ? out : nxt;
        for (int i = G::first(); i < n; i += G::stride()) {
            const int s0 = sp[i / kSlice], base = s0 + (i & (kSlice - 1)), w = (sp[i / kSlice + 1] - s0) / kSlice;
            double s = 0;
            for (int q = 0; q < w; q++) s += (double)sval[base + q * kSlice] * G::ld(cur + scol[base + q * kSlice]);
            const double r = G::ld(b + i) - s;
            dst[i] = id ? r * id[i] : r;
        }
        G::sync();
        nxt = cur;
        cur = dst;
    }
}

/* small_tri in one block where a row of the triangle is longer than
 * SPK_DEV_LONG_ROW (long_rows; watt_2: one of 127 entries, the rest at most
 * 7): in a sliced copy every row of its slice is padded to its length, so
 * a sweep waited on that slice's 127 entries a thread.  Here the rows of a
 * slice wider than that stop at their own entries (the rest is padding, 0
 * x_i), and the long rows, a warp each, are added pairwise over its lanes
 * (the same to rounding).  Out of line: inlined, the iteration kernels
 * spilled. */
template <typename V>
__device__ __noinline__ void small_tri_wide(int n, int k, const int *__restrict__ sp, const int *__restrict__ scol,
                                            const V *__restrict__ sval, const double *__restrict__ id,
                                            const double *b, double *xa, double *xb, double *out,
                                            const int *__restrict__ beg, int boff, const int *__restrict__ end,
                                            int eoff, const int *lrow, int nlong)
{
    for (int i = threadIdx.x; i < n; i += kSmallBlock) xa[i] = id ? id[i] * b[i] : b[i];
    __syncthreads();
    double *cur = xa, *nxt = xb;
    for (int j = 0; j < k; j++) {
        double *dst = j == k - 1 ? out : nxt;
        for (int i = threadIdx.x; i < n; i += kSmallBlock) {
            const int s0 = sp[i / kSlice], base = s0 + (i & (kSlice - 1));
            int w = (sp[i / kSlice + 1] - s0) / kSlice;
            if (w > SPK_DEV_LONG_ROW) {
                const int len = (end[i] + eoff) - (beg[i] + boff);
                if (len > SPK_DEV_LONG_ROW) continue; /* a warp's, below */
                w = len;
            }
            double s = 0;
            for (int q = 0; q < w; q++) s += (double)sval[base + q * kSlice] * cur[scol[base + q * kSlice]];
            const double r = b[i] - s;
            dst[i] = id ? r * id[i] : r;
        }
        for (int l = (int)threadIdx.x >> 5; l < nlong; l += kSmallBlock / 32) {
            const int i = lrow[l], base = sp[i / kSlice] + (i & (kSlice - 1));
            const int len = (end[i] + eoff) - (beg[i] + boff);
            double s = 0;
#pragma unroll 2
            for (int q = (int)threadIdx.x & 31; q < len; q += 32)
                s += (double)sval[base + q * kSlice] * cur[scol[base + q * kSlice]];
            for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
            if ((threadIdx.x & 31) == 0) {
                const double r = b[i] - s;
                dst[i] = id ? r * id[i] : r;
            }
        }
        __syncthreads();
        nxt = cur;
        cur = dst;
    }
}

/* The same sweeps run by a cluster (Cluster): g lanes a row (a power of two
 * up to 32: more of the cluster's threads where there are few rows; the
 * row's entries q = lane, lane + g, ... added by each lane, then the lanes'
 * sums added pairwise), the iterates in global memory.  The order of the
 * additions differs from one block's, so the result agrees to rounding. */
__device__ __forceinline__ int cluster_lanes(int n)
{
    int g = 1;
    while (g < 32 && 2 * g * n <= Cluster::stride()) g *= 2;
    return g;
}

/* K sweeps with g lanes a row, run by G: x_0 = D^-1 b, x_{j+1} = D^-1 (b -
 * S x_j), x_K into out; part(i, lane, x) is the lane's part of row i's
 * (S x)_i, the lanes' parts added pairwise. */
template <typename G, typename Part>
__device__ __forceinline__ void lane_sweeps(int n, int k, int g, const double *__restrict__ id, const double *b,
                                            double *xa, double *xb, double *out, Part part)
{
    const int lane = threadIdx.x & (g - 1);
    const int mine = G::rank() * (kSmallBlock / g) + (int)threadIdx.x / g, all = G::blocks() * (kSmallBlock / g);
    for (int i = G::first(); i < n; i += G::stride()) xa[i] = id ? id[i] * G::ld(b + i) : G::ld(b + i);
    G::sync();
    double *cur = xa, *nxt = xb;
    for (int j = 0; j < k; j++) {
        double *dst = j == k - 1 ? out : nxt;
        for (int base = 0; base < n; base += all) {
            const int i = base + mine;
            double s = i < n ? part(i, lane, cur) : 0.0;
            for (int o = g / 2; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o, g);
            if (i < n && lane == 0) {
                const double r = G::ld(b + i) - s;
                dst[i] = id ? r * id[i] : r;
            }
        }
        G::sync();
        nxt = cur;
        cur = dst;
    }
}

/* A block's copy in shared memory of the factor's entries its rows read
 * in a cluster's sweeps (stage_factor): col[t] and val[t] hold triangle t's
 * entries [off[t], off[t] + count[t]) of its arrays (the sliced copies, or
 * the factor as stored); col[t] NULL where they did not fit: read from
 * global memory.  Only where the entries are read from changes, not the
 * arithmetic. */
struct Staged {
    const int *col[2];
    const void *val[2];
    int off[2], count[2];
};

/* The row a thread sweeps with its g lanes where every row has them (n <=
 * rows a round, one_round_sweeps): the same as lane_sweeps' first round. */
template <typename G>
__device__ __forceinline__ int round_row(int g)
{
    return G::rank() * (kSmallBlock / g) + (int)threadIdx.x / g;
}

/* Entries [k0, k1) of a triangle's arrays, from shared memory where st
 * staged all of them, else from (col, val) in global memory. */
template <typename V>
struct Entries {
    const int *col;
    const V *val;
    int base; /* what to subtract from an entry's index */
    __device__ __forceinline__ void from(const int *gcol, const V *gval, const Staged *st, int t, int k0, int k1)
    {
        col = gcol;
        val = gval;
        base = 0;
        if (st && st->col[t] && k0 >= st->off[t] && k1 <= st->off[t] + st->count[t]) {
            col = st->col[t];
            val = (const V *)st->val[t];
            base = st->off[t];
        }
    }
};

/* K sweeps where every row has its g lanes (n <= rows a round): x_0 = D^-1
 * b, x_{j+1} = D^-1 (b - S x_j), x_K into out; b_i and d_i are read once,
 * before the sweeps, and part(lane, xv) (the lane's part of the thread's
 * row's (S x)_i) finds the row's entries before them too, so a sweep's only
 * loads are the entries (from shared memory where staged, else through L1)
 * and the iterate's (L2 in a cluster).  The same arithmetic, in the same
 * order, as lane_sweeps, so the same bits, with fewer loads between a
 * cluster's barriers than reading the slice, b_i and d_i in every sweep.
 * skip: this thread's row is swept by another warp; li >= 0: this thread's
 * warp, with no rows of its own, sweeps row li, lng(lane, xv) giving lane
 * `lane` of 32's part of its (S x)_li (cluster_csr_tri); part and lng read
 * x_c as xv(c). */
template <typename G, typename Part, typename Long>
__device__ __forceinline__ void one_round_sweeps(int n, int k, int g, const double *__restrict__ id, const double *b,
                                                 double *xa, double *xb, double *out, Part part, bool skip, int li,
                                                 Long lng)
{
    const int lane = threadIdx.x & (g - 1), i = round_row<G>(g);
    const bool row = i < n;
    double bi = 0, di = 1.0, lbi = 0, ldi = 1.0;
    if (row) {
        bi = G::ld(b + i);
        if (id) di = id[i];
    }
    if (li >= 0) {
        lbi = G::ld(b + li);
        if (id) ldi = id[li];
    }
    /* x_0 is not stored: the first sweep reads D^-1 b where it would read x_0
     * (the same products, so the same bits), a barrier less */
    const auto x0 = [&](int c) { return id ? id[c] * G::ld(b + c) : G::ld(b + c); };
    const double *cur = nullptr;
    const auto xc = [&](int c) { return G::ld(cur + c); };
    for (int j = 0; j < k; j++) {
        double *dst = j == k - 1 ? out : j & 1 ? xb : xa;
        double s = 0.0;
        if (row && !skip) s = j == 0 ? part(lane, x0) : part(lane, xc);
        for (int o = g / 2; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o, g);
        if (row && !skip && lane == 0) {
            const double r = bi - s;
            dst[i] = id ? r * di : r;
        }
        if (li >= 0) { /* the whole warp: a long row of another's (cluster_csr_tri) */
            const int l32 = (int)threadIdx.x & 31;
            double t = j == 0 ? lng(l32, x0) : lng(l32, xc);
            for (int o = 16; o > 0; o >>= 1) t += __shfl_xor_sync(0xffffffffu, t, o);
            if ((threadIdx.x & 31) == 0) {
                const double r = lbi - t;
                dst[li] = id ? r * ldi : r;
            }
        }
        G::sync();
        cur = dst;
    }
}

/* ... where every row is its own lanes'. */
template <typename G, typename Part>
__device__ __forceinline__ void one_round_sweeps(int n, int k, int g, const double *__restrict__ id, const double *b,
                                                 double *xa, double *xb, double *out, Part part)
{
    one_round_sweeps<G>(n, k, g, id, b, xa, xb, out, part, false, -1, [](int, auto) { return 0.0; });
}

/* K sweeps on a sliced triangle with g lanes a row. */
template <typename V, typename G>
__device__ __forceinline__ void sliced_sweeps(int n, int k, int g, const int *__restrict__ sp,
                                              const int *__restrict__ scol, const V *__restrict__ sval,
                                              const double *__restrict__ id, const double *b, double *xa, double *xb,
                                              double *out, const Staged *st, int t)
{
    if (G::kCluster && n <= G::blocks() * (kSmallBlock / g)) {
        const int i = round_row<G>(g);
        int at = 0, w = 0;
        Entries<V> e;
        if (i < n) {
            const int s0 = sp[i / kSlice];
            at = s0 + (i & (kSlice - 1));
            w = (sp[i / kSlice + 1] - s0) / kSlice;
        }
        e.from(scol, sval, st, t, at, w > 0 ? at + (w - 1) * kSlice + 1 : at);
        at -= e.base;
        one_round_sweeps<G>(n, k, g, id, b, xa, xb, out, [&](int lane, auto xv) {
            double s = 0;
#pragma unroll 4
            for (int q = lane; q < w; q += g) s += (double)e.val[at + q * kSlice] * xv(e.col[at + q * kSlice]);
            return s;
        });
        return;
    }
    lane_sweeps<G>(n, k, g, id, b, xa, xb, out, [&](int i, int lane, const double *x) {
        const int s0 = sp[i / kSlice], at = s0 + (i & (kSlice - 1)), w = (sp[i / kSlice + 1] - s0) / kSlice;
        double s = 0;
#pragma unroll 4
        for (int q = lane; q < w; q += g) s += (double)sval[at + q * kSlice] * G::ld(x + scol[at + q * kSlice]);
        return s;
    });
}

/* A cluster's sweeps on a sliced triangle t (out of line: one copy of the
 * loop, with its own registers, instead of one per call inlined into the
 * iteration kernels, which then spilled). */
template <typename V>
__device__ __noinline__ void cluster_tri(int n, int k, const int *__restrict__ sp, const int *__restrict__ scol,
                                         const V *__restrict__ sval, const double *__restrict__ id,
                                         const double *b, double *xa, double *xb, double *out, const Staged *st,
                                         int t)
{
    sliced_sweeps<V, Cluster>(n, k, cluster_lanes(n), sp, scol, sval, id, b, xa, xb, out, st, t);
}

/* Copy into smem (`bytes`) the entries of both triangles that this block
 * of a cluster reads in one_round_sweeps (its rows [rank * groups, (rank +
 * 1) * groups): whole slices of the sliced copies, or the span of the rows
 * of the factor as stored), triangle 0 first, each where it fits, and say
 * where in st (shared memory, read at each apply, not held in registers);
 * all threads of the block call it. */
__device__ __forceinline__ void stage_factor(int n, const spk_block_prec &M, char *smem, unsigned bytes, Staged &st)
{
    const bool sliced = M.kind == SPK_BLOCK_SWEEPS;
    const size_t vsize = sliced && M.single ? sizeof(float) : sizeof(double);
    if (threadIdx.x == 0)
        for (int t = 0; t < 2; t++) {
            st.col[t] = nullptr;
            st.val[t] = nullptr;
            st.off[t] = st.count[t] = 0;
        }
    const int g = cluster_lanes(n), groups = kSmallBlock / g;
    const int r0 = Cluster::rank() * groups, r1 = r0 + groups < n ? r0 + groups : n;
    size_t used = 0;
    for (int t = 0; t < 2 && n <= Cluster::blocks() * groups && r0 < n; t++) {
        const spk_dev_tri &tr = M.tri[t];
        const int e0 = sliced ? M.sp[t][r0 / kSlice] : tr.beg[r0] + tr.boff;
        const int e1 = sliced ? M.sp[t][(r1 + kSlice - 1) / kSlice] : tr.end[r1 - 1] + tr.eoff, m = e1 - e0;
        const size_t vb = ((size_t)(m > 0 ? m : 0) * vsize + 15) & ~(size_t)15;
        const size_t cb = ((size_t)(m > 0 ? m : 0) * sizeof(int) + 15) & ~(size_t)15;
        if (m <= 0 || used + vb + cb > bytes) continue;
        char *v = smem + used;
        int *c = (int *)(smem + used + vb);
        const int *gc = (sliced ? M.scol[t] : tr.col) + e0;
        if (vsize == sizeof(float)) {
            const float *gv = (const float *)M.sval[t] + e0;
            for (int e = threadIdx.x; e < m; e += kSmallBlock) ((float *)v)[e] = gv[e];
        } else {
            const double *gv = (sliced ? (const double *)M.sval[t] : tr.val) + e0;
            for (int e = threadIdx.x; e < m; e += kSmallBlock) ((double *)v)[e] = gv[e];
        }
        for (int e = threadIdx.x; e < m; e += kSmallBlock) c[e] = gc[e];
        if (threadIdx.x == 0) {
            st.col[t] = c;
            st.val[t] = v;
            st.off[t] = e0;
            st.count[t] = m;
        }
        used += vb + cb;
    }
    __syncthreads();
}

/* Exact triangular solves of a small factor in one block, without
 * barriers between rows: x in shared memory, each entry starting as a NaN
 * with a payload no arithmetic produces (kUnset), a thread per row (rows
 * dealt round-robin, in the order of the solve) waiting on each entry it
 * reads until that entry is set.  Deadlock-free: the first row not done has
 * every row it reads done, and its thread is at that row (it takes its rows
 * in order), so it finishes; waiting lanes of one warp make progress by
 * independent thread scheduling (sm_70 and later).  Row i: x_i = d_i (b_i -
 * sum_k val[k] x[col[k]]) over [beg[i] + boff, end[i] + eoff).
 *
 * What bounds it is the chain of rows that wait on each other, so each
 * row's own latency is kept off that chain: b_i and d_i are loaded before
 * the entries; the entries are added farthest row first (the backward
 * solve walks its row from the end), so the entry a row waits for last is
 * the row solved just before; and each warp asks L1 for its 32 rows'
 * entries (contiguous in col and val) before it starts them. */
constexpr unsigned long long kUnset = 0x7ff4dead7ff4deadULL;

__device__ __forceinline__ bool is_unset(double v)
{
    return (unsigned long long)__double_as_longlong(v) == kUnset;
}

/* Ask L1 for the lines of col and val that hold [k0, k1) of every lane
 * of the warp (each lane's row; !mine: none); all lanes call it. */
__device__ __forceinline__ void prefetch_rows(const spk_dev_tri &t, bool mine, int k0, int k1)
{
    const unsigned full = 0xffffffffu;
    const int lo = __reduce_min_sync(full, mine ? k0 : INT_MAX), hi = __reduce_max_sync(full, mine ? k1 : 0);
    /* a 128-byte line holds 32 column indices or 16 values */
    for (int k = lo + (int)(threadIdx.x & 31) * 16; k < hi; k += 32 * 16) {
        asm volatile("prefetch.global.L1 [%0];" ::"l"(t.val + k));
        asm volatile("prefetch.global.L1 [%0];" ::"l"(t.val + (k + 8 < hi ? k + 8 : hi - 1)));
        asm volatile("prefetch.global.L1 [%0];" ::"l"(t.col + k));
    }
}

__device__ __forceinline__ void small_solve_tri(int n, int back, const spk_dev_tri &t, const double *b, double *xs,
                                                double *out)
{
    for (int i = threadIdx.x; i < n; i += kSmallBlock) xs[i] = __longlong_as_double((long long)kUnset);
    __syncthreads();
    volatile double *vx = xs;
    /* base is the same in all lanes of a warp: they call prefetch_rows together */
    for (int base = threadIdx.x & ~31; base < n; base += kSmallBlock) {
        const int r = base + (threadIdx.x & 31);
        const bool mine = r < n;
        const int i = back ? n - 1 - r : r;
        const int k0 = mine ? t.beg[i] + t.boff : 0, k1 = mine ? t.end[i] + t.eoff : 0;
        prefetch_rows(t, mine, k0, k1);
        if (!mine) continue;
        const double bi = b[i], di = t.id ? t.id[i] : 1.0;
        double s = 0;
        for (int q = 0; q < k1 - k0; q++) {
            const int k = back ? k1 - 1 - q : k0 + q;
            const int c = __ldg(t.col + k);
            const double v = __ldg(t.val + k);
            double xc = vx[c];
            while (is_unset(xc)) xc = vx[c];
            s += v * xc;
        }
        const double d = bi - s, x = t.id ? d * di : d;
        vx[i] = x;
        out[i] = x;
    }
    __syncthreads();
}

/* K Jacobi sweeps on a triangle as stored (spk_dev_tri), a thread per row
 * adding its entries in their order: x_0 = D^-1 b, x_{j+1} = D^-1 (b - S x_j),
 * x_K into out; xa, xb: 2 n doubles (shared memory for one block, global
 * for a cluster); st, t: a cluster's staged entries of triangle t. */
template <typename G = OneBlock>
__device__ __forceinline__ void csr_tri_sweeps(int n, int k, const spk_dev_tri &t, const double *b, double *xa,
                                               double *xb, double *out, const Staged *st = nullptr, int which = 0)
{
    /* a cluster: g lanes a row, as cluster_tri */
    const int g = G::kCluster ? cluster_lanes(n) : 1;
    if (G::kCluster && n <= G::blocks() * (kSmallBlock / g)) {
        const int i = round_row<G>(g);
        int k0 = 0, k1 = 0;
        if (i < n) {
            k0 = t.beg[i] + t.boff;
            k1 = t.end[i] + t.eoff;
        }
        Entries<double> e;
        e.from(t.col, t.val, st, which, k0, k1);
        k0 -= e.base;
        k1 -= e.base;
        one_round_sweeps<G>(n, k, g, t.id, b, xa, xb, out, [&](int lane, auto xv) {
            double s = 0;
#pragma unroll 4
            for (int q = k0 + lane; q < k1; q += g) s += e.val[q] * xv(e.col[q]);
            return s;
        });
        return;
    }
    lane_sweeps<G>(n, k, g, t.id, b, xa, xb, out, [&](int i, int lane, const double *x) {
        double s = 0;
#pragma unroll 4
        for (int q = t.beg[i] + t.boff + lane, e = t.end[i] + t.eoff; q < e; q += g)
            s += __ldg(t.val + q) * G::ld(x + __ldg(t.col + q));
        return s;
    });
}

/* One block's sweeps on a triangle as stored where a few rows are much
 * longer than the rest.  A thread a row waits on its row's entries one
 * after another, and every sweep waits for the longest row (hundreds of
 * entries where the median row has a few).  So rows of more
 * than kLongLen entries are listed once per launch (long_rows) and swept
 * by a warp each (32 lanes a row, added pairwise), the others by a thread
 * each as in csr_tri_sweeps, in the same sweep (no barrier between the
 * two: they write different rows).  A triangle whose long rows would not
 * fit the list (kLongMax; one block's systems have at most 16,384 entries,
 * so at most 963 such rows) lists none and is swept a thread a row. */
constexpr int kLongLen = SPK_DEV_LONG_ROW, kLongMax = 1024;
struct LongRows {
    int count[2];
    int over[2]; /* a cluster's: the rows listed have more entries than this (cluster_long_rows) */
    int row[2][kLongMax];
};

/* List each triangle's long rows (in no particular order: a long row's sum
 * does not depend on which warp adds it); all threads of the block call it. */
__device__ __forceinline__ void long_rows(int n, const spk_block_prec &M, LongRows &lr)
{
    if (threadIdx.x < 2) lr.count[threadIdx.x] = 0;
    __syncthreads();
    for (int t = 0; t < 2; t++) {
        const spk_dev_tri &tr = M.tri[t];
        for (int i = threadIdx.x; i < n; i += kSmallBlock)
            if ((tr.end[i] + tr.eoff) - (tr.beg[i] + tr.boff) > kLongLen) {
                const int at = atomicAdd(&lr.count[t], 1);
                if (at < kLongMax) lr.row[t][at] = i;
            }
    }
    __syncthreads();
    if (threadIdx.x < 2 && lr.count[threadIdx.x] > kLongMax) lr.count[threadIdx.x] = 0;
    __syncthreads();
}

/* A cluster's sweeps on the factor as stored (one_round_sweeps) wait at
 * each barrier for the longest row, g lanes at a time, so a few long rows
 * set the time of every sweep.  Where every row has its lanes, the
 * warps past the last row have none; so each triangle's rows of more than
 * m g entries are listed, in ascending order and the same in every block
 * (cluster_long_rows, once per launch), and the idle warps take them, a warp
 * a row (its 32 lanes added pairwise: the same to rounding).  m is the
 * least of kClusterLong, 2 kClusterLong, ... up to 32 / g for which the
 * idle warps take every such row (moving only some leaves the longest
 * sweep as long, and the rest slower), none where no m does. */
constexpr int kClusterLong = SPK_DEV_CLUSTER_LONG;

__device__ __forceinline__ void cluster_long_rows(int n, const spk_block_prec &M, LongRows &lr)
{
    __shared__ int wsum[kSmallBlock / 32];
    const int g = cluster_lanes(n), lane = threadIdx.x & 31, warp = threadIdx.x >> 5, rpw = 32 / g;
    const int idle = Cluster::blocks() * (kSmallBlock / 32) - (n + rpw - 1) / rpw;
    for (int t = 0; t < 2; t++) {
        const spk_dev_tri &tr = M.tri[t];
        int m = kClusterLong, base = 0;
        for (;; m *= 2) { /* the least m whose rows the idle warps take (the same in every block) */
            int cnt = 0;
            for (int c = 0; c < n; c += kSmallBlock) {
                const int i = c + (int)threadIdx.x;
                const bool lng = i < n && (tr.end[i] + tr.eoff) - (tr.beg[i] + tr.boff) > m * g;
                const unsigned bal = __ballot_sync(0xffffffffu, lng);
                if (lane == 0) wsum[warp] = __popc(bal);
                __syncthreads();
                for (int w = 0; w < kSmallBlock / 32; w++) cnt += wsum[w];
                __syncthreads();
            }
            if (cnt <= idle || m * g >= 32) {
                if (cnt > idle) m = 0; /* none */
                break;
            }
        }
        for (int c = 0; m > 0 && c < n; c += kSmallBlock) {
            const int i = c + (int)threadIdx.x;
            const bool lng = i < n && (tr.end[i] + tr.eoff) - (tr.beg[i] + tr.boff) > m * g;
            const unsigned bal = __ballot_sync(0xffffffffu, lng);
            if (lane == 0) wsum[warp] = __popc(bal);
            __syncthreads();
            int before = 0, all = 0;
            for (int w = 0; w < kSmallBlock / 32; w++) {
                if (w < warp) before += wsum[w];
                all += wsum[w];
            }
            const int at = base + before + __popc(bal & ((1u << lane) - 1u));
            if (lng && at < kLongMax) lr.row[t][at] = i;
            base += all;
            __syncthreads();
        }
        if (threadIdx.x == 0) {
            lr.count[t] = base < kLongMax ? base : kLongMax;
            lr.over[t] = m * g;
        }
    }
    __syncthreads();
}

/* K sweeps on triangle t as stored in one block, its `nlong` long rows
 * (rows) a warp each; x_0 = D^-1 b, x_{j+1} = D^-1 (b - S x_j), x_K into out. */
__device__ __forceinline__ void uneven_csr_sweeps(int n, int k, const spk_dev_tri &t, const double *b, double *xa,
                                                  double *xb, double *out, const int *rows, int nlong)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int i = threadIdx.x; i < n; i += kSmallBlock) xa[i] = t.id ? t.id[i] * b[i] : b[i];
    __syncthreads();
    double *cur = xa, *nxt = xb;
    for (int j = 0; j < k; j++) {
        double *dst = j == k - 1 ? out : nxt;
        for (int i = threadIdx.x; i < n; i += kSmallBlock) {
            const int k0 = t.beg[i] + t.boff, k1 = t.end[i] + t.eoff;
            if (k1 - k0 > kLongLen) continue; /* a warp's, below */
            double s = 0;
#pragma unroll 4
            for (int q = k0; q < k1; q++) s += __ldg(t.val + q) * cur[__ldg(t.col + q)];
            const double r = b[i] - s;
            dst[i] = t.id ? r * t.id[i] : r;
        }
        for (int w = warp; w < nlong; w += kSmallBlock / 32) {
            const int i = rows[w];
            double s = 0;
#pragma unroll 2
            for (int q = t.beg[i] + t.boff + lane, e = t.end[i] + t.eoff; q < e; q += 32)
                s += __ldg(t.val + q) * cur[__ldg(t.col + q)];
            for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
            if (lane == 0) {
                const double r = b[i] - s;
                dst[i] = t.id ? r * t.id[i] : r;
            }
        }
        __syncthreads();
        nxt = cur;
        cur = dst;
    }
}

/* A cluster's sweeps on triangle t as stored (out of line, as cluster_tri).
 * t by value: a reference into the kernel's parameter (spk_block_job.M)
 * made the iteration kernels copy the job to local memory and read it from
 * there, every iteration slower. */
static __device__ __noinline__ void cluster_csr_tri(int n, int k, const spk_dev_tri t, const double *b,
                                                    double *xa, double *xb, double *out, const Staged *st, int which)
{
    csr_tri_sweeps<Cluster>(n, k, t, b, xa, xb, out, st, which);
}

/* The same where the cluster has long rows (cluster_long_rows: nl of them,
 * rows, of more than `over` entries) and idle warps for `handled` of them
 * (cluster_long_call). */
static __device__ __noinline__ void cluster_csr_tri_long(int n, int k, const spk_dev_tri t, const double *b,
                                                         double *xa, double *xb, double *out, const Staged *st,
                                                         int which, const int *rows, int nl, int handled, int over)
{
    const int g = cluster_lanes(n), rpw = 32 / g, used = (n + rpw - 1) / rpw;
    const int i = round_row<Cluster>(g), gw = Cluster::rank() * (kSmallBlock / 32) + (int)(threadIdx.x >> 5);
    int k0 = 0, k1 = 0;
    if (i < n) {
        k0 = t.beg[i] + t.boff;
        k1 = t.end[i] + t.eoff;
    }
    bool skip = false;
    if (i < n && k1 - k0 > over) { /* listed (cluster_long_rows: ascending): is it handled? */
        int lo = 0, hi = nl;
        while (lo < hi) {
            const int mid = (lo + hi) / 2;
            if (rows[mid] < i)
                lo = mid + 1;
            else
                hi = mid;
        }
        skip = lo < handled;
    }
    const int li = gw >= used && gw - used < handled ? rows[gw - used] : -1;
    int l0 = 0, l1 = 0;
    if (li >= 0) {
        l0 = t.beg[li] + t.boff;
        l1 = t.end[li] + t.eoff;
    }
    Entries<double> e;
    e.from(t.col, t.val, st, which, k0, k1);
    k0 -= e.base;
    k1 -= e.base;
    one_round_sweeps<Cluster>(
        n, k, g, t.id, b, xa, xb, out,
        [&](int lane, auto xv) {
            double s = 0;
#pragma unroll 4
            for (int q = k0 + lane; q < k1; q += g) s += e.val[q] * xv(e.col[q]);
            return s;
        },
        skip, li,
        [&](int lane, auto xv) {
            double s = 0;
#pragma unroll 2
            for (int q = l0 + lane; q < l1; q += 32) s += __ldg(t.val + q) * xv(__ldg(t.col + q));
            return s;
        });
}

/* A cluster's sweeps on triangle `which` as stored: cluster_csr_tri_long
 * where lr lists long rows and idle warps can take some, else
 * cluster_csr_tri (two calls: the one taking the list costs the iteration
 * kernels registers where there is none). */
__device__ __forceinline__ void cluster_long_call(int n, int k, const spk_dev_tri &t, const double *b, double *xa,
                                                  double *xb, double *out, const Staged *st, int which,
                                                  const LongRows *lr)
{
    const int g = cluster_lanes(n), rpw = 32 / g, used = (n + rpw - 1) / rpw;
    const int idle = Cluster::blocks() * (kSmallBlock / 32) - used;
    const int nl = lr->count[which], handled = nl < idle ? nl : idle;
    if (handled > 0 && n <= Cluster::blocks() * (kSmallBlock / g))
        cluster_csr_tri_long(n, k, t, b, xa, xb, out, st, which, lr->row[which], nl, handled, lr->over[which]);
    else
        cluster_csr_tri(n, k, t, b, xa, xb, out, st, which);
}

// Jacobi: z_i = d_i r_i for the rows of this thread, the product of the
// separate kernel (d_i = 1 / a_ii); no barrier (block_prec_apply's).
template <typename G>
__device__ __forceinline__ void diag_apply(int n, const double *d, const double *r, double *z)
{
    for (int i = G::first(); i < n; i += G::stride()) z[i] = G::ld(r + i) * d[i];
}

/* One block's (or G's) sweeps on both sliced triangles, triangle t by
 * small_tri_wide where W and lr lists long rows of it. */
template <typename V, typename G, bool W>
__device__ __forceinline__ void sliced_pair(int n, const spk_block_prec &M, const double *r, double *z, double *xs,
                                            const LongRows *lr)
{
#pragma unroll
    for (int t = 0; t < 2; t++) {
        const double *b = t == 0 ? r : M.y;
        double *out = t == 0 ? M.y : z;
        if (W && !G::kCluster && lr && lr->count[t] > 0)
            small_tri_wide<V>(n, M.k, M.sp[t], M.scol[t], (const V *)M.sval[t], M.id[t], b, xs, xs + n, out,
                              M.tri[t].beg, M.tri[t].boff, M.tri[t].end, M.tri[t].eoff, lr->row[t], lr->count[t]);
        else
            small_tri<V, G>(n, M.k, M.sp[t], M.scol[t], (const V *)M.sval[t], M.id[t], b, xs, xs + n, out);
    }
}

/* z = M^-1 r for a block-applicable preconditioner (precond/devtri.h), y =
 * M.y the first triangle's result, xs the shared memory of
 * M.shared_bytes (a cluster: 2 n doubles of global memory); all threads of
 * the block (of the cluster) take part.  A cluster runs the sweeps only:
 * exact solves wait row on row, which one block's shared memory serves;
 * st: the entries stage_factor copied (a cluster's sliced sweeps); lr: one
 * block's long rows of the factor as stored (long_rows). */
template <typename G = OneBlock, bool W = false>
__device__ __forceinline__ void block_prec_apply(int n, const spk_block_prec &M, const double *r, double *z, double *xs,
                                                 const Staged *st = nullptr, const LongRows *lr = nullptr)
{
    if (M.kind == SPK_BLOCK_DIAG) {
        diag_apply<G>(n, M.id[0], r, z);
        G::sync();
    } else if (M.kind == SPK_BLOCK_SOLVE) {
        if (G::kCluster) __trap(); /* never asked for (fused.c) */
        small_solve_tri(n, 0, M.tri[0], r, xs, M.y);
        small_solve_tri(n, 1, M.tri[1], M.y, xs, z);
    } else if (G::kCluster && M.kind == SPK_BLOCK_SWEEPS_CSR && W) {
        cluster_long_call(n, M.k, M.tri[0], r, xs, xs + n, M.y, st, 0, lr);
        cluster_long_call(n, M.k, M.tri[1], M.y, xs, xs + n, z, st, 1, lr);
    } else if (G::kCluster && M.kind == SPK_BLOCK_SWEEPS_CSR) {
        cluster_csr_tri(n, M.k, M.tri[0], r, xs, xs + n, M.y, st, 0);
        cluster_csr_tri(n, M.k, M.tri[1], M.y, xs, xs + n, z, st, 1);
    } else if (M.kind == SPK_BLOCK_SWEEPS_CSR) {
        if (!G::kCluster && lr && lr->count[0] > 0)
            uneven_csr_sweeps(n, M.k, M.tri[0], r, xs, xs + n, M.y, lr->row[0], lr->count[0]);
        else
            csr_tri_sweeps<G>(n, M.k, M.tri[0], r, xs, xs + n, M.y);
        if (!G::kCluster && lr && lr->count[1] > 0)
            uneven_csr_sweeps(n, M.k, M.tri[1], M.y, xs, xs + n, z, lr->row[1], lr->count[1]);
        else
            csr_tri_sweeps<G>(n, M.k, M.tri[1], M.y, xs, xs + n, z);
    } else if (G::kCluster && M.single) {
        cluster_tri(n, M.k, M.sp[0], M.scol[0], (const float *)M.sval[0], M.id[0], r, xs, xs + n, M.y, st, 0);
        cluster_tri(n, M.k, M.sp[1], M.scol[1], (const float *)M.sval[1], M.id[1], M.y, xs, xs + n, z, st, 1);
    } else if (G::kCluster) {
        cluster_tri(n, M.k, M.sp[0], M.scol[0], (const double *)M.sval[0], M.id[0], r, xs, xs + n, M.y, st, 0);
        cluster_tri(n, M.k, M.sp[1], M.scol[1], (const double *)M.sval[1], M.id[1], M.y, xs, xs + n, z, st, 1);
    } else if (M.single) {
        sliced_pair<float, G, W>(n, M, r, z, xs, lr);
    } else {
        sliced_pair<double, G, W>(n, M, r, z, xs, lr);
    }
}

}  // namespace spk_devtri

#endif

/* devtri.cuh -- applying a triangular pair (core/devtri.h) inside one
 * thread block of kSmallBlock threads: the device functions shared by the
 * small-system applies of precond/devfactor.cu and the block iterations of
 * core/block_kernels.cu, so both do the same arithmetic in the same order. */
#ifndef SPK_CORE_DEVTRI_CUH
#define SPK_CORE_DEVTRI_CUH

#include <climits>

#include "core/devtri.h"

namespace spk_devtri {

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
 * after the first triangle). */
constexpr int kSmallBlock = 1024;

template <typename V>
__device__ __forceinline__ void small_tri(int n, int k, const int *__restrict__ sp, const int *__restrict__ scol,
                                          const V *__restrict__ sval, const double *__restrict__ id,
                                          const double *b, double *xa, double *xb, double *out)
{
    for (int i = threadIdx.x; i < n; i += kSmallBlock) xa[i] = id ? id[i] * b[i] : b[i];
    __syncthreads();
    double *cur = xa, *nxt = xb;
    for (int j = 0; j < k; j++) {
        double *dst = j == k - 1 ? out : nxt;
        for (int i = threadIdx.x; i < n; i += kSmallBlock) {
            const int s0 = sp[i / kSlice], base = s0 + (i & (kSlice - 1)), w = (sp[i / kSlice + 1] - s0) / kSlice;
            double s = 0;
            for (int q = 0; q < w; q++) s += (double)sval[base + q * kSlice] * cur[scol[base + q * kSlice]];
            const double r = b[i] - s;
            dst[i] = id ? r * id[i] : r;
        }
        __syncthreads();
        nxt = cur;
        cur = dst;
    }
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
 * entries (contiguous in col and val) before it starts them.  On an H100
 * this took the pair of solves from 1.47 to 0.47 ms on ex6 (1651 rows) and
 * from 3.4 to 0.59 ms on s1rmq4m1 (5489 rows), where cusparseSpSV takes
 * 0.92 and 1.54 ms. */
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
 * x_K into out; xa, xb: 2 n doubles of shared memory. */
__device__ __forceinline__ void csr_tri_sweeps(int n, int k, const spk_dev_tri &t, const double *b, double *xa,
                                               double *xb, double *out)
{
    for (int i = threadIdx.x; i < n; i += kSmallBlock) xa[i] = t.id ? t.id[i] * b[i] : b[i];
    __syncthreads();
    double *cur = xa, *nxt = xb;
    for (int j = 0; j < k; j++) {
        double *dst = j == k - 1 ? out : nxt;
        for (int i = threadIdx.x; i < n; i += kSmallBlock) {
            double s = 0;
            for (int q = t.beg[i] + t.boff, e = t.end[i] + t.eoff; q < e; q++) s += __ldg(t.val + q) * cur[__ldg(t.col + q)];
            const double r = b[i] - s;
            dst[i] = t.id ? r * t.id[i] : r;
        }
        __syncthreads();
        nxt = cur;
        cur = dst;
    }
}

/* z = M^-1 r for a block-applicable preconditioner (core/devtri.h), y =
 * M.y the first triangle's result, xs the shared memory of
 * M.shared_bytes; all threads of the block take part. */
__device__ __forceinline__ void block_prec_apply(int n, const spk_block_prec &M, const double *r, double *z, double *xs)
{
    if (M.kind == SPK_BLOCK_SOLVE) {
        small_solve_tri(n, 0, M.tri[0], r, xs, M.y);
        small_solve_tri(n, 1, M.tri[1], M.y, xs, z);
    } else if (M.kind == SPK_BLOCK_SWEEPS_CSR) {
        csr_tri_sweeps(n, M.k, M.tri[0], r, xs, xs + n, M.y);
        csr_tri_sweeps(n, M.k, M.tri[1], M.y, xs, xs + n, z);
    } else if (M.single) {
        small_tri(n, M.k, M.sp[0], M.scol[0], (const float *)M.sval[0], M.id[0], r, xs, xs + n, M.y);
        small_tri(n, M.k, M.sp[1], M.scol[1], (const float *)M.sval[1], M.id[1], M.y, xs, xs + n, z);
    } else {
        small_tri(n, M.k, M.sp[0], M.scol[0], (const double *)M.sval[0], M.id[0], r, xs, xs + n, M.y);
        small_tri(n, M.k, M.sp[1], M.scol[1], (const double *)M.sval[1], M.id[1], M.y, xs, xs + n, z);
    }
}

}  // namespace spk_devtri

#endif

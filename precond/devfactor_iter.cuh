/* devfactor_iter.cuh -- IC(0) / ILU(0) by fixed-point sweeps on the device:
 * the host reference's sweeps (parfactor.c), Jacobi style with two value
 * buffers (devfactor.h).  Part of devfactor.cu's module: included there once.
 *
 * Jacobi, not in place: each sweep reads only the last one's values, so
 * the result is the host's to rounding at every sweep count (not only at
 * the standstill) and repeats to the bit; the convergence per sweep is the
 * host's.  Every sweep is queued at once: a sweep kernel returns at once
 * where the one before met the stopping test (a flag the finishing kernel
 * of each sweep sets), so the host waits once, at the end.
 *
 * A lane group per row takes the row's entries, each entry's sum the
 * shorter list's keys searched in the other or a merge (ascending k, as the
 * host).  Rows far longer than the average (long_min in devsweep_iter.c)
 * would leave their group working long after the others: their entries go
 * a thread each, in blocks of their own. */
#ifndef SPK_PRECOND_DEVFACTOR_ITER_CUH
#define SPK_PRECOND_DEVFACTOR_ITER_CUH

#include <cub/device/device_scan.cuh>

#include "devfactor.h"
#include "devfactor_common.cuh"

namespace {

constexpr int kIterBlock = 128;
#define ITER_PIVOT_RTOL 1e-14 /* the host's pivot test (ic0.c, ilu0.c) */

/* a_q of A + alpha*diag(A) */
__device__ __forceinline__ double shifted(const double *a0, int q, int d, double alpha)
{
    return q == d ? a0[q] * (1.0 + alpha) : a0[q];
}

/* Sum of a block's values in a fixed order (thread 0's result). */
__device__ double block_sum(double v, double *sh)
{
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int o = kIterBlock / 2; o > 0; o >>= 1) {
        if ((int)threadIdx.x < o) sh[threadIdx.x] += sh[threadIdx.x + o];
        __syncthreads();
    }
    return sh[0];
}

/* The lanes of a group of G (a power of two, at most 32) that take one row:
 * all 32 lanes of the warp must call group_sum (it shuffles). */
template <int G>
__device__ __forceinline__ double group_sum(double v)
{
    for (int o = G / 2; o > 0; o >>= 1) v += __shfl_xor_sync(FULL_MASK, v, o, G);
    return v;
}

template <int G>
__device__ __forceinline__ int group_row(int n)
{
    const int i = blockIdx.x * (kIterBlock / G) + threadIdx.x / G;
    return i < n ? i : -1;
}

/* w_i = |a_ii|^-1/2 (1 where 0) and the initial guess's pivots; then
 * (iter_guess, a lane group per row) its other entries, which divide by
 * them (parfactor.h). */
__global__ void iter_weights(int n, int ic, const int *__restrict__ dpos, const double *__restrict__ a0, double alpha,
                             double *w, double *v)
{
    const int i = blockIdx.x * kIterBlock + threadIdx.x;
    if (i >= n) return;
    const double d = a0[dpos[i]] * (1.0 + alpha);
    w[i] = d != 0 ? rsqrt(fabs(d)) : 1.0;
    v[dpos[i]] = ic ? (d > 0 ? sqrt(d) : 1.0) : d;
}

template <int G>
__global__ void __launch_bounds__(kIterBlock)
    iter_guess(int n, const int *__restrict__ rp, const int *__restrict__ ci, const int *__restrict__ dpos,
               const double *__restrict__ a0, double *v)
{
    const int i = group_row<G>(n), lane = threadIdx.x & (G - 1);
    if (i < 0) return;
    for (int q = rp[i] + lane; q < rp[i + 1]; q += G) {
        const int j = ci[q];
        if (j < i) {
            const double piv = v[dpos[j]];
            v[q] = piv != 0 ? a0[q] / piv : a0[q];
        } else if (j > i) {
            v[q] = a0[q];
        }
    }
}

/* ||W A W||_F^2 by blocks of rows (a lane group per row) into part. */
template <int G>
__global__ void __launch_bounds__(kIterBlock)
    iter_anorm(int n, const int *__restrict__ rp, const int *__restrict__ ci, const int *__restrict__ dpos,
               const double *__restrict__ a0, double alpha, const double *__restrict__ w, double *part)
{
    __shared__ double sh[kIterBlock];
    const int i = group_row<G>(n), lane = threadIdx.x & (G - 1);
    double s = 0;
    if (i >= 0)
        for (int q = rp[i] + lane, d = dpos[i]; q < rp[i + 1]; q += G) {
            const double t = shifted(a0, q, d, alpha) * w[i] * w[ci[q]];
            s += t * t;
        }
    s = block_sum(s, sh);
    if (threadIdx.x == 0) part[blockIdx.x] = s;
}

/* The control of the sweeps (ctl: 0 sweeps taken, 1 stop flag); res: 0
 * ||W A W||_F^2, 1 the last sweep's relative residual.  A sweep's blocks
 * write their sums to part and whether they changed an entry to chg, one
 * slot each: a flag every thread wrote to one word made that word a queue
 * of writes that outlasted the sweep's arithmetic many times over. */
struct iter_ctl {
    int *ctl;
    double *res;
    const int *stop; /* NULL, or a flag that ends the sweeps holding stop_value (ctl[2] set) */
    int stop_value;
};

/* What a sweep reads and writes: F's pattern (and for ILU(0) its columns:
 * ucp, urow, upos), A's values, the weights, src -> dst, the pivots, the
 * blocks' slots; rows of more than lmin entries are long. */
struct sweep_args {
    int n, ic, lmin;
    const int *__restrict__ rp, *__restrict__ ci, *__restrict__ dpos;
    const int *__restrict__ ucp, *__restrict__ urow, *__restrict__ upos;
    const double *__restrict__ a0;
    double alpha;
    const double *__restrict__ w, *__restrict__ src;
    double *dst, *piv, *part;
    int *chg;
    iter_ctl c;
};

/* A sorted list of F's entries: keys key[beg, end), values at pos[t] (or t
 * where pos is NULL). */
struct key_list {
    const int *__restrict__ key, *__restrict__ pos;
    int beg, end;
};

__device__ __forceinline__ int at(const key_list &l, int t)
{
    return l.pos ? l.pos[t] : t;
}

/* x - the sum over the keys k in both lists, ascending, of the products of
 * their values: the shorter list iterated, each key searched in the other
 * where that is cheaper than a merge (a short row against a long one).  The
 * lists may swap: the products commute, and either way k ascends. */
__device__ double sparse_dot(double x, key_list A, key_list B, const double *__restrict__ v)
{
    if (B.end - B.beg < A.end - A.beg) {
        const key_list t = A;
        A = B, B = t;
    }
    const int na = A.end - A.beg, nb = B.end - B.beg;
    if (na <= 0) return x;
    if ((long long)na * (33 - __clz(nb)) < (long long)na + nb) {
        for (int p = A.beg, f = B.beg; p < A.end && f < B.end; p++) {
            const int k = A.key[p];
            f = lower_bound(B.key, f, B.end, k);
            if (f < B.end && B.key[f] == k) x -= v[at(A, p)] * v[at(B, f++)];
        }
        return x;
    }
    for (int p = A.beg, f = B.beg; p < A.end && f < B.end;) {
        const int k = A.key[p], r = B.key[f];
        if (k < r) p++;
        else if (r < k) f++;
        else x -= v[at(A, p++)] * v[at(B, f++)];
    }
    return x;
}

/* Entry q = (i, j) of the new iterate (the host's update, parfactor.c):
 * x = a_ij - the sum over k < min(i, j) of l_ik u_kj (ILU(0): row i of L,
 * column j of U) or l_ik l_jk (IC(0): rows i and j of L), then dst[q],
 * piv[i] on the diagonal (ILU(0): the new u_ii; IC(0): a_ii - sum l_ik^2),
 * and the weighted residual's square into *s. */
__device__ void entry_update(const sweep_args &a, int i, int q, double *s, int *changed)
{
    const int b = a.rp[i], d = a.dpos[i], j = a.ci[q];
    const double old = a.src[q];
    double x = shifted(a.a0, q, d, a.alpha), nx, res;
    if (a.ic) {
        if (j == i) {
            for (int p = b; p < q; p++) x -= a.src[p] * a.src[p];
            res = x - old * old;
            nx = x > 0 && isfinite(x) ? sqrt(x) : old;
            a.piv[i] = x;
        } else {
            const int dj = a.rp[j + 1] - 1;
            x = sparse_dot(x, key_list{a.ci, nullptr, b, q}, key_list{a.ci, nullptr, a.rp[j], dj}, a.src);
            const double ljj = a.src[dj];
            res = x - old * ljj;
            nx = ljj != 0 && isfinite(ljj) ? x / ljj : old;
        }
    } else {
        const int m = j < i ? j : i, g0 = a.ucp[j], g1 = lower_bound(a.urow, g0, a.ucp[j + 1], m);
        x = sparse_dot(x, key_list{a.ci, nullptr, b, j < i ? q : d}, key_list{a.urow, a.upos, g0, g1}, a.src);
        res = x - old;
        nx = x;
        if (j < i) {
            const double u = a.src[a.dpos[j]];
            res = x - old * u;
            nx = u != 0 && isfinite(u) ? x / u : old;
        }
        if (j == i) a.piv[i] = nx;
    }
    const double t = res * a.w[i] * a.w[j];
    *s += t * t;
    *changed |= nx != old;
    a.dst[q] = nx;
}

/* A block's sum and whether it changed an entry, into its slot. */
__device__ __forceinline__ void block_done(const sweep_args &a, int slot, double s, int changed, double *sh)
{
    const int any = __syncthreads_or(changed);
    s = block_sum(s, sh);
    if (threadIdx.x == 0) {
        a.part[slot] = s;
        a.chg[slot] = any;
    }
}

/* One sweep of the rows that are not long: the lanes of a group of G take
 * the entries of one row, each its own sum. */
template <int G>
__global__ void __launch_bounds__(kIterBlock) iter_sweep(sweep_args a)
{
    __shared__ double sh[kIterBlock];
    if (a.c.ctl[1]) return; /* the sweep before met the test: the whole grid returns */
    const int i = group_row<G>(a.n), lane = threadIdx.x & (G - 1);
    double s = 0;
    int changed = 0;
    if (i >= 0 && a.rp[i + 1] - a.rp[i] <= a.lmin)
        for (int q = a.rp[i] + lane; q < a.rp[i + 1]; q += G) entry_update(a, i, q, &s, &changed);
    block_done(a, blockIdx.x, s, changed, sh);
}

/* The long rows' entries in the same sweep: a block per chunk of kIterBlock
 * entries of one row (chunk: the row, its first entry), a thread per entry,
 * into slot parts0 + the chunk. */
__global__ void __launch_bounds__(kIterBlock) iter_long(sweep_args a, const int *__restrict__ chunk, int parts0)
{
    __shared__ double sh[kIterBlock];
    if (a.c.ctl[1]) return;
    const int i = chunk[2 * blockIdx.x], q = chunk[2 * blockIdx.x + 1] + (int)threadIdx.x;
    double s = 0;
    int changed = 0;
    if (q < a.rp[i + 1]) entry_update(a, i, q, &s, &changed);
    block_done(a, parts0 + blockIdx.x, s, changed, sh);
}

/* The chunks of the long rows: cnt[i + 1] = row i's count (0 if not long),
 * scanned; then each row's chunks from cnt[i]. */
__global__ void long_count(int n, const int *__restrict__ rp, int lmin, int *cnt)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    const int len = rp[i + 1] - rp[i];
    cnt[i + 1] = len > lmin ? (len + kIterBlock - 1) / kIterBlock : 0;
}

__global__ void long_fill(int n, const int *__restrict__ rp, const int *__restrict__ cnt, int *chunk)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    for (int c = cnt[i]; c < cnt[i + 1]; c++) {
        chunk[2 * c] = i;
        chunk[2 * c + 1] = rp[i] + (c - cnt[i]) * kIterBlock;
    }
}

/* After sweep `sweep` (one block): its residual from the slots' sums in
 * order, and the stopping test.  sweep 0: ||W A W||^2 only. */
__global__ void iter_settle(int parts, const double *part, const int *chg, int sweep, double tol, iter_ctl c)
{
    __shared__ double sh[kIterBlock];
    if (sweep > 0 && c.ctl[1]) return;
    double s = 0;
    int changed = 0;
    for (int k = threadIdx.x; k < parts; k += kIterBlock) {
        s += part[k];
        if (sweep > 0) changed |= chg[k];
    }
    changed = __syncthreads_or(changed);
    s = block_sum(s, sh);
    if (threadIdx.x != 0) return;
    const int stopped = c.stop && *(volatile const int *)c.stop == c.stop_value;
    if (sweep == 0) {
        c.res[0] = s;
        c.res[1] = 0;
        c.ctl[0] = 0;
        c.ctl[1] = c.ctl[2] = stopped;
        return;
    }
    const double r = c.res[0] > 0 ? sqrt(s / c.res[0]) : 0;
    c.res[1] = r;
    c.ctl[0] = sweep;
    if (!changed || r <= tol || stopped) c.ctl[1] = 1;
    c.ctl[2] = stopped;
}

/* The result into v where it is in v1 (an odd count of sweeps), then the
 * exact factorization's pivot tests (flag, piv, idiag, fctl[1] as
 * spk_dev_factor sets them), a lane group per row. */
__global__ void iter_copy(long long nnz, const double *v1, double *v, const int *ctl)
{
    const long long q = (long long)blockIdx.x * kBlock + threadIdx.x;
    if (q < nnz && (ctl[0] & 1)) v[q] = v1[q];
}

template <int G>
__global__ void __launch_bounds__(kIterBlock)
    iter_pivots(int n, int ic, const int *__restrict__ rp, const int *__restrict__ dpos,
                const double *__restrict__ a0, double alpha, const double *v, double *piv, double *idiag,
                unsigned char *flag, int *fctl)
{
    const int i = group_row<G>(n), lane = threadIdx.x & (G - 1);
    double rowmax = 0, fin = 1;
    if (i >= 0)
        for (int q = rp[i] + lane, d = dpos[i]; q < rp[i + 1]; q += G) {
            rowmax = fmax(rowmax, fabs(shifted(a0, q, d, alpha)));
            fin = isfinite(v[q]) ? fin : 0;
        }
    for (int o = G / 2; o > 0; o >>= 1) { /* every lane of the warp shuffles */
        rowmax = fmax(rowmax, __shfl_xor_sync(FULL_MASK, rowmax, o, G));
        fin = fmin(fin, __shfl_xor_sync(FULL_MASK, fin, o, G));
    }
    if (i < 0 || lane != 0) return;
    const int d = dpos[i];
    const double pv = piv[i];
    const int bad = ic ? !(pv > ITER_PIVOT_RTOL * fabs(a0[d] * (1.0 + alpha))) || !isfinite(pv)
                       : !(fabs(pv) > ITER_PIVOT_RTOL * rowmax) || fin == 0;
    if (bad) {
        flag[i] = !ic && isfinite(pv) && fin == 0 ? 2 : 1;
        atomicMin(fctl + 1, i);
        idiag[i] = 1.0;
    } else {
        idiag[i] = 1.0 / v[d];
    }
}

__global__ void iota_kernel(int m, double *x)
{
    const int q = blockIdx.x * kBlock + threadIdx.x;
    if (q < m) x[q] = (double)q;
}

__global__ void to_int_kernel(int m, const double *x, int *y)
{
    const int q = blockIdx.x * kBlock + threadIdx.x;
    if (q < m) y[q] = (int)x[q];
}

/* The rows' grid of a lane group of G per row (also its count of slots). */
template <int G>
unsigned row_grid(int n)
{
    return (unsigned)((n + kIterBlock / G - 1) / (kIterBlock / G));
}

/* The kernels of a lane group of G per row: the initial guess and ||W A W||
 * (init), then sweep k (1, 2, ...) from v into v1 (k odd) or back (the
 * rows', then the long rows', then the settling), then the pivots (end). */
template <int G>
cudaError_t queue_rows(cudaStream_t s, const spk_dev_iter *it, double alpha, int k, double tol, int stage)
{
    const iter_ctl c = {it->ctl, it->res, it->stop, it->stop_value};
    const int n = it->n;
    const unsigned grid = row_grid<G>(n);
    if (stage == 0) {
        iter_guess<G><<<grid, kIterBlock, 0, s>>>(n, it->rp, it->ci, it->dpos, it->a0, it->v);
        iter_anorm<G><<<grid, kIterBlock, 0, s>>>(n, it->rp, it->ci, it->dpos, it->a0, alpha, it->w, it->part);
        iter_settle<<<1, kIterBlock, 0, s>>>((int)grid, it->part, it->chg, 0, tol, c);
        return cudaGetLastError();
    }
    if (stage == 2) {
        iter_pivots<G><<<grid, kIterBlock, 0, s>>>(n, it->ic, it->rp, it->dpos, it->a0, alpha, it->v, it->piv,
                                                   it->idiag, it->flag, it->fctl);
        return cudaGetLastError();
    }
    const double *src = k & 1 ? it->v : it->v1;
    double *dst = k & 1 ? it->v1 : it->v;
    const sweep_args a = {n,        it->ic, it->lmin, it->rp,  it->ci,   it->dpos, it->ucp, it->urow, it->upos,
                          it->a0,   alpha,  it->w,    src,     dst,      it->piv,  it->part, it->chg, c};
    iter_sweep<G><<<grid, kIterBlock, 0, s>>>(a);
    cudaError_t st = cudaGetLastError();
    if (st == cudaSuccess && it->nchunk > 0) {
        iter_long<<<(unsigned)it->nchunk, kIterBlock, 0, s>>>(a, it->chunk, (int)grid);
        st = cudaGetLastError();
    }
    if (st != cudaSuccess) return st;
    iter_settle<<<1, kIterBlock, 0, s>>>((int)grid + it->nchunk, it->part, it->chg, k, tol, c);
    return cudaGetLastError();
}

cudaError_t queue(cudaStream_t s, const spk_dev_iter *it, double alpha, int k, double tol, int stage)
{
    switch (it->group) {
    case 4: return queue_rows<4>(s, it, alpha, k, tol, stage);
    case 8: return queue_rows<8>(s, it, alpha, k, tol, stage);
    case 32: return queue_rows<32>(s, it, alpha, k, tol, stage);
    default: return cudaErrorInvalidValue;
    }
}

} // namespace

extern "C" int spk_dev_iter_parts(int n, int group)
{
    const int rows = kIterBlock / (group > 0 ? group : 1), b = (n + rows - 1) / rows;
    return b > 0 ? b : 1;
}

extern "C" int spk_dev_iter_chunks(int nnz, int lmin)
{
    /* a long row has more than lmin entries and ceil(its count / kIterBlock) chunks */
    return nnz / kIterBlock + nnz / (lmin + 1) + 2;
}

extern "C" cudaError_t spk_dev_iter_long_temp(int n, size_t *temp_bytes)
{
    *temp_bytes = 0;
    return cub::DeviceScan::InclusiveSum(nullptr, *temp_bytes, (int *)nullptr, (int *)nullptr, n > 0 ? n : 1);
}

extern "C" cudaError_t spk_dev_iter_long(cudaStream_t s, int n, const int *rp, int lmin, int *cnt, void *temp,
                                         size_t temp_bytes, int *chunk)
{
    cudaError_t st = cudaMemsetAsync(cnt, 0, sizeof(int), s);
    if (st != cudaSuccess || n == 0) return st;
    long_count<<<blocks_for(n), kBlock, 0, s>>>(n, rp, lmin, cnt);
    st = cudaGetLastError();
    if (st == cudaSuccess) st = cub::DeviceScan::InclusiveSum(temp, temp_bytes, cnt + 1, cnt + 1, n, s);
    if (st != cudaSuccess) return st;
    long_fill<<<blocks_for(n), kBlock, 0, s>>>(n, rp, cnt, chunk);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_iter_index(cudaStream_t s, int nnz, double *tmp, const double *pos, int *upos, int stage)
{
    if (nnz == 0) return cudaSuccess;
    if (stage == 0)
        iota_kernel<<<blocks_for(nnz), kBlock, 0, s>>>(nnz, tmp);
    else
        to_int_kernel<<<blocks_for(nnz), kBlock, 0, s>>>(nnz, pos, upos);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_iter_factor(cudaStream_t s, const spk_dev_iter *it, double alpha, int sweeps, double tol)
{
    const int n = it->n;
    if (n == 0) return cudaSuccess;
    iter_weights<<<(unsigned)((n + kIterBlock - 1) / kIterBlock), kIterBlock, 0, s>>>(n, it->ic, it->dpos, it->a0,
                                                                                       alpha, it->w, it->v);
    cudaError_t st = cudaGetLastError();
    if (st == cudaSuccess) st = queue(s, it, alpha, 0, tol, 0);
    for (int k = 1; k <= sweeps && st == cudaSuccess; k++) st = queue(s, it, alpha, k, tol, 1);
    if (st != cudaSuccess) return st;
    iter_copy<<<blocks_for(it->nnz), kBlock, 0, s>>>(it->nnz, it->v1, it->v, it->ctl);
    st = cudaGetLastError();
    return st == cudaSuccess ? queue(s, it, alpha, 0, tol, 2) : st;
}

#endif

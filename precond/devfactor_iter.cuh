/* devfactor_iter.cuh -- IC(0) / ILU(0) by fixed-point sweeps on the device:
 * the host reference's sweeps (parfactor.c), Jacobi style with two value
 * buffers, and the dependency chain that factorization = auto measures
 * (devfactor.h).  Part of devfactor.cu's module: included there once.
 *
 * Jacobi, not in place: each sweep reads only the last one's values, so
 * the result is the host's to rounding at every sweep count (not only at
 * the standstill) and repeats to the bit; the convergence per sweep is the
 * host's.  Every sweep is queued at once: a sweep kernel returns at once
 * where the one before met the stopping test (a flag the finishing kernel
 * of each sweep sets), so the host waits once, at the end. */
#ifndef SPK_PRECOND_DEVFACTOR_ITER_CUH
#define SPK_PRECOND_DEVFACTOR_ITER_CUH

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

/* w_i = |a_ii|^-1/2 (1 where 0) and the initial guess's pivots; then
 * (iter_guess) its other entries, which divide by them (parfactor.h). */
__global__ void iter_weights(int n, int ic, const int *__restrict__ dpos, const double *__restrict__ a0, double alpha,
                             double *w, double *v)
{
    const int i = blockIdx.x * kIterBlock + threadIdx.x;
    if (i >= n) return;
    const double d = a0[dpos[i]] * (1.0 + alpha);
    w[i] = d != 0 ? rsqrt(fabs(d)) : 1.0;
    v[dpos[i]] = ic ? (d > 0 ? sqrt(d) : 1.0) : d;
}

__global__ void iter_guess(int n, const int *__restrict__ rp, const int *__restrict__ ci, const int *__restrict__ dpos,
                           const double *__restrict__ a0, double *v)
{
    const int i = blockIdx.x * kIterBlock + threadIdx.x;
    if (i >= n) return;
    for (int q = rp[i]; q < rp[i + 1]; q++) {
        const int j = ci[q];
        if (j < i) {
            const double piv = v[dpos[j]];
            v[q] = piv != 0 ? a0[q] / piv : a0[q];
        } else if (j > i) {
            v[q] = a0[q];
        }
    }
}

/* ||W A W||_F^2 by blocks of rows into part. */
__global__ void iter_anorm(int n, const int *__restrict__ rp, const int *__restrict__ ci, const int *__restrict__ dpos,
                           const double *__restrict__ a0, double alpha, const double *__restrict__ w, double *part)
{
    __shared__ double sh[kIterBlock];
    const int i = blockIdx.x * kIterBlock + threadIdx.x;
    double s = 0;
    if (i < n)
        for (int q = rp[i], d = dpos[i]; q < rp[i + 1]; q++) {
            const double t = shifted(a0, q, d, alpha) * w[i] * w[ci[q]];
            s += t * t;
        }
    s = block_sum(s, sh);
    if (threadIdx.x == 0) part[blockIdx.x] = s;
}

/* The control of the sweeps (ctl: 0 sweeps taken, 1 stop flag, 2 changed);
 * res: 0 ||W A W||_F^2, 1 the last sweep's relative residual. */
struct iter_ctl {
    int *ctl;
    double *res;
};

/* One sweep: the lanes of a group of G take the entries of one row, each
 * entry's sparse dot product as the host's (ascending k), from src into dst;
 * piv[i] = the new u_ii (ILU(0)) or d_i = a_ii - sum l_ik^2 (IC(0)). */
template <int G>
__global__ void __launch_bounds__(kIterBlock)
    iter_sweep(int n, int ic, const int *__restrict__ rp, const int *__restrict__ ci, const int *__restrict__ dpos,
               const int *__restrict__ ucp, const int *__restrict__ urow, const int *__restrict__ upos,
               const double *__restrict__ a0, double alpha, const double *__restrict__ w,
               const double *__restrict__ src, double *dst, double *piv, double *part, iter_ctl c)
{
    __shared__ double sh[kIterBlock];
    if (*(volatile int *)(c.ctl + 1)) return; /* the sweep before met the test: the whole grid returns */
    const int i = blockIdx.x * (kIterBlock / G) + threadIdx.x / G, lane = threadIdx.x & (G - 1);
    double s = 0;
    int changed = 0;
    if (i < n) {
        const int b = rp[i], e = rp[i + 1], d = dpos[i];
        for (int q = b + lane; q < e; q += G) {
            const int j = ci[q], m = j < i ? j : i;
            double x = shifted(a0, q, d, alpha), nx, res;
            if (ic) {
                const int dj = rp[j + 1] - 1;
                for (int p = b, f = rp[j]; p < q && f < dj;) { /* rows i and j of L below column j */
                    const int k = ci[p], r = ci[f];
                    if (k < r) p++;
                    else if (r < k) f++;
                    else x -= src[p++] * src[f++];
                }
                if (j == i) { /* x = a_ii - sum_k l_ik^2 */
                    res = x - src[q] * src[q];
                    nx = x > 0 && isfinite(x) ? sqrt(x) : src[q];
                    piv[i] = x;
                } else {
                    const double ljj = src[dj];
                    res = x - src[q] * ljj;
                    nx = ljj != 0 && isfinite(ljj) ? x / ljj : src[q];
                }
            } else {
                for (int p = b, f = ucp[j], fe = ucp[j + 1]; p < d && f < fe;) { /* row i of L, column j of U */
                    const int k = ci[p], r = urow[f];
                    if (k >= m || r >= m) break;
                    if (k < r) p++;
                    else if (r < k) f++;
                    else x -= src[p++] * src[upos[f++]];
                }
                res = x - src[q];
                nx = x;
                if (j < i) {
                    const double u = src[dpos[j]];
                    res = x - src[q] * u;
                    nx = u != 0 && isfinite(u) ? x / u : src[q];
                }
                if (j == i) piv[i] = nx;
            }
            const double t = res * w[i] * w[j];
            s += t * t;
            changed |= nx != src[q];
            dst[q] = nx;
        }
    }
    if (changed) c.ctl[2] = 1;
    s = block_sum(s, sh);
    if (threadIdx.x == 0) part[blockIdx.x] = s;
}

/* After sweep `sweep` (one block): its residual from the blocks' sums in
 * order, and the stopping test.  sweep 0: ||W A W||^2 only. */
__global__ void iter_settle(int parts, const double *part, int sweep, double tol, iter_ctl c)
{
    __shared__ double sh[kIterBlock];
    if (sweep > 0 && *(volatile int *)(c.ctl + 1)) return;
    double s = 0;
    for (int k = threadIdx.x; k < parts; k += kIterBlock) s += part[k];
    s = block_sum(s, sh);
    if (threadIdx.x != 0) return;
    if (sweep == 0) {
        c.res[0] = s;
        c.res[1] = 0;
        c.ctl[0] = c.ctl[1] = c.ctl[2] = 0;
        return;
    }
    const double r = c.res[0] > 0 ? sqrt(s / c.res[0]) : 0;
    c.res[1] = r;
    c.ctl[0] = sweep;
    if (!c.ctl[2] || r <= tol) c.ctl[1] = 1;
    c.ctl[2] = 0;
}

/* The result into v where it is in v1 (an odd count of sweeps), then the
 * exact factorization's pivot tests (flag, piv, idiag, fctl[1] as
 * spk_dev_factor sets them). */
__global__ void iter_copy(long long nnz, const double *v1, double *v, const int *ctl)
{
    const long long q = (long long)blockIdx.x * kBlock + threadIdx.x;
    if (q < nnz && (ctl[0] & 1)) v[q] = v1[q];
}

__global__ void iter_pivots(int n, int ic, const int *__restrict__ rp, const int *__restrict__ dpos,
                            const double *__restrict__ a0, double alpha, const double *v, double *piv, double *idiag,
                            unsigned char *flag, int *fctl)
{
    const int i = blockIdx.x * kIterBlock + threadIdx.x;
    if (i >= n) return;
    const int d = dpos[i];
    double rowmax = 0;
    int fin = 1;
    for (int q = rp[i]; q < rp[i + 1]; q++) {
        rowmax = fmax(rowmax, fabs(shifted(a0, q, d, alpha)));
        fin &= isfinite(v[q]) ? 1 : 0;
    }
    const double pv = piv[i];
    const int bad = ic ? !(pv > ITER_PIVOT_RTOL * fabs(a0[d] * (1.0 + alpha))) || !isfinite(pv)
                       : !(fabs(pv) > ITER_PIVOT_RTOL * rowmax) || !fin;
    if (bad) {
        flag[i] = !ic && isfinite(pv) && !fin ? 2 : 1;
        atomicMin(fctl + 1, i);
        idiag[i] = 1.0;
    } else {
        idiag[i] = 1.0 / v[d];
    }
}

/* The chain of auto: par[i] = the largest column below the diagonal of row
 * i (-1: none), len[i] = 1; then pointer jumping, len[i] += len[par[i]],
 * par[i] = par[par[i]], from one buffer into the other; then the max. */
__global__ void chain_init(int n, const int *__restrict__ rp, const int *__restrict__ ci,
                           const int *__restrict__ dpos, int *par, int *len)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    par[i] = dpos[i] > rp[i] ? ci[dpos[i] - 1] : -1;
    len[i] = 1;
}

__global__ void chain_jump(int n, const int *par, const int *len, int *par2, int *len2)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    const int p = par[i];
    len2[i] = p >= 0 ? len[i] + len[p] : len[i];
    par2[i] = p >= 0 ? par[p] : -1;
}

__global__ void chain_max(int n, const int *len, int *out)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i < n) atomicMax(out, len[i]);
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

template <int G>
cudaError_t launch_sweep(cudaStream_t s, const spk_dev_iter *it, double alpha, const double *src, double *dst)
{
    const unsigned grid = (unsigned)((it->n + kIterBlock / G - 1) / (kIterBlock / G));
    iter_sweep<G><<<grid, kIterBlock, 0, s>>>(it->n, it->ic, it->rp, it->ci, it->dpos, it->ucp, it->urow, it->upos,
                                              it->a0, alpha, it->w, src, dst, it->piv, it->part,
                                              iter_ctl{it->ctl, it->res});
    return cudaGetLastError();
}

} // namespace

extern "C" int spk_dev_iter_parts(int n, int group)
{
    const int rows = kIterBlock / (group > 0 ? group : 1);
    const int a = (n + kIterBlock - 1) / kIterBlock, b = (n + rows - 1) / rows;
    return (a > b ? a : b) > 0 ? (a > b ? a : b) : 1;
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
    const unsigned ig = (unsigned)((n + kIterBlock - 1) / kIterBlock);
    const iter_ctl c = {it->ctl, it->res};
    iter_weights<<<ig, kIterBlock, 0, s>>>(n, it->ic, it->dpos, it->a0, alpha, it->w, it->v);
    iter_guess<<<ig, kIterBlock, 0, s>>>(n, it->rp, it->ci, it->dpos, it->a0, it->v);
    iter_anorm<<<ig, kIterBlock, 0, s>>>(n, it->rp, it->ci, it->dpos, it->a0, alpha, it->w, it->part);
    iter_settle<<<1, kIterBlock, 0, s>>>((int)ig, it->part, 0, tol, c);
    cudaError_t st = cudaGetLastError();
    const int rows = kIterBlock / it->group, parts = (n + rows - 1) / rows;
    for (int k = 1; k <= sweeps && st == cudaSuccess; k++) {
        const double *src = k & 1 ? it->v : it->v1;
        double *dst = k & 1 ? it->v1 : it->v;
        switch (it->group) {
        case 4: st = launch_sweep<4>(s, it, alpha, src, dst); break;
        case 8: st = launch_sweep<8>(s, it, alpha, src, dst); break;
        case 32: st = launch_sweep<32>(s, it, alpha, src, dst); break;
        default: return cudaErrorInvalidValue;
        }
        if (st == cudaSuccess) iter_settle<<<1, kIterBlock, 0, s>>>(parts, it->part, k, tol, c);
        if (st == cudaSuccess) st = cudaGetLastError();
    }
    if (st != cudaSuccess) return st;
    iter_copy<<<blocks_for(it->nnz), kBlock, 0, s>>>(it->nnz, it->v1, it->v, it->ctl);
    iter_pivots<<<ig, kIterBlock, 0, s>>>(n, it->ic, it->rp, it->dpos, it->a0, alpha, it->v, it->piv, it->idiag,
                                          it->flag, it->fctl);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_chain(cudaStream_t s, int n, const int *frp, const int *fci, const int *dpos, int *work,
                                     int *out)
{
    if (n == 0) return cudaMemsetAsync(out, 0, sizeof(int), s);
    int *par = work, *len = work + n, *par2 = work + 2 * (size_t)n, *len2 = work + 3 * (size_t)n;
    chain_init<<<blocks_for(n), kBlock, 0, s>>>(n, frp, fci, dpos, par, len);
    for (long long span = 1; span < n; span *= 2) { /* after r rounds, par skips 2^r rows of the chain */
        chain_jump<<<blocks_for(n), kBlock, 0, s>>>(n, par, len, par2, len2);
        int *t = par;
        par = par2, par2 = t;
        t = len, len = len2, len2 = t;
    }
    cudaError_t st = cudaMemsetAsync(out, 0, sizeof(int), s);
    if (st == cudaSuccess) chain_max<<<blocks_for(n), kBlock, 0, s>>>(n, len, out);
    return st == cudaSuccess ? cudaGetLastError() : st;
}

#endif

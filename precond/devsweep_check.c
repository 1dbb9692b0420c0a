/* devsweep_check.c -- how many sweeps the GPU sweeps take (devsweep.h):
 * the check of the sweeps' residual on a probe, on the device or on the
 * host, and after it the test of the preconditioner's growth that may take
 * fewer. */
#include <math.h>
#include <stdlib.h>

#include "devsweep.h"

/* The sweeps' check (opts.sweeps_check = tau > 0): for a positive probe b
 * (components in [0.5, 1.5): the slow case, where the terms of the series
 * share a sign and do not cancel), the relative residual of K sweeps on
 * each triangle,
 *     r_t(K) = ||b - T_t x_K|| / ||b|| = ||D_t (x_{K+1} - x_K)|| / ||b||,
 * and K = the smallest in [SWEEPS_MIN, opts.sweeps] with max_t r_t(K) <= tau;
 * none: exact solves.  tau is the solver's (solver/setup.c), chosen so that
 * the sweeps' iterations stay close to the exact solves'. */

/* The partial sums of ||D_t (x_{j+1} - x_j)||^2 for j = 1 .. kmax of
 * triangle t into part + (j - 1) * parts: kmax + 1 sweeps from x_0 = D^-1 b,
 * nothing read back. */
static int sweep_residuals(dev_pc *p, int t, const double *b, int kmax, double *part, int parts)
{
    spk_err *err = p->e->err;
    const int n = p->n;
    const tri_view v = tri_of(p, t);
    double *buf[3] = {p->x0, p->x1, p->y};
    const double *x = NULL;
    for (int j = 0; j <= kmax; j++) {
        double *dst = buf[j % 3];
        SPK_TRY(spk_devsweep_sweep_once(p, t, b, x, dst));
        if (j > 0)
            SPK_CUDA_TRY(err, spk_dev_scaled_norm_part(p->s, n, v.id, dst, x, part + (size_t)(j - 1) * parts));
        x = dst;
    }
    return SPK_OK;
}

/* One K of the check: r0, r1 the triangles' ||D_t (x_{K+1} - x_K)||, nb =
 * ||b||; 1 (K taken: p->k, p->exact = 0) when max_t r_t(K) passes. */
static int check_k(dev_pc *p, int k, double r0, double r1, double nb)
{
    const double rt[2] = {r0, r1};
    double rk = 0;
    for (int t = 0; t < 2; t++) {
        const double x = isfinite(rt[t]) ? rt[t] / nb : INFINITY;
        if (!(x <= rk)) rk = x;
    }
    if (rk < p->check) p->check = rk;
    if (!(rk <= p->opts.sweeps_check)) return 0;
    p->exact = 0;
    p->k = k;
    p->check = rk;
    return 1;
}

/* The check above on the device (devsweep_host.c runs it on the host). */
int spk_devsweep_check(dev_pc *p)
{
    spk_err *err = p->e->err;
    p->exact = 0;
    p->check = 0;
    if (p->opts.sweeps_check > 0 && p->n > 0) {
        enum { KMAX = CHECK_KMAX };
        const int kmax = p->opts.sweeps < KMAX ? p->opts.sweeps : KMAX;
        const int parts = spk_dev_norm_parts(p->n), m = 2 * kmax + 1; /* both triangles, then ||b|| */
        double *b = NULL, *part = NULL, *norms = NULL, r[2 * KMAX + 1];
        int owned = 0;
        int st = spk_devsweep_scratch_get(p, 1, m, &b, &part, &norms, &owned);
        if (!st) st = spk_cuda_check(err, spk_dev_probe(p->s, p->n, b), "spk_dev_probe");
        for (int t = 0; t < 2 && !st; t++) st = sweep_residuals(p, t, b, kmax, part + (size_t)t * kmax * parts, parts);
        if (!st)
            st = spk_cuda_check(err, spk_dev_scaled_norm_part(p->s, p->n, NULL, b, NULL, part + (size_t)2 * kmax * parts),
                                "spk_dev_scaled_norm_part");
        if (!st) st = spk_cuda_check(err, spk_dev_norm_finish(p->s, m, parts, part, norms), "spk_dev_norm_finish");
        if (!st)
            st = spk_cuda_check(err, cudaMemcpyAsync(r, norms, (size_t)m * sizeof(double), cudaMemcpyDeviceToHost, p->s),
                                "cudaMemcpyAsync");
        if (!st) st = spk_cuda_check(err, cudaStreamSynchronize(p->s), "cudaStreamSynchronize");
        spk_devsweep_scratch_put(p, 1, &b, part, norms, owned);
        SPK_TRY(st);
        const double nb = r[2 * kmax];
        p->exact = 1;
        p->check = INFINITY;
        for (int k = SWEEPS_MIN < kmax ? SWEEPS_MIN : kmax; k <= kmax; k++)
            if (check_k(p, k, r[k - 1], r[kmax + k - 1], nb)) break;
    }
    return SPK_OK;
}

/* One sweep of spk_dev_sell_sweep / spk_dev_sweep on the host: out = D^-1
 * (b - S x), x NULL: x = D^-1 b. */
static void host_sweep(int n, const host_tri *h, const double *b, const double *x, double *out)
{
    const double *id = h->v.id;
    for (int i = 0; i < n; i++) {
        double s = 0;
        if (h->sp) {
            const int s0 = h->sp[i / SPK_DEV_SLICE], base = s0 + i % SPK_DEV_SLICE;
            const int w = (h->sp[i / SPK_DEV_SLICE + 1] - s0) / SPK_DEV_SLICE;
            for (int q = 0; q < w; q++) {
                const int at = base + q * SPK_DEV_SLICE, c = h->scol[at];
                const double a = h->single ? (double)((const float *)h->sval)[at] : ((const double *)h->sval)[at];
                s += a * (x ? x[c] : id ? id[c] * b[c] : b[c]);
            }
        } else {
            for (int q = h->v.beg[i] + h->v.boff, e = h->v.end[i] + h->v.eoff; q < e; q++) {
                const int c = h->v.col[q];
                s += h->v.val[q] * (x ? x[c] : id ? id[c] * b[c] : b[c]);
            }
        }
        const double r = b[i] - s;
        out[i] = id ? r * id[i] : r;
    }
}

/* The check above on the host: the probe of spk_dev_probe, sweeps on
 * both triangles side by side, K from SWEEPS_MIN up until one passes (each
 * K needs K + 1 sweeps).  0, or SPK_ERR_NOMEM. */
int spk_devsweep_host_check(dev_pc *p, const host_tri h[2])
{
    const int n = p->n, kmax = p->opts.sweeps < CHECK_KMAX ? p->opts.sweeps : CHECK_KMAX;
    /* the probe, then per triangle two iterates */
    double *buf = malloc((size_t)5 * n * sizeof(double));
    if (!buf) return spk_err_set(p->e->err, SPK_ERR_NOMEM, "out of host memory (the sweeps' check)");
    double *b = buf, *xs[2][2] = {{buf + n, buf + 2 * (size_t)n}, {buf + 3 * (size_t)n, buf + 4 * (size_t)n}};
    double nb = 0;
    for (int i = 0; i < n; i++) {
        unsigned hsh = (unsigned)i * 2654435761u;
        hsh ^= hsh >> 15;
        hsh *= 2246822519u;
        hsh ^= hsh >> 13;
        b[i] = 0.5 + ((hsh >> 8) & 0xffff) * (1.0 / 65536.0);
        nb += b[i] * b[i];
    }
    nb = sqrt(nb);
    p->exact = 1;
    p->check = INFINITY;
    const int kfirst = SWEEPS_MIN < kmax ? SWEEPS_MIN : kmax;
    double r[2] = {0, 0};
    for (int t = 0; t < 2; t++) host_sweep(n, &h[t], b, NULL, xs[t][0]); /* x_1 */
    for (int k = 1; k <= kmax; k++) {
        if (stopped(p)) { /* up to 2 x 16 sweeps on the host: a build no longer wanted ends here */
            free(buf);
            return SPK_PRECOND_STOPPED;
        }
        for (int t = 0; t < 2; t++) { /* x_{k+1} from x_k, and ||D (x_{k+1} - x_k)|| */
            const double *x = xs[t][(k - 1) & 1], *id = h[t].v.id;
            double *nx = xs[t][k & 1], s = 0;
            host_sweep(n, &h[t], b, x, nx);
            for (int i = 0; i < n; i++) {
                double d = nx[i] - x[i];
                if (id) d /= id[i];
                s += d * d;
            }
            r[t] = sqrt(s);
        }
        if (k >= kfirst && check_k(p, k, r[0], r[1], nb)) break;
    }
    free(buf);
    return SPK_OK;
}

/* The check's bound must suit its worst case, and so asks for more sweeps
 * than most systems need: one probe vector cannot tell a matrix whose slow
 * components the probe misses (localized ones) from one it measures well.
 * What decides the iterations is the preconditioner as an operator: for
 * CG, with the eigenvalues of M_K^-1 M in [1 - rho, 1 + rho], kappa(M_K^-1
 * A) <= kappa(M^-1 A) (1 + rho) / (1 - rho), so the iterations grow by at
 * most the root of that factor (1.22x at rho = 0.2).
 * So beyond SPK_DEV_SMALL_ROWS rows, where the sweeps are most of an
 * iteration (opts.sweeps_rho = theta > 0), rho of K sweeps is estimated by
 * the power method on E = I - M_K^-1 M from the positive probe: K passes
 * where every one of RHO_STEPS steps grows ||v|| by at most theta (the
 * later steps find what the probe misses).  A K below the check's that
 * passes, the fewest where the growth falls with K, replaces it (the
 * solver's theta: 0.2 for IC(0), 0.1 for ILU(0), solver/setup.c).
 * M v = L (U v) on the sweeps' own copies: T x = D (x + G x), with -G x a
 * sweep of b = 0. */
#define RHO_STEPS 6

/* ||x|| read back (part, norm: spk_dev_norm_parts(n) and 1 doubles). */
static int dev_norm(dev_pc *p, const double *x, double *part, double *norm, double *out)
{
    spk_err *err = p->e->err;
    SPK_CUDA_TRY(err, spk_dev_scaled_norm_part(p->s, p->n, NULL, x, NULL, part));
    SPK_CUDA_TRY(err, spk_dev_norm_finish(p->s, 1, spk_dev_norm_parts(p->n), part, norm));
    SPK_CUDA_TRY(err, cudaMemcpyAsync(out, norm, sizeof *out, cudaMemcpyDeviceToHost, p->s));
    return spk_cuda_check(err, cudaStreamSynchronize(p->s), "cudaStreamSynchronize");
}

/* *ok = 1 when K = k passes the test above, M_K^-1 applied as apply
 * applies it; w[0] the probe on entry (then E^j of it), w[1], w[2] scratch,
 * w[3] zeros. */
static int rho_passes(dev_pc *p, int k, double *const w[4], double *part, double *norm, int *ok)
{
    spk_err *err = p->e->err;
    const int n = p->n, keep = p->k;
    const double *id[2] = {tri_of(p, 0).id, tri_of(p, 1).id};
    double *v = w[0], *t1 = w[1], *t2 = w[2];
    const double *zero = w[3];
    double prev = 0, now = 0;
    *ok = 0;
    p->k = k;
    int st = dev_norm(p, v, part, norm, &prev);
    for (int j = 0; j < RHO_STEPS && !st; j++) {
        st = spk_devsweep_sweep_once(p, 1, zero, v, t1); /* t1 = -G_U v */
        if (!st) st = spk_cuda_check(err, spk_dev_sub_scaled(p->s, n, id[1], v, t1, t1), "spk_dev_sub_scaled");
        if (!st) st = spk_devsweep_sweep_once(p, 0, zero, t1, t2);
        if (!st) st = spk_cuda_check(err, spk_dev_sub_scaled(p->s, n, id[0], t1, t2, t2), "spk_dev_sub_scaled");
        if (!st) st = spk_devsweep_apply_mode(p, APPLY_SWEEPS, t2, t2); /* t2 = M v, then M_K^-1 M v */
        if (!st) st = spk_cuda_check(err, spk_dev_sub_scaled(p->s, n, NULL, v, t2, v), "spk_dev_sub_scaled");
        if (!st) st = dev_norm(p, v, part, norm, &now);
        if (st || !(now <= p->opts.sweeps_rho * prev)) break;
        if (j == RHO_STEPS - 1) *ok = 1;
        prev = now;
    }
    p->k = keep;
    return st;
}

/* After the check took p->k sweeps: the fewest that pass the test above. */
int spk_devsweep_fewer_sweeps(dev_pc *p)
{
    spk_err *err = p->e->err;
    const int n = p->n;
    double *w[4] = {NULL, NULL, NULL, NULL}, *part = NULL, *norm = NULL;
    int owned = 0;
    int st = spk_devsweep_scratch_get(p, 4, 1, w, &part, &norm, &owned);
    if (!st) st = spk_cuda_check(err, cudaMemsetAsync(w[3], 0, (size_t)n * sizeof(double), p->s), "cudaMemsetAsync");
    /* by bisection in [SWEEPS_MIN, K - 1] (the growth falls with K): two or
     * three K tested, a failing one mostly in its first steps */
    int lo = SWEEPS_MIN, hi = p->k - 1;
    while (lo <= hi && !st) {
        const int mid = (lo + hi) / 2;
        int ok = 0;
        st = spk_cuda_check(err, spk_dev_probe(p->s, n, w[0]), "spk_dev_probe");
        if (!st) st = rho_passes(p, mid, w, part, norm, &ok);
        if (!st && ok) p->k = mid;
        if (ok)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    spk_devsweep_scratch_put(p, 4, w, part, norm, owned);
    return st;
}

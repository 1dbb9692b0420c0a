/* gmres.c -- restarted GMRES(m), right-preconditioned: A M^-1 u = b, x = M^-1 u.
 *
 *   r = b - A x, beta = ||r||, v_0 = r / beta
 *   for j = 0..m-1: w = A M^-1 v_j; orthogonalize w against v_0..v_j by
 *       classical Gram-Schmidt, again where it lost more than 30 % of its
 *       norm (one reorthogonalization, DGKS's test); h_{j+1,j} = ||w||,
 *       v_{j+1} = w / h_{j+1,j}; Givens rotations keep H upper triangular
 *       and |g_{j+1}| = ||b - A x_j|| (in exact arithmetic) is tested
 *   x += M^-1 V y, H y = g; restart from the true residual.
 *
 * The residual tested is that of the unpreconditioned system, as CG's and
 * BiCGStab's.  The basis (m + 1 vectors) lives on the executor, in one
 * allocation kept by the workspace; the small least-squares problem on the
 * host.  Every operation is an executor operation (the classic engine), so
 * the same code runs on the host and the GPU; the projections on the basis
 * are one multi-vector operation each (a gemv on the GPU), not j + 1 dots.  Traffic per inner iteration
 * j: SpMV + M^-1 + about (4 (j + 1) + 3) n reads and writes. */
#include <stdlib.h>
#include <string.h>

#include "krylov_common.h"

/* the basis of m + 1 vectors, made (or remade for another m) on first use */
static int basis(spk_krylov *k, int m)
{
    if (k->gmres.V && k->gmres.m == m) return SPK_OK;
    if (k->gmres.V) k->e->ops->free(k->e, k->gmres.V);
    k->gmres.V = NULL;
    k->gmres.m = 0;
    k->gmres.stride = ((size_t)(k->n > 0 ? k->n : 1) + 31) / 32 * 32;
    const int st = k->e->ops->alloc(k->e, (size_t)(m + 1) * k->gmres.stride * sizeof(double), (void **)&k->gmres.V);
    if (st) return spk_err_prefix(k->e->err, "GMRES(%d): its basis of %d vectors of %d entries", m, m + 1, k->n);
    k->gmres.m = m;
    return SPK_OK;
}

/* The host's part: H (column j at h + j (m + 1)), the rotations, g, y. */
typedef struct lsq {
    int m;
    double *h, *c, *s, *g, *y, *t; /* t: coefficients of a multi-vector update */
} lsq;

static int lsq_make(lsq *L, int m, spk_err *e)
{
    L->m = m;
    L->h = spk_malloc((size_t)(m + 1) * (size_t)m + 5 * (size_t)(m + 1), sizeof(double), "GMRES's Hessenberg matrix", e);
    if (!L->h) return SPK_ERR_NOMEM;
    L->c = L->h + (size_t)(m + 1) * m;
    L->s = L->c + m + 1;
    L->g = L->s + m + 1;
    L->y = L->g + m + 1;
    L->t = L->y + m + 1;
    return SPK_OK;
}

/* Column j of H (h[0..j+1]) rotated by the earlier rotations and a new one
 * that zeroes h[j+1]; g rotated with it.  Returns |g[j+1]|; *singular: the
 * rotated diagonal vanished against the column (H singular: |g[j+1]| then
 * is no residual). */
static double lsq_rotate(lsq *L, int j, int *singular)
{
    double *h = L->h + (size_t)j * (L->m + 1);
    for (int i = 0; i < j; i++) {
        const double t = L->c[i] * h[i] + L->s[i] * h[i + 1];
        h[i + 1] = -L->s[i] * h[i] + L->c[i] * h[i + 1];
        h[i] = t;
    }
    double col = 0;
    for (int i = 0; i <= j + 1; i++) col = fmax(col, fabs(h[i]));
    const double d = hypot(h[j], h[j + 1]);
    *singular = !(d > 1e-14 * col);
    L->c[j] = d > 0 ? h[j] / d : 1.0;
    L->s[j] = d > 0 ? h[j + 1] / d : 0.0;
    h[j] = d;
    h[j + 1] = 0;
    L->g[j + 1] = -L->s[j] * L->g[j];
    L->g[j] *= L->c[j];
    return fabs(L->g[j + 1]);
}

/* y solving the upper triangular H[0..j-1][0..j-1] y = g[0..j-1] (a zero on
 * the diagonal, a singular H, gives y_i = 0 there) */
static void lsq_solve(lsq *L, int j)
{
    for (int i = j - 1; i >= 0; i--) {
        double t = L->g[i];
        for (int l = i + 1; l < j; l++) t -= L->h[(size_t)l * (L->m + 1) + i] * L->y[l];
        const double d = L->h[(size_t)i * (L->m + 1) + i];
        L->y[i] = d != 0 ? t / d : 0.0;
    }
}

/* h[i] = V_i'w for i < cnt: one multi-vector operation where the executor has it */
static int basis_dots(spk_krylov *k, spk_result *res, int cnt, const double *w, double *h)
{
    const double *V = k->gmres.V;
    const size_t ld = k->gmres.stride;
    if (k->e->ops->mdot) {
        SPK_VEC(k, res, mdot, k->n, cnt, V, ld, w, h);
        return SPK_OK;
    }
    for (int i = 0; i < cnt; i++) SPK_VEC(k, res, dot, k->n, V + (size_t)i * ld, w, &h[i]);
    return SPK_OK;
}

/* w += sum_{i < cnt} a[i] V_i, the same way */
static int basis_axpys(spk_krylov *k, spk_result *res, int cnt, const double *a, double *w)
{
    const double *V = k->gmres.V;
    const size_t ld = k->gmres.stride;
    if (k->e->ops->maxpy) {
        SPK_VEC(k, res, maxpy, k->n, cnt, a, V, ld, w);
        return SPK_OK;
    }
    for (int i = 0; i < cnt; i++) SPK_VEC(k, res, axpy, k->n, a[i], V + (size_t)i * ld, w);
    return SPK_OK;
}

/* out = base + M^-1 (V[0..j-1] y), with t and z as work vectors (z unused without M) */
static int update(spk_krylov *k, spk_result *res, lsq *L, int j, const double *base, double *out, double *t, double *z)
{
    const int n = k->n;
    lsq_solve(L, j);
    SPK_VEC(k, res, fill, n, 0.0, t);
    SPK_TRY(basis_axpys(k, res, j, L->y, t));
    const double *u = t;
    if (!spk_krylov_identity(k)) {
        SPK_PREC(k, res, t, z);
        u = z;
    }
    if (out != base) SPK_VEC(k, res, copy, n, base, out);
    SPK_VEC(k, res, axpy, n, 1.0, u, out);
    return SPK_OK;
}

/* w (= V_{j+1}) orthogonalized against V_0..V_j, H's column j from it; *hn its norm after */
static int orthogonalize(spk_krylov *k, spk_result *res, lsq *L, int j, double *w, double *hn)
{
    const int n = k->n;
    double *h = L->h + (size_t)j * (L->m + 1), before;
    SPK_VEC(k, res, nrm2, n, w, &before);
    SPK_TRY(basis_dots(k, res, j + 1, w, h));
    for (int i = 0; i <= j; i++) L->t[i] = -h[i];
    SPK_TRY(basis_axpys(k, res, j + 1, L->t, w));
    SPK_VEC(k, res, nrm2, n, w, hn);
    if (*hn < 0.7 * before) { /* cancellation: once more (DGKS), classical as well */
        SPK_TRY(basis_dots(k, res, j + 1, w, L->t));
        for (int i = 0; i <= j; i++) {
            h[i] += L->t[i];
            L->t[i] = -L->t[i];
        }
        SPK_TRY(basis_axpys(k, res, j + 1, L->t, w));
        SPK_VEC(k, res, nrm2, n, w, hn);
    }
    h[j + 1] = *hn;
    return SPK_OK;
}

/* One cycle from r (||r|| = beta): up to m inner iterations; x updated at
 * its end.  *stop: the run ends (reason set, or the iteration limit). */
static int cycle(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res, lsq *L,
                 double beta, double bnorm, int *stop)
{
    const int n = k->n, m = L->m;
    double *r = k->w[0], *z = k->w[1], *t = k->w[2], *xj = k->w[3];
    double *V0 = k->gmres.V;
    (void)b;
    SPK_VEC(k, res, axpby, n, 1.0 / beta, r, 0.0, V0);
    memset(L->g, 0, (size_t)(m + 1) * sizeof(double));
    L->g[0] = beta;
    int j = 0;
    *stop = 0;
    while (j < m && res->iterations < o->maxit && !*stop) {
        double *vj = V0 + (size_t)j * k->gmres.stride, *w = V0 + (size_t)(j + 1) * k->gmres.stride, hn;
        const double *u = vj;
        if (!spk_krylov_identity(k)) {
            SPK_PREC(k, res, vj, z);
            u = z;
        }
        SPK_SPMV(k, res, 1.0, u, 0.0, w);
        SPK_TRY(orthogonalize(k, res, L, j, w, &hn));
        int singular;
        const double rnorm = lsq_rotate(L, j, &singular);
        res->iterations++;
        if (singular) { /* x from the columns before this one; no residual to test */
            res->reason = SPK_BREAKDOWN_SINGULAR;
            *stop = 1;
            break;
        }
        j++;
        if (o->iterate) { /* the callback sees x_j, made only for it */
            SPK_TRY(update(k, res, L, j, x, xj, t, z));
            k->iter.x = xj;
        }
        *stop = spk_krylov_end_step(k, o, res, res->iterations, rnorm, bnorm);
        k->iter.x = x;
        if (!*stop && !(hn > 0)) { /* an invariant subspace: x_j solves the system */
            if (hn == 0) break;
            res->reason = SPK_DIVERGED_NAN;
            *stop = 1;
        }
        if (!*stop) SPK_VEC(k, res, scal, n, 1.0 / hn, w);
    }
    if (res->reason == SPK_DIVERGED_NAN) return SPK_OK; /* x kept as it was */
    SPK_TRY(update(k, res, L, j, x, x, t, z));
    if (res->iterations >= o->maxit) *stop = 1;
    return SPK_OK;
}

int spk_gmres_classic(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res)
{
    const int n = k->n, m = o->gmres_restart > 0 ? o->gmres_restart : 30;
    double *r = k->w[0];
    double bnorm, rnorm;
    int done, stop = 0;
    SPK_TRY(spk_krylov_start(k, b, x, r, o, res, &bnorm, &done));
    if (done) return spk_krylov_finish(k, b, x, k->w[2], res, bnorm);
    SPK_TRY(basis(k, m));
    lsq L;
    SPK_TRY(lsq_make(&L, m, k->e->err));
    rnorm = res->rnorm;
    res->reason = SPK_DIVERGED_MAXIT;
    int st = SPK_OK;
    while (!stop && res->iterations < o->maxit) {
        st = cycle(k, b, x, o, res, &L, rnorm, bnorm, &stop);
        if (st || stop) break;
        /* restart from the true residual, the recurrence's drift dropped */
        st = spk_krylov_residual(k, res, b, x, r);
        if (!st) st = k->e->ops->nrm2(k->e, n, r, &rnorm);
        if (st) break;
        res->restarts++;
        res->rnorm = rnorm;
        res->relres = rnorm / bnorm;
        if (!isfinite(rnorm)) {
            res->reason = SPK_DIVERGED_NAN;
            break;
        }
        if (spk_krylov_converged(o, res, rnorm, bnorm)) break;
    }
    free(L.h);
    SPK_TRY(st);
    SPK_TRY(spk_krylov_finish(k, b, x, k->w[2], res, bnorm));
    /* the estimate said converged but the true residual is far above the target: a least-squares
     * problem the rounding kept from looking singular */
    const double target = fmax(o->rtol * bnorm, o->atol);
    if ((res->reason == SPK_CONVERGED_RTOL || res->reason == SPK_CONVERGED_ATOL) && res->true_relres * bnorm > 100 * target)
        res->reason = SPK_BREAKDOWN_SINGULAR;
    return SPK_OK;
}

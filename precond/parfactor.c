/* parfactor.c -- IC(0) and ILU(0) by Jacobi-style fixed-point sweeps on the
 * host (parfactor.h): the reference of the device's sweeps, and the host
 * kinds' numeric step where factorization = iterative.  A sweep costs the
 * sparse dot products of every entry of F (merges of two sorted lists), about
 * the exact factorization's arithmetic.  A sweep's rows are independent
 * (it reads the last iterate and writes the next): they go to the host's
 * threads by blocks of SWEEP_ROWS, the residual summed per block and the
 * blocks' sums in order, so the sweep has the same bits for any count. */
#include "parfactor.h"

#include "core/parallel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PIVOT_RTOL 1e-14 /* the exact factorization's pivot test (ilu0.c, ic0.c) */
#define SWEEP_ROWS 256

struct spk_parfactor {
    double *a;          /* A's values in F's pattern, diagonal shifted */
    double *nv;         /* the values a sweep computes */
    double *prev;       /* the last good factor: a refactor's initial guess */
    int has_prev;
    double *w;          /* |a_ii|^-1/2 (1 where a_ii = 0): the residual's scaling */
    double *d;          /* IC(0): a_ii - sum_k l_ik^2 of the last sweep */
    int *ucp, *upos;    /* ILU(0): F by columns, each column's rows ascending: the positions in F */
    int *urow;
    double *part;       /* a sweep's residual per block of SWEEP_ROWS rows */
};

void spk_parfactor_free(spk_parfactor *w)
{
    if (!w) return;
    free(w->a);
    free(w->nv);
    free(w->prev);
    free(w->w);
    free(w->d);
    free(w->ucp);
    free(w->upos);
    free(w->urow);
    free(w->part);
    free(w);
}

/* ucp, urow, upos: F's entries by columns (a counting sort, rows ascending). */
static void transpose_index(const spk_csr *F, int *ucp, int *urow, int *upos)
{
    const int n = F->nrows;
    memset(ucp, 0, ((size_t)n + 1) * sizeof(int));
    for (int q = 0; q < F->nnz; q++) ucp[F->colind[q] + 1]++;
    for (int j = 0; j < n; j++) ucp[j + 1] += ucp[j];
    for (int i = 0; i < n; i++)
        for (int q = F->rowptr[i]; q < F->rowptr[i + 1]; q++) {
            const int at = ucp[F->colind[q]]++;
            urow[at] = i;
            upos[at] = q;
        }
    for (int j = n; j > 0; j--) ucp[j] = ucp[j - 1];
    ucp[0] = 0;
}

int spk_parfactor_create(spk_factor *f)
{
    spk_err *err = f->exec->err;
    const int n = f->n, nnz = f->F.nnz;
    spk_parfactor *w = spk_calloc(1, sizeof *w, "iterative factorization", err);
    if (!w) return SPK_ERR_NOMEM;
    const size_t m = nnz > 0 ? (size_t)nnz : 1;
    w->a = spk_malloc(m, sizeof(double), "iterative factorization", err);
    w->nv = spk_malloc(m, sizeof(double), "iterative factorization", err);
    w->prev = spk_malloc(m, sizeof(double), "iterative factorization", err);
    w->w = spk_malloc((size_t)n + 1, sizeof(double), "iterative factorization", err);
    w->d = spk_malloc((size_t)n + 1, sizeof(double), "iterative factorization", err);
    w->part = spk_malloc((size_t)n / SWEEP_ROWS + 1, sizeof(double), "iterative factorization", err);
    int ok = w->a && w->nv && w->prev && w->w && w->d && w->part;
    if (ok && !f->kind->lower_only) {
        w->ucp = spk_malloc((size_t)n + 1, sizeof(int), "iterative factorization", err);
        w->urow = spk_malloc(m, sizeof(int), "iterative factorization", err);
        w->upos = spk_malloc(m, sizeof(int), "iterative factorization", err);
        ok = w->ucp && w->urow && w->upos;
        if (ok) transpose_index(&f->F, w->ucp, w->urow, w->upos);
    }
    if (!ok) {
        spk_parfactor_free(w);
        return SPK_ERR_NOMEM;
    }
    f->iter = w;
    return SPK_OK;
}

/* a = P's values with a_ii * (1 + alpha), w = |a_ii|^-1/2; ||W A W||_F^2. */
static double load_input(spk_factor *f, double alpha)
{
    spk_parfactor *w = f->iter;
    const int n = f->n, *rp = f->F.rowptr, *ci = f->F.colind, *dg = f->diag;
    memcpy(w->a, f->F.val, (size_t)f->F.nnz * sizeof(double));
    for (int i = 0; i < n; i++) {
        w->a[dg[i]] *= 1.0 + alpha;
        const double d = fabs(w->a[dg[i]]);
        w->w[i] = d > 0 ? 1.0 / sqrt(d) : 1.0;
    }
    double s = 0;
    for (int i = 0; i < n; i++)
        for (int q = rp[i]; q < rp[i + 1]; q++) {
            const double t = w->a[q] * w->w[i] * w->w[ci[q]];
            s += t * t;
        }
    return s;
}

/* The initial guess in P: the last good factor, or the scaled one of A. */
static void initial_guess(spk_factor *f)
{
    spk_parfactor *w = f->iter;
    const int n = f->n, *rp = f->F.rowptr, *ci = f->F.colind, *dg = f->diag;
    double *v = f->F.val;
    if (w->has_prev) {
        memcpy(v, w->prev, (size_t)f->F.nnz * sizeof(double));
        return;
    }
    const int ic = f->kind->lower_only;
    for (int i = 0; i < n; i++) { /* the pivots first: the other entries divide by them */
        const double aii = w->a[dg[i]];
        v[dg[i]] = ic ? (aii > 0 ? sqrt(aii) : 1.0) : aii;
    }
    for (int i = 0; i < n; i++)
        for (int q = rp[i]; q < rp[i + 1]; q++) {
            const int j = ci[q];
            if (j >= i) {
                if (j > i) v[q] = w->a[q];
                continue;
            }
            const double piv = v[dg[j]];
            v[q] = piv != 0 ? w->a[q] / piv : w->a[q];
        }
}

/* the blocks' residuals added in block order */
static double block_sum(const double *part, int nb)
{
    double s = 0;
    for (int b = 0; b < nb; b++) s += part[b];
    return s;
}

/* One ILU(0) sweep from P's values into nv; the residual's ||W R W||_F^2
 * in *r2, and whether any entry changed. */
static int sweep_ilu0(spk_factor *f, double *r2)
{
    const spk_parfactor *w = f->iter;
    const int n = f->n, *rp = f->F.rowptr, *ci = f->F.colind, *dg = f->diag;
    const double *v = f->F.val, *a = w->a;
    const int nb = (n - 1) / SWEEP_ROWS + 1;
    int changed = 0;
    SPK_OMP(omp parallel for schedule(dynamic, 4) reduction(| : changed) if (f->F.nnz >= SPK_PAR_MIN))
    for (int blk = 0; blk < nb; blk++) {
        double s = 0;
        for (int i = blk * SWEEP_ROWS; i < n && i < (blk + 1) * SWEEP_ROWS; i++)
            for (int q = rp[i]; q < rp[i + 1]; q++) {
                const int j = ci[q], m = j < i ? j : i;
                double x = a[q];
                int p = rp[i], e = w->ucp[j], ee = w->ucp[j + 1];
                while (p < dg[i] && e < ee) { /* k < m in row i of L and column j of U */
                    const int k = ci[p], r = w->urow[e];
                    if (k >= m || r >= m) break;
                    if (k < r) {
                        p++;
                    } else if (r < k) {
                        e++;
                    } else {
                        x -= v[p++] * v[w->upos[e++]];
                    }
                }
                double nx = x, res = x - v[q];
                if (j < i) {
                    const double u = v[dg[j]];
                    res = x - v[q] * u;
                    nx = u != 0 && isfinite(u) ? x / u : v[q];
                }
                const double t = res * w->w[i] * w->w[j];
                s += t * t;
                changed |= nx != v[q];
                w->nv[q] = nx;
            }
        w->part[blk] = s;
    }
    *r2 = block_sum(w->part, nb);
    return changed;
}

/* One IC(0) sweep, as sweep_ilu0 (rows i and j of L merged below column j). */
static int sweep_ic0(spk_factor *f, double *r2)
{
    const spk_parfactor *w = f->iter;
    const int n = f->n, *rp = f->F.rowptr, *ci = f->F.colind;
    const double *v = f->F.val, *a = w->a;
    const int nb = (n - 1) / SWEEP_ROWS + 1;
    int changed = 0;
    SPK_OMP(omp parallel for schedule(dynamic, 4) reduction(| : changed) if (f->F.nnz >= SPK_PAR_MIN))
    for (int blk = 0; blk < nb; blk++) {
        double s = 0;
        for (int i = blk * SWEEP_ROWS; i < n && i < (blk + 1) * SWEEP_ROWS; i++) {
            const int b = rp[i], d = rp[i + 1] - 1;
            double di = a[d];
            for (int q = b; q < d; q++) {
                const int j = ci[q], dj = rp[j + 1] - 1;
                double x = a[q];
                int p = b, e = rp[j];
                while (p < q && e < dj) {
                    const int k = ci[p], r = ci[e];
                    if (k < r) {
                        p++;
                    } else if (r < k) {
                        e++;
                    } else {
                        x -= v[p++] * v[e++];
                    }
                }
                const double ljj = v[dj], res = x - v[q] * ljj;
                const double nx = ljj != 0 && isfinite(ljj) ? x / ljj : v[q];
                const double t = res * w->w[i] * w->w[j];
                s += t * t;
                changed |= nx != v[q];
                w->nv[q] = nx;
                di -= v[q] * v[q];
            }
            const double res = di - v[d] * v[d], nx = di > 0 && isfinite(di) ? sqrt(di) : v[d];
            const double t = res * w->w[i] * w->w[i];
            s += t * t;
            changed |= nx != v[d];
            w->nv[d] = nx;
            w->d[i] = di;
        }
        w->part[blk] = s;
    }
    *r2 = block_sum(w->part, nb);
    return changed;
}

/* The exact factorization's pivot tests on the final iterate, and idiag. */
static int test_pivots(spk_factor *f, spk_factor_fail *fail)
{
    const spk_parfactor *w = f->iter;
    const int n = f->n, *rp = f->F.rowptr, *dg = f->diag, ic = f->kind->lower_only;
    const double *v = f->F.val;
    for (int i = 0; i < n; i++) {
        int finite = 1;
        double rowmax = 0;
        for (int q = rp[i]; q < rp[i + 1]; q++) {
            finite &= isfinite(v[q]) != 0;
            rowmax = fmax(rowmax, fabs(w->a[q]));
        }
        const double piv = ic ? w->d[i] : v[dg[i]];
        const int bad = ic ? !(piv > PIVOT_RTOL * fabs(w->a[dg[i]])) || !isfinite(piv)
                           : !(fabs(piv) > PIVOT_RTOL * rowmax) || !finite;
        if (bad) {
            fail->row = i;
            fail->pivot = piv;
            fail->overflow = !ic && isfinite(piv) && !finite;
            return -1;
        }
        f->idiag[i] = 1.0 / v[dg[i]];
    }
    return 0;
}

int spk_parfactor_numeric(spk_factor *f, double alpha, spk_factor_fail *fail)
{
    spk_parfactor *w = f->iter;
    if (!w) return spk_err_set(f->exec->err, SPK_ERR_INTERNAL, "%s: no iterative state", f->kind->label);
    const double an2 = load_input(f, alpha);
    initial_guess(f);
    const int ic = f->kind->lower_only;
    f->info.iterative = 1;
    f->info.fallback = 0;
    f->info.sweeps = 0;
    f->info.residual = 0;
    int met = f->n == 0;
    for (int s = 1; s <= f->opts.factor_sweeps && f->n > 0; s++) {
        double r2 = 0;
        const int changed = ic ? sweep_ic0(f, &r2) : sweep_ilu0(f, &r2);
        memcpy(f->F.val, w->nv, (size_t)f->F.nnz * sizeof(double));
        f->info.sweeps = s;
        f->info.residual = an2 > 0 ? sqrt(r2 / an2) : 0;
        met = !changed || f->info.residual <= f->opts.factor_tol;
        if (met) break;
    }
    if (!met && f->opts.factor_tol > 0) { /* not converged: of unknown quality; the exact one instead */
        memcpy(f->F.val, w->a, (size_t)f->F.nnz * sizeof(double)); /* A, its diagonal already shifted */
        f->info.iterative = 0;
        f->info.fallback = 1;
        return f->kind->numeric(f, 0.0, fail);
    }
    return test_pivots(f, fail);
}

void spk_parfactor_keep(spk_factor *f)
{
    spk_parfactor *w = f->iter;
    if (!w) return;
    memcpy(w->prev, f->F.val, (size_t)f->F.nnz * sizeof(double));
    w->has_prev = 1;
}

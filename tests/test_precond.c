/* test_precond.c -- the host preconditioners: none, Jacobi, ILU(0), IC(0).
 *
 * ILU(0) and IC(0) are compared entry by entry with a dense textbook
 * no-fill factorization restricted to the pattern (IKJ for ILU(0), right-
 * looking Cholesky for IC(0)), apply() with dense triangular solves; then
 * exactness on tridiagonal matrices, missing diagonals, bad pivots and the
 * shift policy, refactoring, Jacobi, the registry and tiny matrices. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/csr.h"
#include "core/exec.h"
#include "precond/factor.h"
#include "precond/precond.h"
#ifndef SPK_TEST_NO_MMIO
#include "io/mmio.h"
#endif

#define TOL 1e-12

/* ---- small helpers ------------------------------------------------------ */

/* xorshift64*: a uniform double in [0, 1). */
static double rnd(unsigned long long *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/* A dense n x n matrix (row-major) and its pattern (1 = stored). */
typedef struct dense {
    int n;
    double *a;
    unsigned char *p;
} dense;

static dense dense_new(int n)
{
    dense d;
    d.n = n;
    d.a = calloc((size_t)n * n + 1, sizeof(double));
    d.p = calloc((size_t)n * n + 1, 1);
    if (!d.a || !d.p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return d;
}

static void dense_free(dense *d)
{
    free(d->a);
    free(d->p);
    d->a = NULL;
    d->p = NULL;
}

static void dset(dense *d, int i, int j, double v)
{
    d->a[(size_t)i * d->n + j] = v;
    d->p[(size_t)i * d->n + j] = 1;
}

/* CSR of the stored entries of d (explicit zeros kept). */
static void to_csr(const dense *d, spk_csr *A)
{
    int n = d->n, nnz = 0;
    for (size_t k = 0; k < (size_t)n * n; k++) nnz += d->p[k];
    spk_err e = {0, ""};
    if (spk_csr_alloc(A, n, n, nnz, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        exit(2);
    }
    int out = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            if (d->p[(size_t)i * n + j]) {
                A->colind[out] = j;
                A->val[out++] = d->a[(size_t)i * n + j];
            }
        A->rowptr[i + 1] = out;
    }
}

/* Random sparse symmetric, strictly diagonally dominant with positive diagonal (SPD). */
static dense random_spd(int n, double density, unsigned long long seed)
{
    dense d = dense_new(n);
    unsigned long long s = seed;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (rnd(&s) < density) {
                double v = 2 * rnd(&s) - 1;
                dset(&d, i, j, v);
                dset(&d, j, i, v);
            }
    for (int i = 0; i < n; i++) {
        double sum = 0;
        for (int j = 0; j < n; j++)
            if (j != i) sum += fabs(d.a[(size_t)i * n + j]);
        dset(&d, i, i, sum + 0.5 + rnd(&s));
    }
    return d;
}

/* Random sparse nonsymmetric, diagonally dominant, diagonal of either sign. */
static dense random_dd(int n, double density, unsigned long long seed)
{
    dense d = dense_new(n);
    unsigned long long s = seed;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (j != i && rnd(&s) < density) dset(&d, i, j, 4 * rnd(&s) - 2);
    for (int i = 0; i < n; i++) {
        double sum = 0;
        for (int j = 0; j < n; j++)
            if (j != i) sum += fabs(d.a[(size_t)i * n + j]);
        double v = sum + 0.1 + rnd(&s);
        dset(&d, i, i, rnd(&s) < 0.3 ? -v : v);
    }
    return d;
}

/* Tridiagonal, diagonally dominant; symmetric when sym. */
static dense tridiag(int n, int sym, unsigned long long seed)
{
    dense d = dense_new(n);
    unsigned long long s = seed;
    for (int i = 0; i + 1 < n; i++) {
        double lo = 2 * rnd(&s) - 1, up = sym ? lo : 2 * rnd(&s) - 1;
        dset(&d, i + 1, i, lo);
        dset(&d, i, i + 1, up);
    }
    for (int i = 0; i < n; i++) dset(&d, i, i, 2.5 + rnd(&s));
    return d;
}

/* 2D Laplacian, 5-point stencil, on an m x m grid (m^2 rows). */
static dense laplace2d(int m)
{
    dense d = dense_new(m * m);
    for (int y = 0; y < m; y++)
        for (int x = 0; x < m; x++) {
            int i = y * m + x;
            dset(&d, i, i, 4);
            if (x > 0) dset(&d, i, i - 1, -1);
            if (x + 1 < m) dset(&d, i, i + 1, -1);
            if (y > 0) dset(&d, i, i - m, -1);
            if (y + 1 < m) dset(&d, i, i + m, -1);
        }
    return d;
}

/* ---- dense references ---------------------------------------------------- */

/* Pattern with the diagonal: P(i,j) = stored or i == j. */
static int pat(const dense *d, int i, int j)
{
    return i == j || d->p[(size_t)i * d->n + j];
}

/* Textbook IKJ ILU(0) on a dense copy, updates restricted to the pattern;
 * a_ii scaled by (1 + alpha).  Returns the L\U array (malloc). */
static double *ref_ilu0(const dense *d, double alpha)
{
    int n = d->n;
    double *a = malloc(((size_t)n * n + 1) * sizeof(double));
    memcpy(a, d->a, (size_t)n * n * sizeof(double));
    for (int i = 0; i < n; i++) a[(size_t)i * n + i] *= 1 + alpha;
    for (int i = 1; i < n; i++)
        for (int k = 0; k < i; k++) {
            if (!pat(d, i, k)) continue;
            a[(size_t)i * n + k] /= a[(size_t)k * n + k];
            for (int j = k + 1; j < n; j++)
                if (pat(d, i, j)) a[(size_t)i * n + j] -= a[(size_t)i * n + k] * a[(size_t)k * n + j];
        }
    return a;
}

/* Textbook right-looking IC(0) on the lower triangle of a dense copy,
 * restricted to the pattern; a_ii scaled by (1 + alpha).  Returns L (malloc). */
static double *ref_ic0(const dense *d, double alpha)
{
    int n = d->n;
    double *a = calloc((size_t)n * n + 1, sizeof(double));
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) a[(size_t)i * n + j] = d->a[(size_t)i * n + j];
    for (int i = 0; i < n; i++) a[(size_t)i * n + i] *= 1 + alpha;
    for (int k = 0; k < n; k++) {
        a[(size_t)k * n + k] = sqrt(a[(size_t)k * n + k]);
        for (int i = k + 1; i < n; i++)
            if (pat(d, i, k)) a[(size_t)i * n + k] /= a[(size_t)k * n + k];
        for (int j = k + 1; j < n; j++)
            for (int i = j; i < n; i++)
                if (pat(d, i, j)) a[(size_t)i * n + j] -= a[(size_t)i * n + k] * a[(size_t)j * n + k];
    }
    return a;
}

/* z = U^-1 L^-1 r with the dense L\U (unit L). */
static void ref_lu_solve(int n, const double *lu, const double *r, double *z)
{
    for (int i = 0; i < n; i++) {
        double s = r[i];
        for (int j = 0; j < i; j++) s -= lu[(size_t)i * n + j] * z[j];
        z[i] = s;
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = z[i];
        for (int j = i + 1; j < n; j++) s -= lu[(size_t)i * n + j] * z[j];
        z[i] = s / lu[(size_t)i * n + i];
    }
}

/* z = L^-T L^-1 r with the dense L. */
static void ref_llt_solve(int n, const double *l, const double *r, double *z)
{
    for (int i = 0; i < n; i++) {
        double s = r[i];
        for (int j = 0; j < i; j++) s -= l[(size_t)i * n + j] * z[j];
        z[i] = s / l[(size_t)i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = z[i];
        for (int j = i + 1; j < n; j++) s -= l[(size_t)j * n + i] * z[j];
        z[i] = s / l[(size_t)i * n + i];
    }
}

/* Every entry of F against ref: pattern = P (lower part when lower), 1e-12 relative. */
static void check_factor(const char *what, const spk_csr *F, const dense *d, const double *ref,
                         int lower)
{
    int n = d->n, bad = 0, out = 0;
    double worst = 0;
    CHECK(F->nrows == n && F->ncols == n, "%s: factor is %d x %d, expected %d", what, F->nrows,
          F->ncols, n);
    for (int i = 0; i < n && !bad; i++) {
        double scale = 0;
        for (int j = 0; j < n; j++) scale = fmax(scale, fabs(ref[(size_t)i * n + j]));
        int k = F->rowptr[i];
        for (int j = 0; j < (lower ? i + 1 : n); j++) {
            if (!pat(d, i, j)) continue;
            if (k >= F->rowptr[i + 1] || F->colind[k] != j) {
                bad = 1;
                CHECK(0, "%s: row %d: expected column %d at position %d", what, i, j, k);
                break;
            }
            double x = F->val[k++], r = ref[(size_t)i * n + j];
            double err = fabs(x - r) / fmax(fabs(r), 1e-3 * scale);
            if (err > worst) worst = err;
            if (err > TOL && out++ < 5)
                CHECK(0, "%s: entry (%d,%d) = %.17g, reference %.17g", what, i, j, x, r);
        }
        if (!bad && k != F->rowptr[i + 1]) {
            bad = 1;
            CHECK(0, "%s: row %d has %d extra entries", what, i, F->rowptr[i + 1] - k);
        }
    }
    CHECK(worst <= TOL, "%s: worst relative factor error %.3g", what, worst);
}

/* max_i |x_i - y_i| / max_i |y_i| */
static double relerr(int n, const double *x, const double *y)
{
    double num = 0, den = 0;
    for (int i = 0; i < n; i++) {
        num = fmax(num, fabs(x[i] - y[i]));
        den = fmax(den, fabs(y[i]));
    }
    return den > 0 ? num / den : num;
}

/* ---- (1) + (2): factors and apply against the dense reference ------------- */

typedef struct ctx {
    spk_err err;
    spk_exec *ex;
} ctx;

/* ILU(0) (ic = 0) or IC(0) (ic = 1) of d: factors and apply vs. the reference. */
static void compare_with_dense(ctx *c, const char *what, const dense *d, int ic)
{
    const struct spk_precond_ops *ops = ic ? &spk_precond_ic0_host : &spk_precond_ilu0_host;
    spk_csr A = {0};
    void *M = NULL;
    spk_precond_opts o;
    spk_precond_opts_default(&o);
    o.allow_shift = 0;
    to_csr(d, &A);
    int n = d->n;
    int st = ops->create(c->ex, &A, &o, &M);
    CHECK(st == 0, "%s: create returned %d: %s", what, st, c->err.msg);
    if (st) {
        spk_csr_free(&A);
        return;
    }
    const spk_csr *F = NULL;
    double alpha = -1;
    CHECK_OK(spk_factor_inspect(M, &F, &alpha), "inspect");
    CHECK(alpha == 0, "%s: alpha %g", what, alpha);
    double *ref = ic ? ref_ic0(d, 0) : ref_ilu0(d, 0);
    check_factor(what, F, d, ref, ic);

    double *r = malloc(((size_t)n + 1) * sizeof(double)), *z = malloc(((size_t)n + 1) * sizeof(double));
    double *zr = malloc(((size_t)n + 1) * sizeof(double));
    unsigned long long s = 12345 + (unsigned long long)n;
    for (int i = 0; i < n; i++) r[i] = 2 * rnd(&s) - 1;
    CHECK_OK(ops->apply(M, r, z), c->err.msg);
    if (ic)
        ref_llt_solve(n, ref, r, zr);
    else
        ref_lu_solve(n, ref, r, zr);
    double e = relerr(n, z, zr);
    CHECK(e <= TOL, "%s: apply differs from the dense solves by %.3g", what, e);
    /* apply in place (z == r) gives the same */
    memcpy(z, r, (size_t)n * sizeof(double));
    CHECK_OK(ops->apply(M, z, z), c->err.msg);
    e = relerr(n, z, zr);
    CHECK(e <= TOL, "%s: in-place apply differs by %.3g", what, e);
    CHECK(ops->shift(M) == 0, "%s: shift %g", what, ops->shift(M));
    free(r);
    free(z);
    free(zr);
    free(ref);
    ops->destroy(M);
    spk_csr_free(&A);
}

/* IC(0) reads only the lower triangle: garbage above the diagonal changes nothing. */
static void test_ic0_lower_only(ctx *c)
{
    dense d = random_spd(30, 0.2, 555), g = random_spd(30, 0.2, 555);
    unsigned long long s = 3;
    for (int i = 0; i < 30; i++)
        for (int j = i + 1; j < 30; j++)
            if (g.p[i * 30 + j]) g.a[i * 30 + j] = 100 * rnd(&s) - 50;
    dset(&g, 0, 29, 1e300); /* an extra upper entry, not in the lower pattern */
    spk_csr A = {0}, G = {0};
    void *M1 = NULL, *M2 = NULL;
    to_csr(&d, &A);
    to_csr(&g, &G);
    CHECK_OK(spk_precond_ic0_host.create(c->ex, &A, NULL, &M1), c->err.msg);
    CHECK_OK(spk_precond_ic0_host.create(c->ex, &G, NULL, &M2), c->err.msg);
    if (M1 && M2) {
        const spk_csr *F1, *F2;
        spk_factor_inspect(M1, &F1, NULL);
        spk_factor_inspect(M2, &F2, NULL);
        int same = F1->nnz == F2->nnz;
        for (int k = 0; same && k < F1->nnz; k++)
            same = F1->colind[k] == F2->colind[k] && F1->val[k] == F2->val[k];
        CHECK(same, "IC(0) depends on the upper triangle");
        CHECK_OK(spk_precond_ic0_host.refactor(M1, &G), c->err.msg);
    }
    spk_precond_ic0_host.destroy(M1);
    spk_precond_ic0_host.destroy(M2);
    spk_csr_free(&A);
    spk_csr_free(&G);
    dense_free(&d);
    dense_free(&g);
}

static void test_dense_reference(ctx *c)
{
    char what[64];
    for (int t = 0; t < 6; t++) {
        int n = 5 + 17 * t;
        double dens = t < 3 ? 0.3 : 0.08;
        dense d = random_spd(n, dens, 1000 + (unsigned long long)t);
        snprintf(what, sizeof what, "IC(0) random SPD n=%d", n);
        compare_with_dense(c, what, &d, 1);
        snprintf(what, sizeof what, "ILU(0) random SPD n=%d", n);
        compare_with_dense(c, what, &d, 0);
        dense_free(&d);
        d = random_dd(n, dens, 2000 + (unsigned long long)t);
        snprintf(what, sizeof what, "ILU(0) random nonsymmetric n=%d", n);
        compare_with_dense(c, what, &d, 0);
        dense_free(&d);
    }
    dense d = tridiag(40, 1, 7);
    compare_with_dense(c, "IC(0) symmetric tridiagonal", &d, 1);
    compare_with_dense(c, "ILU(0) symmetric tridiagonal", &d, 0);
    dense_free(&d);
    d = tridiag(40, 0, 8);
    compare_with_dense(c, "ILU(0) tridiagonal", &d, 0);
    dense_free(&d);
    d = laplace2d(6);
    compare_with_dense(c, "IC(0) 2D Laplacian 6x6", &d, 1);
    compare_with_dense(c, "ILU(0) 2D Laplacian 6x6", &d, 0);
    dense_free(&d);
}

/* ---- (3) exact factorizations: M^-1 A x = x ------------------------------- */

static void check_exact(ctx *c, const char *what, const dense *d, int ic)
{
    const struct spk_precond_ops *ops = ic ? &spk_precond_ic0_host : &spk_precond_ilu0_host;
    spk_csr A = {0};
    void *M = NULL;
    int n = d->n;
    to_csr(d, &A);
    double *x = malloc(((size_t)n + 1) * sizeof(double)), *y = malloc(((size_t)n + 1) * sizeof(double));
    double *z = malloc(((size_t)n + 1) * sizeof(double));
    unsigned long long s = 99;
    for (int i = 0; i < n; i++) x[i] = 2 * rnd(&s) - 1;
    spk_csr_spmv(&A, 1.0, x, 0.0, y);
    CHECK_OK(ops->create(c->ex, &A, NULL, &M), c->err.msg);
    if (M) {
        CHECK_OK(ops->apply(M, y, z), c->err.msg);
        double e = relerr(n, z, x);
        CHECK(e <= TOL, "%s: M^-1 A x differs from x by %.3g", what, e);
    }
    ops->destroy(M);
    free(x);
    free(y);
    free(z);
    spk_csr_free(&A);
}

static void test_exact(ctx *c)
{
    dense d = tridiag(200, 0, 21);
    check_exact(c, "ILU(0) tridiagonal", &d, 0);
    dense_free(&d);
    d = tridiag(200, 1, 22);
    check_exact(c, "IC(0) tridiagonal", &d, 1);
    check_exact(c, "ILU(0) symmetric tridiagonal", &d, 0);
    dense_free(&d);
    /* a full 2x2 with a missing diagonal: ILU(0) is the exact LU once (1,1) is inserted */
    d = dense_new(2);
    dset(&d, 0, 0, 1);
    dset(&d, 0, 1, 2);
    dset(&d, 1, 0, 3);
    check_exact(c, "ILU(0) 2x2 with a missing a_11", &d, 0);
    dense_free(&d);
}

/* ---- (4) missing diagonal entries ------------------------------------------ */

static void test_missing_diagonal(ctx *c)
{
    spk_precond_opts noshift, shift;
    spk_precond_opts_default(&noshift);
    spk_precond_opts_default(&shift);
    noshift.allow_shift = 0;
    spk_csr A = {0};
    void *M = NULL;
    const spk_csr *F = NULL;
    int st;

    /* ILU(0): a_22 missing, but (2,2) is reached by the elimination: u_22 = 0 - 1*1/4 */
    dense d = dense_new(3);
    dset(&d, 0, 0, 4);
    dset(&d, 0, 2, 1);
    dset(&d, 1, 1, 3);
    dset(&d, 1, 2, 1);
    dset(&d, 2, 0, 1);
    dset(&d, 2, 1, 2);
    to_csr(&d, &A);
    st = spk_precond_ilu0_host.create(c->ex, &A, &noshift, &M);
    CHECK(st == 0, "ILU(0) with a missing but filled diagonal: %d %s", st, c->err.msg);
    if (!st) {
        spk_factor_inspect(M, &F, NULL);
        CHECK(F->nnz == A.nnz + 1, "the diagonal entry was not inserted (nnz %d)", F->nnz);
        double *ref = ref_ilu0(&d, 0);
        check_factor("ILU(0) missing a_22", F, &d, ref, 0);
        CHECK_NEAR(ref[8], -0.25 - 2.0 / 3.0, 1e-15);
        free(ref);
    }
    spk_precond_ilu0_host.destroy(M);
    M = NULL;
    spk_csr_free(&A);
    dense_free(&d);

    /* ILU(0): a_22 missing and nothing reaches it -> zero pivot at row 2 */
    d = dense_new(4);
    dset(&d, 0, 0, 2);
    dset(&d, 1, 1, 2);
    dset(&d, 2, 0, 1);
    dset(&d, 2, 3, 1);
    dset(&d, 3, 3, 2);
    to_csr(&d, &A);
    st = spk_precond_ilu0_host.create(c->ex, &A, &noshift, &M);
    CHECK(st == SPK_ERR_ZERO_PIVOT && M == NULL, "ILU(0) unreachable missing a_22: %d", st);
    CHECK(check_contains(c->err.msg, "ILU(0): zero pivot u_ii = 0 at row 2 (0-based)"), "msg: %s",
          c->err.msg);
    CHECK(check_contains(c->err.msg, "not stored"), "msg: %s", c->err.msg);
    CHECK(check_contains(c->err.msg, "cannot help"), "msg: %s", c->err.msg);
    st = spk_precond_ilu0_host.create(c->ex, &A, &shift, &M);
    CHECK(st == SPK_ERR_ZERO_PIVOT && M == NULL, "ILU(0) unreachable a_22 with shifting: %d", st);
    CHECK(check_contains(c->err.msg, "row 2") && check_contains(c->err.msg, "cannot help") &&
              !check_contains(c->err.msg, "retried"),
          "msg: %s", c->err.msg);
    spk_csr_free(&A);
    dense_free(&d);

    /* IC(0): a missing diagonal entry can never give a positive pivot */
    d = laplace2d(3);
    d.p[4 * 9 + 4] = 0;
    d.a[4 * 9 + 4] = 0;
    to_csr(&d, &A);
    st = spk_precond_ic0_host.create(c->ex, &A, &noshift, &M);
    CHECK(st == SPK_ERR_ZERO_PIVOT, "IC(0) missing a_44 without shifting: %d", st);
    CHECK(check_contains(c->err.msg, "at row 4 (0-based)") &&
              check_contains(c->err.msg, "not stored") && check_contains(c->err.msg, "allow_shift = 0"),
          "msg: %s", c->err.msg);
    st = spk_precond_ic0_host.create(c->ex, &A, &shift, &M);
    CHECK(st == SPK_ERR_ZERO_PIVOT, "IC(0) missing a_44 with shifting: %d", st);
    CHECK(check_contains(c->err.msg, "at row 4 (0-based)") &&
              check_contains(c->err.msg, "cannot help"),
          "msg: %s", c->err.msg);
    /* an explicit zero there: "is 0" */
    d.p[4 * 9 + 4] = 1;
    spk_csr_free(&A);
    to_csr(&d, &A);
    st = spk_precond_ic0_host.create(c->ex, &A, &shift, &M);
    CHECK(st == SPK_ERR_ZERO_PIVOT && check_contains(c->err.msg, "a_ii is 0") &&
              check_contains(c->err.msg, "row 4"),
          "IC(0) zero a_44: %d %s", st, c->err.msg);
    spk_csr_free(&A);
    dense_free(&d);
}

/* ---- (5) bad pivots and the shift policy ------------------------------------ */

static dense from_rows(int n, const double *v)
{
    dense d = dense_new(n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (v[i * n + j] != 0) dset(&d, i, j, v[i * n + j]);
    return d;
}

/* Is the dense symmetric matrix positive definite (full Cholesky succeeds)? */
static int dense_spd(const dense *d)
{
    int n = d->n, ok = 1;
    double *l = calloc((size_t)n * n + 1, sizeof(double));
    for (int j = 0; j < n && ok; j++) {
        double s = d->a[(size_t)j * n + j];
        for (int k = 0; k < j; k++) s -= l[(size_t)j * n + k] * l[(size_t)j * n + k];
        if (s <= 0) {
            ok = 0;
            break;
        }
        l[(size_t)j * n + j] = sqrt(s);
        for (int i = j + 1; i < n; i++) {
            double t = d->a[(size_t)i * n + j];
            for (int k = 0; k < j; k++) t -= l[(size_t)i * n + k] * l[(size_t)j * n + k];
            l[(size_t)i * n + j] = t / l[(size_t)j * n + j];
        }
    }
    free(l);
    return ok;
}

static void test_shift(ctx *c)
{
    spk_precond_opts o;
    spk_csr A = {0};
    void *M = NULL;
    const spk_csr *F = NULL;
    double alpha = 0;
    int st;

    /* indefinite [[1,2],[2,1]]: d_1 = 1 - 4 = -3 */
    static const double indef[4] = {1, 2, 2, 1};
    dense d = from_rows(2, indef);
    to_csr(&d, &A);
    spk_precond_opts_default(&o);
    o.allow_shift = 0;
    st = spk_precond_ic0_host.create(c->ex, &A, &o, &M);
    CHECK(st == SPK_ERR_ZERO_PIVOT && !M, "IC(0) indefinite, no shift: %d", st);
    CHECK(check_contains(c->err.msg, "IC(0): non-positive pivot d_i = -3 at row 1 (0-based)") &&
              check_contains(c->err.msg, "shifting is off"),
          "msg: %s", c->err.msg);
    /* default shifts (up to 1): d_1 = 2 - 4/2 = 0 at alpha = 1, still not positive */
    spk_precond_opts_default(&o);
    st = spk_precond_ic0_host.create(c->ex, &A, &o, &M);
    CHECK(st == SPK_ERR_ZERO_PIVOT && !M, "IC(0) indefinite, shifts up to 1: %d", st);
    CHECK(check_contains(c->err.msg, "at row 1 (0-based)") &&
              check_contains(c->err.msg, "11 tries") && check_contains(c->err.msg, "at alpha = 1 ") &&
              check_contains(c->err.msg, "every one failed"),
          "msg: %s", c->err.msg);
    /* shift_max = 2: alpha = 0.001 * 2^10 = 1.024 gives (1+a)^2 > 4 */
    o.shift_max = 2;
    st = spk_precond_ic0_host.create(c->ex, &A, &o, &M);
    CHECK(st == 0, "IC(0) indefinite, shifts up to 2: %d %s", st, c->err.msg);
    if (!st) {
        CHECK_NEAR(spk_precond_ic0_host.shift(M), 1.024, 1e-15);
        CHECK_OK(spk_factor_inspect(M, &F, &alpha), "inspect");
        double *ref = ref_ic0(&d, alpha);
        check_factor("IC(0) shifted [[1,2],[2,1]]", F, &d, ref, 1);
        free(ref);
    }
    spk_precond_ic0_host.destroy(M);
    M = NULL;
    /* ILU(0) handles the indefinite matrix without a shift */
    CHECK_OK(spk_precond_ilu0_host.create(c->ex, &A, &o, &M), c->err.msg);
    CHECK(spk_precond_ilu0_host.shift(M) == 0, "ILU(0) needed a shift");
    spk_precond_ilu0_host.destroy(M);
    M = NULL;
    spk_csr_free(&A);
    dense_free(&d);

    /* Kershaw's SPD matrix: IC(0) breaks at row 3 (d_3 = -5); alpha = 0.256 is the first that works */
    static const double kershaw[16] = {3, -2, 0, 2, -2, 3, -2, 0, 0, -2, 3, -2, 2, 0, -2, 3};
    d = from_rows(4, kershaw);
    CHECK(dense_spd(&d), "Kershaw's matrix is SPD");
    to_csr(&d, &A);
    spk_precond_opts_default(&o);
    o.allow_shift = 0;
    st = spk_precond_ic0_host.create(c->ex, &A, &o, &M);
    CHECK(st == SPK_ERR_ZERO_PIVOT && check_contains(c->err.msg, "at row 3 (0-based)") &&
              check_contains(c->err.msg, "d_i = -5"),
          "Kershaw without shift: %d %s", st, c->err.msg);
    spk_precond_opts_default(&o);
    st = spk_precond_ic0_host.create(c->ex, &A, &o, &M);
    CHECK(st == 0, "Kershaw with shifts: %d %s", st, c->err.msg);
    if (!st) {
        CHECK_NEAR(spk_precond_ic0_host.shift(M), 0.256, 1e-15);
        CHECK_OK(spk_factor_inspect(M, &F, &alpha), "inspect");
        double *ref = ref_ic0(&d, alpha);
        check_factor("IC(0) Kershaw shifted", F, &d, ref, 1);
        /* apply equals the dense solves with the shifted factor */
        double r[4] = {1, -2, 0.5, 3}, z[4], zr[4];
        CHECK_OK(spk_precond_ic0_host.apply(M, r, z), c->err.msg);
        ref_llt_solve(4, ref, r, zr);
        CHECK(relerr(4, z, zr) <= TOL, "Kershaw apply %.3g", relerr(4, z, zr));
        free(ref);
    }
    spk_precond_ic0_host.destroy(M);
    M = NULL;
    /* shift_max below the needed alpha: a clear failure */
    o.shift_max = 0.128;
    st = spk_precond_ic0_host.create(c->ex, &A, &o, &M);
    CHECK(st == SPK_ERR_ZERO_PIVOT && check_contains(c->err.msg, "shift_max = 0.128") &&
              check_contains(c->err.msg, "8 tries"),
          "Kershaw with shift_max 0.128: %d %s", st, c->err.msg);
    spk_csr_free(&A);
    dense_free(&d);

    /* a stronger diagonal (3.4): a small shift suffices (alpha = 0.032) */
    static const double k34[16] = {3.4, -2, 0, 2, -2, 3.4, -2, 0, 0, -2, 3.4, -2, 2, 0, -2, 3.4};
    d = from_rows(4, k34);
    to_csr(&d, &A);
    st = spk_precond_ic0_host.create(c->ex, &A, NULL, &M);
    CHECK(st == 0, "Kershaw 3.4: %d %s", st, c->err.msg);
    if (!st) CHECK_NEAR(spk_precond_ic0_host.shift(M), 0.032, 1e-15);
    spk_precond_ic0_host.destroy(M);
    M = NULL;
    spk_csr_free(&A);
    dense_free(&d);

    /* ILU(0) zero pivot cured by the first shift: [[1,1],[1,1]] */
    static const double ones[4] = {1, 1, 1, 1};
    d = from_rows(2, ones);
    to_csr(&d, &A);
    spk_precond_opts_default(&o);
    o.allow_shift = 0;
    st = spk_precond_ilu0_host.create(c->ex, &A, &o, &M);
    CHECK(st == SPK_ERR_ZERO_PIVOT && check_contains(c->err.msg, "u_ii = 0 at row 1 (0-based)"),
          "ILU(0) singular, no shift: %d %s", st, c->err.msg);
    spk_precond_opts_default(&o);
    st = spk_precond_ilu0_host.create(c->ex, &A, &o, &M);
    CHECK(st == 0, "ILU(0) singular with shift: %d %s", st, c->err.msg);
    if (!st) {
        CHECK_NEAR(spk_precond_ilu0_host.shift(M), 1e-3, 1e-15);
        CHECK_OK(spk_factor_inspect(M, &F, &alpha), "inspect");
        double *ref = ref_ilu0(&d, alpha);
        check_factor("ILU(0) shifted ones", F, &d, ref, 0);
        free(ref);
    }
    spk_precond_ilu0_host.destroy(M);
    M = NULL;
    spk_csr_free(&A);
    dense_free(&d);

    /* relative pivot tests: u_11 = d_1 = 1e-15 is below 1e-14 * max|a_1j| (= 1e-14 * |a_11|) */
    static const double near[4] = {1, 1, 1, 1 + 1e-15};
    d = from_rows(2, near);
    to_csr(&d, &A);
    spk_precond_opts_default(&o);
    o.allow_shift = 0;
    st = spk_precond_ilu0_host.create(c->ex, &A, &o, &M);
    CHECK(st == SPK_ERR_ZERO_PIVOT && check_contains(c->err.msg, "u_ii = 1.11022e-15 at row 1"),
          "ILU(0) tiny pivot: %d %s", st, c->err.msg);
    st = spk_precond_ic0_host.create(c->ex, &A, &o, &M);
    CHECK(st == SPK_ERR_ZERO_PIVOT && check_contains(c->err.msg, "d_i = 1.11022e-15 at row 1"),
          "IC(0) tiny pivot: %d %s", st, c->err.msg);
    d.a[3] = 1 + 1e-13; /* now above the threshold */
    spk_csr_free(&A);
    to_csr(&d, &A);
    CHECK_OK(spk_precond_ilu0_host.create(c->ex, &A, &o, &M), c->err.msg);
    spk_precond_ilu0_host.destroy(M);
    M = NULL;
    CHECK_OK(spk_precond_ic0_host.create(c->ex, &A, &o, &M), c->err.msg);
    spk_precond_ic0_host.destroy(M);
    M = NULL;
    spk_csr_free(&A);
    dense_free(&d);

    /* IC(0) negative diagonal: hopeless at once */
    static const double neg[4] = {2, 1, 1, -1};
    d = from_rows(2, neg);
    to_csr(&d, &A);
    st = spk_precond_ic0_host.create(c->ex, &A, NULL, &M);
    CHECK(st == SPK_ERR_ZERO_PIVOT && check_contains(c->err.msg, "row 1") &&
              check_contains(c->err.msg, "a_ii = -1") && check_contains(c->err.msg, "cannot help"),
          "IC(0) negative diagonal: %d %s", st, c->err.msg);
    spk_csr_free(&A);
    dense_free(&d);

    /* bad options */
    d = laplace2d(2);
    to_csr(&d, &A);
    spk_precond_opts_default(&o);
    o.shift_init = 0;
    st = spk_precond_ic0_host.create(c->ex, &A, &o, &M);
    CHECK(st == SPK_ERR_INVALID_ARG && check_contains(c->err.msg, "shift_init"), "shift_init 0: %d %s",
          st, c->err.msg);
    spk_precond_opts_default(&o);
    o.shift_max = 1e-4;
    st = spk_precond_ilu0_host.create(c->ex, &A, &o, &M);
    CHECK(st == SPK_ERR_INVALID_ARG && check_contains(c->err.msg, "shift_max"), "shift_max: %d %s",
          st, c->err.msg);
    o.allow_shift = 0; /* the shift values are not read when shifting is off */
    CHECK_OK(spk_precond_ilu0_host.create(c->ex, &A, &o, &M), c->err.msg);
    spk_precond_ilu0_host.destroy(M);
    M = NULL;
    spk_csr_free(&A);
    dense_free(&d);
}

/* bcsstk13 (SuiteSparse): plain IC(0) breaks down, a shift makes it work. */
static void test_bcsstk13(ctx *c)
{
#ifndef SPK_TEST_NO_MMIO
    static const char *const paths[] = {SPK_TEST_DATA "/bcsstk13.mtx.gz",
                                        SPK_SHARED_MATRICES "/bcsstk13.mtx.gz"};
    spk_csr A = {0};
    const char *path = NULL;
    for (size_t i = 0; i < sizeof paths / sizeof paths[0] && !path; i++) {
        FILE *fp = fopen(paths[i], "rb");
        if (fp) {
            fclose(fp);
            path = paths[i];
        }
    }
    if (!path) {
        printf("bcsstk13.mtx.gz not found: that check is skipped\n");
        return;
    }
    int st = spk_mm_read_csr(path, &A, NULL, &c->err);
    CHECK(st == 0, "reading %s: %s", path, c->err.msg);
    if (st) return;
    spk_precond_opts o;
    spk_precond_opts_default(&o);
    o.allow_shift = 0;
    void *M = NULL;
    st = spk_precond_ic0_host.create(c->ex, &A, &o, &M);
    CHECK(st == SPK_ERR_ZERO_PIVOT, "bcsstk13 IC(0) without a shift: %d %s", st, c->err.msg);
    spk_precond_ic0_host.destroy(M);
    M = NULL;
    spk_precond_opts_default(&o);
    st = spk_precond_ic0_host.create(c->ex, &A, &o, &M);
    CHECK(st == 0, "bcsstk13 IC(0) with shifts: %d %s", st, c->err.msg);
    if (!st) {
        double alpha = spk_precond_ic0_host.shift(M);
        CHECK(alpha > 0 && alpha <= 1, "bcsstk13 alpha %g", alpha);
        printf("bcsstk13: IC(0) needed alpha = %g\n", alpha);
        /* apply is finite and M^-1 is SPD-consistent: r'M^-1 r > 0 */
        int n = A.nrows;
        double *r = malloc((size_t)n * sizeof(double)), *z = malloc((size_t)n * sizeof(double));
        unsigned long long s = 5;
        for (int i = 0; i < n; i++) r[i] = 2 * rnd(&s) - 1;
        CHECK_OK(spk_precond_ic0_host.apply(M, r, z), c->err.msg);
        double rz = 0;
        for (int i = 0; i < n; i++) rz += r[i] * z[i];
        CHECK(rz > 0 && isfinite(rz), "bcsstk13 r'M^-1 r = %g", rz);
        free(r);
        free(z);
    }
    spk_precond_ic0_host.destroy(M);
    spk_csr_free(&A);
#else
    (void)c;
#endif
}

/* ---- (6) refactor ---------------------------------------------------------- */

/* refactor(A2) after create(A1) equals create(A2), keeping every array. */
static void refactor_case(ctx *c, const char *what, const dense *d1, const dense *d2, int ic)
{
    const struct spk_precond_ops *ops = ic ? &spk_precond_ic0_host : &spk_precond_ilu0_host;
    spk_csr A1 = {0}, A2 = {0};
    void *M = NULL, *M2 = NULL;
    const spk_csr *F = NULL, *F2 = NULL;
    to_csr(d1, &A1);
    to_csr(d2, &A2);
    int st = ops->create(c->ex, &A1, NULL, &M);
    CHECK(st == 0, "%s: create: %s", what, c->err.msg);
    if (st) goto done;
    spk_factor_inspect(M, &F, NULL);
    const spk_csr *F0 = F;
    const int *rp = F->rowptr, *ci = F->colind;
    const double *v = F->val;
    CHECK_OK(ops->refactor(M, &A2), c->err.msg);
    CHECK_OK(ops->create(c->ex, &A2, NULL, &M2), c->err.msg);
    if (!M2) goto done;
    double a1 = -1, a2 = -2;
    spk_factor_inspect(M, &F, &a1);
    spk_factor_inspect(M2, &F2, &a2);
    CHECK(F == F0 && F->rowptr == rp && F->colind == ci && F->val == v,
          "%s: refactor reallocated the pattern", what);
    CHECK(a1 == a2, "%s: alpha %g after refactor, %g fresh", what, a1, a2);
    CHECK(F->nnz == F2->nnz, "%s: nnz", what);
    int same = F->nnz == F2->nnz;
    for (int k = 0; same && k < F->nnz; k++)
        same = F->colind[k] == F2->colind[k] && F->val[k] == F2->val[k];
    CHECK(same, "%s: refactored factor differs from a fresh one", what);
    int n = d1->n;
    double *r = malloc(((size_t)n + 1) * sizeof(double)), *z1 = malloc(((size_t)n + 1) * sizeof(double));
    double *z2 = malloc(((size_t)n + 1) * sizeof(double));
    for (int i = 0; i < n; i++) r[i] = 1.0 + i % 7;
    CHECK_OK(ops->apply(M, r, z1), c->err.msg);
    CHECK_OK(ops->apply(M2, r, z2), c->err.msg);
    CHECK(n == 0 || memcmp(z1, z2, (size_t)n * sizeof(double)) == 0, "%s: apply after refactor",
          what);
    free(r);
    free(z1);
    free(z2);
done:
    ops->destroy(M);
    ops->destroy(M2);
    spk_csr_free(&A1);
    spk_csr_free(&A2);
}

/* The same pattern with new random values (the diagonal kept dominant). */
static dense revalue(const dense *d, unsigned long long seed, int sym)
{
    int n = d->n;
    dense e = dense_new(n);
    unsigned long long s = seed;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < (sym ? i : n); j++)
            if (j != i && d->p[(size_t)i * n + j]) {
                double v = 2 * rnd(&s) - 1;
                dset(&e, i, j, v);
                if (sym) dset(&e, j, i, v);
            }
    for (int i = 0; i < n; i++) {
        double sum = 0;
        for (int j = 0; j < n; j++)
            if (j != i) sum += fabs(e.a[(size_t)i * n + j]);
        if (d->p[(size_t)i * n + i]) dset(&e, i, i, sum + 1 + rnd(&s));
    }
    return e;
}

static void test_refactor(ctx *c)
{
    dense d1 = random_spd(60, 0.1, 77), d2 = revalue(&d1, 78, 1);
    refactor_case(c, "IC(0) refactor", &d1, &d2, 1);
    refactor_case(c, "ILU(0) refactor (SPD)", &d1, &d2, 0);
    dense_free(&d1);
    dense_free(&d2);
    d1 = random_dd(60, 0.1, 79);
    d2 = revalue(&d1, 80, 0);
    refactor_case(c, "ILU(0) refactor", &d1, &d2, 0);
    dense_free(&d1);
    dense_free(&d2);

    /* a shift needed, then not, then needed again: the loop restarts at 0 each time */
    static const double kershaw[16] = {3, -2, 0, 2, -2, 3, -2, 0, 0, -2, 3, -2, 2, 0, -2, 3};
    static const double easy[16] = {5, -2, 0, 2, -2, 5, -2, 0, 0, -2, 5, -2, 2, 0, -2, 5};
    dense k = from_rows(4, kershaw), e = from_rows(4, easy);
    refactor_case(c, "IC(0) refactor to a shifted factor", &e, &k, 1);
    refactor_case(c, "IC(0) refactor to an unshifted factor", &k, &e, 1);
    spk_csr K = {0}, E = {0};
    to_csr(&k, &K);
    to_csr(&e, &E);
    void *M = NULL;
    CHECK_OK(spk_precond_ic0_host.create(c->ex, &K, NULL, &M), c->err.msg);
    if (M) {
        CHECK(spk_precond_ic0_host.shift(M) > 0, "Kershaw needs a shift");
        CHECK_OK(spk_precond_ic0_host.refactor(M, &E), c->err.msg);
        CHECK(spk_precond_ic0_host.shift(M) == 0, "shift after refactor %g",
              spk_precond_ic0_host.shift(M));
        /* a failing refactor leaves no usable factor; a good one restores it */
        spk_precond_opts o;
        spk_precond_opts_default(&o);
        static const double indef[16] = {1, 2, 0, 2, 2, 1, 2, 0, 0, 2, 1, 2, 2, 0, 2, 1};
        dense bad = from_rows(4, indef);
        spk_csr B = {0};
        to_csr(&bad, &B);
        int st = spk_precond_ic0_host.refactor(M, &B);
        CHECK(st == SPK_ERR_ZERO_PIVOT, "refactor to an indefinite matrix: %d", st);
        double r[4] = {1, 2, 3, 4}, z[4];
        st = spk_precond_ic0_host.apply(M, r, z);
        CHECK(st == SPK_ERR_ZERO_PIVOT && check_contains(c->err.msg, "no valid factorization"),
              "apply after a failed refactor: %d %s", st, c->err.msg);
        CHECK(spk_factor_inspect(M, NULL, NULL) == SPK_ERR_ZERO_PIVOT, "inspect after failure");
        CHECK_OK(spk_precond_ic0_host.refactor(M, &E), c->err.msg);
        CHECK_OK(spk_precond_ic0_host.apply(M, r, z), c->err.msg);
        /* a different pattern is refused */
        spk_csr_free(&B);
        dense other = from_rows(4, easy);
        dset(&other, 3, 1, 0.5);
        dset(&other, 1, 3, 0.5);
        to_csr(&other, &B);
        st = spk_precond_ic0_host.refactor(M, &B);
        CHECK(st == SPK_ERR_INVALID_MATRIX && check_contains(c->err.msg, "row 3") &&
                  check_contains(c->err.msg, "column 1"),
              "refactor with a new entry: %d %s", st, c->err.msg);
        spk_csr_free(&B);
        dense_free(&other);
        dense_free(&bad);
    }
    spk_precond_ic0_host.destroy(M);
    M = NULL;
    /* ILU(0) pattern change: an entry fewer, and a different size */
    CHECK_OK(spk_precond_ilu0_host.create(c->ex, &E, NULL, &M), c->err.msg);
    if (M) {
        dense fewer = from_rows(4, easy);
        fewer.p[0 * 4 + 3] = 0;
        fewer.a[0 * 4 + 3] = 0;
        spk_csr B = {0};
        to_csr(&fewer, &B);
        int st = spk_precond_ilu0_host.refactor(M, &B);
        CHECK(st == SPK_ERR_INVALID_MATRIX && check_contains(c->err.msg, "row 0") &&
                  check_contains(c->err.msg, "column 3"),
              "ILU(0) refactor with an entry fewer: %d %s", st, c->err.msg);
        spk_csr_free(&B);
        dense_free(&fewer);
        dense small = laplace2d(1);
        to_csr(&small, &B);
        st = spk_precond_ilu0_host.refactor(M, &B);
        CHECK(st == SPK_ERR_INVALID_MATRIX && check_contains(c->err.msg, "1 x 1"),
              "ILU(0) refactor with another size: %d %s", st, c->err.msg);
        spk_csr_free(&B);
        dense_free(&small);
    }
    spk_precond_ilu0_host.destroy(M);
    spk_csr_free(&K);
    spk_csr_free(&E);
    dense_free(&k);
    dense_free(&e);

    /* refactor with a missing diagonal entry whose inserted zero is filled */
    dense m1 = dense_new(3);
    dset(&m1, 0, 0, 4);
    dset(&m1, 0, 2, 1);
    dset(&m1, 1, 1, 3);
    dset(&m1, 1, 2, 1);
    dset(&m1, 2, 0, 1);
    dset(&m1, 2, 1, 2);
    dense m2 = dense_new(3);
    dset(&m2, 0, 0, 5);
    dset(&m2, 0, 2, -1);
    dset(&m2, 1, 1, 2);
    dset(&m2, 1, 2, 3);
    dset(&m2, 2, 0, 2);
    dset(&m2, 2, 1, 1);
    refactor_case(c, "ILU(0) refactor, missing a_22", &m1, &m2, 0);
    /* the same pattern with a_22 now stored is accepted as well */
    dset(&m2, 2, 2, 7);
    refactor_case(c, "ILU(0) refactor, a_22 now stored", &m1, &m2, 0);
    dense_free(&m1);
    dense_free(&m2);
}

/* ---- (7) Jacobi ----------------------------------------------------------- */

static void test_jacobi(ctx *c)
{
    const struct spk_precond_ops *J = &spk_precond_jacobi_host;
    dense d = random_dd(20, 0.2, 31);
    spk_csr A = {0};
    void *M = NULL;
    to_csr(&d, &A);
    CHECK_OK(J->create(c->ex, &A, NULL, &M), c->err.msg);
    double r[20], z[20];
    for (int i = 0; i < 20; i++) r[i] = i - 7.5;
    if (M) {
        CHECK_OK(J->apply(M, r, z), c->err.msg);
        double worst = 0;
        for (int i = 0; i < 20; i++) {
            double ex = r[i] / d.a[i * 20 + i];
            worst = fmax(worst, fabs(z[i] - ex) / fmax(fabs(ex), DBL_MIN));
        }
        CHECK(worst <= 4 * DBL_EPSILON, "Jacobi z_i = r_i / a_ii: error %.3g", worst);
        CHECK(J->shift(M) == 0, "Jacobi shift");
        /* refactor with new values */
        for (int k = 0; k < A.nnz; k++) A.val[k] *= 2;
        CHECK_OK(J->refactor(M, &A), c->err.msg);
        CHECK_OK(J->apply(M, r, z), c->err.msg);
        CHECK_NEAR(z[3], r[3] / (2 * d.a[3 * 20 + 3]), 1e-15);
        /* a zero diagonal entry in a refactor */
        int p17 = -1;
        for (int k = A.rowptr[17]; k < A.rowptr[18]; k++)
            if (A.colind[k] == 17) p17 = k;
        A.val[p17] = 0;
        int st = J->refactor(M, &A);
        CHECK(st == SPK_ERR_ZERO_PIVOT &&
                  check_contains(c->err.msg, "Jacobi: zero diagonal entry at row 17 (0-based)"),
              "Jacobi refactor with a_17,17 = 0: %d %s", st, c->err.msg);
    }
    J->destroy(M);
    M = NULL;
    /* create with a zero, a missing and a non-finite diagonal entry */
    int st = J->create(c->ex, &A, NULL, &M);
    CHECK(st == SPK_ERR_ZERO_PIVOT && !M &&
              check_contains(c->err.msg, "Jacobi: zero diagonal entry at row 17 (0-based)"),
          "Jacobi zero diagonal: %d %s", st, c->err.msg);
    spk_csr_free(&A);
    d.p[5 * 20 + 5] = 0;
    to_csr(&d, &A);
    st = J->create(c->ex, &A, NULL, &M);
    CHECK(st == SPK_ERR_ZERO_PIVOT && check_contains(c->err.msg, "row 5 (0-based") &&
              check_contains(c->err.msg, "not stored"),
          "Jacobi missing diagonal: %d %s", st, c->err.msg);
    spk_csr_free(&A);
    d.p[5 * 20 + 5] = 1;
    d.a[9 * 20 + 9] = INFINITY;
    to_csr(&d, &A);
    st = J->create(c->ex, &A, NULL, &M);
    CHECK(st == SPK_ERR_ZERO_PIVOT && check_contains(c->err.msg, "non-finite diagonal entry inf at row 9"),
          "Jacobi non-finite diagonal: %d %s", st, c->err.msg);
    spk_csr_free(&A);
    dense_free(&d);
}

/* ---- (8) registry, none, NULL-safety ------------------------------------------ */

static void test_registry(ctx *c)
{
    const struct spk_precond_ops *ops = NULL;
    static const char *const names[] = {"none", "jacobi", "ilu0", "ic0"};
    for (int i = 0; i < 4; i++) {
        ops = NULL;
        CHECK_OK(spk_precond_find(names[i], c->ex, &ops, &c->err), c->err.msg);
        CHECK(ops && strcmp(ops->name, names[i]) == 0 && strcmp(ops->exec, "host") == 0,
              "find %s", names[i]);
        if (ops) ops->destroy(NULL); /* NULL-safe */
    }
    int st = spk_precond_find("ilu", c->ex, &ops, &c->err);
    CHECK(st == SPK_ERR_NOT_FOUND && ops == NULL, "unknown name: %d", st);
    CHECK(strcmp(c->err.msg, "unknown preconditioner 'ilu' (available: none, jacobi, ilu0, ic0, ilu0-sweeps, "
                             "ic0-sweeps, ilu0-isai, ic0-isai, user)") == 0,
          "msg: %s", c->err.msg);
    st = spk_precond_find("IC0", c->ex, &ops, &c->err);
    CHECK(st == SPK_ERR_NOT_FOUND, "lookup is case-sensitive: %d", st);
    st = spk_precond_find(NULL, c->ex, &ops, &c->err);
    CHECK(st == SPK_ERR_INVALID_ARG, "NULL name: %d", st);
    /* an executor with no implementation */
    struct spk_exec_ops fake_ops;
    memset(&fake_ops, 0, sizeof fake_ops);
    fake_ops.name = "opencl";
    spk_exec fake;
    memset(&fake, 0, sizeof fake);
    fake.ops = &fake_ops;
    fake.err = &c->err;
    st = spk_precond_find("ic0", &fake, &ops, &c->err);
    CHECK(st == SPK_ERR_NOT_FOUND && check_contains(c->err.msg, "'ic0'") &&
              check_contains(c->err.msg, "'opencl'") && check_contains(c->err.msg, "host"),
          "wrong executor: %d %s", st, c->err.msg);
    /* host implementations refuse another executor */
    dense d = laplace2d(2);
    spk_csr A = {0};
    void *M = NULL;
    to_csr(&d, &A);
    st = spk_precond_ilu0_host.create(&fake, &A, NULL, &M);
    CHECK(st == SPK_ERR_INVALID_ARG && !M && check_contains(c->err.msg, "opencl"),
          "ILU(0) on a fake executor: %d %s", st, c->err.msg);
    st = spk_precond_jacobi_host.create(&fake, &A, NULL, &M);
    CHECK(st == SPK_ERR_INVALID_ARG && !M, "Jacobi on a fake executor: %d", st);
    /* rectangular and invalid input */
    spk_csr R = A;
    R.ncols = 5;
    st = spk_precond_ic0_host.create(c->ex, &R, NULL, &M);
    CHECK(st == SPK_ERR_INVALID_MATRIX && check_contains(c->err.msg, "square"), "rectangular: %d %s",
          st, c->err.msg);
    int saved = A.colind[1];
    A.colind[1] = A.colind[0];
    st = spk_precond_ilu0_host.create(c->ex, &A, NULL, &M);
    CHECK(st == SPK_ERR_INVALID_MATRIX && check_contains(c->err.msg, "ILU(0)"),
          "unsorted columns: %d %s", st, c->err.msg);
    A.colind[1] = saved;
    A.val[2] = NAN;
    st = spk_precond_ilu0_host.create(c->ex, &A, NULL, &M);
    CHECK(st == SPK_ERR_INVALID_MATRIX && check_contains(c->err.msg, "non-finite"),
          "NaN in A: %d %s", st, c->err.msg);
    A.val[2] = -1;
    /* none: no state, identity by apply == NULL */
    const struct spk_precond_ops *N = &spk_precond_none_host;
    M = &st; /* must be overwritten */
    CHECK_OK(N->create(c->ex, &A, NULL, &M), c->err.msg);
    CHECK(M == NULL && N->apply == NULL, "none keeps no state and has no apply");
    CHECK_OK(N->refactor(M, &A), c->err.msg);
    CHECK(N->shift(M) == 0, "none shift");
    N->destroy(M);
    spk_precond_opts o;
    spk_precond_opts_default(&o);
    CHECK(o.allow_shift == 1 && o.shift_init == 1e-3 && o.shift_max == 1.0, "default options");
    CHECK(spk_factor_inspect(NULL, NULL, NULL) == SPK_ERR_INVALID_ARG, "inspect(NULL)");
    spk_csr_free(&A);
    dense_free(&d);
}

/* ---- (10) ILU(0) / IC(0) with Jacobi sweeps for the triangular solves -------- */

/* z of one apply of preconditioner ops with `sweeps` on d (allow_shift off). */
static int apply_float(ctx *c, const struct spk_precond_ops *ops, const dense *d, int sweeps, int single,
                       const double *r, double *z)
{
    spk_csr A = {0};
    void *M = NULL;
    spk_precond_opts o;
    spk_precond_opts_default(&o);
    o.allow_shift = 0;
    o.sweeps = sweeps;
    o.sweeps_float = single;
    to_csr(d, &A);
    int st = ops->create(c->ex, &A, &o, &M);
    if (!st) st = ops->apply(M, r, z);
    if (M) ops->destroy(M);
    spk_csr_free(&A);
    return st;
}

static int apply_once(ctx *c, const struct spk_precond_ops *ops, const dense *d, int sweeps, const double *r,
                      double *z)
{
    return apply_float(c, ops, d, sweeps, 0, r, z);
}

/* With as many sweeps as rows the series is exact: the apply equals the
 * substitution's; with one sweep it is not (on a matrix with more than one
 * level); IC(0)'s operator stays symmetric for any number of sweeps. */
static void test_sweeps(ctx *c)
{
    const struct {
        const char *what;
        dense d;
        int ic;
    } cases[] = {
        {"laplace2d(6)", laplace2d(6), 1},        {"laplace2d(6) ilu", laplace2d(6), 0},
        {"random spd 40", random_spd(40, 0.15, 7), 1}, {"random dd 45", random_dd(45, 0.12, 9), 0},
        {"tridiag 30", tridiag(30, 0, 3), 0},     {"tridiag sym 30", tridiag(30, 1, 4), 1},
    };
    for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++) {
        const dense *d = &cases[q].d;
        const int n = d->n, ic = cases[q].ic;
        const struct spk_precond_ops *exact = ic ? &spk_precond_ic0_host : &spk_precond_ilu0_host;
        const struct spk_precond_ops *sw = ic ? &spk_precond_ic0_sweeps_host : &spk_precond_ilu0_sweeps_host;
        double *r = malloc((size_t)n * sizeof(double)), *r2 = malloc((size_t)n * sizeof(double));
        double *z = malloc((size_t)n * sizeof(double)), *zs = malloc((size_t)n * sizeof(double));
        double *z2 = malloc((size_t)n * sizeof(double));
        unsigned long long s = 99 + (unsigned long long)n;
        for (int i = 0; i < n; i++) {
            r[i] = 2 * rnd(&s) - 1;
            r2[i] = 2 * rnd(&s) - 1;
        }
        CHECK_OK(apply_once(c, exact, d, 0, r, z), c->err.msg);
        CHECK_OK(apply_once(c, sw, d, n, r, zs), c->err.msg);
        double e = relerr(n, zs, z);
        CHECK(e <= 1e-10, "%s: %d sweeps differ from the exact solves by %.3g", cases[q].what, n, e);
        memcpy(zs, r, (size_t)n * sizeof(double)); /* in place: z == r */
        CHECK_OK(apply_once(c, sw, d, n, zs, zs), c->err.msg);
        e = relerr(n, zs, z);
        CHECK(e <= 1e-10, "%s: in place, %d sweeps differ from the exact solves by %.3g", cases[q].what, n, e);
        CHECK_OK(apply_once(c, sw, d, 1, r, zs), c->err.msg);
        e = relerr(n, zs, z);
        CHECK(e > 1e-6, "%s: one sweep is exact (%.3g): the test matrix has one level", cases[q].what, e);
        /* the factor's values in float: within float rounding of the double
         * sweeps, but not equal to them (the factors' values are not floats) */
        CHECK_OK(apply_once(c, sw, d, 3, r, z), c->err.msg);
        CHECK_OK(apply_float(c, sw, d, 3, 1, r, zs), c->err.msg);
        e = relerr(n, zs, z);
        CHECK(e > 0 && e <= 1e-5, "%s: 3 sweeps with float values differ from double ones by %.3g", cases[q].what, e);
        if (ic) /* r2' M r == r' M r2, with double and with float values */
            for (int k = 1; k <= 6; k++) {
                CHECK_OK(apply_float(c, sw, d, (k + 1) / 2, k % 2 == 0, r, zs), c->err.msg);
                CHECK_OK(apply_float(c, sw, d, (k + 1) / 2, k % 2 == 0, r2, z2), c->err.msg);
                double a = 0, b = 0, m = 0;
                for (int i = 0; i < n; i++) {
                    a += r2[i] * zs[i];
                    b += r[i] * z2[i];
                    m += fabs(r2[i] * zs[i]);
                }
                CHECK(fabs(a - b) <= 1e-13 * m, "%s: %d sweeps%s: not symmetric (%.17g vs %.17g)", cases[q].what,
                      (k + 1) / 2, k % 2 == 0 ? " (float values)" : "", a, b);
            }
        free(r);
        free(r2);
        free(z);
        free(zs);
        free(z2);
    }
    for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++) dense_free((dense *)&cases[q].d);
    /* the number of sweeps is checked */
    dense d = laplace2d(3);
    double r[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, z[9];
    CHECK(apply_once(c, &spk_precond_ic0_sweeps_host, &d, 0, r, z) == SPK_ERR_INVALID_ARG &&
              check_contains(c->err.msg, "sweeps"),
          "0 sweeps: %s", c->err.msg);
    dense_free(&d);
}

/* Approximate inverses: exact when the factors' inverses keep their pattern
 * (2 x 2 diagonal blocks), approximate otherwise, symmetric for IC(0). */
static void test_isai(ctx *c)
{
    enum { NB = 9, N = 2 * NB };
    dense blk[2] = {dense_new(N), dense_new(N)};
    unsigned long long s = 77;
    for (int b = 0; b < NB; b++) {
        const int i = 2 * b;
        const double off = 0.5 + rnd(&s);
        dset(&blk[0], i, i, 4 + rnd(&s)); /* SPD */
        dset(&blk[0], i + 1, i + 1, 3 + rnd(&s));
        dset(&blk[0], i, i + 1, off);
        dset(&blk[0], i + 1, i, off);
        dset(&blk[1], i, i, 2 + rnd(&s)); /* nonsymmetric */
        dset(&blk[1], i + 1, i + 1, -3 - rnd(&s));
        dset(&blk[1], i, i + 1, 1 + rnd(&s));
        dset(&blk[1], i + 1, i, -2 * rnd(&s));
    }
    double r[N], z[N], zi[N];
    for (int i = 0; i < N; i++) r[i] = 2 * rnd(&s) - 1;
    for (int k = 0; k < 2; k++) {
        const struct spk_precond_ops *exact = k ? &spk_precond_ilu0_host : &spk_precond_ic0_host;
        const struct spk_precond_ops *isai = k ? &spk_precond_ilu0_isai_host : &spk_precond_ic0_isai_host;
        CHECK_OK(apply_once(c, exact, &blk[k], 0, r, z), c->err.msg);
        CHECK_OK(apply_once(c, isai, &blk[k], 0, r, zi), c->err.msg);
        double e = relerr(N, zi, z);
        CHECK(e <= 1e-13, "%s on 2x2 blocks: differs from the exact solves by %.3g", isai->name, e);
    }
    dense_free(&blk[0]);
    dense_free(&blk[1]);
    const struct {
        dense d;
        int ic;
    } cases[] = {{laplace2d(6), 1}, {random_spd(40, 0.15, 8), 1}, {random_dd(45, 0.12, 10), 0}};
    for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++) {
        const int n = cases[q].d.n, ic = cases[q].ic;
        const struct spk_precond_ops *exact = ic ? &spk_precond_ic0_host : &spk_precond_ilu0_host;
        const struct spk_precond_ops *isai = ic ? &spk_precond_ic0_isai_host : &spk_precond_ilu0_isai_host;
        double *a = malloc((size_t)n * sizeof(double)), *b = malloc((size_t)n * sizeof(double));
        double *za = malloc((size_t)n * sizeof(double)), *zb = malloc((size_t)n * sizeof(double));
        double *ze = malloc((size_t)n * sizeof(double));
        for (int i = 0; i < n; i++) {
            a[i] = 2 * rnd(&s) - 1;
            b[i] = 2 * rnd(&s) - 1;
        }
        CHECK_OK(apply_once(c, exact, &cases[q].d, 0, a, ze), c->err.msg);
        CHECK_OK(apply_once(c, isai, &cases[q].d, 0, a, za), c->err.msg);
        double e = relerr(n, za, ze);
        CHECK(e > 1e-8 && e < 1.0, "%s (%zu): relative difference from the exact solves %.3g", isai->name, q, e);
        if (ic) { /* b' M a == a' M b */
            CHECK_OK(apply_once(c, isai, &cases[q].d, 0, b, zb), c->err.msg);
            double x = 0, y = 0, m = 0;
            for (int i = 0; i < n; i++) {
                x += b[i] * za[i];
                y += a[i] * zb[i];
                m += fabs(b[i] * za[i]);
            }
            CHECK(fabs(x - y) <= 1e-13 * m, "%s (%zu): not symmetric (%.17g vs %.17g)", isai->name, q, x, y);
        }
        free(a);
        free(b);
        free(za);
        free(zb);
        free(ze);
    }
    for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++) dense_free((dense *)&cases[q].d);
}

/* ---- (9) 0x0 and 1x1 ------------------------------------------------------- */

static void test_tiny(ctx *c)
{
    enum { NP = 8 };
    const struct spk_precond_ops *all[NP] = {&spk_precond_none_host,        &spk_precond_jacobi_host,
                                             &spk_precond_ilu0_host,        &spk_precond_ic0_host,
                                             &spk_precond_ilu0_sweeps_host, &spk_precond_ic0_sweeps_host,
                                             &spk_precond_ilu0_isai_host,   &spk_precond_ic0_isai_host};
    spk_csr E = {0};
    spk_err e0 = {0, ""};
    CHECK_OK(spk_csr_alloc(&E, 0, 0, 0, &e0), e0.msg);
    double r1[1] = {8}, z1[1] = {-1};
    for (int i = 0; i < NP; i++) {
        void *M = NULL;
        int st = all[i]->create(c->ex, &E, NULL, &M);
        CHECK(st == 0, "%s on 0x0: %d %s", all[i]->name, st, c->err.msg);
        if (all[i]->apply) CHECK_OK(all[i]->apply(M, r1, z1), c->err.msg);
        CHECK_OK(all[i]->refactor(M, &E), c->err.msg);
        CHECK(all[i]->shift(M) == 0, "%s shift on 0x0", all[i]->name);
        CHECK(!all[i]->warm, "%s on the host has a warm entry", all[i]->name);
        all[i]->destroy(M);
    }
    CHECK(z1[0] == -1, "apply on 0x0 wrote z");
    spk_csr_free(&E);

    dense d = dense_new(1);
    dset(&d, 0, 0, 4);
    spk_csr A = {0};
    to_csr(&d, &A);
    static const double want_f[NP] = {0, 4, 4, 2, 0, 0, 0, 0}, want_z[NP] = {8, 2, 2, 2, 2, 2, 2, 2};
    for (int i = 0; i < NP; i++) {
        void *M = NULL;
        CHECK_OK(all[i]->create(c->ex, &A, NULL, &M), c->err.msg);
        z1[0] = 0;
        if (all[i]->apply) {
            CHECK_OK(all[i]->apply(M, r1, z1), c->err.msg);
            CHECK(z1[0] == want_z[i], "%s 1x1 apply gives %g", all[i]->name, z1[0]);
        }
        if (i == 2 || i == 3) {
            const spk_csr *F = NULL;
            CHECK_OK(spk_factor_inspect(M, &F, NULL), "inspect");
            CHECK(F && F->nnz == 1 && F->val[0] == want_f[i], "%s 1x1 factor", all[i]->name);
        }
        all[i]->destroy(M);
    }
    spk_csr_free(&A);
    /* [0] and [-1] */
    d.a[0] = 0;
    to_csr(&d, &A);
    for (int i = 1; i < NP; i++) {
        void *M = NULL;
        int st = all[i]->create(c->ex, &A, NULL, &M);
        CHECK(st == SPK_ERR_ZERO_PIVOT && !M && check_contains(c->err.msg, "row 0"),
              "%s on [0]: %d %s", all[i]->name, st, c->err.msg);
    }
    spk_csr_free(&A);
    /* [] (1x1 with nothing stored) */
    d.p[0] = 0;
    to_csr(&d, &A);
    for (int i = 1; i < NP; i++) {
        void *M = NULL;
        int st = all[i]->create(c->ex, &A, NULL, &M);
        CHECK(st == SPK_ERR_ZERO_PIVOT && !M && check_contains(c->err.msg, "row 0") &&
                  check_contains(c->err.msg, "not stored"),
              "%s on an empty 1x1: %d %s", all[i]->name, st, c->err.msg);
    }
    spk_csr_free(&A);
    d.p[0] = 1;
    d.a[0] = -1;
    to_csr(&d, &A);
    void *M = NULL;
    CHECK_OK(spk_precond_ilu0_host.create(c->ex, &A, NULL, &M), c->err.msg);
    CHECK_OK(spk_precond_ilu0_host.apply(M, r1, z1), c->err.msg);
    CHECK(z1[0] == -8, "ILU(0) on [-1]");
    spk_precond_ilu0_host.destroy(M);
    M = NULL;
    int st = spk_precond_ic0_host.create(c->ex, &A, NULL, &M);
    CHECK(st == SPK_ERR_ZERO_PIVOT && check_contains(c->err.msg, "d_i = -1 at row 0"),
          "IC(0) on [-1]: %d %s", st, c->err.msg);
    spk_csr_free(&A);
    dense_free(&d);
}

int main(void)
{
    ctx c;
    spk_err_clear(&c.err);
    if (spk_exec_host_create(&c.err, &c.ex)) {
        fprintf(stderr, "host executor: %s\n", c.err.msg);
        return 1;
    }
    test_dense_reference(&c);
    test_ic0_lower_only(&c);
    test_exact(&c);
    test_missing_diagonal(&c);
    test_shift(&c);
    test_bcsstk13(&c);
    test_refactor(&c);
    test_jacobi(&c);
    test_registry(&c);
    test_sweeps(&c);
    test_isai(&c);
    test_tiny(&c);
    spk_exec_destroy(c.ex);
    return check_exit();
}

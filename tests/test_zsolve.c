/* test_zsolve.c -- complex systems: the executor's complex BLAS-1 against
 * plain loops (and, on the host, the same bits for 1 and 2 threads), the
 * complex product against a dense one, the factorizations (ILU(0) and the
 * L D L^T / L D L^H IC(0) exact on a full pattern, U = D L^T, a symmetric or
 * Hermitian M, the shift on a zero pivot, refused pivots and Jacobi's zero
 * diagonal named by row), and BiCGStab, COCG and CG on matrices of their
 * class, each answer checked by a product of the test's own.  Built with
 * SPK_TEST_CUDA the same runs on the CUDA executor (exit 77 without a GPU). */
#include "core/zcmplx.h"
#include <string.h>

#include "core/host_sum.h"
#include "core/zcsr.h"
#include "core/zops.h"
#include "device.h"
#include "precond/zprecond.h"
#include "solver/zkrylov.h"
#include "spmv/zspmv.h"

typedef double complex zc;

static spk_err g_err;
static spk_exec *g_e;

/* ---- matrices built here ---- */

typedef struct coo {
    int n, nnz;
    int *r, *c;
    double *v;
} coo;

static void coo_init(coo *m, int n, int cap)
{
    m->n = n;
    m->nnz = 0;
    m->r = malloc((size_t)cap * sizeof(int));
    m->c = malloc((size_t)cap * sizeof(int));
    m->v = malloc((size_t)cap * 2 * sizeof(double));
    if (!m->r || !m->c || !m->v) exit(1);
}
static void coo_add(coo *m, int i, int j, zc a)
{
    m->r[m->nnz] = i;
    m->c[m->nnz] = j;
    m->v[2 * m->nnz] = creal(a);
    m->v[2 * m->nnz + 1] = cimag(a);
    m->nnz++;
}
static void coo_to(coo *m, spk_zcsr *A)
{
    int st = spk_zcsr_from_coo(m->n, m->n, (size_t)m->nnz, m->r, m->c, m->v, A, &g_err);
    if (st) {
        fprintf(stderr, "assembly: %s\n", g_err.msg);
        exit(1);
    }
    free(m->r), free(m->c), free(m->v);
}

/* The kinds of 2-D grid matrices (g x g, 5-point): */
enum {
    SHIFTED,   /* -Lap - k^2 (1 + i s): complex symmetric */
    MAGNETIC,  /* 4 + shift on the diagonal, -exp(i t_ij) above, conjugates below: Hermitian */
    CONVECT    /* a complex convection-diffusion operator: general */
};
static void grid(int kind, int g, double shift, spk_zcsr *A)
{
    coo m;
    coo_init(&m, g * g, 5 * g * g);
    for (int y = 0; y < g; y++)
        for (int x = 0; x < g; x++) {
            const int i = y * g + x;
            const int nb[4] = {x > 0 ? i - 1 : -1, x < g - 1 ? i + 1 : -1, y > 0 ? i - g : -1, y < g - 1 ? i + g : -1};
            zc d = kind == SHIFTED ? 4 - 0.3 * (1 + 0.5 * I) : kind == MAGNETIC ? 4 + shift : 4.5 + 0.5 * I;
            coo_add(&m, i, i, d);
            for (int q = 0; q < 4; q++) {
                const int j = nb[q];
                if (j < 0) continue;
                zc a = -1;
                if (kind == MAGNETIC) { /* the phase of the edge {i, j}, conjugated from its larger end */
                    const int lo = i < j ? i : j, hi = i < j ? j : i;
                    const zc ph = cexp(I * (0.3 * (lo % 7) + 0.11 * (hi % 5) + 0.2));
                    a = i < j ? -ph : -conj(ph);
                } else if (kind == CONVECT) {
                    const zc c = q == 0 ? 0.4 + 0.2 * I : q == 1 ? -0.4 - 0.2 * I : q == 2 ? 0.1 * I : -0.25;
                    a = -1 + c;
                }
                coo_add(&m, i, j, a);
            }
        }
    coo_to(&m, A);
}

/* y = A x on the host, in C's complex arithmetic (the library's product
 * writes its own). */
static void ref_spmv(const spk_zcsr *A, const double *x, double *y)
{
    for (int i = 0; i < A->nrows; i++) {
        zc s = 0;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            const int j = A->colind[k];
            s += CMPLX(A->val[2 * k], A->val[2 * k + 1]) * CMPLX(x[2 * j], x[2 * j + 1]);
        }
        y[2 * i] = creal(s);
        y[2 * i + 1] = cimag(s);
    }
}

static unsigned g_seed = 12345;
static double rnd(void)
{
    g_seed = g_seed * 1664525u + 1013904223u;
    return (double)(g_seed >> 8) / 16777216.0 - 0.5;
}
static double *rnd_vec(int n)
{
    double *v = malloc((size_t)(n ? n : 1) * 2 * sizeof(double));
    if (!v) exit(1);
    for (int i = 0; i < 2 * n; i++) v[i] = rnd();
    return v;
}
static double nrm(int n, const double *v)
{
    double s = 0;
    for (int i = 0; i < 2 * n; i++) s += v[i] * v[i];
    return sqrt(s);
}
/* ||a - b|| / ||b|| */
static double rel_diff(int n, const double *a, const double *b)
{
    double s = 0;
    for (int i = 0; i < 2 * n; i++) s += (a[i] - b[i]) * (a[i] - b[i]);
    const double nb = nrm(n, b);
    return sqrt(s) / (nb > 0 ? nb : 1);
}
/* ||b - A x|| / ||b|| by ref_spmv */
static double true_relres(const spk_zcsr *A, const double *b, const double *x)
{
    double *t = malloc((size_t)A->nrows * 2 * sizeof(double) + 8);
    if (!t) exit(1);
    ref_spmv(A, x, t);
    const double r = rel_diff(A->nrows, t, b);
    free(t);
    return r;
}

static double *dev(const double *h, int n)
{
    double *d = to_dev(g_e, h, 2 * n);
    if (!d) {
        fprintf(stderr, "upload: %s\n", g_err.msg);
        exit(1);
    }
    return d;
}
static void host(double *h, const double *d, int n)
{
    if (from_dev(g_e, h, d, 2 * n)) {
        fprintf(stderr, "download: %s\n", g_err.msg);
        exit(1);
    }
}

static zc zat(const double *v, int i)
{
    return CMPLX(v[2 * i], v[2 * i + 1]);
}
#define CHECK_Z(got, want, tol, what)                                                                 \
    CHECK(cabs((got) - (want)) <= (tol) * (cabs(want) > 1 ? cabs(want) : 1), "%s: (%.17g, %.17g), expected " \
          "(%.17g, %.17g)", what, creal(got), cimag(got), creal(want), cimag(want))

/* ---- complex BLAS-1 ---- */

static void zops_vs_loops(void)
{
    const spk_zops *z = spk_zops_get(g_e);
    CHECK(z != NULL, "no complex operations on the %s executor", g_e->ops->name);
    if (!z) return;
    const int n = 1000;
    double *x = rnd_vec(n), *y = rnd_vec(n), *d = rnd_vec(n), *h = rnd_vec(n), out[2];
    zc dc = 0, du = 0, xx = 0;
    for (int i = 0; i < n; i++) {
        dc += conj(zat(x, i)) * zat(y, i);
        du += zat(x, i) * zat(y, i);
        xx += conj(zat(x, i)) * zat(x, i);
    }
    double *dx = dev(x, n), *dy = dev(y, n), *dd = dev(d, n);
    CHECK_OK(z->dotc(g_e, n, dx, dy, out), g_err.msg);
    CHECK_Z(zat(out, 0), dc, 1e-12, "dotc = x^H y");
    CHECK_OK(z->dotu(g_e, n, dx, dy, out), g_err.msg);
    CHECK_Z(zat(out, 0), du, 1e-12, "dotu = x^T y");
    CHECK(cabs(dc - du) > 1, "x^H y and x^T y should differ for complex x");
    CHECK_OK(z->dotc(g_e, n, dx, dx, out), g_err.msg);
    CHECK(fabs(out[1]) <= 1e-12 * out[0] && fabs(out[0] - creal(xx)) <= 1e-12 * creal(xx),
          "x^H x = (%g, %g), expected the real %g", out[0], out[1], creal(xx));

    const double a[2] = {0.7, -1.3}, b[2] = {0.2, 0.5}, zero[2] = {0, 0};
    const zc za = CMPLX(a[0], a[1]), zb = CMPLX(b[0], b[1]);
    CHECK_OK(z->axpy(g_e, n, a, dx, dy), g_err.msg); /* y = a x + y */
    host(h, dy, n);
    for (int i = 0; i < n; i++) CHECK_Z(zat(h, i), za * zat(x, i) + zat(y, i), 1e-15, "axpy");
    CHECK_OK(z->axpby(g_e, n, a, dx, b, dy), g_err.msg); /* y = a x + b (a x + y) */
    host(h, dy, n);
    for (int i = 0; i < n; i++) CHECK_Z(zat(h, i), za * zat(x, i) + zb * (za * zat(x, i) + zat(y, i)), 1e-14, "axpby");
    for (int i = 0; i < 2 * n; i++) h[i] = NAN;
    double *dn = dev(h, n);
    CHECK_OK(z->axpby(g_e, n, a, dx, zero, dn), g_err.msg); /* b = 0 does not read the NaN */
    host(h, dn, n);
    for (int i = 0; i < n; i++) CHECK_Z(zat(h, i), za * zat(x, i), 1e-15, "axpby with b = 0");
    CHECK_OK(z->mul(g_e, n, dd, dx, dn), g_err.msg);
    host(h, dn, n);
    for (int i = 0; i < n; i++) CHECK_Z(zat(h, i), zat(d, i) * zat(x, i), 1e-15, "mul");
    CHECK_OK(z->mul(g_e, n, dd, dx, dx), g_err.msg); /* in place */
    host(h, dx, n);
    for (int i = 0; i < n; i++) CHECK_Z(zat(h, i), zat(d, i) * zat(x, i), 1e-15, "mul in place");
    g_e->ops->free(g_e, dx), g_e->ops->free(g_e, dy), g_e->ops->free(g_e, dd), g_e->ops->free(g_e, dn);
    free(x), free(y), free(d), free(h);
}

/* The host's table gives the bits of one thread with two (blocks of 8192
 * entries: n spans several, and is above the threaded loops' threshold). */
static void zops_threads(void)
{
    if (spk_host_set_threads(2) != 2) {
        spk_host_set_threads(0);
        printf("SKIP (this build has no OpenMP): complex operations across thread counts\n");
        return;
    }
    const spk_zops *z = spk_zops_host();
    const int n = 100003;
    double *x = rnd_vec(n), *y0 = rnd_vec(n), *y[2], dc[2][2], du[2][2];
    const double a[2] = {0.3, 0.9}, b[2] = {-1.1, 0.25};
    for (int t = 0; t < 2; t++) {
        spk_host_set_threads(t + 1);
        y[t] = malloc((size_t)n * 2 * sizeof(double));
        if (!y[t]) exit(1);
        memcpy(y[t], y0, (size_t)n * 2 * sizeof(double));
        z->dotc(NULL, n, x, y[t], dc[t]);
        z->dotu(NULL, n, x, y[t], du[t]);
        z->axpy(NULL, n, a, x, y[t]);
        z->axpby(NULL, n, b, x, a, y[t]);
        z->mul(NULL, n, x, y[t], y[t]);
    }
    spk_host_set_threads(0);
    CHECK(memcmp(dc[0], dc[1], sizeof dc[0]) == 0, "dotc with 2 threads (%.17g, %.17g), 1 thread (%.17g, %.17g)",
          dc[1][0], dc[1][1], dc[0][0], dc[0][1]);
    CHECK(memcmp(du[0], du[1], sizeof du[0]) == 0, "dotu with 2 threads differs from 1 thread");
    CHECK(memcmp(y[0], y[1], (size_t)n * 2 * sizeof(double)) == 0, "axpy, axpby, mul with 2 threads differ");
    free(x), free(y0), free(y[0]), free(y[1]);
}

/* ---- the product ---- */

static void product_is(const spk_zcsr *A, spk_zspmv *s, const char *what)
{
    double *x = rnd_vec(A->ncols), *y = rnd_vec(A->nrows), *yr = rnd_vec(A->nrows);
    double *dx = dev(x, A->ncols), *dy = dev(y, A->nrows);
    /* the dense product, entry by entry of a dense copy */
    zc *D = calloc((size_t)A->nrows * (size_t)A->ncols + 1, sizeof *D);
    if (!D) exit(1);
    for (int i = 0; i < A->nrows; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) D[(size_t)i * A->ncols + A->colind[k]] = zat(A->val, k);
    for (int i = 0; i < A->nrows; i++) {
        zc s2 = 0;
        for (int j = 0; j < A->ncols; j++) s2 += D[(size_t)i * A->ncols + j] * zat(x, j);
        yr[2 * i] = creal(s2);
        yr[2 * i + 1] = cimag(s2);
    }
    CHECK_OK(spk_zspmv_apply(s, dx, dy), g_err.msg);
    host(y, dy, A->nrows);
    CHECK(rel_diff(A->nrows, y, yr) <= 1e-14, "%s: the product differs from the dense one by %g", what,
          rel_diff(A->nrows, y, yr));
    free(D), free(x), free(y), free(yr);
    g_e->ops->free(g_e, dx), g_e->ops->free(g_e, dy);
}

static void products(void)
{
    spk_zcsr A, B, C;
    spk_zspmv *s = NULL, *bad = (spk_zspmv *)&A;
    grid(CONVECT, 9, 0, &A);
    CHECK_OK(spk_zspmv_create(g_e, &A, NULL, &s), g_err.msg);
    if (!s) return;
    CHECK(strcmp(spk_zspmv_name(s), "") != 0, "the product has no name");
    product_is(&A, s, "convection-diffusion");
    /* new values, same pattern */
    CHECK_OK(spk_zcsr_copy(&A, &B, &g_err), g_err.msg);
    for (int k = 0; k < B.nnz; k++) {
        const zc v = zat(B.val, k) * (1 - 2 * I);
        B.val[2 * k] = creal(v);
        B.val[2 * k + 1] = cimag(v);
    }
    CHECK_OK(spk_zspmv_update(s, &B), g_err.msg);
    product_is(&B, s, "after update");
    grid(CONVECT, 8, 0, &C);
    CHECK(spk_zspmv_update(s, &C) == SPK_ERR_INVALID_MATRIX, "an update of another size was taken");
    spk_zspmv_destroy(s);
    spk_zcsr_free(&B);
    /* unknown format: the name and the choices in the message */
    CHECK(spk_zspmv_create(g_e, &A, "no-such-format", &bad) == SPK_ERR_NOT_FOUND && bad == NULL,
          "an unknown format was taken");
    CHECK(check_contains(g_err.msg, "no-such-format") && check_contains(g_err.msg, spk_zspmv_formats(g_e)),
          "message '%s' should name the format and the choices (%s)", g_err.msg, spk_zspmv_formats(g_e));
    spk_zcsr_free(&A);
    spk_zcsr_free(&C);
    /* a rectangular matrix, with an empty row */
    coo m;
    coo_init(&m, 5, 35);
    m.n = 5;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 7; j++)
            if (i != 2 && (i + 2 * j) % 3 != 0) coo_add(&m, i, j, rnd() + rnd() * I);
    CHECK_OK(spk_zcsr_from_coo(5, 7, (size_t)m.nnz, m.r, m.c, m.v, &A, &g_err), g_err.msg);
    free(m.r), free(m.c), free(m.v);
    CHECK_OK(spk_zspmv_create(g_e, &A, NULL, &s), g_err.msg);
    if (s) product_is(&A, s, "5 x 7");
    spk_zspmv_destroy(s);
    spk_zcsr_free(&A);
}

/* ---- the factorizations ---- */

/* A dense n x n matrix: general (0), complex symmetric (1) or Hermitian
 * positive definite (2), its diagonal dominant. */
static void dense(int n, int kind, spk_zcsr *A)
{
    zc *D = malloc((size_t)n * n * sizeof *D);
    coo m;
    coo_init(&m, n, n * n);
    if (!D) exit(1);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            const zc v = rnd() + rnd() * I;
            D[i * n + j] = i == j ? (kind == 2 ? n + rnd() : n + v) : v;
        }
    for (int i = 0; i < n && kind; i++) /* the upper triangle from the lower one */
        for (int j = i + 1; j < n; j++) D[i * n + j] = kind == 1 ? D[j * n + i] : conj(D[j * n + i]);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) coo_add(&m, i, j, D[i * n + j]);
    free(D);
    coo_to(&m, A);
}

/* F from spk_zfactor_compute solves A x = b exactly where A's pattern is
 * full (no entry dropped): on the host, and through spk_zprecond on the
 * executor. */
static void exact_on_full_pattern(void)
{
    const struct {
        int kind, pc, herm;
        const char *what;
    } cases[] = {{0, SPK_ZPC_ILU0, 0, "ILU(0), general"}, {1, SPK_ZPC_IC0, 0, "IC(0) L D L^T, complex symmetric"},
                 {2, SPK_ZPC_IC0, 1, "IC(0) L D L^H, Hermitian"}, {1, SPK_ZPC_ILU0, 0, "ILU(0), complex symmetric"}};
    const int n = 12;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        spk_zcsr A, F;
        int *diag = NULL;
        double shift = -1;
        dense(n, cases[c].kind, &A);
        double *x = rnd_vec(n), *b = rnd_vec(n), *z = rnd_vec(n);
        ref_spmv(&A, x, b);
        CHECK_OK(spk_zfactor_compute(&A, (spk_zpc_kind)cases[c].pc, cases[c].herm, &F, &diag, &shift, &g_err),
                 g_err.msg);
        if (!diag) continue;
        CHECK(shift == 0 && F.nnz == n * n, "%s: shift %g, %d entries", cases[c].what, shift, F.nnz);
        spk_zfactor_solve_host(&F, diag, b, z);
        CHECK(rel_diff(n, z, x) <= 1e-12, "%s: one apply is off the solution by %g", cases[c].what,
              rel_diff(n, z, x));
        spk_zprecond *p = NULL;
        CHECK_OK(spk_zprecond_create(g_e, &A, (spk_zpc_kind)cases[c].pc, cases[c].herm, &p), g_err.msg);
        double *db = dev(b, n), *dz = dev(z, n);
        if (p) CHECK_OK(spk_zprecond_apply(p, db, dz), g_err.msg);
        host(z, dz, n);
        CHECK(rel_diff(n, z, x) <= 1e-12, "%s on %s: one apply is off the solution by %g", cases[c].what,
              g_e->ops->name, rel_diff(n, z, x));
        spk_zprecond_destroy(p);
        g_e->ops->free(g_e, db), g_e->ops->free(g_e, dz);
        free(x), free(b), free(z), free(diag);
        spk_zcsr_free(&A), spk_zcsr_free(&F);
    }
}

static int find(const spk_zcsr *F, int i, int j)
{
    for (int k = F->rowptr[i]; k < F->rowptr[i + 1]; k++)
        if (F->colind[k] == j) return k;
    return -1;
}

/* IC(0) in A's sparse pattern: U = D L^T (D L^H), so M = M^T (M = M^H,
 * positive definite) -- checked on M^-1 through the solves. */
static void ic0_structure(int herm)
{
    spk_zcsr A, F;
    int *diag = NULL;
    double shift = -1;
    const char *what = herm ? "IC(0) L D L^H" : "IC(0) L D L^T";
    grid(herm ? MAGNETIC : SHIFTED, 7, 0.1, &A);
    const int n = A.nrows;
    CHECK_OK(spk_zfactor_compute(&A, SPK_ZPC_IC0, herm, &F, &diag, &shift, &g_err), g_err.msg);
    if (!diag) return;
    CHECK(F.nnz == A.nnz && shift == 0, "%s: %d entries (A has %d), shift %g", what, F.nnz, A.nnz, shift);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        const zc d = zat(F.val, diag[i]);
        if (herm && (cimag(d) != 0 || !(creal(d) > 0))) bad++;
        for (int k = F.rowptr[i]; k < diag[i]; k++) {
            const int j = F.colind[k], t = find(&F, j, i);
            const zc l = zat(F.val, k), want = zat(F.val, diag[j]) * (herm ? conj(l) : l);
            if (t < 0 || cabs(zat(F.val, t) - want) > 1e-15 * cabs(want)) bad++;
        }
    }
    CHECK(bad == 0, "%s: %d entries of U are not those of D L^%s (or D is not real positive)", what, bad,
          herm ? "H" : "T");
    double *u = rnd_vec(n), *v = rnd_vec(n), *mu = rnd_vec(n), *mv = rnd_vec(n);
    spk_zfactor_solve_host(&F, diag, u, mu);
    spk_zfactor_solve_host(&F, diag, v, mv);
    zc uv = 0, vu = 0, uu = 0;
    for (int i = 0; i < n; i++) {
        uv += (herm ? conj(zat(u, i)) : zat(u, i)) * zat(mv, i);
        vu += (herm ? conj(zat(v, i)) : zat(v, i)) * zat(mu, i);
        uu += conj(zat(u, i)) * zat(mu, i);
    }
    if (herm) {
        CHECK_Z(uv, conj(vu), 1e-12, "u^H M^-1 v = conj(v^H M^-1 u)");
        CHECK(creal(uu) > 0 && fabs(cimag(uu)) <= 1e-12 * creal(uu), "u^H M^-1 u = (%g, %g)", creal(uu), cimag(uu));
    } else {
        CHECK_Z(uv, vu, 1e-12, "u^T M^-1 v = v^T M^-1 u");
    }
    free(u), free(v), free(mu), free(mv), free(diag);
    spk_zcsr_free(&A), spk_zcsr_free(&F);
}

/* A small matrix from its entries (row, column, re, im). */
static void small(int n, int nnz, const double (*t)[4], spk_zcsr *A)
{
    coo m;
    coo_init(&m, n, nnz);
    for (int k = 0; k < nnz; k++) coo_add(&m, (int)t[k][0], (int)t[k][1], t[k][2] + t[k][3] * I);
    coo_to(&m, A);
}

/* A zero pivot met by the shift, reported; pivots no shift cures refused
 * with the row named; Jacobi's zero diagonal named by row. */
static void pivots(void)
{
    /* rows 1-2: [1+i 1+i; 1+i 1+i] gives u_22 = 0, A + alpha diag(A) does not */
    const double sing[][4] = {{0, 0, 2, 0}, {1, 1, 1, 1}, {1, 2, 1, 1}, {2, 1, 1, 1}, {2, 2, 1, 1}, {3, 3, 3, -1}};
    spk_zcsr A;
    small(4, 6, sing, &A);
    for (int pc = SPK_ZPC_ILU0; pc <= SPK_ZPC_IC0; pc++) {
        spk_zprecond *p = NULL;
        CHECK_OK(spk_zprecond_create(g_e, &A, (spk_zpc_kind)pc, 0, &p), g_err.msg);
        CHECK(spk_zprecond_shift(p) == 1e-3, "%s: shift %g, expected 1e-3", spk_zpc_kind_parse("ilu0") == pc ?
              "ilu0" : "ic0", spk_zprecond_shift(p));
        spk_zprecond_destroy(p);
    }
    spk_zcsr_free(&A);
    /* Hermitian indefinite: d_1 = (1 + alpha) - 4 / (1 + alpha) <= 0 up to alpha = 1 */
    const double indef[][4] = {{0, 0, 1, 0}, {0, 1, 0, 2}, {1, 0, 0, -2}, {1, 1, 1, 0}};
    spk_zprecond *p = NULL;
    small(2, 4, indef, &A);
    CHECK(spk_zprecond_create(g_e, &A, SPK_ZPC_IC0, 1, &p) == SPK_ERR_ZERO_PIVOT && !p,
          "Hermitian IC(0) of an indefinite matrix was taken");
    CHECK(check_contains(g_err.msg, "row 1") && check_contains(g_err.msg, "alpha"),
          "message '%s' should name row 1 and the shifts tried", g_err.msg);
    spk_zcsr_free(&A);
    /* a diagonal entry not stored, which no elimination reaches */
    const double nodiag[][4] = {{0, 1, 1, 1}, {1, 0, 1, -1}, {1, 1, 2, 0}};
    small(2, 3, nodiag, &A);
    CHECK(spk_zprecond_create(g_e, &A, SPK_ZPC_ILU0, 0, &p) == SPK_ERR_ZERO_PIVOT,
          "ILU(0) with an absent a_00 was taken");
    CHECK(check_contains(g_err.msg, "row 0") && check_contains(g_err.msg, "not stored"),
          "message '%s' should name row 0 and say a_00 is not stored", g_err.msg);
    CHECK(spk_zprecond_create(g_e, &A, SPK_ZPC_JACOBI, 0, &p) == SPK_ERR_ZERO_PIVOT &&
              check_contains(g_err.msg, "row 0") && check_contains(g_err.msg, "not stored"),
          "Jacobi with an absent a_00: '%s'", g_err.msg);
    spk_zcsr_free(&A);
    const double zdiag[][4] = {{0, 0, 1, 1}, {1, 1, 2, 0}, {2, 2, 0, 0}, {2, 0, 1, 0}, {3, 3, 0, 3}};
    small(4, 5, zdiag, &A);
    CHECK(spk_zprecond_create(g_e, &A, SPK_ZPC_JACOBI, 0, &p) == SPK_ERR_ZERO_PIVOT &&
              check_contains(g_err.msg, "row 2"),
          "Jacobi with a_22 = 0: '%s'", g_err.msg);
    spk_zcsr_free(&A);
}

/* Jacobi's z = D^-1 r against a division, names and bad kinds. */
static void jacobi_and_names(void)
{
    spk_zcsr A;
    spk_zprecond *p = NULL;
    grid(CONVECT, 6, 0, &A);
    const int n = A.nrows;
    CHECK_OK(spk_zprecond_create(g_e, &A, SPK_ZPC_JACOBI, 0, &p), g_err.msg);
    if (p) {
        double *r = rnd_vec(n), *z = rnd_vec(n), *dr = dev(r, n), *dz = dev(z, n);
        CHECK_OK(spk_zprecond_apply(p, dr, dz), g_err.msg);
        host(z, dz, n);
        for (int i = 0; i < n; i++) CHECK_Z(zat(z, i), zat(r, i) / zat(A.val, find(&A, i, i)), 1e-15, "jacobi");
        CHECK(strcmp(spk_zprecond_name(p), "jacobi") == 0, "name %s", spk_zprecond_name(p));
        CHECK(spk_zprecond_apply(p, dr, dr) == SPK_ERR_INVALID_ARG, "apply with z = r was taken");
        spk_zprecond_destroy(p);
        free(r), free(z);
        g_e->ops->free(g_e, dr), g_e->ops->free(g_e, dz);
    }
    const char *names[] = {"none", "jacobi", "ilu0", "ic0"};
    for (int k = 0; k < 4; k++) CHECK(spk_zpc_kind_parse(names[k]) == k, "%s parsed as %d", names[k], k);
    CHECK(spk_zpc_kind_parse("ilut") == -1 && spk_zpc_kind_parse(NULL) == -1, "unknown names parsed");
    p = (spk_zprecond *)&A;
    CHECK(spk_zprecond_create(g_e, &A, (spk_zpc_kind)7, 0, &p) == SPK_ERR_NOT_FOUND && !p, "kind 7 was taken");
    spk_zcsr_free(&A);
}

/* ---- the solvers ---- */

typedef struct run {
    int status, calls;
    spk_result r;
    double hist[2001];
} run;

static void count_calls(void *user, int it, double rnorm, double relres)
{
    (void)it, (void)rnorm, (void)relres;
    ((run *)user)->calls++;
}

/* Solve A x = b from x (host, in: x0, out: x) with method m and
 * preconditioner pc on the executor. */
static void solve(const spk_zcsr *A, spk_zmethod m, spk_zpc_kind pc, int herm, int maxit, const double *b,
                  double *x, run *out)
{
    const int n = A->nrows;
    spk_zspmv *s = NULL;
    spk_zprecond *p = NULL;
    memset(out, 0, sizeof *out);
    out->status = spk_zspmv_create(g_e, A, NULL, &s);
    if (!out->status) out->status = spk_zprecond_create(g_e, A, pc, herm, &p);
    if (out->status) {
        CHECK(0, "setup of %s + %d: %s", spk_zmethod_name(m), (int)pc, g_err.msg);
        spk_zspmv_destroy(s);
        return;
    }
    spk_zkrylov_opts o = {maxit, 1e-10, 0, 0, count_calls, out, out->hist};
    double *db = dev(b, n), *dx = dev(x, n);
    out->status = spk_zkrylov_solve(g_e, s, p, m, &o, n, db, dx, &out->r);
    host(x, dx, n);
    g_e->ops->free(g_e, db), g_e->ops->free(g_e, dx);
    spk_zprecond_destroy(p);
    spk_zspmv_destroy(s);
}

/* Converged to rtol 1e-10: the status, the true residual by the test's own
 * product, the callbacks and history, the phase times. */
static int converges(const spk_zcsr *A, spk_zmethod m, spk_zpc_kind pc, int herm, const char *what)
{
    const int n = A->nrows;
    double *xt = rnd_vec(n), *b = rnd_vec(n), *x = rnd_vec(n);
    ref_spmv(A, xt, b);
    for (int i = 0; i < 2 * n; i++) x[i] = 0;
    run *R = malloc(sizeof *R);
    if (!R) exit(1);
    solve(A, m, pc, herm, 2000, b, x, R);
    const spk_result *r = &R->r;
    const double tr = true_relres(A, b, x);
    CHECK(R->status == SPK_OK && r->reason == SPK_CONVERGED_RTOL, "%s: status %d, reason %s after %d iterations: %s",
          what, R->status, spk_reason_name(r->reason), r->iterations, g_err.msg);
    CHECK(tr <= 2e-10 && fabs(tr - r->true_relres) <= 1e-3 * tr + 1e-16,
          "%s: true relative residual %g (the solver says %g)", what, tr, r->true_relres);
    CHECK(R->calls == r->iterations + 1 && r->history_len == r->iterations + 1 && r->history == R->hist &&
              R->hist[0] == r->rnorm0 && R->hist[r->history_len - 1] == r->rnorm,
          "%s: %d monitor calls, %d history entries for %d iterations", what, R->calls, r->history_len,
          r->iterations);
    const double phases = r->t_spmv + r->t_precond + r->t_vector;
    CHECK(r->t_spmv > 0 && r->t_vector > 0 && (pc == SPK_ZPC_NONE) == (r->t_precond == 0) &&
              phases <= r->t_total * 1.001 + 1e-6,
          "%s: times spmv %g, precond %g, vector %g, total %g", what, r->t_spmv, r->t_precond, r->t_vector,
          r->t_total);
    const int its = r->iterations;
    printf("%-38s n %5d: %4d iterations, true relative residual %.2e\n", what, n, its, tr);
    free(xt), free(b), free(x), free(R);
    return its;
}

static void methods(void)
{
    spk_zcsr S, H, G;
    grid(SHIFTED, 24, 0, &S);
    grid(MAGNETIC, 24, 0.1, &H);
    grid(CONVECT, 24, 0, &G);
    CHECK(spk_zcsr_symmetry(&S) == SPK_ZSYM_SYMMETRIC && spk_zcsr_symmetry(&H) == SPK_ZSYM_HERMITIAN &&
              spk_zcsr_symmetry(&G) == SPK_ZSYM_GENERAL,
          "the test matrices' classes: %d %d %d", spk_zcsr_symmetry(&S), spk_zcsr_symmetry(&H),
          spk_zcsr_symmetry(&G));
    const int cocg = converges(&S, SPK_ZMETHOD_COCG, SPK_ZPC_NONE, 0, "COCG");
    const int cocg_ic = converges(&S, SPK_ZMETHOD_COCG, SPK_ZPC_IC0, 0, "COCG + IC(0)");
    converges(&S, SPK_ZMETHOD_COCG, SPK_ZPC_JACOBI, 0, "COCG + Jacobi");
    CHECK(cocg_ic < cocg, "COCG took %d iterations with IC(0), %d without", cocg_ic, cocg);
    converges(&S, SPK_ZMETHOD_BICGSTAB, SPK_ZPC_ILU0, 0, "BiCGStab + ILU(0), complex symmetric");
    const int cg = converges(&H, SPK_ZMETHOD_CG, SPK_ZPC_NONE, 1, "CG");
    const int cg_ic = converges(&H, SPK_ZMETHOD_CG, SPK_ZPC_IC0, 1, "CG + IC(0)");
    converges(&H, SPK_ZMETHOD_CG, SPK_ZPC_JACOBI, 1, "CG + Jacobi");
    CHECK(cg_ic < cg, "CG took %d iterations with IC(0), %d without", cg_ic, cg);
    converges(&G, SPK_ZMETHOD_BICGSTAB, SPK_ZPC_NONE, 0, "BiCGStab");
    const int bi_ilu = converges(&G, SPK_ZMETHOD_BICGSTAB, SPK_ZPC_ILU0, 0, "BiCGStab + ILU(0)");
    converges(&G, SPK_ZMETHOD_BICGSTAB, SPK_ZPC_JACOBI, 0, "BiCGStab + Jacobi");
    CHECK(bi_ilu > 0, "BiCGStab + ILU(0) took %d iterations", bi_ilu);
    spk_zcsr_free(&S), spk_zcsr_free(&H), spk_zcsr_free(&G);
}

/* Statuses other than convergence. */
static void outcomes(void)
{
    spk_zcsr A;
    run *R = malloc(sizeof *R);
    if (!R) exit(1);
    grid(MAGNETIC, 12, -6, &A); /* Hermitian with most of its spectrum negative */
    const int n = A.nrows;
    double *b = rnd_vec(n), *x = rnd_vec(n), *x0 = rnd_vec(n);
    for (int i = 0; i < 2 * n; i++) x[i] = 0;
    solve(&A, SPK_ZMETHOD_CG, SPK_ZPC_NONE, 1, 500, b, x, R);
    CHECK(R->status == SPK_ERR_INDEFINITE && R->r.reason == SPK_BREAKDOWN_INDEFINITE &&
              check_contains(g_err.msg, "positive definite"),
          "CG on an indefinite matrix: status %d, reason %s: %s", R->status, spk_reason_name(R->r.reason), g_err.msg);
    spk_zcsr_free(&A);
    grid(CONVECT, 12, 0, &A);
    /* b = 0: x = 0 */
    for (int i = 0; i < 2 * n; i++) b[i] = 0;
    memcpy(x, x0, (size_t)n * 2 * sizeof(double));
    solve(&A, SPK_ZMETHOD_BICGSTAB, SPK_ZPC_ILU0, 0, 100, b, x, R);
    CHECK(R->status == SPK_OK && R->r.reason == SPK_CONVERGED_ZERO_RHS && nrm(n, x) == 0 && R->r.true_relres == 0,
          "b = 0: status %d, reason %s, ||x|| %g", R->status, spk_reason_name(R->r.reason), nrm(n, x));
    /* maxit */
    for (int i = 0; i < 2 * n; i++) b[i] = 1;
    solve(&A, SPK_ZMETHOD_BICGSTAB, SPK_ZPC_NONE, 0, 3, b, x, R);
    CHECK(R->status == SPK_ERR_NOT_CONVERGED && R->r.reason == SPK_DIVERGED_MAXIT && R->r.iterations == 3 &&
              R->r.history_len == 4,
          "maxit 3: status %d, reason %s, %d iterations", R->status, spk_reason_name(R->r.reason), R->r.iterations);
    /* NaN in b */
    b[5] = NAN;
    solve(&A, SPK_ZMETHOD_COCG, SPK_ZPC_NONE, 0, 100, b, x, R);
    CHECK(R->status == SPK_ERR_INVALID_ARG && R->r.reason == SPK_INVALID_INPUT, "NaN in b: status %d, reason %s",
          R->status, spk_reason_name(R->r.reason));
    /* COCG from b = (1, i, 0, ...): r^T r = 1 + i^2 = 0, the bilinear form's breakdown */
    for (int i = 0; i < 2 * n; i++) b[i] = x[i] = 0;
    b[0] = b[3] = 1;
    solve(&A, SPK_ZMETHOD_COCG, SPK_ZPC_NONE, 0, 100, b, x, R);
    CHECK(R->status == SPK_ERR_BREAKDOWN && R->r.reason == SPK_BREAKDOWN_RHO && check_contains(g_err.msg, "r^T z"),
          "COCG with r0^T r0 = 0: status %d, reason %s: %s", R->status, spk_reason_name(R->r.reason), g_err.msg);
    /* a size that is not the matrix's */
    spk_zspmv *s = NULL;
    spk_zkrylov_opts o = {10, 1e-8, 0, 0, NULL, NULL, NULL};
    CHECK_OK(spk_zspmv_create(g_e, &A, NULL, &s), g_err.msg);
    double *db = dev(b, n);
    CHECK(spk_zkrylov_solve(g_e, s, NULL, SPK_ZMETHOD_COCG, &o, n - 1, db, db, &R->r) == SPK_ERR_INVALID_MATRIX,
          "n - 1 unknowns were taken");
    g_e->ops->free(g_e, db);
    spk_zspmv_destroy(s);
    spk_zcsr_free(&A);
    free(b), free(x), free(x0), free(R);
}

/* The host's solve gives the same bits for 1 and 2 threads (the products,
 * the sums and the updates above their threaded sizes). */
static void solve_threads(void)
{
#ifndef SPK_TEST_CUDA
    if (spk_host_set_threads(2) != 2) {
        spk_host_set_threads(0);
        return;
    }
    spk_zcsr A;
    grid(SHIFTED, 190, 0, &A);
    const int n = A.nrows;
    double *b = rnd_vec(n), *x[2];
    run *R = malloc(2 * sizeof *R);
    if (!R) exit(1);
    for (int t = 0; t < 2; t++) {
        spk_host_set_threads(t + 1);
        x[t] = calloc((size_t)n * 2, sizeof(double));
        if (!x[t]) exit(1);
        solve(&A, SPK_ZMETHOD_COCG, SPK_ZPC_IC0, 0, 2000, b, x[t], &R[t]);
    }
    spk_host_set_threads(0);
    printf("COCG + IC(0), n %d, 1 and 2 threads: %d and %d iterations\n", n, R[0].r.iterations, R[1].r.iterations);
    CHECK(R[0].status == SPK_OK && R[0].r.iterations == R[1].r.iterations &&
              memcmp(x[0], x[1], (size_t)n * 2 * sizeof(double)) == 0,
          "COCG + IC(0) with 1 and 2 threads: %d and %d iterations, x equal: %d", R[0].r.iterations,
          R[1].r.iterations, memcmp(x[0], x[1], (size_t)n * 2 * sizeof(double)) == 0);
    free(b), free(x[0]), free(x[1]), free(R);
    spk_zcsr_free(&A);
#endif
}

int main(void)
{
    spk_err_clear(&g_err);
    g_e = test_exec(&g_err);
    zops_vs_loops();
    zops_threads();
    products();
    exact_on_full_pattern();
    ic0_structure(0);
    ic0_structure(1);
    pivots();
    jacobi_and_names();
    methods();
    outcomes();
    solve_threads();
    spk_exec_destroy(g_e);
    return check_exit();
}

/* sweep.c -- ILU(0) and IC(0) applied with approximate triangular solves:
 * "ilu0-sweeps" and "ic0-sweeps", on any executor.
 *
 * The factor is the host's (same factorization, pivot test and shift policy
 * as "ilu0" / "ic0", factor.h).  Each triangular solve T x = b, with T = D +
 * S (D its diagonal, S strictly triangular), is replaced by k Jacobi sweeps
 * from x_0 = D^-1 b:
 *     x_{j+1} = D^-1 b - N x_j,   N = D^-1 S,
 * i.e. x_k = sum_{i<=k} (-N)^i D^-1 b, the truncated Neumann series of T^-1.
 * N is nilpotent, so x_k is the exact solution once k reaches the depth of
 * T's dependency graph (its number of levels - 1).  Each sweep is a copy and
 * one SpMV with N through any SpMV backend, so the preconditioner runs where
 * the formats run (every product is parallel, unlike a substitution), and
 * D^-1 b is a product with the diagonal matrix D^-1.
 *   ILU(0): L unit lower (D = I: x_0 = b, N = L's strict part), then U
 *           (D = diag(U), N = D^-1 U_strict).
 *   IC(0):  L (N = D^-1 L_strict), then L^T (N = D^-1 L_strict^T, stored as
 *           its own CSR matrix).
 * For IC(0) the operator applied is P^T P with P the truncated series of
 * L^-1 (the one of L^-T is its transpose), so it stays symmetric positive
 * definite for CG whatever k.  Cost per apply: 2k SpMVs with matrices of
 * nnz(factor) - n entries in all, 2k vector copies and two diagonal
 * products (one for ILU(0)).
 *
 * "ilu0-isai" and "ic0-isai" apply instead each factor's incomplete sparse
 * approximate inverse: M with T's pattern such that (M T)_ij = delta_ij on
 * that pattern, row by row a small dense system T[P,P]^T m = e_i over the
 * row's columns P (Gaussian elimination with partial pivoting; a row longer
 * than ISAI_MAX_ROW keeps only 1 / t_ii).  An apply is one SpMV per factor.
 * For IC(0) the second factor's is the transpose of the first's, so the
 * operator M^T M is symmetric positive definite. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "factor.h"
#include "spmv/spmv.h"

typedef struct tri {
    const struct spk_spmv_ops *nops, *dops;
    void *N;  /* D^-1 S (NULL when S has no entries) */
    void *D;  /* the diagonal D^-1 (NULL: D = I) */
    spk_csr hN, hD; /* their host matrices, kept: a host backend may use them in place */
} tri;

#define ISAI_MAX_ROW 64

typedef struct sweep_pc {
    spk_factor_kind kind; /* the host kind, for any executor */
    spk_factor *f;        /* the host factor */
    spk_exec *e;
    int n, k, ic;
    int isai;             /* 1: approximate inverses instead of sweeps */
    int single;           /* sweeps: the factor's values rounded to float (the GPU's float copies) */
    char format[64];
    spk_spmv_opts so;
    tri t[2];
    double *c, *x, *w, *y; /* executor vectors */
} sweep_pc;

static void tri_free(tri *t)
{
    if (t->N) t->nops->destroy(t->N);
    if (t->D) t->dops->destroy(t->D);
    spk_csr_free(&t->hN);
    spk_csr_free(&t->hD);
    memset(t, 0, sizeof *t);
}

/* The backends of one triangle from the host matrix N (may have no
 * entries; t takes it over) and the diagonal d (NULL: identity). */
static int tri_build(sweep_pc *p, tri *t, spk_csr *hN, const double *d)
{
    spk_exec *e = p->e;
    int st = SPK_OK;
    t->hN = *hN;
    memset(hN, 0, sizeof *hN);
    const spk_csr *N = &t->hN;
    spk_csr *D = &t->hD;
    if (N->nnz > 0) {
        SPK_TRY(spk_spmv_find(p->format, e, &t->nops, e->err));
        st = t->nops->create(e, N, &p->so, &t->N);
        if (st == SPK_ERR_UNSUPPORTED && p->format[0]) { /* refused (padding): the executor's default */
            spk_err_clear(e->err);
            SPK_TRY(spk_spmv_find(NULL, e, &t->nops, e->err));
            st = t->nops->create(e, N, &p->so, &t->N);
        }
        SPK_TRY(st);
    }
    if (d) {
        /* the diagonal goes through plain CSR: one entry per row suits every executor */
        SPK_TRY(spk_spmv_find(spk_exec_is_host(e) ? "csr" : "csr-scalar", e, &t->dops, e->err));
        SPK_TRY(spk_csr_alloc(D, p->n, p->n, p->n, e->err));
        for (int i = 0; i < p->n; i++) {
            D->rowptr[i] = i;
            D->colind[i] = i;
            D->val[i] = d[i];
        }
        D->rowptr[p->n] = p->n;
        st = t->dops->create(e, D, &p->so, &t->D);
    }
    return st;
}

/* One triangle of the factor as its own CSR matrix: the part strictly
 * below (upper = 0) or above (upper = 1) the diagonal, with the diagonal
 * DIAG_NONE left out, DIAG_STORED as stored or DIAG_UNIT as ones (ILU(0)'s
 * unit L); columns stay sorted. */
enum { DIAG_NONE, DIAG_STORED, DIAG_UNIT };
static int factor_part(const spk_factor *f, int upper, int diag, spk_csr *M, spk_err *err)
{
    const int n = f->n, *rp = f->F.rowptr, *ci = f->F.colind, *dg = f->diag;
    const double *v = f->F.val;
    int nnz = diag == DIAG_NONE ? 0 : n;
    for (int i = 0; i < n; i++) nnz += upper ? rp[i + 1] - dg[i] - 1 : dg[i] - rp[i];
    SPK_TRY(spk_csr_alloc(M, n, n, nnz, err));
    for (int i = 0, q = 0; i < n; i++) {
        const int b = upper ? dg[i] + 1 : rp[i], e = upper ? rp[i + 1] : dg[i];
        if (upper && diag != DIAG_NONE) M->colind[q] = i, M->val[q++] = diag == DIAG_UNIT ? 1.0 : v[dg[i]];
        for (int k = b; k < e; k++, q++) {
            M->colind[q] = ci[k];
            M->val[q] = v[k];
        }
        if (!upper && diag != DIAG_NONE) M->colind[q] = i, M->val[q++] = diag == DIAG_UNIT ? 1.0 : v[dg[i]];
        M->rowptr[i + 1] = q;
    }
    return SPK_OK;
}

/* Row i of M times d[i]. */
static void scale_rows(spk_csr *M, const double *d)
{
    for (int i = 0; i < M->nrows; i++)
        for (int k = M->rowptr[i]; k < M->rowptr[i + 1]; k++) M->val[k] *= d[i];
}

/* M's values rounded to float and back. */
static void round_float(spk_csr *M)
{
    for (int k = 0; k < M->nnz; k++) M->val[k] = (double)(float)M->val[k];
}

/* The two triangles' sweep matrices from the host factor. */
static int sweep_build(sweep_pc *p)
{
    const double *id = p->f->idiag;
    spk_err *err = p->e->err;
    spk_csr A = {0}, B = {0};
    int st = SPK_OK;
    tri_free(&p->t[0]);
    tri_free(&p->t[1]);
    /* the strict lower part (ILU(0): unit L's, which is its N) and, for
     * IC(0), its transpose, each scaled to D^-1 S; ILU(0): D^-1 U_strict */
    SPK_CHECK(st, factor_part(p->f, 0, DIAG_NONE, &A, err));
    if (p->single) round_float(&A);
    if (p->ic) {
        SPK_CHECK(st, spk_csr_transpose(&A, &B, err));
        scale_rows(&A, id);
    } else {
        SPK_CHECK(st, factor_part(p->f, 1, DIAG_NONE, &B, err));
        if (p->single) round_float(&B);
    }
    scale_rows(&B, id);
    SPK_CHECK(st, tri_build(p, &p->t[0], &A, p->ic ? id : NULL));
    SPK_CHECK(st, tri_build(p, &p->t[1], &B, id));
cleanup:
    spk_csr_free(&A);
    spk_csr_free(&B);
    return st;
}

/* M = the incomplete sparse approximate inverse of triangular T (sorted
 * columns, diagonal stored and nonzero), on T's pattern. */
static int isai_of(spk_err *err, const spk_csr *T, spk_csr *M)
{
    const int n = T->nrows;
    SPK_TRY(spk_csr_alloc(M, n, n, T->nnz, err));
    memcpy(M->rowptr, T->rowptr, ((size_t)n + 1) * sizeof(int));
    if (T->nnz) memcpy(M->colind, T->colind, (size_t)T->nnz * sizeof(int));
    int *mark = malloc(((size_t)n + 1) * sizeof(int));
    double *B = malloc((size_t)ISAI_MAX_ROW * ISAI_MAX_ROW * sizeof(double)), x[ISAI_MAX_ROW];
    if (!mark || !B) {
        free(mark);
        free(B);
        spk_csr_free(M);
        return spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (approximate inverse)");
    }
    for (int j = 0; j < n; j++) mark[j] = -1;
    for (int i = 0; i < n; i++) {
        const int b = T->rowptr[i], m = T->rowptr[i + 1] - b;
        int di = -1;
        for (int a = 0; a < m; a++)
            if (T->colind[b + a] == i) di = a;
        for (int a = 0; a < m; a++) M->val[b + a] = 0;
        if (di < 0) continue; /* no diagonal: left zero (the factor always stores it) */
        if (m > ISAI_MAX_ROW) {
            M->val[b + di] = 1.0 / T->val[b + di];
            continue;
        }
        for (int a = 0; a < m; a++) mark[T->colind[b + a]] = a;
        /* B = T[P,P]^T: B[c][a] = T[P[a], P[c]] */
        memset(B, 0, (size_t)m * m * sizeof(double));
        for (int a = 0; a < m; a++) {
            const int r = T->colind[b + a];
            for (int k = T->rowptr[r]; k < T->rowptr[r + 1]; k++) {
                const int c = mark[T->colind[k]];
                if (c >= 0) B[c * m + a] = T->val[k];
            }
        }
        for (int a = 0; a < m; a++) x[a] = a == di ? 1.0 : 0.0;
        for (int col = 0; col < m; col++) { /* elimination with partial pivoting */
            int piv = col;
            for (int r = col + 1; r < m; r++)
                if (fabs(B[r * m + col]) > fabs(B[piv * m + col])) piv = r;
            if (piv != col) {
                for (int q = 0; q < m; q++) {
                    double t = B[col * m + q];
                    B[col * m + q] = B[piv * m + q];
                    B[piv * m + q] = t;
                }
                double t = x[col];
                x[col] = x[piv];
                x[piv] = t;
            }
            const double d = B[col * m + col];
            for (int r = col + 1; r < m; r++) {
                const double f = B[r * m + col] / d;
                if (f == 0) continue;
                for (int q = col; q < m; q++) B[r * m + q] -= f * B[col * m + q];
                x[r] -= f * x[col];
            }
        }
        for (int a = m - 1; a >= 0; a--) {
            double s = x[a];
            for (int q = a + 1; q < m; q++) s -= B[a * m + q] * x[q];
            x[a] = s / B[a * m + a];
        }
        for (int a = 0; a < m; a++) {
            M->val[b + a] = x[a];
            mark[T->colind[b + a]] = -1;
        }
    }
    free(mark);
    free(B);
    return SPK_OK;
}

/* The approximate inverses of the two factors, as the triangles' N. */
static int isai_build(sweep_pc *p)
{
    spk_err *err = p->e->err;
    spk_csr T = {0}, M = {0}, Mt = {0};
    int st = SPK_OK;
    tri_free(&p->t[0]);
    tri_free(&p->t[1]);
    /* the lower factor with its diagonal (ILU(0): unit), then the upper one
     * (IC(0): the transpose of the lower one's inverse) */
    SPK_CHECK(st, factor_part(p->f, 0, p->ic ? DIAG_STORED : DIAG_UNIT, &T, err));
    SPK_CHECK(st, isai_of(err, &T, &M));
    spk_csr_free(&T);
    if (p->ic) {
        SPK_CHECK(st, spk_csr_transpose(&M, &Mt, err));
    } else {
        SPK_CHECK(st, factor_part(p->f, 1, DIAG_STORED, &T, err));
        SPK_CHECK(st, isai_of(err, &T, &Mt));
    }
    SPK_CHECK(st, tri_build(p, &p->t[0], &M, NULL));
    SPK_CHECK(st, tri_build(p, &p->t[1], &Mt, NULL));
cleanup:
    spk_csr_free(&T);
    spk_csr_free(&M);
    spk_csr_free(&Mt);
    return st;
}

static void sweep_destroy(void *impl)
{
    sweep_pc *p = impl;
    if (!p) return;
    tri_free(&p->t[0]);
    tri_free(&p->t[1]);
    if (p->c) p->e->ops->free(p->e, p->c);
    if (p->x) p->e->ops->free(p->e, p->x);
    if (p->w) p->e->ops->free(p->e, p->w);
    if (p->y) p->e->ops->free(p->e, p->y);
    spk_factor_free(p->f);
    free(p);
}

static int sweep_create(spk_exec *e, const spk_csr *A, const spk_precond_opts *o, const spk_factor_kind *kind,
                        int isai, void **impl)
{
    if (!impl) return spk_err_set(e->err, SPK_ERR_INVALID_ARG, "%s sweeps: impl is NULL", kind->label);
    *impl = NULL;
    spk_precond_opts def;
    if (!o) { /* the defaults: 3 sweeps in the executor's default format */
        spk_precond_opts_default(&def);
        o = &def;
    }
    if (!isai && (o->sweeps < 1 || o->sweeps > 1000))
        return spk_err_set(e->err, SPK_ERR_INVALID_ARG,
                           "%s sweeps: the number of sweeps per triangular solve must be in [1, 1000] (got %d)",
                           kind->label, o->sweeps);
    sweep_pc *p = calloc(1, sizeof *p);
    if (!p) return spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (%s sweeps)", kind->label);
    p->e = e;
    p->k = o->sweeps;
    p->isai = isai;
    p->single = !isai && o->sweeps_float;
    p->kind = *kind;
    p->kind.any_exec = 1;
    p->ic = kind->lower_only;
    p->so = o->spmv;
    snprintf(p->format, sizeof p->format, "%s", o->format[0] ? o->format : "");
    int st;
    void *fi = NULL;
    SPK_CHECK(st, spk_factor_create(e, A, o, &p->kind, &fi));
    p->f = fi;
    p->n = p->f->n;
    SPK_CHECK(st, spk_exec_alloc_vec(e, p->n, &p->c));
    SPK_CHECK(st, spk_exec_alloc_vec(e, p->n, &p->x));
    SPK_CHECK(st, spk_exec_alloc_vec(e, p->n, &p->w));
    SPK_CHECK(st, spk_exec_alloc_vec(e, p->n, &p->y));
    SPK_CHECK(st, isai ? isai_build(p) : sweep_build(p));
    *impl = p;
    return SPK_OK;
cleanup:
    sweep_destroy(p);
    return st;
}

/* out = k sweeps on triangle t for right-hand side b; out must not be b
 * or one of p's work vectors.  x_0 = c = D^-1 b is read in place (b itself
 * when D = I), and the last sweep writes out: per sweep one copy of c and
 * one product. */
static int tri_apply(sweep_pc *p, const tri *t, const double *b, double *out)
{
    spk_exec *e = p->e;
    const int n = p->n;
    if (p->isai) return t->N ? t->nops->apply(t->N, 1.0, b, 0.0, out) : e->ops->copy(e, n, b, out);
    if (!t->N) /* diagonal: exact */
        return t->D ? t->dops->apply(t->D, 1.0, b, 0.0, out) : e->ops->copy(e, n, b, out);
    const double *c = b;
    if (t->D) {
        SPK_TRY(t->dops->apply(t->D, 1.0, b, 0.0, p->c));
        c = p->c;
    }
    const double *x = c;
    for (int j = 0; j < p->k; j++) {
        double *dst = j == p->k - 1 ? out : (j % 2 ? p->w : p->x);
        SPK_TRY(e->ops->copy(e, n, c, dst));
        SPK_TRY(t->nops->apply(t->N, -1.0, x, 1.0, dst));
        x = dst;
    }
    return SPK_OK;
}

static int sweep_apply(void *impl, const double *r, double *z)
{
    sweep_pc *p = impl;
    if (!p || !r || !z) return SPK_ERR_INVALID_ARG;
    SPK_TRY(spk_factor_check_apply(p->f, r, z));
    SPK_TRY(tri_apply(p, &p->t[0], r, p->y));
    return tri_apply(p, &p->t[1], p->y, z); /* z may be r: r is no longer read */
}

static int sweep_refactor(void *impl, const spk_csr *A)
{
    sweep_pc *p = impl;
    if (!p) return SPK_ERR_INVALID_ARG;
    SPK_TRY(spk_factor_run(p->f, A));
    return p->isai ? isai_build(p) : sweep_build(p);
}

static double sweep_shift(const void *impl)
{
    const sweep_pc *p = impl;
    return p ? p->f->alpha : 0.0;
}

static int sweep_count(const void *impl)
{
    const sweep_pc *p = impl;
    return p && !p->isai ? p->k : 0;
}

/* One variant: its create (the factor kind, sweeps or approximate inverses)
 * and its host entry; with_cuda: also a CUDA entry, which differs only in the
 * executor named (the GPU sweeps have their own, devsweep.c). */
#ifdef SPK_HAVE_CUDA
#define SWEEP_CUDA_ENTRY(sym, name)                                                                                   \
    const struct spk_precond_ops spk_precond_##sym##_cuda = {                                                         \
        name, "cuda", sym##_create, sweep_apply, sweep_refactor, sweep_destroy, sweep_shift, NULL, NULL, NULL,              \
        sweep_count, NULL, NULL,                                                                                        \
    };
#else
#define SWEEP_CUDA_ENTRY(sym, name)
#endif
#define SWEEP_VARIANT(sym, name, kind, isai)                                                                          \
    static int sym##_create(spk_exec *e, const spk_csr *A, const spk_precond_opts *o, void **impl)                    \
    {                                                                                                                 \
        return sweep_create(e, A, o, &kind, isai, impl);                                                              \
    }                                                                                                                 \
    const struct spk_precond_ops spk_precond_##sym##_host = {                                                         \
        name, "host", sym##_create, sweep_apply, sweep_refactor, sweep_destroy, sweep_shift, NULL, NULL, NULL,              \
        sweep_count, NULL, NULL,                                                                                        \
    };

SWEEP_VARIANT(ilu0_sweeps, "ilu0-sweeps", spk_ilu0_kind, 0)
SWEEP_VARIANT(ic0_sweeps, "ic0-sweeps", spk_ic0_kind, 0)
SWEEP_VARIANT(ilu0_isai, "ilu0-isai", spk_ilu0_kind, 1)
SWEEP_VARIANT(ic0_isai, "ic0-isai", spk_ic0_kind, 1)
SWEEP_CUDA_ENTRY(ilu0_isai, "ilu0-isai")
SWEEP_CUDA_ENTRY(ic0_isai, "ic0-isai")

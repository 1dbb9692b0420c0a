/* zprecond.c -- the complex preconditioners' dispatch: none, Jacobi (the
 * reciprocals of the diagonal in the executor's memory, applied by the
 * executor's complex multiply), and ILU(0)/IC(0), factored on the host
 * (zfactor.c) and solved there, or on the GPU by zprecond_cuda.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/zops.h"
#include "zprecond_impl.h"

static const char *const kind_names[] = {"none", "jacobi", "ilu0", "ic0"};

int spk_zpc_kind_parse(const char *name)
{
    for (int k = 0; name && k < 4; k++)
        if (strcmp(name, kind_names[k]) == 0) return k;
    return -1;
}

/* The factor's triangular solves run on the host (host executor) or on the
 * GPU (zprecond_cuda.c). */
static int on_host(const spk_zprecond *p)
{
    return spk_exec_is_host(p->e);
}

/* p->dinv = 1 / a_ii (2n doubles on the executor, allocated at the first
 * call); a missing, zero or non-finite a_ii is refused, naming the row. */
static int jacobi_load(spk_zprecond *p, const spk_zcsr *A)
{
    spk_exec *e = p->e;
    const int n = p->n;
    int *dg = NULL;
    SPK_TRY(spk_zcsr_diag_pos(A, &dg, e->err));
    double *h = malloc((size_t)(n ? n : 1) * 2 * sizeof(double));
    if (!h) {
        free(dg);
        return spk_err_set(e->err, SPK_ERR_NOMEM, "Jacobi: out of memory for %d complex reciprocals", n);
    }
    int st = SPK_OK;
    for (int i = 0; i < n && !st; i++) {
        const double ar = dg[i] < 0 ? 0 : A->val[2 * (size_t)dg[i]], ai = dg[i] < 0 ? 0 : A->val[2 * (size_t)dg[i] + 1];
        if (dg[i] < 0)
            st = spk_err_set(e->err, SPK_ERR_ZERO_PIVOT, "Jacobi: zero diagonal entry at row %d (0-based; a_ii is "
                             "not stored)", i);
        else if (ar == 0 && ai == 0)
            st = spk_err_set(e->err, SPK_ERR_ZERO_PIVOT, "Jacobi: zero diagonal entry at row %d (0-based)", i);
        else if (!isfinite(ar) || !isfinite(ai))
            st = spk_err_set(e->err, SPK_ERR_ZERO_PIVOT, "Jacobi: non-finite diagonal entry (%g, %g) at row %d "
                             "(0-based)", ar, ai, i);
        else { /* 1/a = conj(a) / |a|^2, scaled by the larger part against overflow */
            const double s = fabs(ar) > fabs(ai) ? fabs(ar) : fabs(ai), br = ar / s, bi = ai / s;
            const double m = br * br + bi * bi;
            h[2 * (size_t)i] = br / m / s;
            h[2 * (size_t)i + 1] = -bi / m / s;
        }
    }
    free(dg);
    if (!st && !p->dinv) st = e->ops->alloc(e, (size_t)(n ? n : 1) * 2 * sizeof(double), (void **)&p->dinv);
    if (!st && n) st = e->ops->upload(e, p->dinv, h, (size_t)n * 2 * sizeof(double));
    free(h);
    return st;
}

/* The factor of A (ilu0, ic0), on the GPU too where the executor is one;
 * refactor: the new factor must have the old one's pattern. */
static int factor_load(spk_zprecond *p, const spk_zcsr *A, int refactor)
{
    spk_exec *e = p->e;
    spk_zcsr F;
    int *dg = NULL;
    double shift = 0;
    SPK_TRY(spk_zfactor_compute(A, p->kind, p->hermitian, &F, &dg, &shift, e->err));
    if (refactor && (F.nnz != p->F.nnz || memcmp(F.rowptr, p->F.rowptr, ((size_t)p->n + 1) * sizeof(int)) != 0 ||
                     memcmp(F.colind, p->F.colind, (size_t)F.nnz * sizeof(int)) != 0)) {
        spk_zcsr_free(&F);
        free(dg);
        return spk_err_set(e->err, SPK_ERR_INVALID_MATRIX, "%s refactor: the new matrix does not have the pattern "
                           "of the one given at create", p->kind == SPK_ZPC_ILU0 ? "ILU(0)" : "IC(0)");
    }
    spk_zcsr_free(&p->F);
    free(p->diag);
    p->F = F;
    p->diag = dg;
    p->shift = shift;
    if (on_host(p)) return SPK_OK;
#ifdef SPK_HAVE_CUDA
    return refactor ? spk_zprecond_cuda_update(p) : spk_zprecond_cuda_init(p);
#else
    return spk_err_set(e->err, SPK_ERR_UNSUPPORTED, "complex %s: no triangular solves on the %s executor",
                       kind_names[p->kind], e->ops->name);
#endif
}

static int load(spk_zprecond *p, const spk_zcsr *A, int refactor)
{
    if (p->kind == SPK_ZPC_JACOBI) return jacobi_load(p, A);
    if (p->kind == SPK_ZPC_ILU0 || p->kind == SPK_ZPC_IC0) return factor_load(p, A, refactor);
    return SPK_OK;
}

/* A square matrix whose diagonal can be found (zcsr_diag_pos reads rows). */
static int check_matrix(spk_err *err, const spk_zcsr *A, int n)
{
    if (!A || !A->rowptr || (A->nnz > 0 && (!A->colind || !A->val)))
        return spk_err_set(err, SPK_ERR_INVALID_ARG, "complex preconditioner: the matrix or its arrays are NULL");
    if (A->nrows != A->ncols || A->nrows < 0 || (n >= 0 && A->nrows != n))
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX, "complex preconditioner: the matrix is %d x %d%s", A->nrows,
                           A->ncols, n >= 0 ? ", not the order it was made for" : ", not square");
    if (A->rowptr[0] != 0 || A->rowptr[A->nrows] != A->nnz)
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX, "complex preconditioner: rowptr runs from %d to %d, not 0 "
                           "to nnz = %d", A->rowptr[0], A->rowptr[A->nrows], A->nnz);
    for (int i = 0; i < A->nrows; i++)
        if (A->rowptr[i + 1] < A->rowptr[i])
            return spk_err_set(err, SPK_ERR_INVALID_MATRIX, "complex preconditioner: rowptr decreases at row %d", i);
    return SPK_OK;
}

int spk_zprecond_create(spk_exec *e, const spk_zcsr *A, spk_zpc_kind kind, int hermitian, spk_zprecond **out)
{
    if (out) *out = NULL;
    if (!e || !e->ops) return SPK_ERR_INVALID_ARG;
    if (!out) return spk_err_set(e->err, SPK_ERR_INVALID_ARG, "complex preconditioner: the result is NULL");
    if ((int)kind < 0 || (int)kind > SPK_ZPC_IC0)
        return spk_err_set(e->err, SPK_ERR_NOT_FOUND, "unknown complex preconditioner kind %d (none, jacobi, ilu0, "
                           "ic0)", (int)kind);
    SPK_TRY(check_matrix(e->err, A, -1));
    if (kind != SPK_ZPC_NONE && !spk_zops_get(e))
        return spk_err_set(e->err, SPK_ERR_UNSUPPORTED, "complex preconditioner %s: no complex operations on the %s "
                           "executor", kind_names[kind], e->ops->name);
    spk_zprecond *p = calloc(1, sizeof *p);
    if (!p) return spk_err_set(e->err, SPK_ERR_NOMEM, "out of memory for a complex preconditioner");
    p->e = e;
    p->kind = kind;
    p->hermitian = hermitian != 0;
    p->n = A->nrows;
    int st = load(p, A, 0);
    if (st) {
        spk_zprecond_destroy(p);
        return st;
    }
    *out = p;
    return SPK_OK;
}

int spk_zprecond_apply(spk_zprecond *p, const double *r, double *z)
{
    if (!p) return SPK_ERR_INVALID_ARG;
    spk_exec *e = p->e;
    if (!r || !z || r == z)
        return spk_err_set(e->err, SPK_ERR_INVALID_ARG, "complex preconditioner: r or z is NULL, or they are the "
                           "same vector");
    switch (p->kind) {
    case SPK_ZPC_NONE: return e->ops->copy(e, 2 * p->n, r, z);
    case SPK_ZPC_JACOBI: return spk_zops_get(e)->mul(e, p->n, p->dinv, r, z);
    default: break;
    }
    if (on_host(p)) {
        spk_zfactor_solve_host(&p->F, p->diag, r, z);
        return SPK_OK;
    }
#ifdef SPK_HAVE_CUDA
    return spk_zprecond_cuda_apply(p, r, z);
#else
    return spk_err_set(e->err, SPK_ERR_UNSUPPORTED, "complex %s: no triangular solves on the %s executor",
                       kind_names[p->kind], e->ops->name);
#endif
}

int spk_zprecond_refactor(spk_zprecond *p, const spk_zcsr *A)
{
    if (!p) return SPK_ERR_INVALID_ARG;
    SPK_TRY(check_matrix(p->e->err, A, p->n));
    return load(p, A, 1);
}

const char *spk_zprecond_name(const spk_zprecond *p)
{
    return p ? kind_names[p->kind] : "none";
}

double spk_zprecond_shift(const spk_zprecond *p)
{
    return p ? p->shift : 0;
}

int spk_zprecond_size(const spk_zprecond *p)
{
    return p ? p->n : 0;
}

void spk_zprecond_destroy(spk_zprecond *p)
{
    if (!p) return;
#ifdef SPK_HAVE_CUDA
    if (p->dev) spk_zprecond_cuda_free(p);
#endif
    if (p->dinv) p->e->ops->free(p->e, p->dinv);
    spk_zcsr_free(&p->F);
    free(p->diag);
    free(p);
}

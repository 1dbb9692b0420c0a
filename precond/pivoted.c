/* pivoted.c -- a preconditioner built on P A instead of A: P permutes the
 * rows by a maximum product matching (core/matching.c), so that ILU(0) or
 * Jacobi find a diagonal where A has zeros on its own.  M = P^T M_inner, so
 *     z = M^-1 r = M_inner^-1 (P r):
 * the gather P r is a product with P stored as CSR (one 1 per row), in the
 * executor's csr format, so the same code runs on the host and the GPU and
 * records into graphs like any product.  The solver's operator, b and x
 * stay A's: only the preconditioner sees the permuted rows. */
#include <stdlib.h>
#include <string.h>

#include "precond/precond.h"

typedef struct pivoted {
    spk_exec *e;
    int n, moved;
    int *rowof;                         /* row i of PA is row rowof[i] of A */
    int *map;                           /* entry k of PA is entry map[k] of A */
    spk_csr PA, P;
    const struct spk_spmv_ops *P_ops;
    void *Pm;
    const struct spk_precond_ops *inner_ops;
    void *inner;
    double *t;                          /* P r, on the executor */
} pivoted;

static void piv_destroy(void *impl)
{
    pivoted *v = impl;
    if (!v) return;
    if (v->inner) v->inner_ops->destroy(v->inner);
    if (v->Pm) v->P_ops->destroy(v->Pm);
    if (v->t) v->e->ops->free(v->e, v->t);
    spk_csr_free(&v->PA);
    spk_csr_free(&v->P);
    free(v->rowof);
    free(v->map);
    free(v);
}

int spk_precond_pivoted_create(spk_exec *e, const spk_csr *A, const struct spk_precond_ops *inner,
                               const spk_precond_opts *o, void **impl)
{
    *impl = NULL;
    const int n = A->nrows;
    pivoted *v = calloc(1, sizeof *v);
    if (!v) return spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (pivoted preconditioner)");
    v->e = e;
    v->n = n;
    v->inner_ops = inner;
    int st = SPK_OK;
    v->rowof = spk_malloc((size_t)n + 1, sizeof(int), "static pivoting's row order", e->err);
    v->map = spk_malloc((size_t)A->nnz + 1, sizeof(int), "static pivoting's entry map", e->err);
    if (!v->rowof || !v->map) st = SPK_ERR_NOMEM;
    if (!st) st = spk_csr_max_product_matching(A, v->rowof, NULL, e->err);
    if (!st) st = spk_csr_permute_rows(A, v->rowof, &v->PA, v->map, e->err);
    if (!st) st = spk_csr_alloc(&v->P, n, n, n, e->err);
    if (!st) {
        for (int i = 0; i < n; i++) {
            v->P.rowptr[i + 1] = i + 1;
            v->P.colind[i] = v->rowof[i];
            v->P.val[i] = 1.0;
            v->moved += v->rowof[i] != i;
        }
        spk_spmv_opts so;
        memset(&so, 0, sizeof so);
        /* one entry a row: the plain row-per-thread CSR on the GPU */
        st = spk_spmv_find(spk_exec_is_host(e) ? "csr" : "csr-scalar", e, &v->P_ops, e->err);
        if (!st) st = v->P_ops->create(e, &v->P, &so, &v->Pm);
    }
    if (!st) st = spk_exec_alloc_vec(e, n, &v->t);
    if (!st) st = inner->create(e, &v->PA, o, &v->inner);
    if (st) {
        piv_destroy(v);
        return st;
    }
    *impl = v;
    return SPK_OK;
}

static int piv_apply(void *impl, const double *r, double *z)
{
    pivoted *v = impl;
    SPK_TRY(v->P_ops->apply(v->Pm, 1.0, r, 0.0, v->t));
    return v->inner_ops->apply(v->inner, v->t, z);
}

/* new values on A's pattern: PA's follow through the map, the inner one refactors */
static int piv_refactor(void *impl, const spk_csr *A)
{
    pivoted *v = impl;
    if (A->nnz != v->PA.nnz)
        return spk_err_set(v->e->err, SPK_ERR_INVALID_MATRIX, "pivoted preconditioner: %d entries for %d", A->nnz,
                           v->PA.nnz);
    for (int k = 0; k < v->PA.nnz; k++) v->PA.val[k] = A->val[v->map[k]];
    return v->inner_ops->refactor(v->inner, &v->PA);
}

static double piv_shift(const void *impl)
{
    const pivoted *v = impl;
    return v->inner_ops->shift ? v->inner_ops->shift(v->inner) : 0.0;
}

static const char *piv_describe(const void *impl)
{
    const pivoted *v = impl;
    return v->inner_ops->describe ? v->inner_ops->describe(v->inner) : v->inner_ops->name;
}

static int piv_sweeps(const void *impl)
{
    const pivoted *v = impl;
    return v->inner_ops->sweeps ? v->inner_ops->sweeps(v->inner) : 0;
}

static int piv_factor_info(const void *impl, spk_precond_factor_info *out)
{
    const pivoted *v = impl;
    return v->inner_ops->factor_info ? v->inner_ops->factor_info(v->inner, out) : SPK_ERR_NOT_FOUND;
}

int spk_precond_pivoted_moved(const void *impl)
{
    return ((const pivoted *)impl)->moved;
}

/* found by no name: the solver wraps the preconditioner it chose (solver/setup.c) */
const struct spk_precond_ops spk_precond_pivoted = {
    .name = "pivoted", .exec = "any", .apply = piv_apply, .refactor = piv_refactor, .destroy = piv_destroy,
    .shift = piv_shift, .describe = piv_describe, .sweeps = piv_sweeps, .factor_info = piv_factor_info,
};

/* jacobi.c -- the Jacobi (diagonal) preconditioner: z_i = r_i / a_ii.
 *
 * The reciprocals 1/a_ii are stored at setup, so apply is one multiply per
 * entry (3 doubles of traffic per row). */
#include <math.h>
#include <stdlib.h>

#include "precond/precond.h"

typedef struct jacobi {
    spk_exec *exec;
    int n;
    double *inv; /* 1 / a_ii */
} jacobi;

/* inv_i = 1 / a_ii; a zero, missing or non-finite a_ii is a zero pivot at row i. */
static int jacobi_load(jacobi *J, const spk_csr *A)
{
    spk_err *err = J->exec->err;
    if (!A) return spk_err_set(err, SPK_ERR_INVALID_ARG, "Jacobi: the matrix is NULL");
    if (A->nrows != J->n || A->ncols != J->n)
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX,
                           "Jacobi: the matrix is %d x %d, but the preconditioner was set up for "
                           "%d x %d",
                           A->nrows, A->ncols, J->n, J->n);
    if (spk_csr_validate(A, 1, err)) return spk_err_prefix(err, "Jacobi");
    if (A->nnz > 0 && !A->val)
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX, "Jacobi: the matrix has no values");
    for (int i = 0; i < J->n; i++) {
        int found = 0;
        double d = 0;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] == i) {
                d = A->val[k];
                found = 1;
                break;
            }
        if (!found)
            return spk_err_set(err, SPK_ERR_ZERO_PIVOT,
                               "Jacobi: zero diagonal entry at row %d (0-based; a_ii is not "
                               "stored)",
                               i);
        if (d == 0)
            return spk_err_set(err, SPK_ERR_ZERO_PIVOT,
                               "Jacobi: zero diagonal entry at row %d (0-based)", i);
        if (!isfinite(d))
            return spk_err_set(err, SPK_ERR_ZERO_PIVOT,
                               "Jacobi: non-finite diagonal entry %g at row %d (0-based)", d, i);
        J->inv[i] = 1.0 / d;
    }
    return SPK_OK;
}

/* Store 1/a_ii for a square canonical A on the host executor. */
static int jacobi_create(spk_exec *e, const spk_csr *A, const spk_precond_opts *o, void **impl)
{
    jacobi *J = NULL;
    int st = SPK_OK;
    (void)o;
    if (!e || !impl) return e ? spk_err_set(e->err, SPK_ERR_INVALID_ARG, "Jacobi: impl is NULL")
                              : SPK_ERR_INVALID_ARG;
    *impl = NULL;
    if (!spk_exec_is_host(e))
        return spk_err_set(e->err, SPK_ERR_INVALID_ARG,
                           "Jacobi: the host preconditioner was given the '%s' executor",
                           e->ops ? e->ops->name : "?");
    if (!A) return spk_err_set(e->err, SPK_ERR_INVALID_ARG, "Jacobi: the matrix is NULL");
    if (A->nrows != A->ncols)
        return spk_err_set(e->err, SPK_ERR_INVALID_MATRIX,
                           "Jacobi: the matrix is %d x %d; a square matrix is required", A->nrows,
                           A->ncols);
    J = spk_calloc(1, sizeof *J, "Jacobi preconditioner", e->err);
    if (!J) return SPK_ERR_NOMEM;
    J->exec = e;
    J->n = A->nrows;
    J->inv = spk_malloc((size_t)J->n, sizeof(double), "Jacobi diagonal", e->err);
    if (!J->inv) {
        st = SPK_ERR_NOMEM;
        goto cleanup;
    }
    SPK_CHECK(st, jacobi_load(J, A));
    *impl = J;
    J = NULL;
cleanup:
    if (J) free(J->inv);
    free(J);
    return st;
}

/* z_i = r_i / a_ii */
static int jacobi_apply(void *impl, const double *r, double *z)
{
    const jacobi *J = impl;
    if (!J || !r || !z) return SPK_ERR_INVALID_ARG;
    const double *inv = J->inv;
    for (int i = 0; i < J->n; i++) z[i] = r[i] * inv[i];
    return SPK_OK;
}

/* New values: recompute the reciprocals in place. */
static int jacobi_refactor(void *impl, const spk_csr *A)
{
    if (!impl) return SPK_ERR_INVALID_ARG;
    return jacobi_load(impl, A);
}

static void jacobi_destroy(void *impl)
{
    jacobi *J = impl;
    if (!J) return;
    free(J->inv);
    free(J);
}

static double jacobi_shift(const void *impl)
{
    (void)impl;
    return 0.0;
}

const struct spk_precond_ops spk_precond_jacobi_host = {
    "jacobi", "host", jacobi_create, jacobi_apply, jacobi_refactor, jacobi_destroy, jacobi_shift,
};

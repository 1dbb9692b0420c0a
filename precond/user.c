/* user.c -- the caller's preconditioner (SPK_PRECOND_USER): z = M^-1 r by
 * a function of the caller's on host arrays (spk_options.precond_apply).
 * On the host it is called on the solver's vectors; on the GPU r is copied
 * into a host buffer and z back after the call, so each apply waits (the
 * solver runs such a preconditioner in fused steps, never in graphs). */
#include <stdlib.h>

#include "precond/precond.h"

typedef struct user_prec {
    spk_exec *exec;
    int n;
    int (*fn)(void *user, int n, const double *r, double *z);
    void *arg;
    double *hr, *hz; /* host buffers (GPU only), else NULL */
} user_prec;

static void user_destroy(void *impl)
{
    user_prec *U = impl;
    if (!U) return;
    free(U->hr);
    free(U->hz);
    free(U);
}

static int user_create(spk_exec *e, const spk_csr *A, const spk_precond_opts *o, void **impl)
{
    if (!e || !impl || !A || !o) return e ? spk_err_set(e->err, SPK_ERR_INVALID_ARG, "user preconditioner: NULL argument")
                                          : SPK_ERR_INVALID_ARG;
    *impl = NULL;
    if (!o->user_apply)
        return spk_err_set(e->err, SPK_ERR_INVALID_ARG,
                           "SPK_PRECOND_USER needs spk_options.precond_apply (spk_options_set_precond)");
    user_prec *U = calloc(1, sizeof *U);
    if (!U) return spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (user preconditioner)");
    U->exec = e;
    U->n = A->nrows;
    U->fn = o->user_apply;
    U->arg = o->user_arg;
    if (!spk_exec_is_host(e)) {
        U->hr = spk_malloc((size_t)U->n + 1, sizeof(double), "the user preconditioner's r", e->err);
        U->hz = spk_malloc((size_t)U->n + 1, sizeof(double), "the user preconditioner's z", e->err);
        if (!U->hr || !U->hz) {
            user_destroy(U);
            return SPK_ERR_NOMEM;
        }
    }
    *impl = U;
    return SPK_OK;
}

static int user_apply(void *impl, const double *r, double *z)
{
    user_prec *U = impl;
    spk_exec *e = U->exec;
    const size_t bytes = (size_t)U->n * sizeof(double);
    const double *hr = r;
    double *hz = z;
    if (U->hr) {
        SPK_TRY(e->ops->download(e, U->hr, r, bytes));
        hr = U->hr;
        hz = U->hz;
    }
    const int rc = U->fn(U->arg, U->n, hr, hz);
    if (rc) return spk_err_set(e->err, SPK_ERR_INVALID_ARG, "the caller's preconditioner returned %d", rc);
    if (U->hz) SPK_TRY(e->ops->upload(e, z, U->hz, bytes));
    return SPK_OK;
}

/* nothing to redo for new values: the caller's M is the caller's to update */
static int user_refactor(void *impl, const spk_csr *A)
{
    user_prec *U = impl;
    if (A && A->nrows != U->n)
        return spk_err_set(U->exec->err, SPK_ERR_INVALID_MATRIX,
                           "user preconditioner: the matrix has %d rows, the preconditioner %d", A->nrows, U->n);
    return SPK_OK;
}

static double user_shift(const void *impl)
{
    (void)impl;
    return 0;
}

const struct spk_precond_ops spk_precond_user_host = {
    .name = "user", .exec = "host", .create = user_create, .apply = user_apply,
    .refactor = user_refactor, .destroy = user_destroy, .shift = user_shift,
};

const struct spk_precond_ops spk_precond_user_cuda = {
    .name = "user", .exec = "cuda", .create = user_create, .apply = user_apply,
    .refactor = user_refactor, .destroy = user_destroy, .shift = user_shift,
};

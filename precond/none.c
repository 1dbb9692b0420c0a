/* none.c -- the identity preconditioner M = I.
 *
 * apply is NULL: the drivers then use z = r itself (no copy, no work). */
#include "precond/precond.h"

/* Nothing to set up: *impl = NULL. */
static int none_create(spk_exec *e, const spk_csr *A, const spk_precond_opts *o, void **impl)
{
    (void)A;
    (void)o;
    if (!impl) return e ? spk_err_set(e->err, SPK_ERR_INVALID_ARG, "none: impl is NULL")
                        : SPK_ERR_INVALID_ARG;
    *impl = NULL;
    return SPK_OK;
}

/* M = I whatever the values. */
static int none_refactor(void *impl, const spk_csr *A)
{
    (void)impl;
    (void)A;
    return SPK_OK;
}

static void none_destroy(void *impl)
{
    (void)impl;
}

static double none_shift(const void *impl)
{
    (void)impl;
    return 0.0;
}

const struct spk_precond_ops spk_precond_none_host = {
    "none", "host", none_create, NULL, none_refactor, none_destroy, none_shift, NULL, NULL, NULL, NULL, NULL, NULL,
};

/* The same on the GPU: nothing to set up or apply, on any executor. */
const struct spk_precond_ops spk_precond_none_cuda = {
    "none", "cuda", none_create, NULL, none_refactor, none_destroy, none_shift, NULL, NULL, NULL, NULL, NULL, NULL,
};

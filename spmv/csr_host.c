/* csr_host.c -- the host reference SpMV backend "csr": plain CSR rows, one
 * pass.  Traffic per call: 12*nnz + 4*(rows+1) + 8*cols + 8*rows bytes
 * (+8*rows when beta != 0). */
#include <stdlib.h>
#include <string.h>

#include "spmv.h"

typedef struct csr_host {
    const spk_csr *A; /* borrowed: the matrix outlives the backend */
    double setup;
} csr_host;

static int csr_create(spk_exec *e, const spk_csr *A, const spk_spmv_opts *o, void **impl)
{
    (void)o;
    double t0 = spk_time_now();
    if (!spk_exec_is_host(e))
        return spk_err_set(e->err, SPK_ERR_NOT_FOUND, "format 'csr' needs the host executor");
    csr_host *h = calloc(1, sizeof *h);
    if (!h) return spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (csr backend)");
    h->A = A;
    h->setup = spk_time_now() - t0;
    *impl = h;
    return SPK_OK;
}

/* y = alpha*A*x + beta*y */
static int csr_apply(void *impl, double alpha, const double *x, double beta, double *y)
{
    const csr_host *h = impl;
    spk_csr_spmv(h->A, alpha, x, beta, y);
    return SPK_OK;
}

static int csr_update(void *impl, const spk_csr *A)
{
    ((csr_host *)impl)->A = A;
    return SPK_OK;
}

static void csr_destroy(void *impl)
{
    free(impl);
}

static void csr_stats(const void *impl, spk_spmv_stats *s)
{
    const csr_host *h = impl;
    memset(s, 0, sizeof *s);
    s->bytes = ((size_t)h->A->nrows + 1) * sizeof(int) + (size_t)h->A->nnz * (sizeof(int) + sizeof(double));
    s->setup_seconds = h->setup;
}

const struct spk_spmv_ops spk_spmv_csr_host = {
    "csr", "host", "CSR on the host (reference)", csr_create, csr_apply, csr_update, csr_destroy,
    csr_stats, NULL,
};

/* csr_host.c -- the host reference SpMV backend "csr": plain CSR rows, one
 * pass.  Traffic per call: 12*nnz + 4*(rows+1) + 8*cols + 8*rows bytes
 * (+8*rows when beta != 0).  In single precision it keeps a float copy of
 * the values and forms each row's sum of their products with x in double,
 * y rounded to float once (the reference of the float formats). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spmv.h"

typedef struct csr_host {
    const spk_csr *A; /* borrowed: the matrix outlives the backend */
    spk_exec *e;
    float *fval;      /* single precision: A's values in float (owned) */
    double setup;
} csr_host;

/* h->fval from A's values (single precision) */
static int csr_float_values(csr_host *h, const spk_csr *A)
{
    float *v = malloc(((size_t)A->nnz + 1) * sizeof(float));
    if (!v) return spk_err_set(h->e->err, SPK_ERR_NOMEM, "out of host memory (csr values in float)");
    for (int k = 0; k < A->nnz; k++) v[k] = (float)A->val[k];
    free(h->fval);
    h->fval = v;
    return SPK_OK;
}

static int csr_create(spk_exec *e, const spk_csr *A, const spk_spmv_opts *o, void **impl)
{
    double t0 = spk_time_now();
    if (!spk_exec_is_host(e))
        return spk_err_set(e->err, SPK_ERR_NOT_FOUND, "format 'csr' needs the host executor");
    csr_host *h = calloc(1, sizeof *h);
    if (!h) return spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (csr backend)");
    h->A = A;
    h->e = e;
    if (o && o->precision == SPK_SPMV_FLOAT && csr_float_values(h, A)) {
        free(h);
        return SPK_ERR_NOMEM;
    }
    h->setup = spk_time_now() - t0;
    *impl = h;
    return SPK_OK;
}

/* y = alpha*A*x + beta*y */
static int csr_apply(void *impl, double alpha, const double *x, double beta, double *y)
{
    const csr_host *h = impl;
    if (h->fval) return spk_spmv_wrong_precision(h->e, "csr", 1);
    spk_csr_spmv(h->A, alpha, x, beta, y);
    return SPK_OK;
}

static int csr_apply_float(void *impl, float alpha, const float *x, float beta, float *y)
{
    const csr_host *h = impl;
    if (!h->fval) return spk_spmv_wrong_precision(h->e, "csr", 0);
    const spk_csr *A = h->A;
    for (int i = 0; i < A->nrows; i++) {
        double s = 0;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) s += (double)h->fval[k] * x[A->colind[k]];
        y[i] = (float)(beta == 0.0f ? alpha * s : alpha * s + (double)beta * y[i]);
    }
    return SPK_OK;
}

static int csr_update(void *impl, const spk_csr *A)
{
    csr_host *h = impl;
    if (h->fval) SPK_TRY(csr_float_values(h, A));
    h->A = A;
    return SPK_OK;
}

static void csr_destroy(void *impl)
{
    csr_host *h = impl;
    if (h) free(h->fval);
    free(h);
}

static void csr_stats(const void *impl, spk_spmv_stats *s)
{
    const csr_host *h = impl;
    memset(s, 0, sizeof *s);
    s->bytes = ((size_t)h->A->nrows + 1) * sizeof(int) +
               (size_t)h->A->nnz * (sizeof(int) + (h->fval ? sizeof(float) : sizeof(double)));
    s->setup_seconds = h->setup;
    if (h->fval) snprintf(s->detail, sizeof s->detail, "CSR, values in float");
}

const struct spk_spmv_ops spk_spmv_csr_host = {
    "csr", "host", "CSR on the host (reference)", csr_create, csr_apply, csr_update, csr_destroy,
    csr_stats, NULL, csr_apply_float,
};

/* coo.c -- the "coo" format: row-sorted triplets.  The kernel scales y by
 * beta, then each thread adds a run of consecutive entries, flushing its sum
 * with one atomic add whenever the row changes (so atomics are about one per
 * row per thread, not one per entry).  Summation order differs from CSR's:
 * results agree to rounding.  Traffic: 16*nnz + 8*cols + 16*rows bytes. */
#include <stdio.h>
#include <stdlib.h>

#include "coo.h"
#ifdef SPK_HAVE_CUDA
#include "core/exec_cuda.h"
#include "devbuild.h"
#endif

int spk_coo_fill(const spk_csr *A, int skip, spk_fmt_coo *C, spk_err *err)
{
    size_t m = 0;
    for (int i = 0; i < A->nrows; i++) {
        int len = A->rowptr[i + 1] - A->rowptr[i];
        if (len > skip) m += (size_t)(len - skip);
    }
    C->nrows = A->nrows;
    C->ncols = A->ncols;
    C->nnz = (int)m;
    C->row = spk_malloc(m, sizeof(int), "COO rows", err);
    C->col = spk_malloc(m, sizeof(int), "COO columns", err);
    C->val = spk_malloc(m, sizeof(double), "COO values", err);
    if (!C->row || !C->col || !C->val) return SPK_ERR_NOMEM;
    size_t q = 0;
    for (int i = 0; i < A->nrows; i++)
        for (int k = A->rowptr[i] + skip; k < A->rowptr[i + 1]; k++) {
            C->row[q] = i;
            C->col[q] = A->colind[k];
            C->val[q++] = A->val[k];
        }
    return SPK_OK;
}

int spk_coo_arrays(spk_fmt_coo *C, spk_format_array *l)
{
    l[0] = (spk_format_array){(void **)&C->row, (size_t)C->nnz * sizeof(int), 0};
    l[1] = (spk_format_array){(void **)&C->col, (size_t)C->nnz * sizeof(int), 0};
    l[2] = (spk_format_array){(void **)&C->val, (size_t)C->nnz * sizeof(double), 1};
    return 3;
}

void spk_coo_accumulate_ref(const spk_fmt_coo *C, double alpha, const double *x, double *y)
{
    for (int k = 0; k < C->nnz; k++) y[C->row[k]] += alpha * (C->val[k] * x[C->col[k]]);
}

static int coo_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    (void)o;
    return spk_coo_fill(A, 0, fmt, err);
}

static int coo_arrays(void *fmt, spk_format_array *l)
{
    return spk_coo_arrays(fmt, l);
}

/* y = beta*y (0 when beta == 0, y not read), then y += alpha*A*x */
static void coo_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    const spk_fmt_coo *C = fmt;
    for (int i = 0; i < C->nrows; i++) y[i] = beta == 0.0 ? 0.0 : beta * y[i];
    spk_coo_accumulate_ref(C, alpha, x, y);
}

static void coo_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_coo *C = fmt;
    snprintf(buf, len, "COO, %d entries sorted by row", C->nnz);
}

#ifdef SPK_HAVE_CUDA
/* On the device: row of each entry from the row pointers, columns and values copied. */
static int coo_build(spk_exec *e, const spk_csr *A, const spk_csr *dA, const spk_spmv_opts *o, void *fmt)
{
    (void)o;
    spk_fmt_coo *C = fmt;
    C->nrows = A->nrows;
    C->ncols = A->ncols;
    C->nnz = A->nnz;
    SPK_TRY(spk_cuda_alloc(e, (size_t)A->nnz * sizeof(int), "COO rows", (void **)&C->row));
    SPK_TRY(spk_cuda_alloc(e, (size_t)A->nnz * sizeof(int), "COO columns", (void **)&C->col));
    SPK_TRY(spk_cuda_alloc(e, (size_t)A->nnz * sizeof(double), "COO values", (void **)&C->val));
    cudaStream_t s;
    spk_exec_cuda_handles(e, &s, NULL, NULL);
    return spk_cuda_check(e->err,
                          spk_dev_coo_rest(s, A->nrows, 0, dA->rowptr, dA->rowptr, dA->colind, dA->val, C->row,
                                           C->col, C->val),
                          "the COO build kernel");
}
#endif

static const spk_format coo_format = {
    "coo", "coordinate", sizeof(spk_fmt_coo), coo_convert, coo_arrays, coo_ref,
    SPK_FORMAT_LAUNCH(spk_coo_launch), coo_describe, SPK_FORMAT_BUILD(coo_build),
};

SPK_FORMAT_BACKENDS(coo, "coo", "coordinate triplets, runs of entries with atomic row updates", coo_format)

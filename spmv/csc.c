/* csc.c -- the "csc" format (csc.h): CSR transposed by a counting pass over
 * the columns, then each row's entries dealt to their columns in increasing
 * row, so each column's rows come out sorted. */
#include <stdio.h>
#include <stdlib.h>

#include "csc.h"

static int csc_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    (void)o;
    spk_fmt_csc *C = fmt;
    const int m = A->nrows, n = A->ncols, nnz = A->nnz;
    C->nrows = m;
    C->ncols = n;
    C->nnz = nnz;
    C->colptr = spk_calloc((size_t)n + 1, sizeof(int), "CSC column pointers", err);
    if (!C->colptr) return SPK_ERR_NOMEM;
    if (nnz == 0) return SPK_OK;
    C->rowind = spk_malloc((size_t)nnz, sizeof(int), "CSC row indices", err);
    C->val = spk_malloc((size_t)nnz, sizeof(double), "CSC values", err);
    int *next = spk_malloc((size_t)n + 1, sizeof(int), "CSC fill positions", err);
    if (!C->rowind || !C->val || !next) {
        free(next);
        return SPK_ERR_NOMEM;
    }
    for (int k = 0; k < nnz; k++) C->colptr[A->colind[k] + 1]++;
    for (int j = 0; j < n; j++) C->colptr[j + 1] += C->colptr[j];
    for (int j = 0; j <= n; j++) next[j] = C->colptr[j];
    for (int i = 0; i < m; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            const int q = next[A->colind[k]]++;
            C->rowind[q] = i;
            C->val[q] = A->val[k];
        }
    free(next);
    return SPK_OK;
}

static int csc_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_csc *C = fmt;
    l[0] = (spk_format_array){(void **)&C->colptr, ((size_t)C->ncols + 1) * sizeof(int), 0};
    l[1] = (spk_format_array){(void **)&C->rowind, (size_t)C->nnz * sizeof(int), 0};
    l[2] = (spk_format_array){(void **)&C->val, (size_t)C->nnz * sizeof(double), 1};
    return 3;
}

void spk_csc_ref(const spk_fmt_csc *C, double alpha, const double *x, double beta, double *y)
{
    for (int i = 0; i < C->nrows; i++) y[i] = beta == 0.0 ? 0.0 : beta * y[i];
    for (int j = 0; j < C->ncols; j++) {
        const double xj = x[j];
        for (int q = C->colptr[j]; q < C->colptr[j + 1]; q++) y[C->rowind[q]] += alpha * (C->val[q] * xj);
    }
}

static void csc_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    spk_csc_ref(fmt, alpha, x, beta, y);
}

static void csc_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_csc *C = fmt;
    snprintf(buf, len, "CSC, %d columns, %d nonzeros", C->ncols, C->nnz);
}

static const spk_format csc_format = {
    "csc", "CSC, traversed by columns", sizeof(spk_fmt_csc), csc_convert, csc_arrays, csc_ref,
    SPK_FORMAT_LAUNCH(spk_csc_launch), csc_describe, SPK_FORMAT_BUILD(NULL),
};

SPK_FORMAT_BACKENDS(csc, "csc", "CSC: compressed columns, a thread per column adding into y (atomics)", csc_format)

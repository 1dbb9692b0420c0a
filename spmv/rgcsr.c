/* rgcsr.c -- the "rgcsr" format (rgcsr.h): groups of SPK_RGCSR_GROUP rows,
 * each stored column-major and padded to its longest row, with the rows'
 * lengths. */
#include <stdio.h>
#include <stdlib.h>

#include "rgcsr.h"

static int rgcsr_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    (void)o;
    spk_fmt_rgcsr *G = fmt;
    const int m = A->nrows, g = SPK_RGCSR_GROUP;
    G->nrows = m;
    G->ncols = A->ncols;
    G->nnz = A->nnz;
    G->ngroups = (m + g - 1) / g;
    /* the entries each group stores: its longest row times the group size */
    size_t stored = 0;
    for (int q = 0; q < G->ngroups; q++) {
        int w = 0;
        for (int i = q * g; i < m && i < (q + 1) * g; i++)
            if (A->rowptr[i + 1] - A->rowptr[i] > w) w = A->rowptr[i + 1] - A->rowptr[i];
        stored += (size_t)w * (size_t)g;
    }
    SPK_TRY(spk_format_check_stored("rgcsr", stored, (size_t)A->nnz, m, NULL, err));
    G->stored = (long long)stored;
    G->gptr = spk_malloc((size_t)G->ngroups + 1, sizeof(int), "RgCSR group pointers", err);
    G->rowlen = spk_malloc((size_t)m + 1, sizeof(int), "RgCSR row lengths", err);
    G->colind = spk_malloc(stored + 1, sizeof(int), "RgCSR column indices", err);
    G->val = spk_malloc(stored + 1, sizeof(double), "RgCSR values", err);
    if (!G->gptr || !G->rowlen || !G->colind || !G->val) return SPK_ERR_NOMEM;
    size_t at = 0;
    for (int q = 0; q < G->ngroups; q++) {
        G->gptr[q] = (int)at;
        int w = 0;
        for (int i = q * g; i < m && i < (q + 1) * g; i++)
            if (A->rowptr[i + 1] - A->rowptr[i] > w) w = A->rowptr[i + 1] - A->rowptr[i];
        for (int r = 0; r < g; r++) {
            const int i = q * g + r;
            const int b = i < m ? A->rowptr[i] : 0, len = i < m ? A->rowptr[i + 1] - b : 0;
            if (i < m) G->rowlen[i] = len;
            /* padding: value 0 at the row's last column (column 0 for a row with none), never read */
            const int pad = len > 0 ? A->colind[b + len - 1] : 0;
            for (int k = 0; k < w; k++) {
                const size_t p = at + (size_t)k * g + (size_t)r;
                G->colind[p] = k < len ? A->colind[b + k] : pad;
                G->val[p] = k < len ? A->val[b + k] : 0.0;
            }
        }
        at += (size_t)w * (size_t)g;
    }
    G->gptr[G->ngroups] = (int)at;
    return SPK_OK;
}

static int rgcsr_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_rgcsr *G = fmt;
    l[0] = (spk_format_array){(void **)&G->gptr, ((size_t)G->ngroups + 1) * sizeof(int), 0};
    l[1] = (spk_format_array){(void **)&G->rowlen, (size_t)G->nrows * sizeof(int), 0};
    l[2] = (spk_format_array){(void **)&G->colind, (size_t)G->stored * sizeof(int), 0};
    l[3] = (spk_format_array){(void **)&G->val, (size_t)G->stored * sizeof(double), 1};
    return 4;
}

void spk_rgcsr_ref(const spk_fmt_rgcsr *G, double alpha, const double *x, double beta, double *y)
{
    const int g = SPK_RGCSR_GROUP;
    for (int i = 0; i < G->nrows; i++) {
        const size_t base = (size_t)G->gptr[i / g] + (size_t)(i % g);
        double s = 0;
        for (int k = 0; k < G->rowlen[i]; k++) {
            const size_t p = base + (size_t)k * g;
            s += G->val[p] * x[G->colind[p]];
        }
        y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
    }
}

static void rgcsr_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    spk_rgcsr_ref(fmt, alpha, x, beta, y);
}

static void rgcsr_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_rgcsr *G = fmt;
    snprintf(buf, len, "RgCSR, %d groups of %d rows, %lld stored entries for %d nonzeros (%.2fx)", G->ngroups,
             SPK_RGCSR_GROUP, G->stored, G->nnz, G->nnz > 0 ? (double)G->stored / G->nnz : 0.0);
}

static const spk_format rgcsr_format = {
    "rgcsr", "RgCSR, row-grouped CSR", sizeof(spk_fmt_rgcsr), rgcsr_convert, rgcsr_arrays, rgcsr_ref,
    SPK_FORMAT_LAUNCH(spk_rgcsr_launch), rgcsr_describe, SPK_FORMAT_BUILD(NULL),
};

SPK_FORMAT_BACKENDS(rgcsr, "rgcsr",
                    "RgCSR: groups of 32 rows stored column-major, padded to the group's longest row, row lengths kept",
                    rgcsr_format)

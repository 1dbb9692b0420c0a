/* scsr.c -- the "scsr" and "sbcsr" formats (scsr.h): CSR and BCSR with
 * their rows dealt to streams. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scsr.h"

/* ---- streamed CSR ---- */

static int scsr_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    (void)o;
    spk_fmt_scsr *F = fmt;
    const int m = A->nrows, S = SPK_SCSR_STREAMS;
    F->nrows = m;
    F->ncols = A->ncols;
    F->nnz = A->nnz;
    F->nbr = (m + S - 1) / S;
    F->ptr = spk_malloc((size_t)F->nbr + 1, sizeof(int), "streamed CSR pointers", err);
    if (!F->ptr) return SPK_ERR_NOMEM;
    long long L = 0;
    for (int br = 0; br < F->nbr; br++) { /* each block row: its longest row */
        F->ptr[br] = (int)(L < INT_MAX ? L : INT_MAX);
        int w = 0;
        for (int i = br * S; i < m && i < (br + 1) * S; i++)
            if (A->rowptr[i + 1] - A->rowptr[i] > w) w = A->rowptr[i + 1] - A->rowptr[i];
        L += w;
    }
    F->ptr[F->nbr] = (int)(L < INT_MAX ? L : INT_MAX);
    const size_t stored = (size_t)L * S;
    SPK_TRY(spk_format_check_stored("scsr", stored, (size_t)A->nnz, m, NULL, err));
    F->len = L;
    F->colind = spk_malloc(stored + 1, sizeof(int), "streamed CSR column indices", err);
    F->val = spk_malloc(stored + 1, sizeof(double), "streamed CSR values", err);
    if (!F->colind || !F->val) return SPK_ERR_NOMEM;
    for (int i = 0; i < F->nbr * S; i++) {
        const int s = i % S, br = i / S, w = F->ptr[br + 1] - F->ptr[br];
        const int b = i < m ? A->rowptr[i] : 0, l = i < m ? A->rowptr[i + 1] - b : 0;
        const int pad = l > 0 ? A->colind[b + l - 1] : 0;
        for (int k = 0; k < w; k++) {
            const size_t q = (size_t)s * (size_t)L + (size_t)F->ptr[br] + (size_t)k;
            F->colind[q] = k < l ? A->colind[b + k] : pad;
            F->val[q] = k < l ? A->val[b + k] : 0.0;
        }
    }
    return SPK_OK;
}

static int scsr_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_scsr *F = fmt;
    const size_t stored = (size_t)F->len * SPK_SCSR_STREAMS;
    l[0] = (spk_format_array){(void **)&F->ptr, ((size_t)F->nbr + 1) * sizeof(int), 0};
    l[1] = (spk_format_array){(void **)&F->colind, stored * sizeof(int), 0};
    l[2] = (spk_format_array){(void **)&F->val, stored * sizeof(double), 1};
    return 3;
}

void spk_scsr_ref(const spk_fmt_scsr *F, double alpha, const double *x, double beta, double *y)
{
    const int S = SPK_SCSR_STREAMS;
    for (int i = 0; i < F->nrows; i++) {
        const int br = i / S;
        const size_t base = (size_t)(i % S) * (size_t)F->len + (size_t)F->ptr[br];
        double s = 0;
        for (int k = 0; k < F->ptr[br + 1] - F->ptr[br]; k++) s += F->val[base + k] * x[F->colind[base + k]];
        y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
    }
}

static void scsr_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    spk_scsr_ref(fmt, alpha, x, beta, y);
}

static void scsr_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_scsr *F = fmt;
    const long long stored = F->len * SPK_SCSR_STREAMS;
    snprintf(buf, len, "streamed CSR, %d streams of %lld entries, %d block rows, %lld stored for %d nonzeros (%.2fx)",
             SPK_SCSR_STREAMS, F->len, F->nbr, stored, F->nnz, F->nnz > 0 ? (double)stored / F->nnz : 0.0);
}

static const spk_format scsr_format = {
    "scsr", "streamed CSR", sizeof(spk_fmt_scsr), scsr_convert, scsr_arrays, scsr_ref,
    SPK_FORMAT_LAUNCH(spk_scsr_launch), scsr_describe, SPK_FORMAT_BUILD(NULL),
};

SPK_FORMAT_BACKENDS(scsr, "scsr",
                    "streamed CSR: row i in stream i mod 32, block rows padded to their longest row, a lane per stream",
                    scsr_format)

/* ---- streamed BCSR ---- */

static int sbcsr_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    spk_fmt_sbcsr *F = fmt;
    const int m = A->nrows, n = A->ncols, b = o && o->bcsr_block > 0 ? o->bcsr_block : 4;
    const int nbc = (n + b - 1) / b;
    F->nrows = m;
    F->ncols = n;
    F->nnz = A->nnz;
    F->b = b;
    F->mb = (m + b - 1) / b;
    F->browptr = spk_malloc((size_t)F->mb + 1, sizeof(int), "streamed BCSR block row pointers", err);
    int *mark = spk_malloc((size_t)nbc + 1, sizeof(int), "streamed BCSR block marks", err);
    if (!F->browptr || !mark) {
        free(mark);
        return SPK_ERR_NOMEM;
    }
    for (int c = 0; c < nbc; c++) mark[c] = -1;
    /* count: the distinct block columns of each block row */
    long long nb = 0;
    for (int br = 0; br < F->mb; br++) {
        F->browptr[br] = (int)(nb < INT_MAX ? nb : INT_MAX);
        for (int i = br * b; i < m && i < (br + 1) * b; i++)
            for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                const int c = A->colind[k] / b;
                if (mark[c] != br) {
                    mark[c] = br;
                    nb++;
                }
            }
    }
    F->browptr[F->mb] = (int)(nb < INT_MAX ? nb : INT_MAX);
    const size_t stored = (size_t)nb * (size_t)b * (size_t)b;
    const int st = spk_format_check_stored("sbcsr", stored, (size_t)A->nnz, m, SPK_FORMAT_BLOCKS_PAD, err);
    if (st) {
        free(mark);
        return st;
    }
    F->nblocks = (int)nb;
    F->bcol = spk_malloc((size_t)nb + 1, sizeof(int), "streamed BCSR block columns", err);
    F->val = spk_calloc(stored + 1, sizeof(double), "streamed BCSR values", err);
    if (!F->bcol || !F->val) {
        free(mark);
        return SPK_ERR_NOMEM;
    }
    /* fill: each block row's blocks in the order their columns first appear, then sorted */
    for (int c = 0; c < nbc; c++) mark[c] = -1;
    for (int br = 0; br < F->mb; br++) {
        int q = F->browptr[br];
        for (int i = br * b; i < m && i < (br + 1) * b; i++)
            for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                const int c = A->colind[k] / b;
                if (mark[c] < F->browptr[br]) {
                    mark[c] = q;
                    F->bcol[q++] = c;
                }
            }
        /* block columns in increasing order (insertion sort: a block row has few), marks follow */
        for (int p = F->browptr[br] + 1; p < q; p++) {
            const int c = F->bcol[p];
            int r = p;
            while (r > F->browptr[br] && F->bcol[r - 1] > c) {
                F->bcol[r] = F->bcol[r - 1];
                r--;
            }
            F->bcol[r] = c;
        }
        for (int p = F->browptr[br]; p < q; p++) mark[F->bcol[p]] = p;
        const size_t stream = (size_t)F->nblocks * (size_t)b; /* one stream's length */
        for (int i = br * b; i < m && i < (br + 1) * b; i++)
            for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                const int c = A->colind[k];
                const size_t at = (size_t)(i - br * b) * stream + (size_t)mark[c / b] * b + (size_t)(c % b);
                F->val[at] += A->val[k];
            }
    }
    free(mark);
    return SPK_OK;
}

static int sbcsr_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_sbcsr *F = fmt;
    l[0] = (spk_format_array){(void **)&F->browptr, ((size_t)F->mb + 1) * sizeof(int), 0};
    l[1] = (spk_format_array){(void **)&F->bcol, (size_t)F->nblocks * sizeof(int), 0};
    l[2] = (spk_format_array){(void **)&F->val,
                              (size_t)F->nblocks * (size_t)F->b * (size_t)F->b * sizeof(double), 1};
    return 3;
}

void spk_sbcsr_ref(const spk_fmt_sbcsr *F, double alpha, const double *x, double beta, double *y)
{
    const int b = F->b;
    const size_t stream = (size_t)F->nblocks * (size_t)b;
    for (int i = 0; i < F->nrows; i++) {
        const int br = i / b, r = i % b;
        double s = 0;
        for (int q = F->browptr[br]; q < F->browptr[br + 1]; q++)
            for (int c = 0; c < b; c++) {
                const long long col = (long long)F->bcol[q] * b + c;
                if (col < F->ncols) s += F->val[(size_t)r * stream + (size_t)q * b + (size_t)c] * x[col];
            }
        y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
    }
}

static void sbcsr_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    spk_sbcsr_ref(fmt, alpha, x, beta, y);
}

static void sbcsr_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_sbcsr *F = fmt;
    const long long stored = (long long)F->nblocks * F->b * F->b;
    snprintf(buf, len, "streamed BCSR, %dx%d blocks, %d blocks in %d block rows, %lld stored for %d nonzeros (%.2fx)",
             F->b, F->b, F->nblocks, F->mb, stored, F->nnz, F->nnz > 0 ? (double)stored / F->nnz : 0.0);
}

static const spk_format sbcsr_format = {
    "sbcsr", "streamed BCSR", sizeof(spk_fmt_sbcsr), sbcsr_convert, sbcsr_arrays, sbcsr_ref,
    SPK_FORMAT_LAUNCH(spk_sbcsr_launch), sbcsr_describe, SPK_FORMAT_BUILD(NULL),
};

SPK_FORMAT_BACKENDS(sbcsr, "sbcsr",
                    "streamed BCSR: b x b blocks (--bcsr-block), stream r holds row r of every block; a thread per row",
                    sbcsr_format)

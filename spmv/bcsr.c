/* bcsr.c -- the "bcsr" format (bcsr.h): A cut into b x b blocks.  One pass
 * over the entries counts each block row's distinct block columns (a mark
 * per block column holding the block row that last saw it), the size is
 * checked against the padding bound, then each block row's block columns are
 * gathered, sorted, given their slots, and every entry is added at its place
 * in its block (the blocks start zeroed, so the padding is 0). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "bcsr.h"
#include "spmv/options.h"

/* The knob spk_bcsr_block reads (also for cusparse-bsr and sbcsr). */
static const spk_opt bcsr_keys[] = {
    {.key = "bcsr-block", SPK_SPMV_KNOB(bcsr_block), .type = SPK_OPT_INT, .min = 1, .max = 32,
     .unset = "4", .meta = "B", .scope = "bcsr,cusparse-bsr,sbcsr",
     .help = "formats bcsr, cusparse-bsr, sbcsr: B x B blocks"},
};
const spk_opt_table spk_bcsr_options = {"spmv", bcsr_keys, 1, NULL};

int spk_bcsr_block(const spk_spmv_opts *o)
{
    return o && o->bcsr_block > 0 ? o->bcsr_block : SPK_BCSR_DEFAULT_BLOCK;
}

static int cmp_int(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int spk_bcsr_build(const spk_csr *A, int b, const char *name, spk_fmt_bcsr *B, spk_err *err)
{
    if (b < 1 || b > SPK_BCSR_MAX_BLOCK)
        return spk_err_set(err, SPK_ERR_INVALID_ARG, "format '%s': block size %d outside [1, %d]", name, b,
                           SPK_BCSR_MAX_BLOCK);
    const int m = A->nrows, n = A->ncols;
    const size_t bb = (size_t)b * (size_t)b;
    B->nrows = m;
    B->ncols = n;
    B->nnz = A->nnz;
    B->b = b;
    B->mb = (int)(((long long)m + b - 1) / b);
    B->nb = (int)(((long long)n + b - 1) / b);
    B->browptr = spk_calloc((size_t)B->mb + 1, sizeof(int), "BCSR block row pointers", err);
    if (!B->browptr) return SPK_ERR_NOMEM;
    if (A->nnz == 0) return SPK_OK; /* no blocks: every browptr is 0 */
    /* mark[j]: pass 1, the last block row holding block column j (-1: none);
     * pass 2, -2 - br while block row br gathers its columns, then j's slot */
    int *mark = spk_malloc((size_t)B->nb, sizeof(int), "BCSR block column marks", err);
    if (!mark) return SPK_ERR_NOMEM;
    for (int j = 0; j < B->nb; j++) mark[j] = -1;
    size_t nblocks = 0;
    for (int br = 0; br < B->mb; br++) {
        const int i0 = br * b, i1 = (long long)i0 + b < m ? i0 + b : m;
        for (int i = i0; i < i1; i++)
            for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                const int bc = A->colind[k] / b;
                if (mark[bc] != br) {
                    mark[bc] = br;
                    nblocks++;
                }
            }
        B->browptr[br + 1] = (int)nblocks; /* nblocks <= nnz <= INT_MAX */
    }
    const size_t stored = nblocks * bb;
    int st = spk_format_check_stored(name, stored, (size_t)A->nnz, m, SPK_FORMAT_BLOCKS_PAD, err);
    /* the kernel indexes a block row's run with an int (plus a warp's stride) */
    if (!st && stored > (size_t)INT_MAX - 64)
        st = spk_err_set(err, SPK_ERR_UNSUPPORTED,
                         "format '%s' refused: its %zu blocks of %d x %d would store %zu entries, more than "
                         "32-bit indices reach; use csr, cusparse, hyb or hmec",
                         name, nblocks, b, b, stored);
    if (st) {
        free(mark);
        return st;
    }
    B->nblocks = (int)nblocks;
    B->bcolind = spk_malloc(nblocks, sizeof(int), "BCSR block column indices", err);
    B->val = spk_calloc(stored, sizeof(double), "BCSR values", err);
    if (!B->bcolind || !B->val) {
        free(mark);
        return SPK_ERR_NOMEM;
    }
    for (int br = 0; br < B->mb; br++) {
        const int i0 = br * b, i1 = (long long)i0 + b < m ? i0 + b : m, q0 = B->browptr[br], q1 = B->browptr[br + 1];
        int q = q0;
        for (int i = i0; i < i1; i++)
            for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                const int bc = A->colind[k] / b;
                if (mark[bc] != -2 - br) {
                    mark[bc] = -2 - br;
                    B->bcolind[q++] = bc;
                }
            }
        qsort(B->bcolind + q0, (size_t)(q1 - q0), sizeof(int), cmp_int);
        for (q = q0; q < q1; q++) mark[B->bcolind[q]] = q;
        for (int i = i0; i < i1; i++)
            for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                const int c = A->colind[k], bc = c / b;
                B->val[(size_t)mark[bc] * bb + (size_t)(c - bc * b) * (size_t)b + (size_t)(i - i0)] += A->val[k];
            }
    }
    free(mark);
    return SPK_OK;
}

static int bcsr_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    return spk_bcsr_build(A, spk_bcsr_block(o), "bcsr", fmt, err);
}

static int bcsr_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_bcsr *B = fmt;
    l[0] = (spk_format_array){(void **)&B->browptr, ((size_t)B->mb + 1) * sizeof(int), 0};
    l[1] = (spk_format_array){(void **)&B->bcolind, (size_t)B->nblocks * sizeof(int), 0};
    l[2] = (spk_format_array){(void **)&B->val,
                              (size_t)B->nblocks * (size_t)B->b * (size_t)B->b * sizeof(double), 1};
    return 3;
}

void spk_bcsr_ref(const spk_fmt_bcsr *B, double alpha, const double *x, double beta, double *y)
{
    const int b = B->b, bb = b * b, G = 32 / b, W = b * G;
    for (int br = 0; br < B->mb; br++) {
        const int start = B->browptr[br], L = (B->browptr[br + 1] - start) * bb;
        const double *v = B->val + (size_t)start * (size_t)bb;
        const int *bc = B->bcolind + start;
        for (int r = 0; r < b && br * b + r < B->nrows; r++) {
            double part[32];
            for (int j = 0; j < G; j++) { /* lane r + b*j */
                double s = 0;
                for (int t = r + b * j; t < L; t += W) {
                    const int kk = t / bb, col = bc[kk] * b + (t - kk * bb) / b;
                    if (col < B->ncols) s += v[t] * x[col];
                }
                part[j] = s;
            }
            for (int s = 1; s < G; s *= 2)
                for (int j = 0; j + s < G; j += 2 * s) part[j] += part[j + s];
            const int i = br * b + r;
            y[i] = beta == 0.0 ? alpha * part[0] : alpha * part[0] + beta * y[i];
        }
    }
}

static void bcsr_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    spk_bcsr_ref(fmt, alpha, x, beta, y);
}

static void bcsr_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_bcsr *B = fmt;
    const size_t stored = (size_t)B->nblocks * (size_t)B->b * (size_t)B->b;
    snprintf(buf, len, "BCSR, %dx%d blocks: %d block rows, %d blocks, %zu stored entries for %d nonzeros (%.2fx)",
             B->b, B->b, B->mb, B->nblocks, stored, B->nnz, B->nnz > 0 ? (double)stored / B->nnz : 0.0);
}

static const spk_format bcsr_format = {
    "bcsr", "BCSR, dense b x b blocks", sizeof(spk_fmt_bcsr), bcsr_convert, bcsr_arrays, bcsr_ref,
    SPK_FORMAT_LAUNCH(spk_bcsr_launch), bcsr_describe, SPK_FORMAT_BUILD(NULL),
};

SPK_FORMAT_BACKENDS(bcsr, "bcsr",
                    "BCSR: dense b x b blocks (--bcsr-block), a warp per block row (refused beyond 3x padding)",
                    bcsr_format)

/* pbc.c -- the "pbc" format (pbc.h): rows sorted by decreasing length,
 * blocks of consecutive sorted rows cut for near-equal entries, each block
 * an ELL slab. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pbc.h"

static const int targets[] = {256, 512, 1024, 2048, 4096, 8192}; /* SPK_PBC_TARGETS */

typedef struct row_len {
    int len, row;
} row_len;

/* decreasing length, ties in row order: the order is deterministic */
static int by_length(const void *a, const void *b)
{
    const row_len *x = a, *y = b;
    if (x->len != y->len) return x->len > y->len ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* The cut for target t over the sorted lengths len[]: block starts into
 * first[] (count + 1, NULL to count); returns the count. */
static int cut(int m, const int *len, long long t, int *first)
{
    int blocks = 0;
    long long total = 0;
    for (int p = 0; p < m; p++) {
        if (p == 0 || total + len[p] > t) {
            if (first) first[blocks] = p;
            blocks++;
            total = 0;
        }
        total += len[p];
    }
    if (first) first[blocks] = m;
    return blocks;
}

static int pbc_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    (void)o;
    spk_fmt_pbc *P = fmt;
    const int m = A->nrows;
    P->nrows = m;
    P->ncols = A->ncols;
    P->nnz = A->nnz;
    int *len = spk_malloc((size_t)m + 1, sizeof(int), "PBC row lengths", err);
    int *slen = spk_malloc((size_t)m + 1, sizeof(int), "PBC row lengths", err);
    P->pos = spk_malloc((size_t)m + 1, sizeof(int), "PBC row order", err);
    if (!len || !slen || !P->pos) {
        free(len);
        free(slen);
        return SPK_ERR_NOMEM;
    }
    row_len *order = spk_malloc((size_t)m + 1, sizeof(row_len), "PBC row order", err);
    if (!order) {
        free(len);
        free(slen);
        return SPK_ERR_NOMEM;
    }
    for (int i = 0; i < m; i++) {
        len[i] = A->rowptr[i + 1] - A->rowptr[i];
        order[i] = (row_len){len[i], i};
    }
    qsort(order, (size_t)m, sizeof(row_len), by_length);
    for (int p = 0; p < m; p++) {
        P->pos[p] = order[p].row;
        slen[p] = order[p].len;
    }
    free(order);
    /* the target whose blocks' entries vary least, relative to their mean */
    double best = INFINITY;
    P->target = targets[0];
    for (size_t c = 0; c < sizeof targets / sizeof targets[0]; c++) {
        const int nb = cut(m, slen, targets[c], NULL);
        if (nb < 1) break;
        double sum = 0, sq = 0, total = 0;
        int b = -1;
        for (int p = 0; p < m; p++) { /* the blocks' entry counts, in one pass */
            if (p == 0 || total + slen[p] > targets[c]) {
                if (b >= 0) {
                    sum += total;
                    sq += total * total;
                }
                b++;
                total = 0;
            }
            total += slen[p];
        }
        sum += total;
        sq += total * total;
        const double mean = sum / nb, var = sq / nb - mean * mean;
        const double rel = mean > 0 ? sqrt(var > 0 ? var : 0) / mean : 0;
        if (rel < best) {
            best = rel;
            P->target = targets[c];
        }
    }
    P->nblocks = cut(m, slen, P->target, NULL);
    P->width = spk_malloc((size_t)P->nblocks + 1, sizeof(int), "PBC widths", err);
    P->first = spk_malloc((size_t)P->nblocks + 1, sizeof(int), "PBC block starts", err);
    P->data = spk_malloc((size_t)P->nblocks + 1, sizeof(int), "PBC block data", err);
    if (!P->width || !P->first || !P->data) {
        free(len);
        free(slen);
        return SPK_ERR_NOMEM;
    }
    cut(m, slen, P->target, P->first);
    size_t stored = 0;
    for (int b = 0; b < P->nblocks; b++) {
        P->width[b] = P->first[b] < m ? slen[P->first[b]] : 0; /* sorted: the block's first row is its longest */
        stored += (size_t)P->width[b] * (size_t)(P->first[b + 1] - P->first[b]);
    }
    free(slen);
    const int st = spk_format_check_stored("pbc", stored, (size_t)A->nnz, m, NULL, err);
    if (st) {
        free(len);
        return st;
    }
    P->stored = (long long)stored;
    P->colind = spk_malloc(stored + 1, sizeof(int), "PBC column indices", err);
    P->val = spk_malloc(stored + 1, sizeof(double), "PBC values", err);
    if (!P->colind || !P->val) {
        free(len);
        return SPK_ERR_NOMEM;
    }
    size_t at = 0;
    for (int b = 0; b < P->nblocks; b++) {
        P->data[b] = (int)at;
        const int rows = P->first[b + 1] - P->first[b], w = P->width[b];
        for (int r = 0; r < rows; r++) {
            const int i = P->pos[P->first[b] + r], rb = A->rowptr[i], l = len[i];
            const int pad = l > 0 ? A->colind[rb + l - 1] : 0; /* padding: value 0 at a valid column */
            for (int k = 0; k < w; k++) {
                const size_t q = at + (size_t)k * rows + (size_t)r;
                P->colind[q] = k < l ? A->colind[rb + k] : pad;
                P->val[q] = k < l ? A->val[rb + k] : 0.0;
            }
        }
        at += (size_t)w * (size_t)rows;
    }
    P->data[P->nblocks] = (int)at;
    free(len);
    return SPK_OK;
}

static int pbc_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_pbc *P = fmt;
    l[0] = (spk_format_array){(void **)&P->pos, (size_t)P->nrows * sizeof(int), 0};
    l[1] = (spk_format_array){(void **)&P->width, (size_t)P->nblocks * sizeof(int), 0};
    l[2] = (spk_format_array){(void **)&P->first, ((size_t)P->nblocks + 1) * sizeof(int), 0};
    l[3] = (spk_format_array){(void **)&P->data, ((size_t)P->nblocks + 1) * sizeof(int), 0};
    l[4] = (spk_format_array){(void **)&P->colind, (size_t)P->stored * sizeof(int), 0};
    l[5] = (spk_format_array){(void **)&P->val, (size_t)P->stored * sizeof(double), 1};
    return 6;
}

void spk_pbc_ref(const spk_fmt_pbc *P, double alpha, const double *x, double beta, double *y)
{
    for (int b = 0; b < P->nblocks; b++) {
        const int rows = P->first[b + 1] - P->first[b];
        for (int r = 0; r < rows; r++) {
            double s = 0;
            for (int k = 0; k < P->width[b]; k++) {
                const size_t q = (size_t)P->data[b] + (size_t)k * rows + (size_t)r;
                s += P->val[q] * x[P->colind[q]];
            }
            const int i = P->pos[P->first[b] + r];
            y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
        }
    }
}

static void pbc_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    spk_pbc_ref(fmt, alpha, x, beta, y);
}

static void pbc_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_pbc *P = fmt;
    snprintf(buf, len, "PBC, %d blocks of at most %d entries (the target of least relative spread), %lld stored "
                       "entries for %d nonzeros (%.2fx)",
             P->nblocks, P->target, P->stored, P->nnz, P->nnz > 0 ? (double)P->stored / P->nnz : 0.0);
}

static const spk_format pbc_format = {
    "pbc", "PBC, partition-block CSR", sizeof(spk_fmt_pbc), pbc_convert, pbc_arrays, pbc_ref,
    SPK_FORMAT_LAUNCH(spk_pbc_launch), pbc_describe, SPK_FORMAT_BUILD(NULL),
};

SPK_FORMAT_BACKENDS(pbc, "pbc",
                    "PBC: rows sorted by length, cut into blocks of near-equal entries (least spread), each block "
                    "ELL; a thread block per block",
                    pbc_format)

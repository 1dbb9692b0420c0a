/* pbc.c -- the "pbc" format (pbc.h): rows sorted by decreasing length,
 * blocks of consecutive sorted rows cut for near-equal entries, each block
 * an ELL slab. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pbc.h"

#if defined(__GNUC__)
#define PBC_PREFETCH(p) __builtin_prefetch(p)
#else
#define PBC_PREFETCH(p) ((void)0)
#endif

static const int targets[] = {256, 512, 1024, 2048, 4096, 8192}; /* SPK_PBC_TARGETS */

/* The sorted row lengths as runs: len[j] (decreasing) held by cnt[j] rows. */
typedef struct runs {
    int n;
    int *len, *cnt;
} runs;

/* Rows sorted by decreasing length, ties in row order (a stable counting
 * sort, so the order is deterministic): pos[] and the runs of lengths. */
static int sort_rows(const spk_csr *A, int *pos, runs *R, spk_err *err)
{
    const int m = A->nrows;
    int maxlen = 0;
    for (int i = 0; i < m; i++) {
        const int l = A->rowptr[i + 1] - A->rowptr[i];
        maxlen = l > maxlen ? l : maxlen;
    }
    int *start = spk_calloc((size_t)maxlen + 2, sizeof(int), "PBC row order", err);
    if (!start) return SPK_ERR_NOMEM;
    for (int i = 0; i < m; i++) start[maxlen - (A->rowptr[i + 1] - A->rowptr[i]) + 1]++;
    R->n = 0;
    for (int d = 1; d <= maxlen + 1; d++) R->n += start[d] > 0;
    R->len = spk_malloc((size_t)R->n + 1, sizeof(int), "PBC row lengths", err);
    R->cnt = spk_malloc((size_t)R->n + 1, sizeof(int), "PBC row lengths", err);
    if (!R->len || !R->cnt) {
        free(start);
        return SPK_ERR_NOMEM;
    }
    for (int d = 1, j = 0; d <= maxlen + 1; d++)
        if (start[d] > 0) R->len[j] = maxlen - (d - 1), R->cnt[j++] = start[d];
    for (int d = 0; d <= maxlen; d++) start[d + 1] += start[d];
    for (int i = 0; i < m; i++) pos[start[maxlen - (A->rowptr[i + 1] - A->rowptr[i])]++] = i;
    free(start);
    return SPK_OK;
}

/* A block of the cut ends: its entry count into the sums, in doubles and in
 * block order (the statistics of pick_target depend on that order). */
static void close_block(long long total, double *sum, double *sq)
{
    *sum += (double)total;
    *sq += (double)total * (double)total;
}

/* The cut for target t over the sorted rows, a run of equal lengths at a
 * time: a row joins the open block while its entries stay <= t, else starts
 * the next one.  Block starts into first[] (count + 1) and widths into w[]
 * (NULL: not wanted); the blocks' entry counts into *sum and *sq; returns
 * the block count. */
static int cut(const runs *R, int m, long long t, int *first, int *w, double *sum, double *sq)
{
    int blocks = 0, p = 0;
    long long total = 0;
    *sum = *sq = 0;
    for (int j = 0; j < R->n; j++) {
        const long long L = R->len[j];
        long long left = R->cnt[j];
        if (blocks == 0) { /* the first row opens the first block */
            if (first) first[0] = 0, w[0] = (int)L;
            blocks = 1, total = L, p = 1, left--;
        }
        long long join = total + L > t ? 0 : L == 0 ? left : (t - total) / L;
        join = join < left ? join : left;
        total += join * L, p += (int)join, left -= join;
        /* the rest open blocks of `per` rows each (the last one may hold fewer) */
        const long long per = L == 0 ? left : L > t ? 1 : t / L;
        while (left > 0) {
            close_block(total, sum, sq);
            const long long take = per < left ? per : left;
            if (first) first[blocks] = p, w[blocks] = (int)L;
            blocks++, total = take * L, p += (int)take, left -= take;
        }
    }
    if (blocks > 0) close_block(total, sum, sq);
    if (first) first[blocks] = m;
    return blocks;
}

/* The target whose blocks' entries vary least, relative to their mean. */
static int pick_target(const runs *R, int m)
{
    double best = INFINITY;
    int target = targets[0];
    for (size_t c = 0; c < sizeof targets / sizeof targets[0]; c++) {
        double sum, sq;
        const int nb = cut(R, m, targets[c], NULL, NULL, &sum, &sq);
        if (nb < 1) break;
        const double mean = sum / nb, var = sq / nb - mean * mean;
        const double rel = mean > 0 ? sqrt(var > 0 ? var : 0) / mean : 0;
        if (rel < best) {
            best = rel;
            target = targets[c];
        }
    }
    return target;
}

/* Each block's rows as ELL, column-major; padding repeats the row's last
 * column with value 0 (column 0 for an empty row). */
static void fill_blocks(const spk_csr *A, spk_fmt_pbc *P)
{
    size_t at = 0;
    for (int b = 0; b < P->nblocks; b++) {
        P->data[b] = (int)at;
        const int rows = P->first[b + 1] - P->first[b], w = P->width[b];
        int *ci = P->colind + at;
        double *v = P->val + at;
        const int *row = P->pos + P->first[b];
        for (int r = 0; r < rows; r++) {
            if (r + 16 < rows) PBC_PREFETCH(A->rowptr + row[r + 16]);
            if (r + 8 < rows) { /* the rows ahead, which the sort scattered */
                PBC_PREFETCH(A->colind + A->rowptr[row[r + 8]]);
                PBC_PREFETCH(A->val + A->rowptr[row[r + 8]]);
            }
            const int i = row[r], rb = A->rowptr[i], l = A->rowptr[i + 1] - rb;
            const int pad = l > 0 ? A->colind[rb + l - 1] : 0;
            const int *ac = A->colind + rb;
            const double *av = A->val + rb;
            for (int k = 0; k < l; k++) {
                ci[(size_t)k * rows + r] = ac[k];
                v[(size_t)k * rows + r] = av[k];
            }
            for (int k = l; k < w; k++) {
                ci[(size_t)k * rows + r] = pad;
                v[(size_t)k * rows + r] = 0.0;
            }
        }
        at += (size_t)w * (size_t)rows;
    }
    P->data[P->nblocks] = (int)at;
}

static int pbc_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    (void)o;
    spk_fmt_pbc *P = fmt;
    const int m = A->nrows;
    P->nrows = m;
    P->ncols = A->ncols;
    P->nnz = A->nnz;
    runs R = {0, NULL, NULL};
    int st = SPK_ERR_NOMEM;
    P->pos = spk_malloc((size_t)m + 1, sizeof(int), "PBC row order", err);
    if (!P->pos || (st = sort_rows(A, P->pos, &R, err))) goto done;
    P->target = pick_target(&R, m);
    double sum, sq;
    P->nblocks = cut(&R, m, P->target, NULL, NULL, &sum, &sq);
    P->width = spk_malloc((size_t)P->nblocks + 1, sizeof(int), "PBC widths", err);
    P->first = spk_malloc((size_t)P->nblocks + 1, sizeof(int), "PBC block starts", err);
    P->data = spk_malloc((size_t)P->nblocks + 1, sizeof(int), "PBC block data", err);
    st = SPK_ERR_NOMEM;
    if (!P->width || !P->first || !P->data) goto done;
    cut(&R, m, P->target, P->first, P->width, &sum, &sq);
    size_t stored = 0;
    for (int b = 0; b < P->nblocks; b++) stored += (size_t)P->width[b] * (size_t)(P->first[b + 1] - P->first[b]);
    if ((st = spk_format_check_stored("pbc", stored, (size_t)A->nnz, m, NULL, err))) goto done;
    P->stored = (long long)stored;
    P->colind = spk_malloc(stored + 1, sizeof(int), "PBC column indices", err);
    P->val = spk_malloc(stored + 1, sizeof(double), "PBC values", err);
    st = SPK_ERR_NOMEM;
    if (!P->colind || !P->val) goto done;
    fill_blocks(A, P);
    st = SPK_OK;
done:
    free(R.len);
    free(R.cnt);
    return st;
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

/* mqt.c -- the "mqt" format (mqt.h): the entries sorted in Z order (row
 * and column bits interleaved, row first at each level: the quadrants'
 * depth-first order), then the tree's bits written by a recursion over
 * contiguous ranges of them. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mqt.h"
#include "mqt_decode.h"

typedef struct zentry {
    uint64_t key;
    int row, col;
    double v;
} zentry;

static uint64_t zkey(int r, int c)
{
    uint64_t k = 0;
    for (int b = 30; b >= 0; b--) k = (k << 2) | ((uint64_t)((r >> b) & 1) << 1) | (uint64_t)((c >> b) & 1);
    return k;
}

static int by_key(const void *a, const void *b)
{
    const uint64_t x = ((const zentry *)a)->key, y = ((const zentry *)b)->key;
    return x < y ? -1 : x > y;
}

typedef struct builder {
    const zentry *e;
    spk_fmt_mqt *M;
    long long bit; /* bits written */
    int sub;       /* subtrees listed */
} builder;

static void put_bit(builder *b, int on)
{
    if (on) b->M->bits[b->bit / 32] |= 1u << (b->bit % 32);
    b->bit++;
}

/* node (r0, c0, side) over entries [lo, hi), all inside it and not empty */
static void build(builder *b, int lo, int hi, int r0, int c0, int side)
{
    spk_fmt_mqt *M = b->M;
    if (side == M->sub) { /* a subtree the GPU decodes: where it starts */
        M->sub_row[b->sub] = r0;
        M->sub_col[b->sub] = c0;
        M->sub_bit[b->sub] = (int)b->bit;
        M->sub_val[b->sub] = lo;
        b->sub++;
    }
    if (side == 1) return; /* a cell: its value is entry lo, already in order */
    const int h = side / 2;
    /* the quadrants' ranges: in Z order a node's entries come quadrant by quadrant */
    int cut[5], k = lo;
    for (int q = 0; q < 4; q++) {
        cut[q] = k;
        while (k < hi && ((b->e[k].row - r0 >= h) << 1 | (b->e[k].col - c0 >= h)) == q) k++;
    }
    cut[4] = hi;
    for (int q = 0; q < 4; q++) put_bit(b, cut[q + 1] > cut[q]);
    for (int q = 0; q < 4; q++)
        if (cut[q + 1] > cut[q]) build(b, cut[q], cut[q + 1], r0 + (q >> 1) * h, c0 + (q & 1) * h, h);
}

/* the nodes with entries larger than one cell, and the subtrees of side sub */
static void count(const zentry *e, int nnz, int side, int sub, long long *internal, int *nsub)
{
    *internal = 0;
    *nsub = 0;
    for (long long s = side; s >= 1; s /= 2) {
        long long distinct = 0;
        for (int k = 0; k < nnz; k++) /* in Z order, a node's entries are contiguous */
            if (k == 0 || e[k].row / s != e[k - 1].row / s || e[k].col / s != e[k - 1].col / s) distinct++;
        if (s > 1) *internal += distinct;
        if (s == sub) *nsub = (int)distinct;
    }
}

static int mqt_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    (void)o;
    spk_fmt_mqt *M = fmt;
    const int m = A->nrows, n = A->ncols, nnz = A->nnz;
    M->nrows = m;
    M->ncols = n;
    M->nnz = nnz;
    M->side = 1;
    while (M->side < m || M->side < n) M->side *= 2;
    M->sub = M->side < SPK_MQT_SUB ? M->side : SPK_MQT_SUB;
    zentry *e = spk_malloc((size_t)nnz + 1, sizeof(zentry), "MQT entries", err);
    if (!e) return SPK_ERR_NOMEM;
    for (int i = 0, k = 0; i < m; i++)
        for (int q = A->rowptr[i]; q < A->rowptr[i + 1]; q++, k++)
            e[k] = (zentry){zkey(i, A->colind[q]), i, A->colind[q], A->val[q]};
    qsort(e, (size_t)nnz, sizeof(zentry), by_key);
    long long internal;
    count(e, nnz, M->side, M->sub, &internal, &M->nsub);
    M->nbits = 4 * internal;
    M->bits = spk_calloc((size_t)((M->nbits + 31) / 32) + 1, sizeof(unsigned), "MQT bit stream", err);
    M->val = spk_malloc((size_t)nnz + 1, sizeof(double), "MQT values", err);
    M->sub_row = spk_malloc((size_t)M->nsub + 1, sizeof(int), "MQT subtrees", err);
    M->sub_col = spk_malloc((size_t)M->nsub + 1, sizeof(int), "MQT subtrees", err);
    M->sub_bit = spk_malloc((size_t)M->nsub + 1, sizeof(int), "MQT subtrees", err);
    M->sub_val = spk_malloc((size_t)M->nsub + 1, sizeof(int), "MQT subtrees", err);
    if (!M->bits || !M->val || !M->sub_row || !M->sub_col || !M->sub_bit || !M->sub_val) {
        free(e);
        return SPK_ERR_NOMEM;
    }
    for (int k = 0; k < nnz; k++) M->val[k] = e[k].v;
    builder b = {e, M, 0, 0};
    if (nnz > 0) build(&b, 0, nnz, 0, 0, M->side);
    free(e);
    if (b.bit != M->nbits || b.sub != M->nsub)
        return spk_err_set(err, SPK_ERR_INTERNAL, "MQT: %lld bits and %d subtrees written, %lld and %d counted",
                           b.bit, b.sub, M->nbits, M->nsub);
    return SPK_OK;
}

static int mqt_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_mqt *M = fmt;
    const size_t ns = (size_t)M->nsub * sizeof(int);
    l[0] = (spk_format_array){(void **)&M->bits, (size_t)((M->nbits + 31) / 32) * sizeof(unsigned), 0};
    l[1] = (spk_format_array){(void **)&M->val, (size_t)M->nnz * sizeof(double), 1};
    l[2] = (spk_format_array){(void **)&M->sub_row, ns, 0};
    l[3] = (spk_format_array){(void **)&M->sub_col, ns, 0};
    l[4] = (spk_format_array){(void **)&M->sub_bit, ns, 0};
    l[5] = (spk_format_array){(void **)&M->sub_val, ns, 0};
    return 6;
}

void spk_mqt_ref(const spk_fmt_mqt *M, double alpha, const double *x, double beta, double *y)
{
    for (int i = 0; i < M->nrows; i++) y[i] = beta == 0.0 ? 0.0 : beta * y[i];
    double sum[SPK_MQT_SUB];
    for (int t = 0; t < M->nsub; t++) {
        const unsigned touched = spk_mqt_decode(M->sub, M->bits, M->val, M->sub_row[t], M->sub_col[t],
                                                M->sub_bit[t], M->sub_val[t], x, sum);
        for (int r = 0; r < M->sub; r++)
            if ((touched >> r) & 1) y[M->sub_row[t] + r] += alpha * sum[r];
    }
}

static void mqt_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    spk_mqt_ref(fmt, alpha, x, beta, y);
}

static void mqt_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_mqt *M = fmt;
    snprintf(buf, len, "MQT, side %d, %lld bits of structure (%.2f an entry), %d subtrees of side %d, %d nonzeros",
             M->side, M->nbits, M->nnz ? (double)M->nbits / M->nnz : 0.0, M->nsub, M->sub, M->nnz);
}

static const spk_format mqt_format = {
    "mqt", "MQT, minimal quad tree", sizeof(spk_fmt_mqt), mqt_convert, mqt_arrays, mqt_ref,
    SPK_FORMAT_LAUNCH(spk_mqt_launch), mqt_describe, SPK_FORMAT_BUILD(NULL),
};

SPK_FORMAT_BACKENDS(mqt, "mqt",
                    "MQT: the quad tree's structure as a bit stream, values in its depth-first order; a thread "
                    "decodes each 32x32 subtree (atomics)",
                    mqt_format)

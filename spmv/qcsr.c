/* qcsr.c -- the "qcsr" format (qcsr.h).  The quad-tree's recursion over a
 * square of side 2^K: a node with entries is split into quadrants until it
 * reaches the density size, where it becomes a leaf; the leaves found are
 * then ordered by band and column.  The entries of a node are found from
 * the rows' sorted columns by binary search, so an empty quadrant costs a
 * search per row, not a pass over the entries. */
#include <stdio.h>
#include <stdlib.h>

#include "qcsr.h"

typedef struct leaf {
    int band, col; /* block row and block column */
} leaf;

/* first entry of row i with column >= c */
static int lower(const spk_csr *A, int i, int c)
{
    int lo = A->rowptr[i], hi = A->rowptr[i + 1];
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (A->colind[mid] < c) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Does the node (r0, c0, side) hold entries? */
static int has_entries(const spk_csr *A, int r0, int c0, long long side)
{
    for (long long i = r0; i < r0 + side && i < A->nrows; i++) {
        const int k = lower(A, (int)i, c0);
        if (k < A->rowptr[i + 1] && A->colind[k] < c0 + side) return 1;
    }
    return 0;
}

/* The leaves under node (r0, c0, side), appended to out (count in *n). */
static void visit(const spk_csr *A, int r0, int c0, long long side, leaf *out, int *n)
{
    if (r0 >= A->nrows || c0 >= A->ncols || !has_entries(A, r0, c0, side)) return;
    if (side <= SPK_QCSR_DENSITY) {
        out[*n] = (leaf){r0 / SPK_QCSR_DENSITY, c0 / SPK_QCSR_DENSITY};
        (*n)++;
        return;
    }
    const long long h = side / 2;
    visit(A, r0, c0, h, out, n);
    if (c0 + h < A->ncols) visit(A, r0, (int)(c0 + h), h, out, n);
    if (r0 + h < A->nrows) visit(A, (int)(r0 + h), c0, h, out, n);
    if (r0 + h < A->nrows && c0 + h < A->ncols) visit(A, (int)(r0 + h), (int)(c0 + h), h, out, n);
}

static int by_band_col(const void *a, const void *b)
{
    const leaf *x = a, *y = b;
    if (x->band != y->band) return x->band < y->band ? -1 : 1;
    return x->col < y->col ? -1 : x->col > y->col;
}

static int qcsr_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    (void)o;
    spk_fmt_qcsr *Q = fmt;
    const int m = A->nrows, n = A->ncols, D = SPK_QCSR_DENSITY;
    Q->nrows = m;
    Q->ncols = n;
    Q->nnz = A->nnz;
    Q->nbands = (m + D - 1) / D;
    long long side = D;
    while (side < m || side < n) side *= 2;
    /* at most one leaf per entry, and per D x D tile */
    const long long tiles = (long long)Q->nbands * ((n + D - 1) / D);
    const size_t cap = (size_t)((long long)A->nnz < tiles ? A->nnz : tiles) + 1;
    leaf *lv = spk_malloc(cap, sizeof(leaf), "QCSR leaves", err);
    Q->bandptr = spk_calloc((size_t)Q->nbands + 1, sizeof(int), "QCSR band pointers", err);
    if (!lv || !Q->bandptr) {
        free(lv);
        return SPK_ERR_NOMEM;
    }
    int nl = 0;
    if (A->nnz > 0) visit(A, 0, 0, side, lv, &nl);
    qsort(lv, (size_t)nl, sizeof(leaf), by_band_col);
    Q->nleaves = nl;
    Q->leafcol = spk_malloc((size_t)nl + 1, sizeof(int), "QCSR leaf columns", err);
    Q->leafent = spk_malloc((size_t)nl + 1, sizeof(int), "QCSR leaf entries", err);
    Q->leafrp = spk_malloc((size_t)nl * (D + 1) + 1, sizeof(unsigned short), "QCSR leaf row pointers", err);
    Q->lcol = spk_malloc((size_t)A->nnz + 1, 1, "QCSR local columns", err);
    Q->val = spk_malloc((size_t)A->nnz + 1, sizeof(double), "QCSR values", err);
    if (!Q->leafcol || !Q->leafent || !Q->leafrp || !Q->lcol || !Q->val) {
        free(lv);
        return SPK_ERR_NOMEM;
    }
    int at = 0;
    for (int l = 0; l < nl; l++) {
        const int r0 = lv[l].band * D, c0 = lv[l].col * D;
        Q->bandptr[lv[l].band + 1] = l + 1;
        Q->leafcol[l] = lv[l].col;
        Q->leafent[l] = at;
        unsigned short *rp = Q->leafrp + (size_t)l * (D + 1);
        const int start = at;
        for (int r = 0; r < D; r++) {
            rp[r] = (unsigned short)(at - start);
            const int i = r0 + r;
            if (i >= m) continue;
            for (int k = lower(A, i, c0); k < A->rowptr[i + 1] && A->colind[k] < c0 + D; k++) {
                Q->lcol[at] = (unsigned char)(A->colind[k] - c0);
                Q->val[at++] = A->val[k];
            }
        }
        rp[D] = (unsigned short)(at - start);
    }
    Q->leafent[nl] = at;
    for (int b = 1; b <= Q->nbands; b++) /* bands without leaves: the next band starts where this one did */
        if (Q->bandptr[b] < Q->bandptr[b - 1]) Q->bandptr[b] = Q->bandptr[b - 1];
    free(lv);
    return SPK_OK;
}

static int qcsr_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_qcsr *Q = fmt;
    const size_t D = SPK_QCSR_DENSITY;
    l[0] = (spk_format_array){(void **)&Q->bandptr, ((size_t)Q->nbands + 1) * sizeof(int)};
    l[1] = (spk_format_array){(void **)&Q->leafcol, (size_t)Q->nleaves * sizeof(int)};
    l[2] = (spk_format_array){(void **)&Q->leafent, ((size_t)Q->nleaves + 1) * sizeof(int)};
    l[3] = (spk_format_array){(void **)&Q->leafrp, (size_t)Q->nleaves * (D + 1) * sizeof(unsigned short)};
    l[4] = (spk_format_array){(void **)&Q->lcol, (size_t)Q->nnz};
    l[5] = (spk_format_array){(void **)&Q->val, (size_t)Q->nnz * sizeof(double)};
    return 6;
}

void spk_qcsr_ref(const spk_fmt_qcsr *Q, double alpha, const double *x, double beta, double *y)
{
    const int D = SPK_QCSR_DENSITY;
    for (int i = 0; i < Q->nrows; i++) {
        const int band = i / D, r = i % D;
        double s = 0;
        for (int l = Q->bandptr[band]; l < Q->bandptr[band + 1]; l++) {
            const unsigned short *rp = Q->leafrp + (size_t)l * (D + 1);
            const int e = Q->leafent[l], c0 = Q->leafcol[l] * D;
            for (int k = e + rp[r]; k < e + rp[r + 1]; k++) s += Q->val[k] * x[c0 + Q->lcol[k]];
        }
        y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
    }
}

static void qcsr_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    spk_qcsr_ref(fmt, alpha, x, beta, y);
}

static void qcsr_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_qcsr *Q = fmt;
    snprintf(buf, len, "QCSR, %d leaves of %dx%d in %d bands, %d nonzeros (%.1f a leaf)", Q->nleaves,
             SPK_QCSR_DENSITY, SPK_QCSR_DENSITY, Q->nbands, Q->nnz, Q->nleaves ? (double)Q->nnz / Q->nleaves : 0.0);
}

static const spk_format qcsr_format = {
    "qcsr", "QCSR, quad-tree CSR", sizeof(spk_fmt_qcsr), qcsr_convert, qcsr_arrays, qcsr_ref,
    SPK_FORMAT_LAUNCH(spk_qcsr_launch), qcsr_describe, SPK_FORMAT_BUILD(NULL),
};

SPK_FORMAT_BACKENDS(qcsr, "qcsr",
                    "QCSR: quadrants split down to 64x64 leaves, each leaf a CSR with local indices; a warp per "
                    "band of 64 rows",
                    qcsr_format)

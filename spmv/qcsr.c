/* qcsr.c -- the "qcsr" format (qcsr.h).  Splitting a node with entries into
 * quadrants down to the density size, and dropping the empty ones, leaves
 * exactly the D x D tiles of the grid that hold entries: so the leaves are
 * found by one pass per band of D rows over its entries (each row's
 * columns are sorted), not by walking the tree, whose upper levels would
 * search every row of every node (a banded matrix of 4M rows: billions of
 * searches). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qcsr.h"

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

/* The block columns with entries in band b, in increasing order, into cols
 * (mark: one slot per block column, holding the last band that set it);
 * returns their count. */
static int band_tiles(const spk_csr *A, int b, int *mark, int *cols)
{
    const int D = SPK_QCSR_DENSITY, m = A->nrows;
    int count = 0;
    for (int i = b * D; i < m && i < (b + 1) * D; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            const int c = A->colind[k] / D;
            if (mark[c] != b) {
                mark[c] = b;
                cols[count++] = c;
            }
        }
    /* increasing: an insertion sort (a band has few tiles next to its entries) */
    for (int p = 1; p < count; p++) {
        const int c = cols[p];
        int q = p;
        while (q > 0 && cols[q - 1] > c) {
            cols[q] = cols[q - 1];
            q--;
        }
        cols[q] = c;
    }
    return count;
}

static int qcsr_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    (void)o;
    spk_fmt_qcsr *Q = fmt;
    const int m = A->nrows, n = A->ncols, D = SPK_QCSR_DENSITY;
    const int nbc = (n + D - 1) / D;
    Q->nrows = m;
    Q->ncols = n;
    Q->nnz = A->nnz;
    Q->nbands = (m + D - 1) / D;
    int *mark = spk_malloc((size_t)nbc + 1, sizeof(int), "QCSR tile marks", err);
    int *cols = spk_malloc((size_t)nbc + 1, sizeof(int), "QCSR band tiles", err);
    Q->bandptr = spk_calloc((size_t)Q->nbands + 1, sizeof(int), "QCSR band pointers", err);
    if (!mark || !cols || !Q->bandptr) {
        free(mark);
        free(cols);
        return SPK_ERR_NOMEM;
    }
    /* count the leaves */
    for (int c = 0; c < nbc; c++) mark[c] = -1;
    long long nl = 0;
    for (int b = 0; b < Q->nbands; b++) {
        nl += band_tiles(A, b, mark, cols);
        Q->bandptr[b + 1] = (int)(nl < 2147483647LL ? nl : 2147483647LL);
    }
    Q->nleaves = (int)nl;
    Q->leafcol = spk_malloc((size_t)nl + 1, sizeof(int), "QCSR leaf columns", err);
    Q->leafent = spk_malloc((size_t)nl + 1, sizeof(int), "QCSR leaf entries", err);
    Q->leafrp = spk_malloc((size_t)nl * (D + 1) + 1, sizeof(unsigned short), "QCSR leaf row pointers", err);
    Q->lcol = spk_malloc((size_t)A->nnz + 1, 1, "QCSR local columns", err);
    Q->val = spk_malloc((size_t)A->nnz + 1, sizeof(double), "QCSR values", err);
    if (!Q->leafcol || !Q->leafent || !Q->leafrp || !Q->lcol || !Q->val) {
        free(mark);
        free(cols);
        return SPK_ERR_NOMEM;
    }
    /* each leaf: its rows' entries in its columns, found from each row's sorted columns */
    for (int c = 0; c < nbc; c++) mark[c] = -1;
    int at = 0;
    for (int b = 0; b < Q->nbands; b++) {
        const int count = band_tiles(A, b, mark, cols);
        for (int t = 0; t < count; t++) {
            const int l = Q->bandptr[b] + t, c0 = cols[t] * D;
            Q->leafcol[l] = cols[t];
            Q->leafent[l] = at;
            unsigned short *rp = Q->leafrp + (size_t)l * (D + 1);
            const int start = at;
            for (int r = 0; r < D; r++) {
                rp[r] = (unsigned short)(at - start);
                const int i = b * D + r;
                if (i >= m) continue;
                for (int k = lower(A, i, c0); k < A->rowptr[i + 1] && A->colind[k] < c0 + D; k++) {
                    Q->lcol[at] = (unsigned char)(A->colind[k] - c0);
                    Q->val[at++] = A->val[k];
                }
            }
            rp[D] = (unsigned short)(at - start);
        }
    }
    Q->leafent[Q->nleaves] = at;
    free(mark);
    free(cols);
    return SPK_OK;
}

static int qcsr_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_qcsr *Q = fmt;
    const size_t D = SPK_QCSR_DENSITY;
    l[0] = (spk_format_array){(void **)&Q->bandptr, ((size_t)Q->nbands + 1) * sizeof(int), 0};
    l[1] = (spk_format_array){(void **)&Q->leafcol, (size_t)Q->nleaves * sizeof(int), 0};
    l[2] = (spk_format_array){(void **)&Q->leafent, ((size_t)Q->nleaves + 1) * sizeof(int), 0};
    l[3] = (spk_format_array){(void **)&Q->leafrp, (size_t)Q->nleaves * (D + 1) * sizeof(unsigned short), 0};
    l[4] = (spk_format_array){(void **)&Q->lcol, (size_t)Q->nnz, 0};
    l[5] = (spk_format_array){(void **)&Q->val, (size_t)Q->nnz * sizeof(double), 1};
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

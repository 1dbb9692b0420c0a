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

#include "core/parallel.h"
#include "qcsr.h"

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

/* Band b's leaves: columns, first entries, row pointers, local columns and
 * values.  Each row's entries are read once, in column order, and go to
 * their leaf (pos: block column -> leaf of this band); per leaf the row
 * pointers count, then place, then are shifted back. */
static void fill_band(const spk_csr *A, spk_fmt_qcsr *Q, int b, int *mark, int *cols, int *pos)
{
    const int D = SPK_QCSR_DENSITY, m = A->nrows, r1 = (b + 1) * D < m ? (b + 1) * D : m;
    const int count = band_tiles(A, b, mark, cols), l0 = Q->bandptr[b];
    unsigned short *rp0 = Q->leafrp + (size_t)l0 * (D + 1);
    for (int t = 0; t < count; t++) pos[cols[t]] = t;
    memset(rp0, 0, (size_t)count * (D + 1) * sizeof(unsigned short));
    for (int i = b * D; i < r1; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) rp0[(size_t)pos[A->colind[k] / D] * (D + 1) + (i - b * D) + 1]++;
    int at = A->rowptr[b * D < m ? b * D : m];
    for (int t = 0; t < count; t++) {
        unsigned short *rp = rp0 + (size_t)t * (D + 1);
        for (int r = 0; r < D; r++) rp[r + 1] = (unsigned short)(rp[r + 1] + rp[r]);
        Q->leafcol[l0 + t] = cols[t];
        Q->leafent[l0 + t] = at;
        at += rp[D];
    }
    for (int i = b * D; i < r1; i++) {
        const int r = i - b * D;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            const int t = pos[A->colind[k] / D];
            unsigned short *rp = rp0 + (size_t)t * (D + 1);
            const int q = Q->leafent[l0 + t] + rp[r]++;
            Q->lcol[q] = (unsigned char)(A->colind[k] - cols[t] * D);
            Q->val[q] = A->val[k];
        }
    }
    for (int t = 0; t < count; t++) { /* rp[r] now holds row r's end: back to its start */
        unsigned short *rp = rp0 + (size_t)t * (D + 1);
        for (int r = D; r > 0; r--) rp[r] = rp[r - 1];
        rp[0] = 0;
    }
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
    /* the bands in nt contiguous chunks, one a thread, each with its own marks */
    const int nt = A->nnz >= SPK_PAR_MIN && Q->nbands > 1 ? spk_host_threads() : 1;
    int *mark = spk_malloc(((size_t)nbc + 1) * nt, sizeof(int), "QCSR tile marks", err);
    int *cols = spk_malloc(((size_t)nbc + 1) * nt * 2, sizeof(int), "QCSR band tiles", err);
    Q->bandptr = spk_calloc((size_t)Q->nbands + 1, sizeof(int), "QCSR band pointers", err);
    if (!mark || !cols || !Q->bandptr) {
        free(mark);
        free(cols);
        return SPK_ERR_NOMEM;
    }
    const int nb = Q->nbands;
    /* count the leaves of each band */
    SPK_OMP(omp parallel for schedule(static, 1) num_threads(nt))
    for (int t = 0; t < nt; t++) {
        int *mk = mark + (size_t)t * (nbc + 1), *cl = cols + (size_t)t * (nbc + 1);
        for (int c = 0; c < nbc; c++) mk[c] = -1;
        for (int b = (int)((long long)nb * t / nt); b < (int)((long long)nb * (t + 1) / nt); b++)
            Q->bandptr[b + 1] = band_tiles(A, b, mk, cl);
    }
    long long nl = 0;
    for (int b = 0; b < nb; b++) {
        nl += Q->bandptr[b + 1];
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
    /* each leaf: its rows' entries in its columns, found from each row's sorted columns; a
     * band's entries are its rows' own, so they start where its first row's do */
    SPK_OMP(omp parallel for schedule(static, 1) num_threads(nt))
    for (int t = 0; t < nt; t++) {
        int *mk = mark + (size_t)t * (nbc + 1), *cl = cols + (size_t)t * (nbc + 1);
        for (int c = 0; c < nbc; c++) mk[c] = -1;
        for (int b = (int)((long long)nb * t / nt); b < (int)((long long)nb * (t + 1) / nt); b++)
            fill_band(A, Q, b, mk, cl, cols + (size_t)(nt + t) * (nbc + 1));
    }
    Q->leafent[Q->nleaves] = A->nnz;
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

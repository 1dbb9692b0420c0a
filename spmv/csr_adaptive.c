/* csr_adaptive.c -- the "csr-adaptive" format (CSR-Adaptive; csr_adaptive.h):
 * A's CSR arrays copied and the row blocks formed greedily in row order, then
 * the host reference multiplying block by block as the kernel does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csr_adaptive.h"

/* The row blocks of A into rb (nblocks + 1 entries) when rb is not NULL;
 * returns nblocks.  A block takes rows while their nonzeros fit the tile and
 * it has fewer than SPK_ADAPTIVE_ROWS rows; a row longer than the tile is a
 * block alone; *nvector counts the blocks of one row. */
static int adaptive_blocks(const spk_csr *A, int *rb, int *nvector)
{
    int nb = 0, nv = 0, i = 0;
    if (rb) rb[0] = 0;
    while (i < A->nrows) {
        const int first = i;
        if (A->rowptr[i + 1] - A->rowptr[i] > SPK_ADAPTIVE_NNZ) {
            i++;
        } else {
            while (i < A->nrows && i - first < SPK_ADAPTIVE_ROWS
                   && A->rowptr[i + 1] - A->rowptr[first] <= SPK_ADAPTIVE_NNZ)
                i++;
        }
        nv += i - first == 1;
        nb++;
        if (rb) rb[nb] = i;
    }
    *nvector = nv;
    return nb;
}

static int adaptive_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    (void)o;
    spk_fmt_csr_adaptive *C = fmt;
    const int m = A->nrows, nnz = A->nnz;
    C->nrows = m;
    C->ncols = A->ncols;
    C->nnz = nnz;
    C->nblocks = adaptive_blocks(A, NULL, &C->nvector);
    C->rowptr = spk_malloc((size_t)m + 1, sizeof(int), "CSR-adaptive row pointers", err);
    C->row_blocks = spk_malloc((size_t)C->nblocks + 1, sizeof(int), "CSR-adaptive row blocks", err);
    if (!C->rowptr || !C->row_blocks) return SPK_ERR_NOMEM;
    memcpy(C->rowptr, A->rowptr, ((size_t)m + 1) * sizeof(int));
    adaptive_blocks(A, C->row_blocks, &C->nvector);
    if (nnz > 0) {
        C->colind = spk_malloc((size_t)nnz, sizeof(int), "CSR-adaptive column indices", err);
        C->val = spk_malloc((size_t)nnz, sizeof(double), "CSR-adaptive values", err);
        if (!C->colind || !C->val) return SPK_ERR_NOMEM;
        memcpy(C->colind, A->colind, (size_t)nnz * sizeof(int));
        memcpy(C->val, A->val, (size_t)nnz * sizeof(double));
    }
    return SPK_OK;
}

static int adaptive_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_csr_adaptive *C = fmt;
    l[0] = (spk_format_array){(void **)&C->rowptr, ((size_t)C->nrows + 1) * sizeof(int), 0};
    l[1] = (spk_format_array){(void **)&C->colind, (size_t)C->nnz * sizeof(int), 0};
    l[2] = (spk_format_array){(void **)&C->val, (size_t)C->nnz * sizeof(double), 1};
    l[3] = (spk_format_array){(void **)&C->row_blocks, ((size_t)C->nblocks + 1) * sizeof(int), 0};
    return 4;
}

/* A CSR-vector block's row [begin, end) as the kernel sums it: thread t adds
 * entries t, t + THREADS, ...; each warp's 32 sums meet pairwise (offsets 16,
 * ..., 1, shuffles), then the warps' sums (offsets 4, 2, 1). */
static double vector_sum(const int *col, const double *val, int begin, int end, const double *x)
{
    enum { T = SPK_ADAPTIVE_THREADS, W = SPK_ADAPTIVE_THREADS / 32 };
    double part[T], warp[W];
    for (int t = 0; t < T; t++) {
        double s = 0;
        for (int q = begin + t; q < end; q += T) s += val[q] * x[col[q]];
        part[t] = s;
    }
    for (int w = 0; w < W; w++) {
        double *p = part + 32 * w;
        for (int off = 16; off > 0; off /= 2)
            for (int l = 0; l < off; l++) p[l] += p[l + off];
        warp[w] = p[0];
    }
    for (int off = W / 2; off > 0; off /= 2)
        for (int l = 0; l < off; l++) warp[l] += warp[l + off];
    return warp[0];
}

void spk_csr_adaptive_ref(const spk_fmt_csr_adaptive *C, double alpha, const double *x, double beta, double *y)
{
    for (int b = 0; b < C->nblocks; b++) {
        const int r0 = C->row_blocks[b], r1 = C->row_blocks[b + 1];
        const int lanes = spk_adaptive_lanes(r1 - r0);
        for (int r = r0; r < r1; r++) {
            const double s = r1 - r0 == 1
                                 ? vector_sum(C->colind, C->val, C->rowptr[r], C->rowptr[r + 1], x)
                                 : spk_format_lane_sum(C->colind, C->val, C->rowptr[r], C->rowptr[r + 1], x, lanes);
            y[r] = beta == 0.0 ? alpha * s : alpha * s + beta * y[r];
        }
    }
}

static void adaptive_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    spk_csr_adaptive_ref(fmt, alpha, x, beta, y);
}

static void adaptive_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_csr_adaptive *C = fmt;
    snprintf(buf, len, "CSR-adaptive, %d row blocks of <= %d nonzeros or one row (%d CSR-stream, %d CSR-vector)",
             C->nblocks, SPK_ADAPTIVE_NNZ, C->nblocks - C->nvector, C->nvector);
}

static const spk_format adaptive_format = {
    "csr-adaptive", "CSR-adaptive row blocks", sizeof(spk_fmt_csr_adaptive), adaptive_convert, adaptive_arrays,
    adaptive_ref, SPK_FORMAT_LAUNCH(spk_csr_adaptive_launch), adaptive_describe, SPK_FORMAT_BUILD(NULL),
};

SPK_FORMAT_BACKENDS(csr_adaptive, "csr-adaptive",
                    "CSR-adaptive: row blocks a thread block each, short rows through shared memory (stream), "
                    "a long row by the whole block (vector)",
                    adaptive_format)

/* merge.c -- the "merge" format (merge-path CSR; merge.h): A's CSR arrays
 * copied, the start coordinate of every segment found by a binary search
 * along its diagonal of the merge, and a zeroed carry array for the kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parallel.h"
#include "merge.h"

/* The merge-path coordinate on diagonal d (0 <= d <= m + nnz): *row = the
 * number of row ends among the first d items, *nz = d - *row.  Row end i
 * comes before nonzero k exactly when rowptr[i + 1] <= k, so row end i is
 * among the first d items when rowptr[i + 1] <= d - 1 - i, a condition that
 * holds for a prefix of the rows (its left side grows with i). */
static void merge_search(const int *rowptr, int m, int nnz, long long d, int *row, int *nz)
{
    long long lo = d - nnz > 0 ? d - nnz : 0, hi = d < m ? d : m;
    while (lo < hi) {
        const long long mid = lo + (hi - lo) / 2;
        if ((long long)rowptr[mid + 1] <= d - 1 - mid) lo = mid + 1;
        else hi = mid;
    }
    *row = (int)lo;
    *nz = (int)(d - lo);
}

static int merge_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    (void)o;
    spk_fmt_merge *M = fmt;
    const int m = A->nrows, nnz = A->nnz;
    const long long total = (long long)m + nnz;
    M->nrows = m;
    M->ncols = A->ncols;
    M->nnz = nnz;
    M->nseg = (int)((total + SPK_MERGE_ITEMS - 1) / SPK_MERGE_ITEMS);
    M->rowptr = spk_malloc((size_t)m + 1, sizeof(int), "merge row pointers", err);
    M->coord = spk_malloc(2 * ((size_t)M->nseg + 1), sizeof(int), "merge segment coordinates", err);
    if (!M->rowptr || !M->coord) return SPK_ERR_NOMEM;
    spk_host_memcpy(M->rowptr, A->rowptr, ((size_t)m + 1) * sizeof(int));
    if (nnz > 0) {
        M->colind = spk_malloc((size_t)nnz, sizeof(int), "merge column indices", err);
        M->val = spk_malloc((size_t)nnz, sizeof(double), "merge values", err);
        if (!M->colind || !M->val) return SPK_ERR_NOMEM;
        spk_host_memcpy(M->colind, A->colind, (size_t)nnz * sizeof(int));
        spk_host_memcpy(M->val, A->val, (size_t)nnz * sizeof(double));
    }
    if (M->nseg > 0) {
        M->carry = spk_calloc((size_t)M->nseg, sizeof(double), "merge carries", err);
        if (!M->carry) return SPK_ERR_NOMEM;
    }
    SPK_OMP(omp parallel for schedule(static) if (M->nseg >= 1024))
    for (int s = 0; s < M->nseg; s++)
        merge_search(A->rowptr, m, nnz, (long long)s * SPK_MERGE_ITEMS, &M->coord[2 * s], &M->coord[2 * s + 1]);
    M->coord[2 * M->nseg] = m; /* the end entry: every item consumed */
    M->coord[2 * M->nseg + 1] = nnz;
    return SPK_OK;
}

static int merge_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_merge *M = fmt;
    l[0] = (spk_format_array){(void **)&M->rowptr, ((size_t)M->nrows + 1) * sizeof(int), 0};
    l[1] = (spk_format_array){(void **)&M->colind, (size_t)M->nnz * sizeof(int), 0};
    l[2] = (spk_format_array){(void **)&M->val, (size_t)M->nnz * sizeof(double), 1};
    l[3] = (spk_format_array){(void **)&M->coord, 2 * ((size_t)M->nseg + 1) * sizeof(int), 0};
    l[4] = (spk_format_array){(void **)&M->carry, (size_t)M->nseg * sizeof(double), 1};
    return 5;
}

void spk_merge_ref(const spk_fmt_merge *M, double alpha, const double *x, double beta, double *y)
{
    const long long total = (long long)M->nrows + M->nnz;
    int run_row = -1;  /* the row the current run of carries goes to (-1: none) */
    double run = 0;    /* their sum, in segment order */
    for (int s = 0; s < M->nseg; s++) {
        int i = M->coord[2 * s], k = M->coord[2 * s + 1];
        const long long left = total - (long long)s * SPK_MERGE_ITEMS;
        const int n = left < SPK_MERGE_ITEMS ? (int)left : SPK_MERGE_ITEMS;
        double sum = 0;
        for (int t = 0; t < n; t++) {
            if (k < M->rowptr[i + 1]) { /* nonzero k of row i */
                sum += M->val[k] * x[M->colind[k]];
                k++;
            } else { /* the end of row i */
                y[i] = beta == 0.0 ? alpha * sum : alpha * sum + beta * y[i];
                sum = 0;
                i++;
            }
        }
        /* the second pass: a run of carries into one row is added once the
         * row's end has been emitted, i.e. by the first segment that ends in
         * another row (this one, when run_row differs from its end row) */
        const int r = M->coord[2 * s + 2];
        if (run_row >= 0 && r != run_row) {
            y[run_row] += alpha * run;
            run_row = -1;
        }
        if (r < M->nrows) {
            if (run_row < 0) {
                run_row = r;
                run = 0;
            }
            run += sum;
        }
    }
}

static void merge_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    spk_merge_ref(fmt, alpha, x, beta, y);
}

static void merge_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_merge *M = fmt;
    snprintf(buf, len, "merge-path CSR, %d segments of %d items (%d row ends + %d nonzeros)", M->nseg,
             SPK_MERGE_ITEMS, M->nrows, M->nnz);
}

static const spk_format merge_format = {
    "merge", "merge-path CSR", sizeof(spk_fmt_merge), merge_convert, merge_arrays, merge_ref,
    SPK_FORMAT_LAUNCH(spk_merge_launch), merge_describe, SPK_FORMAT_BUILD(NULL),
};

SPK_FORMAT_BACKENDS(merge, "merge",
                    "merge-path CSR: row ends and nonzeros merged, equal segments a thread, carries fixed up",
                    merge_format)

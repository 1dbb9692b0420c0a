/* zcsr.c -- the complex CSR matrix: assembly, product, symmetry. */
#include "zcsr.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "csr.h"
#include "parallel.h"

/* The pattern's arrays as spk_csr_alloc makes them, the values widened to pairs. */
int spk_zcsr_alloc(spk_zcsr *A, int nrows, int ncols, int nnz, spk_err *e)
{
    memset(A, 0, sizeof *A);
    spk_csr P = {0};
    SPK_TRY(spk_csr_alloc(&P, nrows, ncols, nnz, e));
    double *v = realloc(P.val, (size_t)(nnz > 0 ? nnz : 1) * 2 * sizeof(double));
    if (!v) {
        spk_csr_free(&P);
        return spk_err_set(e, SPK_ERR_NOMEM, "out of memory for a %d x %d complex matrix with %d entries", nrows,
                           ncols, nnz);
    }
    *A = (spk_zcsr){P.nrows, P.ncols, P.nnz, P.rowptr, P.colind, v};
    return SPK_OK;
}

void spk_zcsr_free(spk_zcsr *A)
{
    if (!A) return;
    spk_csr P = {A->nrows, A->ncols, A->nnz, A->rowptr, A->colind, A->val};
    spk_csr_free(&P);
    memset(A, 0, sizeof *A);
}

int spk_zcsr_copy(const spk_zcsr *A, spk_zcsr *B, spk_err *e)
{
    SPK_TRY(spk_zcsr_alloc(B, A->nrows, A->ncols, A->nnz, e));
    memcpy(B->rowptr, A->rowptr, ((size_t)A->nrows + 1) * sizeof(int));
    memcpy(B->colind, A->colind, (size_t)A->nnz * sizeof(int));
    memcpy(B->val, A->val, (size_t)A->nnz * 2 * sizeof(double));
    return SPK_OK;
}

/* Sort the entries src[0..len) of one row by column, then input order:
 * insertion sort for the short rows of sparse matrices, qsort of
 * (column, entry) keys in tmp above. */
static int by_key(const void *a, const void *b)
{
    const long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}
static void sort_row(int *src, int len, const int *col, long long *tmp)
{
    if (len > 32) {
        for (int i = 0; i < len; i++) tmp[i] = ((long long)col[src[i]] << 32) | (unsigned)src[i];
        qsort(tmp, (size_t)len, sizeof *tmp, by_key);
        for (int i = 0; i < len; i++) src[i] = (int)(tmp[i] & 0xffffffffLL);
        return;
    }
    for (int i = 1; i < len; i++) {
        const int s = src[i];
        int j = i - 1;
        while (j >= 0 && (col[src[j]] > col[s] || (col[src[j]] == col[s] && src[j] > s))) {
            src[j + 1] = src[j];
            j--;
        }
        src[j + 1] = s;
    }
}

/* The shared assembly: entry k lies in row row[k] (or, with row NULL, the
 * row whose rowptr range holds k), column col[k]. */
static int assemble(int nrows, int ncols, size_t nnz, const int *row, const int *rowptr, const int *col,
                    const double *val, spk_zcsr *A, int *map, spk_err *e)
{
    if (nnz > INT_MAX)
        return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "%zu entries exceed the 32-bit index limit (%d)", nnz,
                           INT_MAX);
    int *count = calloc((size_t)nrows + 1, sizeof(int));
    int *src = malloc((nnz ? nnz : 1) * sizeof(int));
    long long *tmp = malloc((nnz ? nnz : 1) * sizeof(long long));
    if (!count || !src || !tmp) {
        free(count);
        free(src);
        free(tmp);
        return spk_err_set(e, SPK_ERR_NOMEM, "out of memory assembling %zu complex entries", nnz);
    }
    int st = SPK_OK;
    if (!row)
        for (int i = 0; i < nrows; i++) count[i + 1] = rowptr[i + 1] - rowptr[i];
    for (size_t k = 0; k < nnz && !st; k++) {
        const int r = row ? row[k] : -1;
        if ((row && (r < 0 || r >= nrows)) || col[k] < 0 || col[k] >= ncols)
            st = spk_err_set(e, SPK_ERR_INVALID_MATRIX, "entry %zu at (%d, %d) is outside the %d x %d matrix", k,
                             r, col[k], nrows, ncols);
        else if (row)
            count[r + 1]++;
    }
    if (!st) {
        for (int i = 0; i < nrows; i++) count[i + 1] += count[i];
        int *next = malloc(((size_t)nrows + 1) * sizeof(int));
        if (!next) st = spk_err_set(e, SPK_ERR_NOMEM, "out of memory assembling %zu complex entries", nnz);
        else {
            memcpy(next, count, ((size_t)nrows + 1) * sizeof(int));
            if (row)
                for (size_t k = 0; k < nnz; k++) src[next[row[k]]++] = (int)k;
            else
                for (int i = 0; i < nrows; i++)
                    for (int k = rowptr[i]; k < rowptr[i + 1]; k++) src[next[i]++] = k;
            free(next);
        }
    }
    int out = 0;
    if (!st) st = spk_zcsr_alloc(A, nrows, ncols, (int)nnz, e);
    if (!st) {
        for (int i = 0; i < nrows; i++) {
            sort_row(src + count[i], count[i + 1] - count[i], col, tmp);
            A->rowptr[i] = out;
            for (int p = count[i]; p < count[i + 1]; p++) {
                const int k = src[p];
                if (out > A->rowptr[i] && A->colind[out - 1] == col[k]) {
                    A->val[2 * (out - 1)] += val[2 * (size_t)k];
                    A->val[2 * (out - 1) + 1] += val[2 * (size_t)k + 1];
                } else {
                    A->colind[out] = col[k];
                    A->val[2 * out] = val[2 * (size_t)k];
                    A->val[2 * out + 1] = val[2 * (size_t)k + 1];
                    out++;
                }
                if (map) map[k] = out - 1;
            }
        }
        A->rowptr[nrows] = out;
        A->nnz = out;
    }
    free(count);
    free(src);
    free(tmp);
    return st;
}

int spk_zcsr_from_coo(int nrows, int ncols, size_t nnz, const int *row, const int *col, const double *val,
                      spk_zcsr *A, spk_err *e)
{
    memset(A, 0, sizeof *A);
    return assemble(nrows, ncols, nnz, row, NULL, col, val, A, NULL, e);
}

int spk_zcsr_from_csr(int nrows, int ncols, const int *rowptr, const int *colind, const double *val, spk_zcsr *A,
                      int *map, spk_err *e)
{
    memset(A, 0, sizeof *A);
    if (nrows < 0 || ncols < 0 || !rowptr || rowptr[0] != 0)
        return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "complex CSR: %s",
                           nrows < 0 || ncols < 0 ? "negative size" : "rowptr[0] is not 0");
    for (int i = 0; i < nrows; i++)
        if (rowptr[i + 1] < rowptr[i])
            return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "complex CSR: rowptr decreases at row %d (%d after %d)",
                               i, rowptr[i + 1], rowptr[i]);
    return assemble(nrows, ncols, (size_t)rowptr[nrows], NULL, rowptr, colind, val, A, map, e);
}

static void spmv_rows(const spk_zcsr *A, int lo, int hi, const double *restrict x, double *restrict y)
{
    for (int i = lo; i < hi; i++) {
        double re = 0, im = 0;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            const double ar = A->val[2 * (size_t)k], ai = A->val[2 * (size_t)k + 1];
            const double xr = x[2 * (size_t)A->colind[k]], xi = x[2 * (size_t)A->colind[k] + 1];
            re += ar * xr - ai * xi;
            im += ar * xi + ai * xr;
        }
        y[2 * (size_t)i] = re;
        y[2 * (size_t)i + 1] = im;
    }
}

/* Rows in runs of about equal entries, one per thread (as spk_csr_spmv). */
void spk_zcsr_spmv(const spk_zcsr *A, const double *x, double *y)
{
    const int nt = spk_host_threads();
    if (nt < 2 || 2LL * A->nnz + A->nrows < SPK_PAR_MIN) {
        spmv_rows(A, 0, A->nrows, x, y);
        return;
    }
    const long long work = A->nnz;
    SPK_OMP(omp parallel for schedule(static, 1) num_threads(nt))
    for (int t = 0; t < nt; t++) {
        const int lo = t == 0 ? 0 : spk_csr_row_at(A->rowptr, A->nrows, work * t / nt);
        const int hi = t == nt - 1 ? A->nrows : spk_csr_row_at(A->rowptr, A->nrows, work * (t + 1) / nt);
        spmv_rows(A, lo, hi, x, y);
    }
}

/* Position of (j, i) in row j, or -1 (binary search; canonical rows). */
static int find(const spk_zcsr *A, int j, int i)
{
    int lo = A->rowptr[j], hi = A->rowptr[j + 1] - 1;
    while (lo <= hi) {
        const int mid = lo + (hi - lo) / 2;
        if (A->colind[mid] == i) return mid;
        if (A->colind[mid] < i) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* Equal to rounding: |a - b| <= 1e-14 * max(|a|, |b|) (files print 17 digits;
 * generators compute each value once and mirror it). */
static int near(double a, double b)
{
    const double d = a > b ? a - b : b - a, m = (a < 0 ? -a : a) > (b < 0 ? -b : b) ? (a < 0 ? -a : a)
                                                                                      : (b < 0 ? -b : b);
    return d <= 1e-14 * m;
}

spk_zsym spk_zcsr_symmetry(const spk_zcsr *A)
{
    if (A->nrows != A->ncols) return SPK_ZSYM_GENERAL;
    int sym = 1, herm = 1;
    for (int i = 0; i < A->nrows && (sym || herm); i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1] && (sym || herm); k++) {
            const int j = A->colind[k];
            const double ar = A->val[2 * (size_t)k], ai = A->val[2 * (size_t)k + 1];
            const int t = j == i ? k : find(A, j, i);
            const double tr = t < 0 ? 0 : A->val[2 * (size_t)t], ti = t < 0 ? 0 : A->val[2 * (size_t)t + 1];
            if (!near(ar, tr)) sym = herm = 0;
            if (!near(ai, ti)) sym = 0;
            if (!near(ai, -ti)) herm = 0;
        }
    return (spk_zsym)(sym | (herm << 1));
}

int spk_zcsr_diag_pos(const spk_zcsr *A, int **diag, spk_err *e)
{
    const int n = A->nrows < A->ncols ? A->nrows : A->ncols;
    *diag = malloc(((size_t)A->nrows + 1) * sizeof(int));
    if (!*diag) return spk_err_set(e, SPK_ERR_NOMEM, "out of memory for %d diagonal positions", A->nrows);
    for (int i = 0; i < A->nrows; i++) (*diag)[i] = i < n ? find(A, i, i) : -1;
    return SPK_OK;
}

/* csr.c -- host CSR utilities: allocation, validation, sorting, duplicates,
 * COO assembly, transpose, symmetry, diagonal, row statistics, reference SpMV. */
#include "csr.h"
#include "parallel.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int spk_mul_size(size_t a, size_t b, size_t *out)
{
    if (a && b > SIZE_MAX / a) return 1;
    *out = a * b;
    return 0;
}

void *spk_malloc(size_t n, size_t size, const char *what, spk_err *e)
{
    size_t bytes;
    if (spk_mul_size(n, size, &bytes)) {
        spk_err_set(e, SPK_ERR_NOMEM, "size overflow allocating %zu x %zu bytes for %s", n, size, what);
        return NULL;
    }
    void *p = malloc(bytes ? bytes : 1);
    if (!p) spk_err_set(e, SPK_ERR_NOMEM, "out of host memory (%zu bytes for %s)", bytes, what);
    return p;
}

void *spk_calloc(size_t n, size_t size, const char *what, spk_err *e)
{
    size_t bytes;
    if (spk_mul_size(n, size, &bytes)) {
        spk_err_set(e, SPK_ERR_NOMEM, "size overflow allocating %zu x %zu bytes for %s", n, size, what);
        return NULL;
    }
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) spk_err_set(e, SPK_ERR_NOMEM, "out of host memory (%zu bytes for %s)", bytes, what);
    return p;
}

/* Allocate rowptr (zeroed), colind and val for an nrows x ncols matrix with nnz entries. */
int spk_csr_alloc(spk_csr *A, int nrows, int ncols, int nnz, spk_err *e)
{
    memset(A, 0, sizeof *A);
    if (nrows < 0 || ncols < 0 || nnz < 0 || nrows == INT_MAX)
        return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "invalid matrix size %d x %d with %d entries",
                           nrows, ncols, nnz);
    A->rowptr = spk_calloc((size_t)nrows + 1, sizeof(int), "CSR row pointers", e);
    A->colind = A->rowptr ? spk_malloc((size_t)nnz, sizeof(int), "CSR column indices", e) : NULL;
    A->val = A->colind ? spk_malloc((size_t)nnz, sizeof(double), "CSR values", e) : NULL;
    if (!A->val) {
        spk_csr_free(A);
        return SPK_ERR_NOMEM;
    }
    A->nrows = nrows;
    A->ncols = ncols;
    A->nnz = nnz;
    return SPK_OK;
}

void spk_csr_free(spk_csr *A)
{
    if (!A) return;
    free(A->rowptr);
    free(A->colind);
    free(A->val);
    memset(A, 0, sizeof *A);
}

/* B = A (deep copy). */
int spk_csr_copy(const spk_csr *A, spk_csr *B, spk_err *e)
{
    SPK_TRY(spk_csr_alloc(B, A->nrows, A->ncols, A->nnz, e));
    memcpy(B->rowptr, A->rowptr, ((size_t)A->nrows + 1) * sizeof(int));
    if (A->nnz) {
        memcpy(B->colind, A->colind, (size_t)A->nnz * sizeof(int));
        if (A->val)
            memcpy(B->val, A->val, (size_t)A->nnz * sizeof(double));
        else
            for (int k = 0; k < A->nnz; k++) B->val[k] = 1.0;
    }
    return SPK_OK;
}

/* Check the dimensions, the arrays and rowptr monotone from 0 to nnz. */
int spk_csr_validate_rows(const spk_csr *A, spk_err *e)
{
    if (!A || A->nrows < 0 || A->ncols < 0 || A->nnz < 0)
        return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "invalid matrix dimensions");
    if (!A->rowptr) return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "row pointer array is NULL");
    if (A->nnz > 0 && !A->colind)
        return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "column index array is NULL");
    if (A->rowptr[0] != 0)
        return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "rowptr[0] is %d, must be 0", A->rowptr[0]);
    for (int i = 0; i < A->nrows; i++) {
        int b = A->rowptr[i], t = A->rowptr[i + 1];
        if (t < b || t > A->nnz)
            return spk_err_set(e, SPK_ERR_INVALID_MATRIX,
                               "rowptr[%d] = %d after rowptr[%d] = %d: row pointers must be "
                               "non-decreasing and at most nnz = %d",
                               i + 1, t, i, b, A->nnz);
    }
    if (A->rowptr[A->nrows] != A->nnz)
        return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "rowptr[%d] = %d but nnz = %d", A->nrows,
                           A->rowptr[A->nrows], A->nnz);
    return SPK_OK;
}

/* The rows, then every column in range (and sorted). */
int spk_csr_validate(const spk_csr *A, int require_sorted, spk_err *e)
{
    SPK_TRY(spk_csr_validate_rows(A, e));
    for (int i = 0; i < A->nrows; i++) {
        const int b = A->rowptr[i], t = A->rowptr[i + 1];
        for (int k = b; k < t; k++) {
            int c = A->colind[k];
            if (c < 0 || c >= A->ncols)
                return spk_err_set(e, SPK_ERR_INVALID_MATRIX,
                                   "column index %d of entry %d in row %d is outside [0, %d)", c, k,
                                   i, A->ncols);
            if (require_sorted && k > b && c <= A->colind[k - 1])
                return spk_err_set(e, SPK_ERR_INVALID_MATRIX,
                                   "row %d: column %d follows column %d (columns must be strictly "
                                   "increasing)",
                                   i, c, A->colind[k - 1]);
        }
    }
    return SPK_OK;
}

int spk_csr_is_sorted(const spk_csr *A)
{
    for (int i = 0; i < A->nrows; i++)
        for (int k = A->rowptr[i] + 1; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] <= A->colind[k - 1]) return 0;
    return 1;
}

/* Sort (col, pos) pairs of one row by column; insertion sort for short rows. */
static void sort_row(int *col, int *pos, int n, int *tmpc, int *tmpp)
{
    if (n < 32) {
        for (int i = 1; i < n; i++) {
            int c = col[i], p = pos[i], j = i - 1;
            while (j >= 0 && col[j] > c) {
                col[j + 1] = col[j];
                pos[j + 1] = pos[j];
                j--;
            }
            col[j + 1] = c;
            pos[j + 1] = p;
        }
        return;
    }
    /* stable merge sort through the scratch arrays */
    int h = n / 2;
    sort_row(col, pos, h, tmpc, tmpp);
    sort_row(col + h, pos + h, n - h, tmpc, tmpp);
    int i = 0, j = h, k = 0;
    while (i < h && j < n) {
        if (col[j] < col[i]) {
            tmpc[k] = col[j];
            tmpp[k++] = pos[j++];
        } else {
            tmpc[k] = col[i];
            tmpp[k++] = pos[i++];
        }
    }
    while (i < h) {
        tmpc[k] = col[i];
        tmpp[k++] = pos[i++];
    }
    while (j < n) {
        tmpc[k] = col[j];
        tmpp[k++] = pos[j++];
    }
    memcpy(col, tmpc, (size_t)n * sizeof(int));
    memcpy(pos, tmpp, (size_t)n * sizeof(int));
}

/* Sort columns within each row, values following; perm[new] = old. */
int spk_csr_sort(spk_csr *A, int *perm, spk_err *e)
{
    int st = SPK_OK, maxlen = 0;
    int *pos = NULL, *tmpc = NULL, *tmpp = NULL;
    double *v = NULL;
    for (int i = 0; i < A->nrows; i++) {
        int len = A->rowptr[i + 1] - A->rowptr[i];
        if (len > maxlen) maxlen = len;
    }
    pos = spk_malloc((size_t)A->nnz, sizeof(int), "sort permutation", e);
    tmpc = spk_malloc((size_t)maxlen, sizeof(int), "sort scratch", e);
    tmpp = spk_malloc((size_t)maxlen, sizeof(int), "sort scratch", e);
    v = spk_malloc((size_t)A->nnz, sizeof(double), "sort scratch", e);
    if (!pos || !tmpc || !tmpp || !v) {
        st = SPK_ERR_NOMEM;
        goto cleanup;
    }
    for (int k = 0; k < A->nnz; k++) pos[k] = k;
    for (int i = 0; i < A->nrows; i++) {
        int b = A->rowptr[i], n = A->rowptr[i + 1] - b;
        sort_row(A->colind + b, pos + b, n, tmpc, tmpp);
    }
    if (A->val) {
        for (int k = 0; k < A->nnz; k++) v[k] = A->val[pos[k]];
        memcpy(A->val, v, (size_t)A->nnz * sizeof(double));
    }
    if (perm) memcpy(perm, pos, (size_t)A->nnz * sizeof(int));
cleanup:
    free(pos);
    free(tmpc);
    free(tmpp);
    free(v);
    return st;
}

/* Sum entries with equal column in each sorted row; map[old] = new. */
int spk_csr_sum_duplicates(spk_csr *A, int *map)
{
    int out = 0, start = 0;
    for (int i = 0; i < A->nrows; i++) {
        int b = start, t = A->rowptr[i + 1];
        int row_first = out;
        for (int k = b; k < t; k++) {
            if (out > row_first && A->colind[out - 1] == A->colind[k]) {
                if (A->val) A->val[out - 1] += A->val[k];
            } else {
                A->colind[out] = A->colind[k];
                if (A->val) A->val[out] = A->val[k];
                out++;
            }
            if (map) map[k] = out - 1;
        }
        start = t;
        A->rowptr[i + 1] = out;
    }
    A->nnz = out;
    return SPK_OK;
}

/* Are the columns of every row non-decreasing (sorted, duplicates allowed)? */
static int rows_nondecreasing(const spk_csr *A)
{
    for (int i = 0; i < A->nrows; i++)
        for (int k = A->rowptr[i] + 1; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] < A->colind[k - 1]) return 0;
    return 1;
}

/* Canonical CSR from triplets: counting sort by row, then per-row sort and merge. */
int spk_csr_from_coo(int nrows, int ncols, size_t nnz, const int *row, const int *col,
                     const double *val, spk_csr *A, spk_err *e)
{
    if (nnz > INT_MAX)
        return spk_err_set(e, SPK_ERR_INVALID_MATRIX,
                           "%zu entries exceed the 32-bit index limit (%d)", nnz, INT_MAX);
    for (size_t k = 0; k < nnz; k++)
        if (row[k] < 0 || row[k] >= nrows || col[k] < 0 || col[k] >= ncols)
            return spk_err_set(e, SPK_ERR_INVALID_MATRIX,
                               "entry %zu at (%d, %d) is outside the %d x %d matrix", k, row[k],
                               col[k], nrows, ncols);
    SPK_TRY(spk_csr_alloc(A, nrows, ncols, (int)nnz, e));
    for (size_t k = 0; k < nnz; k++) A->rowptr[row[k] + 1]++;
    for (int i = 0; i < nrows; i++) A->rowptr[i + 1] += A->rowptr[i];
    int *next = spk_malloc((size_t)nrows + 1, sizeof(int), "COO assembly", e);
    if (!next) {
        spk_csr_free(A);
        return SPK_ERR_NOMEM;
    }
    memcpy(next, A->rowptr, ((size_t)nrows + 1) * sizeof(int));
    for (size_t k = 0; k < nnz; k++) {
        int p = next[row[k]]++;
        A->colind[p] = col[k];
        A->val[p] = val ? val[k] : 1.0;
    }
    free(next);
    int st = rows_nondecreasing(A) ? SPK_OK : spk_csr_sort(A, NULL, e);
    if (st) {
        spk_csr_free(A);
        return st;
    }
    spk_csr_sum_duplicates(A, NULL);
    return SPK_OK;
}

/* B = A^T by counting columns; rows of B come out sorted when A is valid. */
int spk_csr_transpose(const spk_csr *A, spk_csr *B, spk_err *e)
{
    SPK_TRY(spk_csr_alloc(B, A->ncols, A->nrows, A->nnz, e));
    for (int k = 0; k < A->nnz; k++) B->rowptr[A->colind[k] + 1]++;
    for (int j = 0; j < A->ncols; j++) B->rowptr[j + 1] += B->rowptr[j];
    int *next = spk_malloc((size_t)A->ncols + 1, sizeof(int), "transpose", e);
    if (!next) {
        spk_csr_free(B);
        return SPK_ERR_NOMEM;
    }
    memcpy(next, B->rowptr, ((size_t)A->ncols + 1) * sizeof(int));
    for (int i = 0; i < A->nrows; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int p = next[A->colind[k]]++;
            B->colind[p] = i;
            B->val[p] = A->val ? A->val[k] : 1.0;
        }
    free(next);
    return SPK_OK;
}

/* Compare A with its transpose entry by entry (both canonical, so rows merge). */
/* One pair (or an entry without partner, whose partner value is 0). */
static void symmetry_pair(double va, double vt, double rtol, int *vals)
{
    double m = fmax(fabs(va), fabs(vt));
    if (fabs(va - vt) > rtol * m || va != va || vt != vt) *vals = 0;
}

/* A canonical matrix's rows are sorted, so the lower entries (c, r) of row c
 * are met in the order of r when the rows r are walked in order: a cursor
 * per row pairs each upper entry (r, c) with the next lower entry of row c
 * (O(nnz), one int per row, no transpose).  Lower entries a cursor steps
 * over, and those left at the end, have no partner. */
int spk_csr_stencil_like(const spk_csr *A)
{
    if (!A || A->nrows != A->ncols || A->nrows == 0) return 0;
    double d0 = 0;
    for (int k = A->rowptr[0]; k < A->rowptr[1]; k++)
        if (A->colind[k] == 0) d0 = A->val[k];
    if (!(d0 > 0) || !isfinite(d0)) return 0;
    for (int i = 0; i < A->nrows; i++) {
        double d = 0, off = 0;
        int has = 0;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            if (A->colind[k] == i) {
                d = A->val[k];
                has = 1;
            } else {
                off += fabs(A->val[k]);
            }
        }
        if (!has || !(fabs(d - d0) <= SPK_STENCIL_DIAG_RTOL * d0) || !(d >= off * (1 - 1e-12))) return 0;
    }
    return 1;
}

int spk_csr_symmetry(const spk_csr *A, double rtol, int *pattern, int *values, spk_err *e)
{
    int pat = 1, vals = 1;
    int *cur = NULL;
    const int n = A->nrows;
    if (A->nrows != A->ncols) {
        pat = vals = 0;
        goto done;
    }
    if (!(cur = spk_malloc((size_t)n + 1, sizeof(int), "symmetry cursors", e))) return SPK_ERR_NOMEM;
    memcpy(cur, A->rowptr, (size_t)n * sizeof(int));
    for (int r = 0; r < n && (pat || vals); r++) {
        for (int k = A->rowptr[r]; k < A->rowptr[r + 1]; k++) {
            const int c = A->colind[k];
            if (c < r) continue; /* lower entries: met from their partners' rows */
            if (c == r) {        /* its own partner (a NaN is not) */
                symmetry_pair(A->val[k], A->val[k], rtol, &vals);
                continue;
            }
            int q = cur[c];
            const int end = A->rowptr[c + 1];
            for (; q < end && A->colind[q] < r; q++) { /* (c, col < r): no (col, c) was stored */
                pat = 0;
                symmetry_pair(A->val[q], 0.0, rtol, &vals);
            }
            if (q < end && A->colind[q] == r) {
                symmetry_pair(A->val[k], A->val[q], rtol, &vals);
                q++;
            } else {
                pat = 0;
                symmetry_pair(A->val[k], 0.0, rtol, &vals);
            }
            cur[c] = q;
        }
    }
    for (int c = 0; c < n && (pat || vals); c++) /* lower entries never paired */
        for (int q = cur[c]; q < A->rowptr[c + 1] && A->colind[q] < c; q++) {
            pat = 0;
            symmetry_pair(A->val[q], 0.0, rtol, &vals);
        }
    free(cur);
done:
    if (pattern) *pattern = pat;
    if (values) *values = vals;
    return SPK_OK;
}

int spk_csr_diag_pos(const spk_csr *A, int *pos)
{
    int missing = 0;
    for (int i = 0; i < A->nrows; i++) {
        pos[i] = -1;
        if (i >= A->ncols) continue;
        /* binary search in the sorted row */
        int lo = A->rowptr[i], hi = A->rowptr[i + 1] - 1;
        while (lo <= hi) {
            int mid = lo + (hi - lo) / 2;
            if (A->colind[mid] == i) {
                pos[i] = mid;
                break;
            }
            if (A->colind[mid] < i)
                lo = mid + 1;
            else
                hi = mid - 1;
        }
        if (pos[i] < 0) missing++;
    }
    return missing;
}

int spk_csr_diagonal(const spk_csr *A, double *d)
{
    int n = A->nrows < A->ncols ? A->nrows : A->ncols, missing = 0;
    for (int i = 0; i < n; i++) {
        d[i] = 0;
        int found = 0;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] == i) {
                d[i] += A->val[k];
                found = 1;
            }
        if (!found) missing++;
    }
    return missing;
}

/* B = A with explicit zeros at every missing diagonal position of a square A. */
int spk_csr_with_diagonal(const spk_csr *A, spk_csr *B, int *added, spk_err *e)
{
    if (A->nrows != A->ncols)
        return spk_err_set(e, SPK_ERR_INVALID_MATRIX,
                           "matrix is %d x %d; a square matrix is required", A->nrows, A->ncols);
    int n = A->nrows, add = 0;
    int *pos = spk_malloc((size_t)n, sizeof(int), "diagonal positions", e);
    if (!pos) return SPK_ERR_NOMEM;
    add = spk_csr_diag_pos(A, pos);
    if ((long long)A->nnz + add > INT_MAX) {
        free(pos);
        return spk_err_set(e, SPK_ERR_INVALID_MATRIX,
                           "adding %d diagonal entries exceeds the 32-bit index limit", add);
    }
    int st = spk_csr_alloc(B, n, n, A->nnz + add, e);
    if (st) {
        free(pos);
        return st;
    }
    int out = 0;
    for (int i = 0; i < n; i++) {
        int inserted = pos[i] >= 0;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            if (!inserted && A->colind[k] > i) {
                B->colind[out] = i;
                B->val[out++] = 0.0;
                inserted = 1;
            }
            B->colind[out] = A->colind[k];
            B->val[out++] = A->val[k];
        }
        if (!inserted) {
            B->colind[out] = i;
            B->val[out++] = 0.0;
        }
        B->rowptr[i + 1] = out;
    }
    free(pos);
    if (added) *added = add;
    return SPK_OK;
}

void spk_csr_row_stats(const spk_csr *A, spk_csr_rowstats *s)
{
    memset(s, 0, sizeof *s);
    if (A->nrows == 0) return;
    s->min = INT_MAX;
    double sum = 0, sum2 = 0;
    for (int i = 0; i < A->nrows; i++) {
        int len = A->rowptr[i + 1] - A->rowptr[i];
        if (len < s->min) s->min = len;
        if (len > s->max) s->max = len;
        if (len == 0) s->empty++;
        sum += len;
        sum2 += (double)len * len;
    }
    s->mean = sum / A->nrows;
    double var = sum2 / A->nrows - s->mean * s->mean;
    s->std = var > 0 ? sqrt(var) : 0;
}

int spk_csr_diag_dominant_rows(const spk_csr *A)
{
    int count = 0;
    for (int i = 0; i < A->nrows; i++) {
        double d = 0, off = 0;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            if (A->colind[k] == i)
                d += A->val[k];
            else
                off += fabs(A->val[k]);
        }
        if (fabs(d) >= off) count++;
    }
    return count;
}

int spk_csr_tri_levels(const spk_csr *A, int upper)
{
    const int n = A->nrows;
    int *lev = malloc(((size_t)n + 1) * sizeof(int)), levels = 0;
    if (!lev) return -1;
    for (int t = 0; t < n; t++) {
        const int i = upper ? n - 1 - t : t; /* every row it depends on is done before it */
        int l = 0;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            const int j = A->colind[k];
            if ((upper ? j > i : j < i) && lev[j] > l) l = lev[j];
        }
        lev[i] = l + 1;
        if (lev[i] > levels) levels = lev[i];
    }
    free(lev);
    return levels;
}

/* Greedy coloring of the graph whose vertices are the blocks blk[i] (0..nb-1)
 * and whose edges are the entries of A + A^T between two blocks, blocks taken
 * in order: bcolor[b] gets block b's color.  T = A^T. */
static int color_blocks(const spk_csr *A, const spk_csr *T, const int *blk, int nb, int *bcolor, int *ncolors,
                        spk_err *e)
{
    const int n = A->nrows;
    int st = SPK_OK, used = 0;
    /* the rows of each block (counting sort), and stamp[c] == b + 1 when
     * color c is taken by a neighbour of block b (at most nb colors) */
    int *start = spk_calloc((size_t)nb + 1, sizeof(int), "multicoloring scratch", e);
    int *rows = spk_malloc((size_t)n, sizeof(int), "multicoloring scratch", e);
    int *stamp = spk_calloc((size_t)nb + 1, sizeof(int), "multicoloring scratch", e);
    if (!start || !rows || !stamp) {
        st = SPK_ERR_NOMEM;
        goto cleanup;
    }
    for (int i = 0; i < n; i++) start[blk[i] + 1]++;
    for (int b = 0; b < nb; b++) start[b + 1] += start[b];
    for (int i = 0; i < n; i++) rows[start[blk[i]]++] = i;
    for (int b = nb; b > 0; b--) start[b] = start[b - 1];
    start[0] = 0;
    for (int b = 0; b < nb; b++) bcolor[b] = -1;
    for (int b = 0; b < nb; b++) {
        for (int t = start[b]; t < start[b + 1]; t++)
            for (int pass = 0; pass < 2; pass++) {
                const spk_csr *G = pass ? T : A;
                const int i = rows[t];
                for (int k = G->rowptr[i]; k < G->rowptr[i + 1]; k++) {
                    const int nbr = blk[G->colind[k]];
                    if (nbr != b && bcolor[nbr] >= 0) stamp[bcolor[nbr]] = b + 1;
                }
            }
        int c = 0;
        while (stamp[c] == b + 1) c++;
        bcolor[b] = c;
        if (c + 1 > used) used = c + 1;
    }
    *ncolors = used;
cleanup:
    free(start);
    free(rows);
    free(stamp);
    return st;
}

int spk_csr_block_multicolor(const spk_csr *A, int block, int *blk, int *color, int *nblocks, int *ncolors,
                             int *perm, spk_err *e)
{
    if (A->nrows != A->ncols)
        return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "multicoloring needs a square matrix, not %d x %d", A->nrows,
                           A->ncols);
    if (block < 1) return spk_err_set(e, SPK_ERR_INVALID_ARG, "block multicoloring: blocks of %d rows", block);
    const int n = A->nrows;
    spk_csr T = {0};
    int st = SPK_OK, nb = 0;
    int *queue = spk_malloc((size_t)n, sizeof(int), "block multicoloring scratch", e);
    int *bcolor = spk_malloc((size_t)n, sizeof(int), "block multicoloring scratch", e);
    int *start = NULL;
    if (!queue || !bcolor) {
        st = SPK_ERR_NOMEM;
        goto cleanup;
    }
    SPK_CHECK(st, spk_csr_transpose(A, &T, e));
    /* aggregation: from the first row without a block, breadth first over
     * A + A^T until the block holds `block` rows (or its component ends) */
    for (int i = 0; i < n; i++) blk[i] = -1;
    for (int s0 = 0; s0 < n; s0++) {
        if (blk[s0] >= 0) continue;
        int head = 0, tail = 0, size = 0;
        queue[tail++] = s0;
        blk[s0] = nb;
        size = 1;
        while (head < tail && size < block) {
            const int i = queue[head++];
            for (int pass = 0; pass < 2 && size < block; pass++) {
                const spk_csr *G = pass ? &T : A;
                for (int k = G->rowptr[i]; k < G->rowptr[i + 1] && size < block; k++) {
                    const int j = G->colind[k];
                    if (blk[j] < 0) {
                        blk[j] = nb;
                        queue[tail++] = j;
                        size++;
                    }
                }
            }
        }
        nb++;
    }
    SPK_CHECK(st, color_blocks(A, &T, blk, nb, bcolor, ncolors, e));
    for (int i = 0; i < n; i++) color[i] = bcolor[blk[i]];
    /* perm: by color, then block, then row (two stable counting sorts) */
    start = spk_calloc((size_t)(nb > *ncolors ? nb : *ncolors) + 1, sizeof(int), "block multicoloring order", e);
    if (!start) {
        st = SPK_ERR_NOMEM;
        goto cleanup;
    }
    for (int i = 0; i < n; i++) start[blk[i] + 1]++;
    for (int b = 0; b < nb; b++) start[b + 1] += start[b];
    for (int i = 0; i < n; i++) queue[start[blk[i]]++] = i; /* rows by block */
    memset(start, 0, ((size_t)(nb > *ncolors ? nb : *ncolors) + 1) * sizeof(int));
    for (int i = 0; i < n; i++) start[color[i] + 1]++;
    for (int c = 0; c < *ncolors; c++) start[c + 1] += start[c];
    for (int t = 0; t < n; t++) perm[start[color[queue[t]]]++] = queue[t];
    *nblocks = nb;
cleanup:
    free(queue);
    free(bcolor);
    free(start);
    spk_csr_free(&T);
    return st;
}

int spk_csr_permute(const spk_csr *A, const int *perm, spk_csr *B, int *map, spk_err *e)
{
    const int n = A->nrows;
    int st = SPK_OK;
    int *inv = NULL, *src = NULL, *order = NULL;
    if (A->nrows != A->ncols)
        return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "a symmetric permutation needs a square matrix, not %d x %d",
                           A->nrows, A->ncols);
    inv = spk_malloc((size_t)n, sizeof(int), "inverse permutation", e);
    src = spk_malloc((size_t)A->nnz, sizeof(int), "permutation map", e);
    order = spk_malloc((size_t)A->nnz, sizeof(int), "permutation map", e);
    if (!inv || !src || !order) {
        st = SPK_ERR_NOMEM;
        goto cleanup;
    }
    for (int i = 0; i < n; i++) inv[i] = -1;
    for (int i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= n || inv[perm[i]] >= 0) {
            st = spk_err_set(e, SPK_ERR_INVALID_ARG, "not a permutation: entry %d is %d", i, perm[i]);
            goto cleanup;
        }
        inv[perm[i]] = i;
    }
    SPK_CHECK(st, spk_csr_alloc(B, n, n, A->nnz, e));
    B->rowptr[0] = 0;
    for (int i = 0, k = 0; i < n; i++) {
        const int r = perm[i];
        for (int q = A->rowptr[r]; q < A->rowptr[r + 1]; q++, k++) {
            B->colind[k] = inv[A->colind[q]];
            B->val[k] = A->val[q];
            src[k] = q;
        }
        B->rowptr[i + 1] = k;
    }
    SPK_CHECK(st, spk_csr_sort(B, order, e));
    if (map)
        for (int k = 0; k < A->nnz; k++) map[k] = src[order[k]];
cleanup:
    if (st) spk_csr_free(B);
    free(inv);
    free(src);
    free(order);
    return st;
}

/* y = alpha*A*x + beta*y; traffic 12*nnz + 4*(rows+1) + 8*cols + 8*rows (16 with beta) bytes. */
/* rows [lo, hi) of y = alpha*A*x + beta*y */
static void csr_spmv_rows(const spk_csr *A, int lo, int hi, double alpha, const double *x, double beta,
                          double *y)
{
    const int *restrict rp = A->rowptr, *restrict ci = A->colind;
    const double *restrict v = A->val;
    for (int i = lo; i < hi; i++) {
        double s = 0;
        const int e = rp[i + 1];
        for (int k = rp[i]; k < e; k++) s += v[k] * x[ci[k]];
        y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
    }
}

int spk_csr_row_at(const int *rowptr, int nrows, long long k)
{
    int lo = 0, hi = nrows;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (rowptr[mid] < k) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Each thread takes a contiguous run of rows holding about the same number of
 * entries (a dense row costs its length). */
void spk_csr_spmv(const spk_csr *A, double alpha, const double *x, double beta, double *y)
{
    const int nt = spk_host_threads();
    if (nt < 2 || (long long)A->nnz + A->nrows < SPK_PAR_MIN) {
        csr_spmv_rows(A, 0, A->nrows, alpha, x, beta, y);
        return;
    }
    const long long work = A->nnz;
    SPK_OMP(omp parallel for schedule(static, 1) num_threads(nt))
    for (int t = 0; t < nt; t++) {
        const int lo = t == 0 ? 0 : spk_csr_row_at(A->rowptr, A->nrows, work * t / nt);
        const int hi = t == nt - 1 ? A->nrows : spk_csr_row_at(A->rowptr, A->nrows, work * (t + 1) / nt);
        csr_spmv_rows(A, lo, hi, alpha, x, beta, y);
    }
}

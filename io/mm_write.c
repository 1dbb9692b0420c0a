/* mm_write.c -- Matrix Market writing (mmio.h): coordinate real general or
 * symmetric, coordinate complex general, symmetric or hermitian, array real
 * or complex general, %.17g values; non-finite values are refused.  The
 * files go through mm_file.c (gzip, replace when complete). */
#include "io/mm_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Make sure MM_OUT_SLACK bytes fit at o->buf + o->len. */
static int mm_out_room(mm_out *o, spk_err *e)
{
    return o->len >= o->cap ? spk_mm_out_flush(o, e) : SPK_OK;
}

/* Append the decimal digits of x at s; returns the end. */
static char *mm_fmt_uint(char *s, unsigned long long x)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + x % 10);
        x /= 10;
    } while (x);
    while (n) *s++ = tmp[--n];
    return s;
}

/* Append v as printf("%.17g") prints it (17 significant digits round-trip
 * exactly); integral values below 1e15 take a fast path. */
static char *mm_fmt_real(char *s, double v)
{
    if (v == 0) {
        if (signbit(v)) *s++ = '-';
        *s++ = '0';
        return s;
    }
    if (fabs(v) < 1e15) {
        long long iv = (long long)v;
        if ((double)iv == v) {
            if (iv < 0) *s++ = '-';
            return mm_fmt_uint(s, (unsigned long long)(iv < 0 ? -iv : iv));
        }
    }
    int n = snprintf(s, 40, "%.17g", v);
    for (int k = 0; k < n; k++)
        if (s[k] == ',') s[k] = '.'; /* a locale with a decimal comma */
    return s + n;
}

/* Write the banner, the verbatim lines (each as it is where it starts with
 * '%', else after "% "), the comment lines ("% " + each line) and nothing
 * else. */
static int mm_out_header(mm_out *o, const char *banner, const char *lines, const char *comment, spk_err *e)
{
    SPK_TRY(spk_mm_out_puts(o, banner, strlen(banner), e));
    for (const char *c = lines; c && *c;) {
        const char *nl = strchr(c, '\n');
        size_t n = nl ? (size_t)(nl - c) : strlen(c);
        if (n && c[n - 1] == '\r') n--;
        if (c[0] != '%') SPK_TRY(spk_mm_out_puts(o, "% ", 2, e));
        SPK_TRY(spk_mm_out_puts(o, c, n, e));
        SPK_TRY(spk_mm_out_puts(o, "\n", 1, e));
        c = nl ? nl + 1 : c + strlen(c);
    }
    for (const char *c = comment; c && *c;) {
        const char *nl = strchr(c, '\n');
        size_t n = nl ? (size_t)(nl - c) : strlen(c);
        if (n && c[n - 1] == '\r') n--;
        SPK_TRY(spk_mm_out_puts(o, n ? "% " : "%", n ? 2 : 1, e));
        SPK_TRY(spk_mm_out_puts(o, c, n, e));
        SPK_TRY(spk_mm_out_puts(o, "\n", 1, e));
        c = nl ? nl + 1 : c + strlen(c);
    }
    return SPK_OK;
}

/* The size line and the entries of a CSR pattern, "i j v" with w = 1 value
 * an entry, "i j re im" with w = 2; only those with j <= i where lower. */
static int mm_out_coo(mm_out *o, int nrows, int ncols, const int *rowptr, const int *colind, const double *val,
                      int w, int lower, spk_err *e)
{
    long long count = 0;
    for (int i = 0; i < nrows; i++)
        for (int k = rowptr[i]; k < rowptr[i + 1]; k++) count += !lower || colind[k] <= i;
    char *s = o->buf + o->len;
    s = mm_fmt_uint(s, (unsigned long long)nrows);
    *s++ = ' ';
    s = mm_fmt_uint(s, (unsigned long long)ncols);
    *s++ = ' ';
    s = mm_fmt_uint(s, (unsigned long long)count);
    *s++ = '\n';
    o->len = (size_t)(s - o->buf);
    for (int i = 0; i < nrows; i++)
        for (int k = rowptr[i]; k < rowptr[i + 1]; k++) {
            if (lower && colind[k] > i) continue;
            SPK_TRY(mm_out_room(o, e));
            s = o->buf + o->len;
            s = mm_fmt_uint(s, (unsigned long long)i + 1);
            *s++ = ' ';
            s = mm_fmt_uint(s, (unsigned long long)colind[k] + 1);
            for (int c = 0; c < w; c++) {
                *s++ = ' ';
                s = mm_fmt_real(s, val[(size_t)k * (size_t)w + (size_t)c]);
            }
            *s++ = '\n';
            o->len = (size_t)(s - o->buf);
        }
    return SPK_OK;
}

/* The size line and the values of a column-major array, w doubles a value
 * ("re im" on one line where w = 2). */
static int mm_out_array(mm_out *o, int nrows, int ncols, const double *v, int w, spk_err *e)
{
    const size_t total = (size_t)nrows * (size_t)ncols;
    char *s = o->buf + o->len;
    s = mm_fmt_uint(s, (unsigned long long)nrows);
    *s++ = ' ';
    s = mm_fmt_uint(s, (unsigned long long)ncols);
    *s++ = '\n';
    o->len = (size_t)(s - o->buf);
    for (size_t k = 0; k < total; k++) {
        SPK_TRY(mm_out_room(o, e));
        s = o->buf + o->len;
        for (int c = 0; c < w; c++) {
            if (c) *s++ = ' ';
            s = mm_fmt_real(s, v[k * (size_t)w + (size_t)c]);
        }
        *s++ = '\n';
        o->len = (size_t)(s - o->buf);
    }
    return SPK_OK;
}

/* The first value of the nrows x ncols array v (w doubles a value) that is
 * not finite, as "(i,j)" in buf; 0 when all are. */
static int mm_nonfinite_cell(int nrows, const double *v, size_t total, int w, char *buf, size_t len)
{
    for (size_t k = 0; k < total * (size_t)w; k++)
        if (!isfinite(v[k])) {
            const size_t cell = k / (size_t)w;
            snprintf(buf, len, "(%zu,%zu)", cell % (size_t)nrows + 1, cell / (size_t)nrows + 1);
            return 1;
        }
    return 0;
}

/* Write A as coordinate real general, or symmetric (lower triangle only). */
int spk_mm_write_csr(const char *path, const spk_csr *A, int symmetric, const char *comment,
                     spk_err *e)
{
    return spk_mm_write_csr_lines(path, A, symmetric, NULL, comment, e);
}

int spk_mm_write_csr_lines(const char *path, const spk_csr *A, int symmetric, const char *lines,
                           const char *comment, spk_err *e)
{
    mm_out o;
    int st, sym = 0;
    if (!path || !A)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_mm_write_csr: %s is NULL",
                           path ? "A" : "path");
    if ((st = spk_csr_validate(A, symmetric != 0, e)))
        return spk_err_prefix(e, "cannot write '%s'", path);
    if (A->nnz > 0 && !A->val)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "cannot write '%s': the values are NULL", path);
    if (symmetric) {
        if (A->nrows != A->ncols)
            return spk_err_set(e, SPK_ERR_INVALID_ARG,
                               "cannot write '%s' as symmetric: the matrix is %d x %d, not square",
                               path, A->nrows, A->ncols);
        if ((st = spk_csr_symmetry(A, 0.0, NULL, &sym, e)))
            return spk_err_prefix(e, "cannot write '%s'", path);
        if (!sym)
            return spk_err_set(e, SPK_ERR_INVALID_ARG,
                               "cannot write '%s' as symmetric: the matrix is not symmetric", path);
    }
    for (int i = 0; i < A->nrows; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (!isfinite(A->val[k]))
                return spk_err_set(e, SPK_ERR_INVALID_ARG,
                                   "cannot write '%s': the value at (%d,%d) is not finite", path,
                                   i + 1, A->colind[k] + 1);
    SPK_TRY(spk_mm_out_open(&o, path, e));
    SPK_CHECK(st, mm_out_header(&o,
                                symmetric ? "%%MatrixMarket matrix coordinate real symmetric\n"
                                          : "%%MatrixMarket matrix coordinate real general\n",
                                lines, comment, e));
    SPK_CHECK(st, mm_out_coo(&o, A->nrows, A->ncols, A->rowptr, A->colind, A->val, 1, symmetric != 0, e));
cleanup:
    return spk_mm_out_close(&o, st, e);
}

/* Write a column-major nrows x ncols array as array real general. */
int spk_mm_write_dense(const char *path, int nrows, int ncols, const double *v, const char *comment,
                       spk_err *e)
{
    mm_out o;
    int st;
    char cell[64];
    if (!path) return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_mm_write_dense: path is NULL");
    if (nrows < 0 || ncols < 0)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "cannot write '%s': bad size %d x %d", path,
                           nrows, ncols);
    size_t total = (size_t)nrows * (size_t)ncols;
    if (total && !v)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "cannot write '%s': values are NULL", path);
    if (total && mm_nonfinite_cell(nrows, v, total, 1, cell, sizeof cell))
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "cannot write '%s': the value at %s is not finite", path, cell);
    SPK_TRY(spk_mm_out_open(&o, path, e));
    SPK_CHECK(st, mm_out_header(&o, "%%MatrixMarket matrix array real general\n", NULL, comment, e));
    SPK_CHECK(st, mm_out_array(&o, nrows, ncols, v, 1, e));
cleanup:
    return spk_mm_out_close(&o, st, e);
}

/* ---- complex ------------------------------------------------------------ */

/* Do the lower entry (i, j) at position lo and the upper entry (j, i) at
 * position up (-1: not stored, a zero) mirror each other exactly: equal, or
 * conjugate where herm? */
static int mm_zpair(const char *path, const spk_zcsr *A, int herm, int lo, int up, int i, int j, spk_err *e)
{
    const double lr = lo < 0 ? 0.0 : A->val[2 * (size_t)lo], li = lo < 0 ? 0.0 : A->val[2 * (size_t)lo + 1];
    const double ur = up < 0 ? 0.0 : A->val[2 * (size_t)up], ui = up < 0 ? 0.0 : A->val[2 * (size_t)up + 1];
    if (lr == ur && li == (herm ? -ui : ui)) return SPK_OK;
    return spk_err_set(e, SPK_ERR_INVALID_ARG, "cannot write '%s' as %s: the entry (%d,%d) is not %s (%d,%d)", path,
                       herm ? "hermitian" : "symmetric", i + 1, j + 1, herm ? "the conjugate of" : "equal to", j + 1,
                       i + 1);
}

/* Is canonical square A exactly symmetric (herm 0), or exactly Hermitian
 * with a real diagonal (herm 1)?  Only then does its lower triangle,
 * mirrored by a reader, give A back.  One pass: row i's lower entries
 * (i, j) meet the upper entries (j, i) through a cursor in each row j, which
 * moves right as i grows; upper entries a cursor passes unmatched, or never
 * reaches, have no mirror and must be zero. */
static int mm_zcheck_symmetry(const char *path, const spk_zcsr *A, int herm, spk_err *e)
{
    const int n = A->nrows;
    int st = SPK_OK;
    int *next = malloc(((size_t)n + 1) * sizeof *next);
    if (!next) return spk_err_set(e, SPK_ERR_NOMEM, "cannot write '%s': out of host memory", path);
    for (int j = 0; j < n; j++) {
        next[j] = A->rowptr[j];
        while (next[j] < A->rowptr[j + 1] && A->colind[next[j]] <= j) next[j]++;
    }
    for (int i = 0; i < n && !st; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1] && A->colind[k] <= i && !st; k++) {
            const int j = A->colind[k];
            if (j == i) {
                if (herm && A->val[2 * (size_t)k + 1] != 0)
                    st = spk_err_set(e, SPK_ERR_INVALID_ARG,
                                     "cannot write '%s' as hermitian: the diagonal entry (%d,%d) is not real", path,
                                     i + 1, i + 1);
                continue;
            }
            for (; !st && next[j] < A->rowptr[j + 1] && A->colind[next[j]] < i; next[j]++)
                st = mm_zpair(path, A, herm, -1, next[j], A->colind[next[j]], j, e);
            const int up = !st && next[j] < A->rowptr[j + 1] && A->colind[next[j]] == i ? next[j]++ : -1;
            if (!st) st = mm_zpair(path, A, herm, k, up, i, j, e);
        }
    for (int j = 0; j < n && !st; j++)
        for (; !st && next[j] < A->rowptr[j + 1]; next[j]++)
            st = mm_zpair(path, A, herm, -1, next[j], A->colind[next[j]], j, e);
    free(next);
    return st;
}

int spk_mm_write_zcsr(const char *path, const spk_zcsr *A, int symmetry, const char *comment, spk_err *e)
{
    static const char *const banner[3] = {"%%MatrixMarket matrix coordinate complex general\n",
                                          "%%MatrixMarket matrix coordinate complex symmetric\n",
                                          "%%MatrixMarket matrix coordinate complex hermitian\n"};
    mm_out o;
    int st;
    if (!path || !A) return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_mm_write_zcsr: %s is NULL", path ? "A" : "path");
    if (symmetry < 0 || symmetry > 2)
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "cannot write '%s': symmetry %d (0 general, 1 symmetric, 2 hermitian)", path, symmetry);
    const spk_csr pattern = {A->nrows, A->ncols, A->nnz, A->rowptr, A->colind, NULL};
    if ((st = spk_csr_validate(&pattern, symmetry != 0, e))) return spk_err_prefix(e, "cannot write '%s'", path);
    if (A->nnz > 0 && !A->val)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "cannot write '%s': the values are NULL", path);
    for (int i = 0; i < A->nrows; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (!isfinite(A->val[2 * (size_t)k]) || !isfinite(A->val[2 * (size_t)k + 1]))
                return spk_err_set(e, SPK_ERR_INVALID_ARG, "cannot write '%s': the value at (%d,%d) is not finite",
                                   path, i + 1, A->colind[k] + 1);
    if (symmetry && A->nrows != A->ncols)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "cannot write '%s' as %s: the matrix is %d x %d, not square", path,
                           symmetry == 2 ? "hermitian" : "symmetric", A->nrows, A->ncols);
    if (symmetry) SPK_TRY(mm_zcheck_symmetry(path, A, symmetry == 2, e));
    SPK_TRY(spk_mm_out_open(&o, path, e));
    SPK_CHECK(st, mm_out_header(&o, banner[symmetry], NULL, comment, e));
    SPK_CHECK(st, mm_out_coo(&o, A->nrows, A->ncols, A->rowptr, A->colind, A->val, 2, symmetry != 0, e));
cleanup:
    return spk_mm_out_close(&o, st, e);
}

int spk_mm_write_zdense(const char *path, int nrows, int ncols, const double *v, spk_err *e)
{
    mm_out o;
    int st;
    char cell[64];
    if (!path) return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_mm_write_zdense: path is NULL");
    if (nrows < 0 || ncols < 0)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "cannot write '%s': bad size %d x %d", path, nrows, ncols);
    const size_t total = (size_t)nrows * (size_t)ncols;
    if (total && !v) return spk_err_set(e, SPK_ERR_INVALID_ARG, "cannot write '%s': values are NULL", path);
    if (total && mm_nonfinite_cell(nrows, v, total, 2, cell, sizeof cell))
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "cannot write '%s': the value at %s is not finite", path, cell);
    SPK_TRY(spk_mm_out_open(&o, path, e));
    SPK_CHECK(st, mm_out_header(&o, "%%MatrixMarket matrix array complex general\n", NULL, NULL, e));
    SPK_CHECK(st, mm_out_array(&o, nrows, ncols, v, 2, e));
cleanup:
    return spk_mm_out_close(&o, st, e);
}

int spk_write_file(const char *path, const char *data, size_t len, spk_err *e)
{
    mm_out o;
    if (!path || (len && !data)) return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_write_file: NULL argument");
    SPK_TRY(spk_mm_out_open(&o, path, e));
    return spk_mm_out_close(&o, spk_mm_out_puts(&o, data, len, e), e);
}

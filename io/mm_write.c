/* mm_write.c -- Matrix Market writing (mmio.h): coordinate real general or
 * symmetric, and array real general, %.17g values; non-finite values are
 * refused.  The files go through mm_file.c (gzip, replace when complete). */
#include "io/mm_file.h"

#include <math.h>
#include <stdio.h>
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
    long long count = 0;
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
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            if (!isfinite(A->val[k]))
                return spk_err_set(e, SPK_ERR_INVALID_ARG,
                                   "cannot write '%s': the value at (%d,%d) is not finite", path,
                                   i + 1, A->colind[k] + 1);
            count += !symmetric || A->colind[k] <= i;
        }
    SPK_TRY(spk_mm_out_open(&o, path, e));
    SPK_CHECK(st, mm_out_header(&o,
                                symmetric ? "%%MatrixMarket matrix coordinate real symmetric\n"
                                          : "%%MatrixMarket matrix coordinate real general\n",
                                lines, comment, e));
    char *s = o.buf + o.len;
    s = mm_fmt_uint(s, (unsigned long long)A->nrows);
    *s++ = ' ';
    s = mm_fmt_uint(s, (unsigned long long)A->ncols);
    *s++ = ' ';
    s = mm_fmt_uint(s, (unsigned long long)count);
    *s++ = '\n';
    o.len = (size_t)(s - o.buf);
    for (int i = 0; i < A->nrows; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            if (symmetric && A->colind[k] > i) continue;
            SPK_CHECK(st, mm_out_room(&o, e));
            s = o.buf + o.len;
            s = mm_fmt_uint(s, (unsigned long long)i + 1);
            *s++ = ' ';
            s = mm_fmt_uint(s, (unsigned long long)A->colind[k] + 1);
            *s++ = ' ';
            s = mm_fmt_real(s, A->val[k]);
            *s++ = '\n';
            o.len = (size_t)(s - o.buf);
        }
cleanup:
    return spk_mm_out_close(&o, st, e);
}

/* Write a column-major nrows x ncols array as array real general. */
int spk_mm_write_dense(const char *path, int nrows, int ncols, const double *v, const char *comment,
                       spk_err *e)
{
    mm_out o;
    int st;
    if (!path) return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_mm_write_dense: path is NULL");
    if (nrows < 0 || ncols < 0)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "cannot write '%s': bad size %d x %d", path,
                           nrows, ncols);
    size_t total = (size_t)nrows * (size_t)ncols;
    if (total && !v)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "cannot write '%s': values are NULL", path);
    for (size_t k = 0; k < total; k++)
        if (!isfinite(v[k]))
            return spk_err_set(e, SPK_ERR_INVALID_ARG,
                               "cannot write '%s': the value at (%zu,%zu) is not finite", path,
                               k % (size_t)nrows + 1, k / (size_t)nrows + 1);
    SPK_TRY(spk_mm_out_open(&o, path, e));
    SPK_CHECK(st, mm_out_header(&o, "%%MatrixMarket matrix array real general\n", NULL, comment, e));
    char *s = o.buf + o.len;
    s = mm_fmt_uint(s, (unsigned long long)nrows);
    *s++ = ' ';
    s = mm_fmt_uint(s, (unsigned long long)ncols);
    *s++ = '\n';
    o.len = (size_t)(s - o.buf);
    for (size_t k = 0; k < total; k++) {
        SPK_CHECK(st, mm_out_room(&o, e));
        s = mm_fmt_real(o.buf + o.len, v[k]);
        *s++ = '\n';
        o.len = (size_t)(s - o.buf);
    }
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

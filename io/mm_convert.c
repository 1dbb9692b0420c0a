/* mm_convert.c -- parsed Matrix Market data (mm_parse.h) into canonical CSR
 * (real or complex) or a column-major dense array: symmetric parts mirrored
 * (negated for skew-symmetric, conjugated for hermitian; pattern
 * skew-symmetric files get +1 for stored and -1 for mirrored entries), array
 * files' packed lower triangles unpacked. */
#include "io/mm_parse.h"

#include <limits.h>
#include <stdlib.h>

/* Release the arrays of d (the header stays). */
void spk_mm_data_free(mm_data *d)
{
    free(d->row);
    free(d->col);
    free(d->val);
    d->row = d->col = NULL;
    d->val = NULL;
    d->n = d->cap = 0;
}

/* The mirror of a value (re, im) of a symmetric kind is (sr re, si im):
 * itself (symmetric), its negative (skew-symmetric), its conjugate
 * (hermitian). */
static void mm_mirror_signs(spk_mm_symmetry sym, double *sr, double *si)
{
    *sr = sym == SPK_MM_SKEW ? -1.0 : 1.0;
    *si = sym == SPK_MM_SYMMETRIC ? 1.0 : -1.0;
}

/* s x for s = +-1, negated as 0 - x: a zero's mirror is +0, not -0 (a
 * conjugated real value keeps the bits of the value it mirrors). */
static inline double mm_signed(double s, double x)
{
    return s > 0 ? x : 0.0 - x;
}

/* Append the mirror (j,i) of every off-diagonal coordinate entry (i,j)
 * (mm_mirror_signs); pattern skew files get values +1 / -1. */
static int mm_mirror(mm_data *d, const char *name, spk_err *e)
{
    const int skew = d->info.symmetry == SPK_MM_SKEW;
    const size_t w = mm_width(d);
    double sr, si;
    mm_mirror_signs(d->info.symmetry, &sr, &si);
    size_t off = 0, n = d->n;
    for (size_t k = 0; k < n; k++) off += d->row[k] != d->col[k];
    if (skew && !d->val) {
        d->val = calloc((n ? n : 1) * w, sizeof *d->val);
        if (!d->val) goto nomem;
        for (size_t k = 0; k < n; k++) d->val[k * w] = 1.0;
    }
    if (off == 0) return SPK_OK;
    SPK_TRY(spk_mm_within_limit(d, (8.0 + 8.0 * (double)w) * (double)(n + off), name,
                                "mirroring the symmetric entries", e));
    int *r = realloc(d->row, (n + off) * sizeof *r);
    if (!r) goto nomem;
    d->row = r;
    int *c = realloc(d->col, (n + off) * sizeof *c);
    if (!c) goto nomem;
    d->col = c;
    if (d->val) {
        double *v = realloc(d->val, (n + off) * w * sizeof *v);
        if (!v) goto nomem;
        d->val = v;
    }
    size_t t = n;
    for (size_t k = 0; k < n; k++) {
        if (d->row[k] == d->col[k]) continue;
        d->row[t] = d->col[k];
        d->col[t] = d->row[k];
        if (d->val) d->val[t * w] = mm_signed(sr, d->val[k * w]);
        if (d->val && w == 2) d->val[2 * t + 1] = mm_signed(si, d->val[2 * k + 1]);
        t++;
    }
    d->n = t;
    d->cap = t;
    return SPK_OK;
nomem:
    return spk_err_set(e, SPK_ERR_NOMEM, "%s: out of host memory mirroring %zu entries", name, off);
}

/* Turn array values into coordinate entries of the nonzeros (mirrored parts
 * included), replacing d's contents. */
static int mm_array_to_coo(mm_data *d, const char *name, spk_err *e)
{
    const int M = d->info.nrows, N = d->info.ncols;
    const spk_mm_symmetry sym = d->info.symmetry;
    const size_t w = mm_width(d);
    double sr, si;
    mm_mirror_signs(sym, &sr, &si);
    size_t nz = 0, k = 0, t = 0;
    int *r = NULL, *c = NULL;
    double *v = NULL;
    for (int j = 0; j < N; j++)
        for (int i = sym == SPK_MM_GENERAL ? 0 : j + (sym == SPK_MM_SKEW); i < M; i++, k++)
            if (d->val[k * w] != 0 || (w == 2 && d->val[2 * k + 1] != 0))
                nz += (sym == SPK_MM_GENERAL || i == j) ? 1 : 2;
    r = malloc((nz ? nz : 1) * sizeof *r);
    c = malloc((nz ? nz : 1) * sizeof *c);
    v = malloc((nz ? nz : 1) * w * sizeof *v);
    if (!r || !c || !v) {
        free(r);
        free(c);
        free(v);
        return spk_err_set(e, SPK_ERR_NOMEM, "%s: out of host memory (%zu entries)", name, nz);
    }
    k = 0;
    for (int j = 0; j < N; j++)
        for (int i = sym == SPK_MM_GENERAL ? 0 : j + (sym == SPK_MM_SKEW); i < M; i++, k++) {
            const double x = d->val[k * w], y = w == 2 ? d->val[2 * k + 1] : 0.0;
            if (x == 0 && y == 0) continue;
            r[t] = i;
            c[t] = j;
            v[t * w] = x;
            if (w == 2) v[2 * t + 1] = y;
            t++;
            if (sym != SPK_MM_GENERAL && i != j) {
                r[t] = j;
                c[t] = i;
                v[t * w] = mm_signed(sr, x);
                if (w == 2) v[2 * t + 1] = mm_signed(si, y);
                t++;
            }
        }
    spk_mm_data_free(d);
    d->row = r;
    d->col = c;
    d->val = v;
    d->n = d->cap = nz;
    return SPK_OK;
}

int spk_mm_within_limit(const mm_data *d, double bytes, const char *name, const char *what, spk_err *e)
{
    if (!d->limit || bytes <= (double)d->limit) return SPK_OK;
    return spk_err_set(e, SPK_ERR_NOMEM, "%s: %s needs %.0f bytes, over the memory limit of %zu bytes (--max-memory)",
                       name, what, bytes, d->limit);
}

/* What a coordinate file's header may make spk allocate for the entries
 * the file holds: the header alone sizes the row pointers and the per-row
 * and per-column arrays after them (or a dense array's cells), so a
 * three-line file claiming two billion rows would take gigabytes.  Beyond
 * MM_FREE_CELLS, at most MM_EMPTY_PER_ENTRY empty ones per entry: a matrix
 * that is almost all empty rows is refused, one whose rows hold its entries
 * is not.  cells: max(M, N) for CSR, M*N for a dense array. */
enum { MM_FREE_CELLS = 1 << 24, MM_EMPTY_PER_ENTRY = 16 };

static int mm_cells_backed(const mm_data *d, double cells, const char *name, spk_err *e)
{
    if (d->info.format != SPK_MM_COORDINATE ||
        cells <= (double)MM_FREE_CELLS + (double)MM_EMPTY_PER_ENTRY * (double)d->n)
        return SPK_OK;
    return spk_err_set(e, SPK_ERR_UNSUPPORTED,
                       "%s: the size line declares %lld x %lld for %zu stored entries: beyond %d, at most "
                       "%d empty rows, columns or cells per entry are read (%.1f GB for them alone)",
                       name, (long long)d->info.nrows, (long long)d->info.ncols, d->n, MM_FREE_CELLS,
                       MM_EMPTY_PER_ENTRY, 8.0 * cells / 1e9);
}

/* The entries of d as coordinate triplets, mirrored parts added, within
 * the limits for the CSR matrix made from them: where both CSR builds start. */
static int mm_data_entries(mm_data *d, const char *name, spk_err *e)
{
    const double w = (double)mm_width(d);
    if (d->info.format == SPK_MM_ARRAY)
        SPK_TRY(mm_array_to_coo(d, name, e));
    else if (d->info.symmetry != SPK_MM_GENERAL)
        SPK_TRY(mm_mirror(d, name, e));
    SPK_TRY(mm_cells_backed(d, (double)(d->info.nrows > d->info.ncols ? d->info.nrows : d->info.ncols), name, e));
    /* the entries held, and the CSR made from them: row pointers, columns and values */
    return spk_mm_within_limit(d, (8.0 + 8.0 * w) * (double)d->n + 4.0 * ((double)d->info.nrows + 1) +
                                      (4.0 + 8.0 * w) * (double)d->n,
                               name, "the matrix in CSR", e);
}

/* Build canonical CSR from parsed data (d's arrays are consumed). */
int spk_mm_data_to_csr(mm_data *d, const char *name, spk_csr *A, spk_err *e)
{
    spk_csr T = {0};
    int st;
    SPK_CHECK(st, mm_data_entries(d, name, e));
    st = spk_csr_from_coo(d->info.nrows, d->info.ncols, d->n, d->row, d->col, d->val, &T, e);
    if (st) {
        spk_err_prefix(e, "%s", name);
        goto cleanup;
    }
    *A = T;
cleanup:
    spk_mm_data_free(d);
    return st;
}

/* Build canonical complex CSR from parsed data (d->cplx; d's arrays are
 * consumed); a pattern file's values are 1. */
int spk_mm_data_to_zcsr(mm_data *d, const char *name, spk_zcsr *A, spk_err *e)
{
    spk_zcsr T = {0};
    int st;
    if (!d->cplx) {
        st = spk_err_set(e, SPK_ERR_INTERNAL, "%s: the entries were not read as complex", name);
        goto cleanup;
    }
    SPK_CHECK(st, mm_data_entries(d, name, e));
    if (!d->val) {
        d->val = calloc((d->n ? d->n : 1) * 2, sizeof *d->val);
        if (!d->val) {
            st = spk_err_set(e, SPK_ERR_NOMEM, "%s: out of host memory (%zu values)", name, d->n);
            goto cleanup;
        }
        for (size_t k = 0; k < d->n; k++) d->val[2 * k] = 1.0;
    }
    st = spk_zcsr_from_coo(d->info.nrows, d->info.ncols, d->n, d->row, d->col, d->val, &T, e);
    if (st) {
        spk_err_prefix(e, "%s", name);
        goto cleanup;
    }
    *A = T;
cleanup:
    spk_mm_data_free(d);
    return st;
}

/* Build a column-major dense array from parsed data (d's arrays are
 * consumed): w doubles a cell, (re, im) pairs with d->cplx. */
int spk_mm_data_to_dense(mm_data *d, const char *name, double **out, spk_err *e)
{
    const spk_mm_info *in = &d->info;
    const size_t M = (size_t)in->nrows, N = (size_t)in->ncols, w = mm_width(d);
    double *a = NULL, sr, si;
    int st = SPK_OK;
    mm_mirror_signs(in->symmetry, &sr, &si);
    if (in->format == SPK_MM_ARRAY && in->symmetry == SPK_MM_GENERAL) {
        a = d->val ? d->val : malloc(1); /* M*N values, already in place */
        d->val = NULL;
        if (!a) st = spk_err_set(e, SPK_ERR_NOMEM, "%s: out of host memory", name);
        goto cleanup;
    }
    if ((st = mm_cells_backed(d, (double)M * (double)N, name, e))) goto cleanup;
    if ((st = spk_mm_within_limit(d, 8.0 * (double)w * (double)M * (double)N, name, "the dense array", e)))
        goto cleanup;
    if (M * N > INT_MAX) {
        st =
            spk_err_set(e, SPK_ERR_UNSUPPORTED,
                        "%s: a %zu x %zu matrix is too large to read as a dense array", name, M, N);
        goto cleanup;
    }
    a = calloc(M * N > 0 ? M * N * w : 1, sizeof *a);
    if (!a) {
        st = spk_err_set(e, SPK_ERR_NOMEM, "%s: out of host memory (%zu x %zu dense array)", name,
                         M, N);
        goto cleanup;
    }
    const int packed = in->format == SPK_MM_ARRAY, skew = in->symmetry == SPK_MM_SKEW;
    size_t k = 0;
    for (size_t j = 0; packed && j < N; j++) /* packed lower triangle */
        for (size_t i = j + (size_t)skew; i < M; i++, k++) {
            const double x = d->val[k * w], y = w == 2 ? d->val[2 * k + 1] : 0.0;
            a[(i + j * M) * w] = x;
            a[(j + i * M) * w] = mm_signed(sr, x);
            if (w == 2) a[(i + j * M) * 2 + 1] = y;
            if (w == 2 && i != j) a[(j + i * M) * 2 + 1] = mm_signed(si, y);
        }
    for (k = 0; !packed && k < d->n; k++) {
        const size_t i = (size_t)d->row[k], j = (size_t)d->col[k];
        const double x = d->val ? d->val[k * w] : 1.0, y = d->val && w == 2 ? d->val[2 * k + 1] : 0.0;
        a[(i + j * M) * w] += x;
        if (w == 2) a[(i + j * M) * 2 + 1] += y;
        if (in->symmetry == SPK_MM_GENERAL || i == j) continue;
        a[(j + i * M) * w] += mm_signed(sr, x);
        if (w == 2) a[(j + i * M) * 2 + 1] += mm_signed(si, y);
    }
cleanup:
    spk_mm_data_free(d);
    if (st) {
        free(a);
        a = NULL;
    }
    *out = a;
    return st;
}

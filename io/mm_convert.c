/* mm_convert.c -- parsed Matrix Market data (mm_parse.h) into canonical CSR
 * or a column-major dense array: symmetric parts mirrored (negated for
 * skew-symmetric; pattern skew-symmetric files get +1 for stored and -1 for
 * mirrored entries), array files' packed lower triangles unpacked. */
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

/* Append the mirror (j,i) of every off-diagonal coordinate entry (i,j),
 * negated for skew-symmetric; pattern skew files get values +1 / -1. */
static int mm_mirror(mm_data *d, const char *name, spk_err *e)
{
    const int skew = d->info.symmetry == SPK_MM_SKEW;
    size_t off = 0, n = d->n;
    for (size_t k = 0; k < n; k++) off += d->row[k] != d->col[k];
    if (skew && !d->val) {
        d->val = malloc((n ? n : 1) * sizeof *d->val);
        if (!d->val) goto nomem;
        for (size_t k = 0; k < n; k++) d->val[k] = 1.0;
    }
    if (off == 0) return SPK_OK;
    SPK_TRY(spk_mm_within_limit(d, 16.0 * (double)(n + off), name, "mirroring the symmetric entries", e));
    int *r = realloc(d->row, (n + off) * sizeof *r);
    if (!r) goto nomem;
    d->row = r;
    int *c = realloc(d->col, (n + off) * sizeof *c);
    if (!c) goto nomem;
    d->col = c;
    if (d->val) {
        double *v = realloc(d->val, (n + off) * sizeof *v);
        if (!v) goto nomem;
        d->val = v;
    }
    size_t t = n;
    for (size_t k = 0; k < n; k++) {
        if (d->row[k] == d->col[k]) continue;
        d->row[t] = d->col[k];
        d->col[t] = d->row[k];
        if (d->val) d->val[t] = skew ? -d->val[k] : d->val[k];
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
    size_t nz = 0, k = 0, t = 0;
    int *r = NULL, *c = NULL;
    double *v = NULL;
    for (int j = 0; j < N; j++)
        for (int i = sym == SPK_MM_GENERAL ? 0 : j + (sym == SPK_MM_SKEW); i < M; i++)
            if (d->val[k++] != 0) nz += (sym == SPK_MM_GENERAL || i == j) ? 1 : 2;
    r = malloc((nz ? nz : 1) * sizeof *r);
    c = malloc((nz ? nz : 1) * sizeof *c);
    v = malloc((nz ? nz : 1) * sizeof *v);
    if (!r || !c || !v) {
        free(r);
        free(c);
        free(v);
        return spk_err_set(e, SPK_ERR_NOMEM, "%s: out of host memory (%zu entries)", name, nz);
    }
    k = 0;
    for (int j = 0; j < N; j++)
        for (int i = sym == SPK_MM_GENERAL ? 0 : j + (sym == SPK_MM_SKEW); i < M; i++) {
            double x = d->val[k++];
            if (x == 0) continue;
            r[t] = i;
            c[t] = j;
            v[t++] = x;
            if (sym != SPK_MM_GENERAL && i != j) {
                r[t] = j;
                c[t] = i;
                v[t++] = sym == SPK_MM_SKEW ? -x : x;
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

/* Build canonical CSR from parsed data (d's arrays are consumed). */
int spk_mm_data_to_csr(mm_data *d, const char *name, spk_csr *A, spk_err *e)
{
    spk_csr T = {0};
    int st;
    if (d->info.format == SPK_MM_ARRAY)
        SPK_CHECK(st, mm_array_to_coo(d, name, e));
    else if (d->info.symmetry != SPK_MM_GENERAL)
        SPK_CHECK(st, mm_mirror(d, name, e));
    SPK_CHECK(st, mm_cells_backed(d, (double)(d->info.nrows > d->info.ncols ? d->info.nrows : d->info.ncols), name,
                                  e));
    /* the entries held, and the CSR made from them: row pointers, columns and values */
    SPK_CHECK(st, spk_mm_within_limit(d, 16.0 * (double)d->n + 4.0 * ((double)d->info.nrows + 1) + 12.0 * (double)d->n,
                                      name, "the matrix in CSR", e));
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

/* Build a column-major dense array from parsed data (d's arrays are consumed). */
int spk_mm_data_to_dense(mm_data *d, const char *name, double **out, spk_err *e)
{
    const spk_mm_info *in = &d->info;
    const size_t M = (size_t)in->nrows, N = (size_t)in->ncols;
    const int skew = in->symmetry == SPK_MM_SKEW;
    double *a = NULL;
    int st = SPK_OK;
    if (in->format == SPK_MM_ARRAY && in->symmetry == SPK_MM_GENERAL) {
        a = d->val ? d->val : malloc(1); /* M*N values, already in place */
        d->val = NULL;
        if (!a) st = spk_err_set(e, SPK_ERR_NOMEM, "%s: out of host memory", name);
        goto cleanup;
    }
    if ((st = mm_cells_backed(d, (double)M * (double)N, name, e))) goto cleanup;
    if ((st = spk_mm_within_limit(d, 8.0 * (double)M * (double)N, name, "the dense array", e))) goto cleanup;
    if (M * N > INT_MAX) {
        st =
            spk_err_set(e, SPK_ERR_UNSUPPORTED,
                        "%s: a %zu x %zu matrix is too large to read as a dense array", name, M, N);
        goto cleanup;
    }
    a = calloc(M * N > 0 ? M * N : 1, sizeof *a);
    if (!a) {
        st = spk_err_set(e, SPK_ERR_NOMEM, "%s: out of host memory (%zu x %zu dense array)", name,
                         M, N);
        goto cleanup;
    }
    if (in->format == SPK_MM_ARRAY) { /* packed lower triangle */
        size_t k = 0;
        for (size_t j = 0; j < N; j++)
            for (size_t i = j + (size_t)skew; i < M; i++) {
                double x = d->val[k++];
                a[i + j * M] = x;
                a[j + i * M] = skew ? -x : x;
            }
    } else {
        for (size_t k = 0; k < d->n; k++) {
            size_t i = (size_t)d->row[k], j = (size_t)d->col[k];
            double x = d->val ? d->val[k] : 1.0;
            a[i + j * M] += x;
            if (in->symmetry != SPK_MM_GENERAL && i != j) a[j + i * M] += skew ? -x : x;
        }
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

/* hmec.c -- the "hmec" format (hmec.h): the split, the conversion, the host
 * reference product and the format table.
 * Traffic per product (bytes): 12 per stored ELL entry (padding included) and
 * per CSR-rest nonzero; 4*(csr_rows+1) CSR row pointers; 8*cols for x (at
 * best once); per kernel 4 per covered row (jds_row); y: the first kernel
 * writes 8*nrows (and reads 8*nrows when beta != 0), each later one reads and
 * writes 16 per row of its part. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmec.h"
#include "spmv/options.h"

/* ge[v] = number of rows with at least v entries, v = 0 .. maxlen+1 (a
 * suffix sum of the row-length histogram). */
static int *rows_with_at_least(const spk_csr *A, int *maxlen, spk_err *err)
{
    int mx = 0;
    for (int i = 0; i < A->nrows; i++) {
        int len = A->rowptr[i + 1] - A->rowptr[i];
        if (len > mx) mx = len;
    }
    int *ge = spk_calloc((size_t)mx + 2, sizeof(int), "HMEC row-length histogram", err);
    if (!ge) return NULL;
    for (int i = 0; i < A->nrows; i++) ge[A->rowptr[i + 1] - A->rowptr[i]]++;
    for (int v = mx - 1; v >= 0; v--) ge[v] += ge[v + 1];
    *maxlen = mx;
    return ge;
}

/* The split from the histogram ge (rows_with_at_least).  After parts with
 * widths summing to O, sorted row r has len(r) - O entries left (or none), so
 * S's nonempty rows are x = ge[O+1], column j of S has ge[O+j] entries and the
 * first j columns s = ge[O+1] + ... + ge[O+j]. */
static int plan(const spk_csr *A, int parts, const int *ge, int maxlen, spk_hmec_split_info *info,
                spk_err *err)
{
    memset(info, 0, sizeof *info);
    if (parts == 0) parts = SPK_HMEC_DEFAULT_PARTS;
    if (parts < 1 || parts > SPK_HMEC_MAX_PARTS)
        return spk_err_set(err, SPK_ERR_INVALID_ARG,
                           "HMEC: %d ELL parts requested; use 1 to %d (0 for the default, %d)", parts,
                           SPK_HMEC_MAX_PARTS, SPK_HMEC_DEFAULT_PARTS);
    int O = 0, ell_nnz = 0;
    int x = maxlen >= 1 ? ge[1] : 0;
    while (x > SPK_HMEC_MIN_ROWS && info->nparts < parts) {
        /* K: widest prefix of columns with s > 2c/3, tested as 3s > 2c (exact) */
        int K = 1;
        long long s = x;
        for (int j = 2; j <= maxlen - O; j++) {
            long long sj = s + ge[O + j], c = (long long)j * x;
            if (3 * sj > 2 * c) {
                K = j;
                s = sj;
            } else {
                break;
            }
        }
        int p = info->nparts++;
        info->K[p] = K;
        info->rows[p] = x;
        info->nnz[p] = (int)s;
        info->stored += (size_t)K * (size_t)x;
        ell_nnz += (int)s;
        O += K;
        x = O + 1 <= maxlen ? ge[O + 1] : 0;
    }
    info->csr_rows = x;
    info->csr_nnz = A->nnz - ell_nnz;
    info->stored += (size_t)info->csr_nnz;
    return SPK_OK;
}

int spk_hmec_split(const spk_csr *A, int parts, spk_hmec_split_info *info, spk_err *err)
{
    int maxlen = 0;
    int *ge = rows_with_at_least(A, &maxlen, err);
    if (!ge) return SPK_ERR_NOMEM;
    int st = plan(A, parts, ge, maxlen, info, err);
    free(ge);
    return st;
}

/* The knob hmec_convert reads. */
static const spk_opt hmec_keys[] = {
    {.key = "hmec-parts", SPK_SPMV_KNOB(hmec_parts), .type = SPK_OPT_INT, .min = 1, .max = SPK_HMEC_MAX_PARTS,
     .def = SPK_HMEC_DEFAULT_PARTS, .unset = "2", .meta = "P", .scope = "hmec",
     .help = "format hmec: most ELL parts before the CSR rest"},
};
const spk_opt_table spk_hmec_options = {"spmv", hmec_keys, 1, NULL};

/* Fill F from canonical A. */
static int hmec_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    spk_fmt_hmec *F = fmt;
    F->nrows = A->nrows;
    F->ncols = A->ncols;
    F->nnz = A->nnz;
    int maxlen = 0, st;
    int *ge = rows_with_at_least(A, &maxlen, err);
    if (!ge) return SPK_ERR_NOMEM;
    const spk_hmec_split_info *I = &F->info;
    if ((st = plan(A, o->hmec_parts, ge, maxlen, &F->info, err))) goto done;
    if ((st = spk_format_check_padding("hmec", I->stored, (size_t)A->nnz, A->nrows, err))) goto done;
    for (int p = 0; p < I->nparts; p++)
        F->ell_off[p + 1] = F->ell_off[p] + (size_t)I->K[p] * (size_t)I->rows[p];
    size_t ell = F->ell_off[I->nparts];
    F->jds_row = spk_malloc((size_t)A->nrows, sizeof(int), "HMEC row permutation", err);
    F->ell_col = spk_malloc(ell, sizeof(int), "HMEC ELL column indices", err);
    F->ell_val = spk_malloc(ell, sizeof(double), "HMEC ELL values", err);
    F->csr_rowptr = spk_malloc((size_t)I->csr_rows + 1, sizeof(int), "HMEC CSR row pointers", err);
    F->csr_col = spk_malloc((size_t)I->csr_nnz, sizeof(int), "HMEC CSR column indices", err);
    F->csr_val = spk_malloc((size_t)I->csr_nnz, sizeof(double), "HMEC CSR values", err);
    if (!F->jds_row || !F->ell_col || !F->ell_val || !F->csr_rowptr || !F->csr_col || !F->csr_val) {
        st = SPK_ERR_NOMEM;
        goto done;
    }
    /* stable counting sort, longest first: rows of length len start after the
     * ge[len+1] longer ones (ge becomes the next free position per length) */
    for (int len = 0; len <= maxlen; len++) ge[len] = ge[len + 1];
    for (int i = 0; i < A->nrows; i++) F->jds_row[ge[A->rowptr[i + 1] - A->rowptr[i]]++] = i;
    /* ELL parts: entries O .. O+K-1 of each of the part's rows */
    int O = 0;
    for (int p = 0; p < I->nparts; p++) {
        const int K = I->K[p], rows = I->rows[p];
        int *col = F->ell_col + F->ell_off[p];
        double *val = F->ell_val + F->ell_off[p];
        for (int r = 0; r < rows; r++) {
            const int i = F->jds_row[r], b = A->rowptr[i] + O, left = A->rowptr[i + 1] - b;
            const int m = left < K ? left : K; /* >= 1: the part's rows all have entries left */
            for (int k = 0; k < K; k++) {
                size_t q = (size_t)k * (size_t)rows + (size_t)r;
                col[q] = A->colind[b + (k < m ? k : m - 1)];
                val[q] = k < m ? A->val[b + k] : 0.0;
            }
        }
        O += K;
    }
    /* the CSR rest: entries O.. of the first csr_rows sorted rows */
    int q = 0;
    F->csr_rowptr[0] = 0;
    for (int r = 0; r < I->csr_rows; r++) {
        const int i = F->jds_row[r];
        for (int k = A->rowptr[i] + O; k < A->rowptr[i + 1]; k++, q++) {
            F->csr_col[q] = A->colind[k];
            F->csr_val[q] = A->val[k];
        }
        F->csr_rowptr[r + 1] = q;
    }
    st = q == I->csr_nnz ? SPK_OK
                         : spk_err_set(err, SPK_ERR_INTERNAL, "HMEC: CSR rest holds %d entries, expected %d",
                                       q, I->csr_nnz);
done:
    free(ge);
    return st;
}

static int hmec_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_hmec *F = fmt;
    size_t ell = F->ell_off[F->info.nparts];
    l[0] = (spk_format_array){(void **)&F->jds_row, (size_t)F->nrows * sizeof(int), 0};
    l[1] = (spk_format_array){(void **)&F->ell_col, ell * sizeof(int), 0};
    l[2] = (spk_format_array){(void **)&F->ell_val, ell * sizeof(double), 1};
    l[3] = (spk_format_array){(void **)&F->csr_rowptr, ((size_t)F->info.csr_rows + 1) * sizeof(int), 0};
    l[4] = (spk_format_array){(void **)&F->csr_col, (size_t)F->info.csr_nnz * sizeof(int), 0};
    l[5] = (spk_format_array){(void **)&F->csr_val, (size_t)F->info.csr_nnz * sizeof(double), 1};
    return 6;
}

/* y[i] = alpha*s + beta*y[i] for the first kernel (beta == 0: y not read),
 * else y[i] += alpha*s. */
static void put(double *y, int i, double alpha, double s, double beta, int first)
{
    if (!first)
        y[i] += alpha * s;
    else
        y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
}

/* The kernels' computation, part by part in launch order: sorted row r of a
 * part sums its entries in order; the first part covers all nrows (rows past
 * the part add 0). */
static void hmec_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    const spk_fmt_hmec *F = fmt;
    const spk_hmec_split_info *I = &F->info;
    int first = 1;
    for (int p = 0; p < I->nparts; p++, first = 0) {
        const int K = I->K[p], rows = I->rows[p], cover = first ? F->nrows : rows;
        const int *col = F->ell_col + F->ell_off[p];
        const double *val = F->ell_val + F->ell_off[p];
        for (int r = 0; r < cover; r++) {
            double s = 0;
            if (r < rows)
                for (int k = 0; k < K; k++) {
                    size_t q = (size_t)k * (size_t)rows + (size_t)r;
                    s += val[q] * x[col[q]];
                }
            put(y, F->jds_row[r], alpha, s, beta, first);
        }
    }
    const int cover = first ? F->nrows : I->csr_rows;
    for (int r = 0; r < cover; r++) {
        double s = 0;
        if (r < I->csr_rows)
            for (int k = F->csr_rowptr[r]; k < F->csr_rowptr[r + 1]; k++)
                s += F->csr_val[k] * x[F->csr_col[k]];
        put(y, F->jds_row[r], alpha, s, beta, first);
    }
}

/* Append to buf (len bytes, *u used), truncating at the end. */
static void SPK_PRINTF(4, 5) append(char *buf, size_t len, size_t *u, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *u, len - *u, fmt, ap);
    va_end(ap);
    if (w > 0) *u = *u + (size_t)w < len ? *u + (size_t)w : len - 1;
}

static void hmec_describe(const void *fmt, char *buf, size_t len)
{
    const spk_hmec_split_info *I = &((const spk_fmt_hmec *)fmt)->info;
    size_t u = 0;
    if (len == 0) return;
    buf[0] = '\0';
    append(buf, len, &u, "HMEC: %d ELL part%s", I->nparts, I->nparts == 1 ? "" : "s");
    for (int p = 0; p < I->nparts; p++)
        append(buf, len, &u, "%sK=%d: %d rows, %d nnz%s", p == 0 ? " (" : "; ", I->K[p], I->rows[p],
               I->nnz[p], p == I->nparts - 1 ? ")" : "");
    append(buf, len, &u, ", CSR rest %d rows %d nnz", I->csr_rows, I->csr_nnz);
}

static const spk_format hmec_format = {
    "hmec", "HMEC: rows sorted by length, ELL parts while > 512 rows are 2/3 full, CSR rest",
    sizeof(spk_fmt_hmec), hmec_convert, hmec_arrays, hmec_ref, SPK_FORMAT_LAUNCH(spk_hmec_launch),
    hmec_describe, NULL,
};

const spk_format *spk_hmec_format(void)
{
    return &hmec_format;
}

SPK_FORMAT_BACKENDS(hmec, "hmec",
                    "HMEC: rows sorted by length, up to p ELL parts (2/3 full, > 512 rows), CSR rest",
                    hmec_format)

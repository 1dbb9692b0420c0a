/* sell.c -- the "sell" format (SELL-C-sigma; sell.h): the rows sorted by
 * decreasing length inside each window of sigma rows, then cut into slices
 * of C rows, each padded to its longest row and stored column-major.  The
 * slices' widths are found first and the size checked against the padding
 * bound, then each sorted row copied into its slice. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/parallel.h"
#include "spmv/options.h"
#include "sell.h"

/* sigma must keep each slice inside one sorting window: 1, or a multiple of C. */
static int sell_check(const void *own, spk_err *err)
{
    const spk_spmv_opts *o = own;
    const int c = o->sell_c ? o->sell_c : 32;
    if (o->sell_sigma > 1 && o->sell_sigma % c != 0)
        return spk_err_set(err, SPK_ERR_INVALID_ARG,
                           "sell-sigma (sell_sigma) must be 1 (no sorting) or a multiple of sell-c (%d) "
                           "(got %d; 0: 256)", c, o->sell_sigma);
    return SPK_OK;
}

/* The knobs spk_sell_params reads (sell_c also for cusparse-sell). */
static const spk_opt sell_keys[] = {
    {.key = "sell-c", SPK_SPMV_KNOB(sell_c), .type = SPK_OPT_INT, .min = 1, .max = 1024, .unset = "32",
     .meta = "C", .scope = "sell,cusparse-sell", .help = "formats sell, cusparse-sell: rows per slice"},
    {.key = "sell-sigma", SPK_SPMV_KNOB(sell_sigma), .type = SPK_OPT_INT, .min = 1, .max = 1 << 24,
     .unset = "256", .meta = "S", .scope = "sell",
     .help = "format sell: rows sorted by length inside windows of S rows (1: not sorted; else a multiple "
             "of C)"},
};
const spk_opt_table spk_sell_options = {"spmv", sell_keys, 2, sell_check};

int spk_sell_params(const spk_spmv_opts *o, int *c, int *sigma, spk_err *err)
{
    const int oc = o ? o->sell_c : 0, os = o ? o->sell_sigma : 0;
    if (oc < 0 || os < 0)
        return spk_err_set(err, SPK_ERR_INVALID_ARG, "format 'sell': sell_c %d and sell_sigma %d must not be negative",
                           oc, os);
    *c = oc ? oc : 32;
    if (os) {
        *sigma = os;
    } else { /* 256, or the next multiple of C when C does not divide it */
        *sigma = (256 + *c - 1) / *c * *c;
    }
    return SPK_OK;
}

/* A row and its length, ordered by decreasing length, then increasing row:
 * the order a stable sort by decreasing length gives. */
typedef struct sell_key {
    int len, row;
} sell_key;

static int sell_key_cmp(const void *a, const void *b)
{
    const sell_key *p = a, *q = b;
    if (p->len != q->len) return p->len > q->len ? -1 : 1;
    return (p->row > q->row) - (p->row < q->row);
}

static int sell_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    spk_fmt_sell *S = fmt;
    int c = 32, sigma = 256;
    SPK_TRY(spk_sell_params(o, &c, &sigma, err));
    const int m = A->nrows;
    S->nrows = m;
    S->ncols = A->ncols;
    S->nnz = A->nnz;
    S->c = c;
    S->sigma = sigma;
    S->nslices = (int)(((long long)m + c - 1) / c);
    /* the permutation: each window sorted by decreasing length (sigma 1: none) */
    sell_key *key = spk_malloc((size_t)m, sizeof(sell_key), "SELL sort keys", err);
    if (!key) return SPK_ERR_NOMEM;
    for (int i = 0; i < m; i++) key[i] = (sell_key){A->rowptr[i + 1] - A->rowptr[i], i};
    if (sigma > 1)
        for (long long w = 0; w < m; w += sigma) {
            const long long e = w + sigma < m ? w + sigma : m;
            qsort(key + w, (size_t)(e - w), sizeof(sell_key), sell_key_cmp);
        }
    /* the slices' widths: the longest of their rows */
    size_t padded = 0;
    for (int s = 0; s < S->nslices; s++) {
        int width = 0;
        for (long long p = (long long)s * c; p < (long long)(s + 1) * c && p < m; p++)
            if (key[p].len > width) width = key[p].len;
        padded += (size_t)c * (size_t)width;
    }
    int st = spk_format_check_padding("sell", padded, (size_t)A->nnz, m, err);
    if (!st && padded > (size_t)INT_MAX)
        st = spk_err_set(err, SPK_ERR_UNSUPPORTED,
                         "format 'sell' refused: %zu stored entries exceed the 32-bit index limit", padded);
    if (st) {
        free(key);
        return st;
    }
    S->padded = (int)padded;
    S->slice_ptr = spk_malloc((size_t)S->nslices + 1, sizeof(int), "SELL slice offsets", err);
    S->colind = spk_malloc(padded, sizeof(int), "SELL column indices", err);
    S->val = spk_malloc(padded, sizeof(double), "SELL values", err);
    S->perm = spk_malloc((size_t)m, sizeof(int), "SELL row permutation", err);
    if (!S->slice_ptr || !S->colind || !S->val || !S->perm) {
        free(key);
        return SPK_ERR_NOMEM;
    }
    for (int p = 0; p < m; p++) S->perm[p] = key[p].row;
    free(key);
    S->slice_ptr[0] = 0;
    for (int s = 0; s < S->nslices; s++) {
        const int first = s * c; /* < m: fits */
        int width = 0;
        for (int r = 0; r < c && first + r < m; r++) {
            const int i = S->perm[first + r];
            if (A->rowptr[i + 1] - A->rowptr[i] > width) width = A->rowptr[i + 1] - A->rowptr[i];
        }
        const size_t base = (size_t)S->slice_ptr[s];
        for (int r = 0; r < c; r++) {
            int b = 0, len = 0, pad = 0; /* a position beyond the rows: all padding at column 0 */
            if (first + r < m) {
                const int i = S->perm[first + r];
                b = A->rowptr[i];
                len = A->rowptr[i + 1] - b;
                pad = len > 0 ? A->colind[b + len - 1] : 0;
            }
            for (int k = 0; k < width; k++) {
                const size_t q = base + (size_t)k * c + r;
                S->colind[q] = k < len ? A->colind[b + k] : pad;
                S->val[q] = k < len ? A->val[b + k] : 0.0;
            }
        }
        S->slice_ptr[s + 1] = (int)(base + (size_t)c * width);
    }
    return SPK_OK;
}

static int sell_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_sell *S = fmt;
    l[0] = (spk_format_array){(void **)&S->slice_ptr, ((size_t)S->nslices + 1) * sizeof(int), 0};
    l[1] = (spk_format_array){(void **)&S->colind, (size_t)S->padded * sizeof(int), 0};
    l[2] = (spk_format_array){(void **)&S->val, (size_t)S->padded * sizeof(double), 1};
    l[3] = (spk_format_array){(void **)&S->perm, (size_t)S->nrows * sizeof(int), 0};
    return 4;
}

void spk_sell_ref(const spk_fmt_sell *S, double alpha, const double *x, double beta, double *y)
{
    const int c = S->c;
    SPK_OMP(omp parallel for schedule(static) if (S->nrows >= SPK_PAR_MIN / 8))
    for (int s = 0; s < S->nslices; s++) {
        const size_t base = (size_t)S->slice_ptr[s];
        const int width = (S->slice_ptr[s + 1] - S->slice_ptr[s]) / c;
        for (int r = 0; r < c && s * c + r < S->nrows; r++) {
            double t = 0;
            for (int k = 0; k < width; k++) {
                const size_t q = base + (size_t)k * c + r;
                t += S->val[q] * x[S->colind[q]];
            }
            const int i = S->perm[s * c + r];
            y[i] = beta == 0.0 ? alpha * t : alpha * t + beta * y[i];
        }
    }
}

static void sell_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    spk_sell_ref(fmt, alpha, x, beta, y);
}

static void sell_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_sell *S = fmt;
    snprintf(buf, len, "SELL-%d-%d, %d slices, %d stored entries for %d nonzeros (%.2fx)", S->c, S->sigma,
             S->nslices, S->padded, S->nnz, S->nnz > 0 ? (double)S->padded / S->nnz : 0.0);
}

static const spk_format sell_format = {
    "sell", "SELL-C-sigma, sliced ELL of length-sorted rows", sizeof(spk_fmt_sell), sell_convert, sell_arrays,
    sell_ref, SPK_FORMAT_LAUNCH(spk_sell_launch), sell_describe, SPK_FORMAT_BUILD(NULL),
};

SPK_FORMAT_BACKENDS(sell, "sell",
                    "SELL-C-sigma: rows sorted by length in windows of sigma, slices of C rows each padded to its "
                    "longest (--sell-c, --sell-sigma)",
                    sell_format)

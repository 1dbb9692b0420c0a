/* teb.c -- TEB conversion (Alg. 1 and 2 of 000 and the bLN search), the
 * host references of Alg. 3 ("teb") and of the cooperative kernel
 * ("teb-fast"), and their format tables.
 *
 * Alg. 1, as implemented.  The critical block count is the smallest
 * bLN >= 2 at which the partition with k = 1 has a larger variance than the
 * one with k = 1.01 (eq. 7); it is a property of the matrix, found once.
 * AVG_critical = NNZ / bLN_critical, AVG_bLN = NNZ / bLN, and
 *   k = 1.005 if AVG_bLN > AVG_critical, 1.01 if AVG_bLN > AVG_critical / 2,
 *   else 1.03;  Threshold = AVG_bLN * k.
 * When no critical count exists, AVG_critical is taken as 0 (a critical
 * count beyond every bLN), so k = 1.005.
 *
 * The bLN search.  bLN runs from 2 upwards and stops, by eq. (10), at the
 * first bLN whose Threshold is below half the longest row (or at the number
 * of rows); the bLN with the smallest variance wins (the smallest such bLN on
 * ties).  Evaluated naively each bLN costs a pass over all rows, so the
 * search would be quadratic in the rows.  Here a partition is computed on the
 * histogram of row lengths instead: Alg. 2 only ever takes rows from the long
 * end and the short end of the sorted lengths, so consecutive sub-blocks that
 * take one row of the same long length and the same number of rows of the
 * same short length are identical and are formed together, in O(1).  A
 * partition then costs O(D) steps for D distinct row lengths (each step
 * either exhausts a length or forms a run of equal sub-blocks), and the
 * search O(D x bLN_max), with bLN_max ~ 2 NNZ / longest row.  It gives
 * exactly the partition of the row-by-row algorithm (the tests compare the
 * two).  The arrays are then built once, row by row, for the chosen bLN. */
#include "teb.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double spk_teb_k(long long nnz, int bln, int bln_critical)
{
    double avg = (double)nnz / bln;
    double avg_crit = bln_critical > 0 ? (double)nnz / bln_critical : 0.0;
    if (avg > avg_crit) return 1.005;
    if (avg > avg_crit / 2) return 1.01;
    return 1.03;
}

/* Alg. 2 on the histogram: returns the variance of eq. (5); *formed gets the
 * number of non-empty sub-blocks, *smin / *smax their extreme sums (any may
 * be NULL).  left[] is scratch of D entries. */
static double histogram_partition(const int *L, const long long *counts, int D, long long nnz, int bln,
                                  double T, long long *left, int *formed, long long *smin, long long *smax)
{
    const double avg = (double)nnz / bln;
    memcpy(left, counts, (size_t)D * sizeof(long long));
    int top = 0, bot = D - 1;
    while (top <= bot && left[top] == 0) top++;
    while (bot >= top && left[bot] == 0) bot--;
    long long done = 0, rem = nnz, lo = -1, hi = -1; /* done: sub-blocks formed */
    double acc = 0;
    while (done < bln - 1 && top <= bot) {
        const int gt = top;
        long long s = L[gt];
        left[gt]--;
        if (left[gt] == 0) top++;
        /* add the shortest rows while the sum stays <= T */
        int spilled = 0, gb = -1;
        long long m = 0;
        while (top <= bot && bot >= 0) {
            const long long Lb = L[bot];
            if ((double)(s + Lb) > T) break;
            long long take = left[bot];
            if (Lb > 0) {
                long long fit = (long long)((T - (double)s) / (double)Lb);
                while (fit > 0 && (double)(s + fit * Lb) > T) fit--;
                while ((double)(s + (fit + 1) * Lb) <= T) fit++;
                if (fit < take) take = fit;
            }
            s += take * Lb;
            left[bot] -= take;
            if (gb >= 0) spilled = 1;
            gb = bot;
            m = take;
            if (left[bot] > 0) break; /* the next row of this length does not fit */
            bot--;
            while (bot >= top && bot >= 0 && left[bot] == 0) bot--;
        }
        long long reps = 1;
        /* identical sub-blocks follow while both lengths still have rows */
        if (!spilled && gb >= 0 && left[gb] > 0 && top == gt && bot == gb) {
            long long r;
            if (gt != gb)
                r = m > 0 ? (left[gb] - 1) / m : left[gt];
            else
                r = (left[gt] - 1) / (1 + m);
            if (r > left[gt]) r = left[gt];
            if (r > bln - 1 - done - 1) r = bln - 1 - done - 1;
            if (r > 0) {
                left[gt] -= r;
                left[gb] -= r * m;
                reps += r;
            }
        } else if (gb < 0 && top == gt && left[gt] > 0) {
            /* a single row that nothing fits beside: the same for every row of this length,
             * as long as the shortest row still does not fit */
            long long r = left[gt];
            if (top <= bot && (double)(L[gt] + L[bot]) > T) {
                if (r > bln - 1 - done - 1) r = bln - 1 - done - 1;
                if (r > 0) {
                    left[gt] -= r;
                    reps += r;
                }
            }
        }
        if (left[gt] == 0 && top == gt) top++;
        while (top <= bot && left[top] == 0) top++;
        while (bot >= top && left[bot] == 0) bot--;
        acc += (double)reps * ((double)s - avg) * ((double)s - avg);
        rem -= reps * s;
        done += reps;
        if (lo < 0 || s < lo) lo = s;
        if (s > hi) hi = s;
    }
    long long empty = bln - done; /* the last sub-block (the rest) and any never formed */
    if (top <= bot || rem > 0) {
        acc += ((double)rem - avg) * ((double)rem - avg);
        empty--;
        done++;
        if (lo < 0 || rem < lo) lo = rem;
        if (rem > hi) hi = rem;
    }
    acc += (double)empty * avg * avg;
    if (formed) *formed = (int)done;
    if (smin) *smin = lo < 0 ? 0 : lo;
    if (smax) *smax = hi < 0 ? 0 : hi;
    return acc / bln;
}

double spk_teb_variance(const int *lengths, const long long *counts, int D, long long nnz, int bln,
                        double threshold)
{
    long long *left = malloc(((size_t)D + 1) * sizeof(long long));
    if (!left) return NAN;
    double v = histogram_partition(lengths, counts, D, nnz, bln, threshold, left, NULL, NULL, NULL);
    free(left);
    return v;
}

/* Rows sorted by length, longest first, stable: order[] (original rows). */
static int sort_rows(const spk_csr *A, int *order, spk_err *err)
{
    int maxlen = 0;
    for (int i = 0; i < A->nrows; i++)
        if (A->rowptr[i + 1] - A->rowptr[i] > maxlen) maxlen = A->rowptr[i + 1] - A->rowptr[i];
    int *start = spk_calloc((size_t)maxlen + 2, sizeof(int), "TEB row sort", err);
    if (!start) return SPK_ERR_NOMEM;
    for (int i = 0; i < A->nrows; i++) start[maxlen - (A->rowptr[i + 1] - A->rowptr[i]) + 1]++;
    for (int l = 0; l <= maxlen; l++) start[l + 1] += start[l];
    for (int i = 0; i < A->nrows; i++) order[start[maxlen - (A->rowptr[i + 1] - A->rowptr[i])]++] = i;
    free(start);
    return SPK_OK;
}

int spk_teb_build(const spk_csr *A, int bln, double k, spk_fmt_teb *T, spk_err *err)
{
    double t0 = spk_time_now();
    const int M = A->nrows;
    if (bln < 1) bln = 1;
    T->nrows = M;
    T->ncols = A->ncols;
    T->nnz = A->nnz;
    T->bln = bln;
    T->k = k;
    T->threshold = (double)A->nnz / bln * k;
    T->threads = spk_format_lanes(A);
    T->blo = spk_malloc((size_t)bln + 1, sizeof(int), "TEB Blo_Idx", err);
    T->rs = spk_malloc((size_t)M + 1, sizeof(int), "TEB RowNNZ_Sum", err);
    T->col = spk_malloc((size_t)A->nnz, sizeof(int), "TEB Col_Idx", err);
    T->val = spk_malloc((size_t)A->nnz, sizeof(double), "TEB Values", err);
    T->orig = spk_malloc((size_t)M, sizeof(int), "TEB row order", err);
    int *sorted = spk_malloc((size_t)M, sizeof(int), "TEB row sort", err);
    if (!T->blo || !T->rs || !T->col || !T->val || !T->orig || !sorted) {
        free(sorted);
        return SPK_ERR_NOMEM;
    }
    int st = sort_rows(A, sorted, err);
    if (st) {
        free(sorted);
        return st;
    }
#define LEN(p) (A->rowptr[sorted[p] + 1] - A->rowptr[sorted[p]])
    /* Alg. 2: sub-block b takes the longest remaining row (begin) and the
     * shortest remaining rows (end) while the sum stays <= Threshold */
    int begin = 0, end = M - 1, count = 0, b = 0;
    T->blo[0] = 0;
    for (; b < bln - 1 && begin <= end; b++) {
        long long sum = LEN(begin);
        T->orig[count++] = sorted[begin++];
        while (begin <= end && (double)(sum + LEN(end)) <= T->threshold) {
            sum += LEN(end);
            T->orig[count++] = sorted[end--];
        }
        T->blo[b + 1] = count;
    }
    if (begin <= end || b == 0) { /* the last sub-block takes the rest, in sorted order */
        for (int p = begin; p <= end; p++) T->orig[count++] = sorted[p];
        T->blo[++b] = count;
    }
#undef LEN
    free(sorted);
    T->nblocks = b;
    /* the arrays in the new row order */
    int q = 0;
    T->rs[0] = 0;
    for (int r = 0; r < M; r++) {
        const int i = T->orig[r];
        for (int kk = A->rowptr[i]; kk < A->rowptr[i + 1]; kk++) {
            T->col[q] = A->colind[kk];
            T->val[q++] = A->val[kk];
        }
        T->rs[r + 1] = q;
    }
    /* sub-block statistics */
    double avg = (double)A->nnz / bln, acc = 0;
    T->min_nnz = T->nblocks > 0 ? A->nnz : 0;
    T->max_nnz = 0;
    T->max_rows = 0;
    for (int s = 0; s < T->nblocks; s++) {
        int z = T->rs[T->blo[s + 1]] - T->rs[T->blo[s]], rows = T->blo[s + 1] - T->blo[s];
        acc += ((double)z - avg) * ((double)z - avg);
        if (z < T->min_nnz) T->min_nnz = z;
        if (z > T->max_nnz) T->max_nnz = z;
        if (rows > T->max_rows) T->max_rows = rows;
    }
    acc += (double)(bln - T->nblocks) * avg * avg;
    T->variance = acc / bln;
    T->t_merge = spk_time_now() - t0;
    return SPK_OK;
}

int spk_teb_convert(const spk_csr *A, spk_fmt_teb *T, spk_err *err)
{
    double t0 = spk_time_now();
    const int M = A->nrows;
    const long long nnz = A->nnz;
    int bln = 1, crit = 0, evaluated = 0;
    double best_k = 1.0;
    if (M >= 2 && nnz > 0) {
        /* histogram of row lengths, longest first */
        int maxlen = 0;
        for (int i = 0; i < M; i++)
            if (A->rowptr[i + 1] - A->rowptr[i] > maxlen) maxlen = A->rowptr[i + 1] - A->rowptr[i];
        long long *hist = spk_calloc((size_t)maxlen + 1, sizeof(long long), "TEB histogram", err);
        if (!hist) return SPK_ERR_NOMEM;
        for (int i = 0; i < M; i++) hist[A->rowptr[i + 1] - A->rowptr[i]]++;
        int D = 0;
        for (int l = maxlen; l >= 0; l--) D += hist[l] > 0;
        int *L = spk_malloc((size_t)D, sizeof(int), "TEB histogram", err);
        long long *C = spk_malloc((size_t)D, sizeof(long long), "TEB histogram", err);
        long long *left = spk_malloc((size_t)D, sizeof(long long), "TEB histogram", err);
        if (!L || !C || !left) {
            free(hist);
            free(L);
            free(C);
            free(left);
            return SPK_ERR_NOMEM;
        }
        for (int l = maxlen, d = 0; l >= 0; l--)
            if (hist[l] > 0) {
                L[d] = l;
                C[d++] = hist[l];
            }
        free(hist);
        /* eq. (10) bounds bLN: Threshold >= longest row / 2, i.e. bLN <= 2 NNZ k / longest */
        long long bmax = (long long)floor(2.0 * (double)nnz * 1.03 / maxlen);
        if (bmax > M) bmax = M;
        /* Alg. 1: the critical block count (eq. 7) */
        for (long long i = 2; i <= bmax && !crit; i++) {
            double v1 = histogram_partition(L, C, D, nnz, (int)i, (double)nnz / i, left, NULL, NULL, NULL);
            double v2 = histogram_partition(L, C, D, nnz, (int)i, (double)nnz / i * 1.01, left, NULL, NULL, NULL);
            if (v1 > v2) crit = (int)i;
        }
        /* the bLN search for the smallest variance, stopped by eq. (10) */
        double best = INFINITY;
        for (long long i = 2; i <= bmax; i++) {
            double k = spk_teb_k(nnz, (int)i, crit), thr = (double)nnz / i * k;
            if (maxlen > 2 * thr) break;
            double v = histogram_partition(L, C, D, nnz, (int)i, thr, left, NULL, NULL, NULL);
            evaluated++;
            if (v < best) {
                best = v;
                bln = (int)i;
                best_k = k;
            }
        }
        free(L);
        free(C);
        free(left);
    }
    double t_thr = spk_time_now() - t0;
    SPK_TRY(spk_teb_build(A, bln, best_k, T, err));
    T->bln_critical = crit;
    T->t_threshold = t_thr;
    T->evaluated = evaluated;
    return SPK_OK;
}

static int teb_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    (void)o;
    return spk_teb_convert(A, fmt, err);
}

static int teb_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_teb *T = fmt; /* may hold device pointers: only the counts are read */
    l[0] = (spk_format_array){(void **)&T->blo, ((size_t)T->nblocks + 1) * sizeof(int), 0};
    l[1] = (spk_format_array){(void **)&T->rs, ((size_t)T->nrows + 1) * sizeof(int), 0};
    l[2] = (spk_format_array){(void **)&T->col, (size_t)T->nnz * sizeof(int), 0};
    l[3] = (spk_format_array){(void **)&T->val, (size_t)T->nnz * sizeof(double), 1};
    l[4] = (spk_format_array){(void **)&T->orig, (size_t)T->nrows * sizeof(int), 0};
    return 5;
}

/* Alg. 3 on the host: sub-block by sub-block, one row at a time. */
static void teb_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    const spk_fmt_teb *T = fmt;
    for (int b = 0; b < T->nblocks; b++)
        for (int r = T->blo[b]; r < T->blo[b + 1]; r++) {
            double s = 0;
            for (int q = T->rs[r]; q < T->rs[r + 1]; q++) s += T->val[q] * x[T->col[q]];
            const int i = T->orig[r];
            y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
        }
}

/* teb-fast on the host: the kernel's W partial sums per row, in its order */
static void teb_fast_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    const spk_fmt_teb *T = fmt;
    for (int r = 0; r < T->nrows; r++) {
        double s = spk_format_lane_sum(T->col, T->val, T->rs[r], T->rs[r + 1], x, T->threads);
        const int i = T->orig[r];
        y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
    }
}

static void teb_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_teb *T = fmt;
    snprintf(buf, len,
             "TEB: bLN %d (%d formed; critical %d), k %.3f, Threshold %.2f, variance %.4g, sub-block nnz "
             "min %d max %d, at most %d rows per sub-block; preprocessing %.3f ms threshold search "
             "(%d bLN evaluated) + %.3f ms merging",
             T->bln, T->nblocks, T->bln_critical, T->k, T->threshold, T->variance, T->min_nnz, T->max_nnz,
             T->max_rows, 1e3 * T->t_threshold, T->evaluated, 1e3 * T->t_merge);
}

static const spk_format teb_format = {
    "teb", "TEB, Alg. 3", sizeof(spk_fmt_teb), teb_convert, teb_arrays, teb_ref,
    SPK_FORMAT_LAUNCH(spk_teb_launch), teb_describe, NULL,
};
static const spk_format teb_fast_format = {
    "teb-fast", "TEB, cooperative", sizeof(spk_fmt_teb), teb_convert, teb_arrays, teb_fast_ref,
    SPK_FORMAT_LAUNCH(spk_teb_fast_launch), teb_describe, NULL,
};

SPK_FORMAT_BACKENDS(teb, "teb", "TEB sub-blocks of equal nonzeros, Alg. 3: one thread per row", teb_format)
SPK_FORMAT_BACKENDS(teb_fast, "teb-fast", "TEB partition, T threads per row with a shuffle reduction",
                    teb_fast_format)

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
 * either exhausts a length or forms a run of equal sub-blocks), and it gives
 * exactly the partition of the row-by-row algorithm (the tests compare the
 * two).  The steps depend on floor(Threshold) only, which stays the same
 * over long runs of bLN, so they are kept from one bLN to the next; and a
 * bLN whose last sub-block (or empty ones) alone gives a variance above the
 * best so far is passed over in O(1).  The arrays are then built once, row
 * by row, for the chosen bLN. */
#include "teb.h"

#include <limits.h>
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

/* Alg. 2 on the histogram of row lengths (L[] descending, counts[]) as a
 * list of steps, step j forming before[j + 1] - before[j] identical
 * sub-blocks of sum[j] nonzeros.  Every decision of Alg. 2 compares an
 * integer with Threshold, so the steps depend on floor(Threshold) (tf)
 * only: they are kept for the next bLN with the same floor, formed on
 * demand and without a limit on the number of sub-blocks (a bLN takes a
 * prefix).  A step exhausts a length or is followed by one that does, so
 * there are at most 2 D. */
typedef struct teb_steps {
    const int *L;
    const long long *counts;
    int D;
    long long tf;        /* floor(Threshold) of the steps (LLONG_MIN: none yet) */
    long long *left;     /* rows of each length not taken yet */
    int top, bot;        /* the longest and shortest lengths with rows left */
    int n;               /* steps formed */
    int cur;             /* the step in which the last bLN's prefix ended */
    long long *sum;      /* n */
    long long *before;   /* n + 1: sub-blocks formed before step j */
    long long *taken;    /* n + 1: their nonzeros */
} teb_steps;

static int steps_init(teb_steps *S, const int *L, const long long *counts, int D, spk_err *err)
{
    S->L = L;
    S->counts = counts;
    S->D = D;
    S->tf = LLONG_MIN;
    S->left = spk_malloc((size_t)D + 1, sizeof(long long), "TEB histogram", err);
    S->sum = spk_malloc(2 * (size_t)D + 2, sizeof(long long), "TEB partition steps", err);
    S->before = spk_malloc(2 * (size_t)D + 3, sizeof(long long), "TEB partition steps", err);
    S->taken = spk_malloc(2 * (size_t)D + 3, sizeof(long long), "TEB partition steps", err);
    return S->left && S->sum && S->before && S->taken ? SPK_OK : SPK_ERR_NOMEM;
}

static void steps_free(teb_steps *S)
{
    free(S->left);
    free(S->sum);
    free(S->before);
    free(S->taken);
}

/* The integer that Threshold T stands for: x > T <=> x > floor(T) for an
 * integer x (the conversion truncates, which is floor for T >= 0). */
static long long threshold_floor(double T)
{
    if (!(T >= 0)) return -1;
    return T >= 0x1p62 ? (long long)0x1p62 : (long long)T;
}

static void steps_reset(teb_steps *S, long long tf)
{
    memcpy(S->left, S->counts, (size_t)S->D * sizeof(long long));
    S->tf = tf;
    S->n = S->cur = 0;
    S->before[0] = S->taken[0] = 0;
    S->top = 0;
    S->bot = S->D - 1;
    while (S->top <= S->bot && S->left[S->top] == 0) S->top++;
    while (S->bot >= S->top && S->left[S->bot] == 0) S->bot--;
}

/* The next step (rows are left): the longest remaining row and the shortest
 * rows while the sum stays <= Threshold, and the identical sub-blocks after it. */
static void steps_next(teb_steps *S)
{
    const int *L = S->L;
    long long *left = S->left;
    const long long T = S->tf;
    const int gt = S->top;
    int top = S->top, bot = S->bot, spilled = 0, gb = -1;
    long long s = L[gt], m = 0;
    left[gt]--;
    if (left[gt] == 0) top++;
    while (top <= bot && bot >= 0) {
        const long long Lb = L[bot];
        if (s + Lb > T) break;
        long long take = left[bot];
        if (Lb > 0 && (T - s) / Lb < take) take = (T - s) / Lb;
        s += take * Lb;
        left[bot] -= take;
        if (gb >= 0) spilled = 1;
        gb = bot;
        m = take;
        if (left[bot] > 0) break; /* the next row of this length does not fit */
        bot--;
        while (bot >= top && bot >= 0 && left[bot] == 0) bot--;
    }
    long long reps = 1, r = 0;
    if (!spilled && gb >= 0 && left[gb] > 0 && top == gt && bot == gb) {
        /* identical sub-blocks follow while both lengths still have rows */
        r = gt != gb ? (m > 0 ? (left[gb] - 1) / m : left[gt]) : (left[gt] - 1) / (1 + m);
        if (r > left[gt]) r = left[gt];
        if (r > 0) left[gb] -= r * m;
    } else if (gb < 0 && top == gt && left[gt] > 0 && top <= bot && (long long)L[gt] + L[bot] > T) {
        r = left[gt]; /* a single row that nothing fits beside, for every row of this length */
    }
    if (r > 0) {
        left[gt] -= r;
        reps += r;
    }
    if (left[gt] == 0 && top == gt) top++;
    while (top <= bot && left[top] == 0) top++;
    while (bot >= top && left[bot] == 0) bot--;
    S->top = top;
    S->bot = bot;
    S->sum[S->n] = s;
    S->before[S->n + 1] = S->before[S->n] + reps;
    S->taken[S->n + 1] = S->taken[S->n] + reps * s;
    S->n++;
}

/* Variance (eq. 5) of the bln sub-blocks formed with threshold T: the
 * steps up to bln - 1 sub-blocks, the last one takes the rest; blocks that
 * cannot be formed because the rows ran out count as empty.  Every term of
 * the sum is >= 0 and rounding is monotone, so the result is >= each term
 * / bln: when the last two terms already reach `bound`, a value >= bound is
 * returned instead (bound INFINITY: always the variance). */
static double steps_variance(teb_steps *S, long long nnz, int bln, double T, double bound)
{
    const long long tf = threshold_floor(T), need = bln - 1;
    if (tf != S->tf) steps_reset(S, tf);
    while (S->before[S->n] < need && S->top <= S->bot) steps_next(S);
    /* the prefix: steps before cur whole, step cur (if any) cut at need */
    if (S->before[S->cur] > need) S->cur = 0;
    while (S->cur < S->n && S->before[S->cur + 1] <= need) S->cur++;
    const int c = S->cur;
    const long long done = c < S->n ? need : S->before[c];
    const long long rem = nnz - S->taken[c] - (c < S->n ? (need - S->before[c]) * S->sum[c] : 0);
    const int rest = done < S->before[S->n] || S->top <= S->bot || rem > 0; /* the last sub-block */
    const double avg = (double)nnz / bln;
    const long long empty = bln - done - rest; /* sub-blocks never formed */
    const double last = rest ? ((double)rem - avg) * ((double)rem - avg) : 0, tail = (double)empty * avg * avg;
    const double low = (last > tail ? last : tail) / bln;
    if (low >= bound) return low;
    double acc = 0;
    for (int j = 0; j <= c && j < S->n; j++) {
        const long long s = S->sum[j], reps = j < c ? S->before[j + 1] - S->before[j] : need - S->before[j];
        if (reps > 0) acc += (double)reps * ((double)s - avg) * ((double)s - avg);
    }
    if (rest) acc += last;
    acc += tail;
    return acc / bln;
}

double spk_teb_variance(const int *lengths, const long long *counts, int D, long long nnz, int bln,
                        double threshold)
{
    teb_steps S;
    double v = NAN;
    if (steps_init(&S, lengths, counts, D, NULL) == SPK_OK) v = steps_variance(&S, nnz, bln, threshold, INFINITY);
    steps_free(&S);
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

#if defined(__GNUC__)
#define TEB_PREFETCH(p) __builtin_prefetch(p)
#else
#define TEB_PREFETCH(p) ((void)0)
#endif

/* The nonzeros in the new row order (col, val) and their row offsets (rs);
 * the rows ahead, scattered by the sort, are prefetched. */
static void gather_rows(const spk_csr *A, spk_fmt_teb *T)
{
    const int M = A->nrows, *orig = T->orig;
    int q = 0;
    T->rs[0] = 0;
    for (int r = 0; r < M; r++) {
        if (r + 16 < M) TEB_PREFETCH(A->rowptr + orig[r + 16]);
        if (r + 8 < M) {
            TEB_PREFETCH(A->colind + A->rowptr[orig[r + 8]]);
            TEB_PREFETCH(A->val + A->rowptr[orig[r + 8]]);
        }
        const int i = orig[r], e = A->rowptr[i + 1];
        for (int kk = A->rowptr[i]; kk < e; kk++, q++) {
            T->col[q] = A->colind[kk];
            T->val[q] = A->val[kk];
        }
        T->rs[r + 1] = q;
    }
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
    if (!T->blo || !T->rs || !T->col || !T->val || !T->orig) return SPK_ERR_NOMEM;
    int *sorted = T->rs; /* scratch until the rows are merged */
    SPK_TRY(sort_rows(A, sorted, err));
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
    T->nblocks = b;
    gather_rows(A, T);
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

/* Alg. 1's critical block count (eq. 7) with S1 (k = 1) and S2 (k = 1.01),
 * then the bLN search for the smallest variance, stopped by eq. (10). */
static void teb_search(teb_steps *S1, teb_steps *S2, long long nnz, int M, int maxlen, spk_fmt_teb *T)
{
    /* eq. (10) bounds bLN: Threshold >= longest row / 2, i.e. bLN <= 2 NNZ k / longest */
    long long bmax = (long long)floor(2.0 * (double)nnz * 1.03 / maxlen);
    if (bmax > M) bmax = M;
    int crit = 0;
    for (long long i = 2; i <= bmax && !crit; i++) {
        double v1 = steps_variance(S1, nnz, (int)i, (double)nnz / i, INFINITY);
        double v2 = steps_variance(S2, nnz, (int)i, (double)nnz / i * 1.01, INFINITY);
        if (v1 > v2) crit = (int)i;
    }
    double best = INFINITY;
    for (long long i = 2; i <= bmax; i++) {
        double k = spk_teb_k(nnz, (int)i, crit), thr = (double)nnz / i * k;
        if (maxlen > 2 * thr) break;
        double v = steps_variance(S1, nnz, (int)i, thr, best);
        T->evaluated++;
        if (v < best) {
            best = v;
            T->bln = (int)i;
            T->k = k;
        }
    }
    T->bln_critical = crit;
}

int spk_teb_convert(const spk_csr *A, spk_fmt_teb *T, spk_err *err)
{
    double t0 = spk_time_now();
    const int M = A->nrows;
    const long long nnz = A->nnz;
    T->bln = 1;
    T->k = 1.0;
    T->bln_critical = T->evaluated = 0;
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
        teb_steps S1, S2;
        int st = L && C ? SPK_OK : SPK_ERR_NOMEM;
        if (st == SPK_OK) {
            for (int l = maxlen, d = 0; l >= 0; l--)
                if (hist[l] > 0) {
                    L[d] = l;
                    C[d++] = hist[l];
                }
            int st1 = steps_init(&S1, L, C, D, err), st2 = steps_init(&S2, L, C, D, err);
            if (!(st = st1 ? st1 : st2)) teb_search(&S1, &S2, nnz, M, maxlen, T);
            steps_free(&S1);
            steps_free(&S2);
        }
        free(hist);
        free(L);
        free(C);
        if (st) return st;
    }
    const int bln = T->bln, crit = T->bln_critical, evaluated = T->evaluated;
    double t_thr = spk_time_now() - t0;
    SPK_TRY(spk_teb_build(A, bln, T->k, T, err));
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

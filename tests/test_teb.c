/* test_teb.c -- the TEB conversion: the paper's worked example (Fig. 1 with
 * bLN = 4, k = 1 must give exactly Fig. 15), the histogram partition used by
 * the bLN search against the row-by-row Alg. 2, Alg. 1's choice of k, and
 * the whole search against a brute-force search on small matrices.  (The
 * products of "teb" and "teb-fast" are checked against CSR by test_spmv and
 * test_spmv_shared with every other format.) */
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "spmv/teb.h"

static uint64_t rng = 77;
static double rnd(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void free_teb(spk_fmt_teb *T)
{
    free(T->blo);
    free(T->rs);
    free(T->col);
    free(T->val);
    free(T->orig);
    memset(T, 0, sizeof *T);
}

/* Fig. 1 of the paper: 8 x 8, row lengths 3 1 2 2 1 2 1 4. */
static void fig1(void)
{
    static const int r[] = {0, 0, 0, 1, 2, 2, 3, 3, 4, 5, 5, 6, 7, 7, 7, 7};
    static const int c[] = {2, 6, 7, 0, 3, 7, 0, 1, 6, 4, 5, 4, 0, 5, 6, 7};
    static const double v[] = {2, 1, 8, 3, 6, 9, 6, 7, 2, 5, 8, 6, 5, 4, 2, 1};
    spk_err e;
    spk_csr A = {0};
    CHECK_OK(spk_csr_from_coo(8, 8, 16, r, c, v, &A, &e), e.msg);
    spk_fmt_teb T;
    memset(&T, 0, sizeof T);
    CHECK_OK(spk_teb_build(&A, 4, 1.0, &T, &e), e.msg);
    CHECK(T.threshold == 4.0, "Threshold %g", T.threshold);
    const int blo[] = {0, 1, 3, 6, 8};
    const int rs[] = {0, 4, 7, 8, 10, 11, 12, 14, 16};
    const double val[] = {5, 4, 2, 1, 2, 1, 8, 6, 6, 9, 2, 3, 6, 7, 5, 8};
    const int col[] = {0, 5, 6, 7, 2, 6, 7, 4, 3, 7, 6, 0, 0, 1, 4, 5};
    CHECK(T.nblocks == 4, "%d sub-blocks", T.nblocks);
    for (int i = 0; i < 5 && i <= T.nblocks; i++) CHECK(T.blo[i] == blo[i], "Blo_Idx[%d] = %d", i, T.blo[i]);
    for (int i = 0; i < 9; i++) CHECK(T.rs[i] == rs[i], "RowNNZ_Sum[%d] = %d", i, T.rs[i]);
    for (int i = 0; i < 16; i++) {
        CHECK(T.val[i] == val[i], "Values[%d] = %g, expected %g", i, T.val[i], val[i]);
        CHECK(T.col[i] == col[i], "Col_Idx[%d] = %d, expected %d", i, T.col[i], col[i]);
    }
    const int orig[] = {7, 0, 6, 2, 4, 1, 3, 5};
    for (int i = 0; i < 8; i++) CHECK(T.orig[i] == orig[i], "original row of %d = %d", i, T.orig[i]);
    CHECK(T.variance == 0.0 && T.min_nnz == 4 && T.max_nnz == 4, "variance %g, nnz %d..%d", T.variance,
          T.min_nnz, T.max_nnz);
    free_teb(&T);
    spk_csr_free(&A);
}

/* A random matrix whose row lengths follow the given kind. */
static void random_rows(int m, int kind, spk_csr *A)
{
    spk_err e;
    int *len = malloc((size_t)m * sizeof(int));
    size_t nnz = 0;
    for (int i = 0; i < m; i++) {
        int l;
        switch (kind) {
        case 0: l = 5; break;                                   /* uniform */
        case 1: l = (int)(rnd() * 12); break;                   /* 0..11, empty rows */
        case 2: l = rnd() < 0.05 ? 40 + (int)(rnd() * 60) : 1 + (int)(rnd() * 3); break; /* skewed */
        default: l = i == m / 2 ? m : 2; break;                 /* one dense row */
        }
        if (l > m) l = m;
        len[i] = l;
        nnz += (size_t)l;
    }
    int *r = malloc(nnz * sizeof(int) + 1), *c = malloc(nnz * sizeof(int) + 1);
    double *v = malloc(nnz * sizeof(double) + 1);
    size_t k = 0;
    for (int i = 0; i < m; i++) {
        int start = (int)(rnd() * (m - len[i] + 1));
        for (int q = 0; q < len[i]; q++) {
            r[k] = i;
            c[k] = start + q;
            v[k++] = rnd() + 0.5;
        }
    }
    if (spk_csr_from_coo(m, m, nnz, r, c, v, A, &e)) fprintf(stderr, "%s\n", e.msg);
    free(len);
    free(r);
    free(c);
    free(v);
}

/* Histogram of row lengths, longest first. */
static int histogram(const spk_csr *A, int *L, long long *C)
{
    int maxlen = 0, D = 0;
    for (int i = 0; i < A->nrows; i++)
        if (A->rowptr[i + 1] - A->rowptr[i] > maxlen) maxlen = A->rowptr[i + 1] - A->rowptr[i];
    for (int l = maxlen; l >= 0; l--) {
        long long n = 0;
        for (int i = 0; i < A->nrows; i++) n += A->rowptr[i + 1] - A->rowptr[i] == l;
        if (n) {
            L[D] = l;
            C[D++] = n;
        }
    }
    return D;
}

/* The fast histogram partition equals the row-by-row Alg. 2, for any bLN and k. */
static void histogram_vs_rows(void)
{
    spk_err e;
    const double ks[] = {1.0, 1.005, 1.01, 1.03, 1.7, 3.0};
    int checked = 0;
    for (int kind = 0; kind < 4; kind++)
        for (int trial = 0; trial < 3; trial++) {
            int m = 50 + (int)(rnd() * 400);
            spk_csr A = {0};
            random_rows(m, kind, &A);
            int *L = malloc(((size_t)m + 2) * sizeof(int));
            long long *C = malloc(((size_t)m + 2) * sizeof(long long));
            int D = histogram(&A, L, C);
            for (int bln = 1; bln <= m + 3; bln += 1 + bln / 7)
                for (int q = 0; q < 6; q++) {
                    spk_fmt_teb T;
                    memset(&T, 0, sizeof T);
                    CHECK_OK(spk_teb_build(&A, bln, ks[q], &T, &e), e.msg);
                    double v = spk_teb_variance(L, C, D, A.nnz, bln, (double)A.nnz / bln * ks[q]);
                    CHECK(fabs(v - T.variance) <= 1e-9 * fmax(1.0, T.variance),
                          "kind %d m %d bLN %d k %g: histogram variance %.17g, rows %.17g", kind, m, bln,
                          ks[q], v, T.variance);
                    checked++;
                    free_teb(&T);
                }
            free(L);
            free(C);
            spk_csr_free(&A);
        }
    printf("histogram partition = row partition on %d cases\n", checked);
}

static void alg1_k(void)
{
    /* critical count 10 of 1000 nonzeros: AVG_critical = 100 */
    CHECK(spk_teb_k(1000, 5, 10) == 1.005, "AVG 200 > 100");
    CHECK(spk_teb_k(1000, 10, 10) == 1.01, "AVG 100 = AVG_critical: not above, but above half");
    CHECK(spk_teb_k(1000, 19, 10) == 1.01, "AVG 52.6 > 50");
    CHECK(spk_teb_k(1000, 20, 10) == 1.03, "AVG 50 = half: 1.03");
    CHECK(spk_teb_k(1000, 400, 10) == 1.03, "small AVG");
    CHECK(spk_teb_k(1000, 400, 0) == 1.005, "no critical count");
}

/* The whole search against a brute-force one that builds every bLN row by row. */
static void search_vs_brute(void)
{
    spk_err e;
    for (int kind = 0; kind < 4; kind++)
        for (int trial = 0; trial < 2; trial++) {
            int m = 30 + (int)(rnd() * 120);
            spk_csr A = {0};
            random_rows(m, kind, &A);
            int maxlen = 0;
            for (int i = 0; i < m; i++)
                if (A.rowptr[i + 1] - A.rowptr[i] > maxlen) maxlen = A.rowptr[i + 1] - A.rowptr[i];
            /* brute force: critical count, then every bLN up to eq. (10) */
            long long bmax = (long long)floor(2.0 * A.nnz * 1.03 / maxlen);
            if (bmax > m) bmax = m;
            int crit = 0, best_bln = 1;
            double best = INFINITY;
            for (int i = 2; i <= bmax && !crit; i++) {
                spk_fmt_teb T1, T2;
                memset(&T1, 0, sizeof T1);
                memset(&T2, 0, sizeof T2);
                spk_teb_build(&A, i, 1.0, &T1, &e);
                spk_teb_build(&A, i, 1.01, &T2, &e);
                if (T1.variance > T2.variance) crit = i;
                free_teb(&T1);
                free_teb(&T2);
            }
            for (int i = 2; i <= bmax; i++) {
                double k = spk_teb_k(A.nnz, i, crit);
                if (maxlen > 2 * ((double)A.nnz / i * k)) break;
                spk_fmt_teb T;
                memset(&T, 0, sizeof T);
                spk_teb_build(&A, i, k, &T, &e);
                if (T.variance < best) {
                    best = T.variance;
                    best_bln = i;
                }
                free_teb(&T);
            }
            spk_fmt_teb F;
            memset(&F, 0, sizeof F);
            CHECK_OK(spk_teb_convert(&A, &F, &e), e.msg);
            CHECK(F.bln_critical == crit, "kind %d: critical %d, brute force %d", kind, F.bln_critical, crit);
            CHECK(F.bln == best_bln, "kind %d m %d: bLN %d, brute force %d (variance %g vs %g)", kind, m, F.bln,
                  best_bln, F.variance, best);
            /* the arrays describe A: every row once, sub-blocks contiguous */
            CHECK(F.blo[0] == 0 && F.blo[F.nblocks] == m && F.rs[m] == A.nnz, "array ends");
            int *seen = calloc((size_t)m, sizeof(int));
            for (int r = 0; r < m; r++) seen[F.orig[r]]++;
            int once = 1;
            for (int i = 0; i < m; i++) once &= seen[i] == 1;
            CHECK(once, "kind %d: a row missing or repeated", kind);
            free(seen);
            free_teb(&F);
            spk_csr_free(&A);
        }
}

static void small_cases(void)
{
    spk_err e;
    spk_fmt_teb T;
    spk_csr A = {0};
    /* 0 x 0, 1 x 1, all rows empty */
    CHECK_OK(spk_csr_alloc(&A, 0, 0, 0, &e), e.msg);
    memset(&T, 0, sizeof T);
    CHECK_OK(spk_teb_convert(&A, &T, &e), e.msg);
    CHECK(T.nblocks == 1 && T.blo[1] == 0, "0x0: %d sub-blocks", T.nblocks);
    free_teb(&T);
    spk_csr_free(&A);
    CHECK_OK(spk_csr_alloc(&A, 1, 1, 1, &e), e.msg);
    A.rowptr[1] = 1;
    A.colind[0] = 0;
    A.val[0] = 2;
    memset(&T, 0, sizeof T);
    CHECK_OK(spk_teb_convert(&A, &T, &e), e.msg);
    CHECK(T.nblocks == 1 && T.rs[1] == 1 && T.orig[0] == 0, "1x1");
    free_teb(&T);
    spk_csr_free(&A);
    CHECK_OK(spk_csr_alloc(&A, 5, 5, 0, &e), e.msg);
    memset(&T, 0, sizeof T);
    CHECK_OK(spk_teb_convert(&A, &T, &e), e.msg);
    CHECK(T.blo[T.nblocks] == 5, "empty rows all placed");
    free_teb(&T);
    spk_csr_free(&A);
}

int main(void)
{
    fig1();
    histogram_vs_rows();
    alg1_k();
    search_vs_brute();
    small_cases();
    return check_exit();
}

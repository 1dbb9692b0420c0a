/* test_gen_rows.c -- row ranges of the generated matrices (spk_gen_spec_rows):
 * for every family, the ranges of several splits (empty ranges and single rows
 * among them) concatenate to exactly spk_gen_spec's matrix; spk_gen_spec_size
 * and spk_gen_spec_has_rows; bad ranges and specs; and ranges of matrices whose
 * whole entry count is far past 32 bits, made quickly in small memory. */
#include <limits.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "core/csr.h"
#include "io/gen.h"

static int contains(const char *s, const char *t)
{
    return s && t && strstr(s, t) != NULL;
}

static int same(const spk_csr *A, const spk_csr *B)
{
    if (A->nrows != B->nrows || A->ncols != B->ncols || A->nnz != B->nnz) return 0;
    return memcmp(A->rowptr, B->rowptr, ((size_t)A->nrows + 1) * sizeof(int)) == 0 &&
           memcmp(A->colind, B->colind, (size_t)A->nnz * sizeof(int)) == 0 &&
           memcmp(A->val, B->val, (size_t)A->nnz * sizeof(double)) == 0;
}

/* Append the range R (rows r0 .. r0 + R->nrows - 1) to C, whose arrays have room for the whole
 * matrix and whose first r0 rows are filled. */
static void append(spk_csr *C, int r0, const spk_csr *R)
{
    const int q = C->rowptr[r0];
    for (int i = 1; i <= R->nrows; i++) C->rowptr[r0 + i] = q + R->rowptr[i];
    memcpy(C->colind + q, R->colind, (size_t)R->nnz * sizeof(int));
    memcpy(C->val + q, R->val, (size_t)R->nnz * sizeof(double));
}

/* The rows of spec cut at the nb boundaries b[0] = 0 <= ... <= b[nb-1] = n, made range by
 * range and concatenated: exactly W, the whole matrix? */
static void check_split(const char *spec, const spk_csr *W, const int *b, int nb, const char *what)
{
    spk_csr C = {0};
    spk_err e;
    CHECK_OK(spk_csr_alloc(&C, W->nrows, W->ncols, W->nnz, &e), e.msg);
    int ok = 1;
    for (int k = 0; k + 1 < nb && ok; k++) {
        spk_csr R = {0};
        spk_err_clear(&e);
        const int st = spk_gen_spec_rows(spec, b[k], b[k + 1], &R, &e);
        CHECK(st == 0, "%s (%s): rows [%d, %d): %s", spec, what, b[k], b[k + 1], e.msg);
        const int nnz = W->rowptr[b[k + 1]] - W->rowptr[b[k]];
        ok = !st && R.nrows == b[k + 1] - b[k] && R.ncols == W->ncols && R.nnz == nnz && R.rowptr[0] == 0;
        CHECK(ok, "%s (%s): rows [%d, %d) give %d x %d, %d entries (expected %d x %d, %d)", spec, what, b[k],
              b[k + 1], R.nrows, R.ncols, R.nnz, b[k + 1] - b[k], W->ncols, nnz);
        if (ok) append(&C, b[k], &R);
        spk_csr_free(&R);
    }
    if (ok) CHECK(same(&C, W), "%s (%s): the concatenated ranges differ from spk_gen_spec's matrix", spec, what);
    spk_csr_free(&C);
}

/* spec against spk_gen_spec: its size, has_rows, and the splits in 1, 2, 3 and 7 parts and one
 * with empty ranges and single rows. */
static void check_spec(const char *spec, int direct)
{
    spk_csr W = {0};
    spk_err e;
    spk_err_clear(&e);
    int st = spk_gen_spec(spec, &W, &e), n = -1;
    CHECK(st == 0, "%s: %s", spec, e.msg);
    if (st) return;
    CHECK_OK(spk_gen_spec_size(spec, &n, &e), e.msg);
    CHECK(n == W.nrows, "%s: spk_gen_spec_size %d, the matrix has %d rows", spec, n, W.nrows);
    CHECK(spk_gen_spec_has_rows(spec) == direct, "%s: has_rows %d, expected %d", spec,
          spk_gen_spec_has_rows(spec), direct);
    const int parts[] = {1, 2, 3, 7};
    for (size_t p = 0; p < sizeof parts / sizeof *parts; p++) {
        int b[8];
        for (int k = 0; k <= parts[p]; k++) b[k] = (int)((long long)n * k / parts[p]);
        char what[32];
        snprintf(what, sizeof what, "%d parts", parts[p]);
        check_split(spec, &W, b, parts[p] + 1, what);
    }
    /* boundaries 0, 0, 1, 1, n/2, n/2, n/2 + 1, n - 1, n, n (cut to [0, n] and sorted) */
    int odd[] = {0, 0, 1, 1, n / 2, n / 2, n / 2 + 1, n - 1, n, n};
    for (int i = 0; i < 10; i++) {
        int v = odd[i] > n ? n : odd[i], j = i;
        for (; j > 0 && odd[j - 1] > v; j--) odd[j] = odd[j - 1];
        odd[j] = v;
    }
    check_split(spec, &W, odd, 10, "empty and single rows");
    spk_csr_free(&W);
}

/* Every family at small sizes, default and other parameters, names and aliases. */
static void test_families(void)
{
    const char *direct[] = {"poisson2d-5:1", "poisson2d-5:7", "poisson5:6", "poisson3d-7:1", "poisson3d-7:5",
                            "poisson7:4", "poisson3d-27:2", "poisson3d-27:5", "convdiff3d-7:5",
                            "convdiff3d-7:4:-250", "convdiff7:3:0", "convdiff2d-5:6", "convdiff2d-5:7:-33.5",
                            "convdiff5:5:3", "aniso2d:6", "aniso2d:7:0.01:30", "aniso2d:5:5:-120",
                            "aniso2d:6:1e-3:90", "aniso3d:5", "aniso3d:4:50", "elasticity3d:1", "elasticity3d:3",
                            "elasticity3d:4:0.45", "saddle:2", "saddle:5", "saddle:6", "brusselator:1",
                            "brusselator:4", "brusselator:5:1", "brusselator:6:2.5"};
    const char *random[] = {"powerlaw:60", "powerlaw:50:3:seed=4", "powerlaw-sym:60", "powerlaw-sym:40:2.5:seed=9",
                            "rgg:80", "rgg:70:5:shuffled", "rgg3d:60", "rgg3d:50:4:shuffled:seed=2", "band:50",
                            "band:40:3:0.5", "circuit:60", "circuit:50:2:seed=7"};
    for (size_t k = 0; k < sizeof direct / sizeof *direct; k++) check_spec(direct[k], 1);
    for (size_t k = 0; k < sizeof random / sizeof *random; k++) check_spec(random[k], 0);
}

/* Bad ranges (direct and whole-only families) and bad specs: SPK_ERR_INVALID_ARG, the spec in
 * the message, nothing written; spk_gen_spec_size refuses what spk_gen_spec refuses for the
 * spec, N or the row count, with its message, and sizes what only overflows in entries. */
static void test_errors(void)
{
    const char *specs[] = {"poisson3d-7:4", "saddle:3", "powerlaw:30"};
    const int n[] = {64, 10, 30};
    for (size_t s = 0; s < sizeof specs / sizeof *specs; s++) {
        const int ranges[][2] = {{-1, 3}, {5, 4}, {0, -1}, {1, 0}, {INT_MIN, INT_MAX},
                                 {n[s], n[s] + 1}, {n[s] + 1, n[s] + 1}, {0, n[s] + 1}};
        for (size_t r = 0; r < sizeof ranges / sizeof *ranges; r++) {
            const int r0 = ranges[r][0], r1 = ranges[r][1];
            spk_csr R = {0};
            spk_err e;
            spk_err_clear(&e);
            const int st = spk_gen_spec_rows(specs[s], r0, r1, &R, &e);
            CHECK(st == SPK_ERR_INVALID_ARG, "%s rows [%d, %d): status %d (%s)", specs[s], r0, r1, st, e.msg);
            CHECK(contains(e.msg, specs[s]) && contains(e.msg, "row range"), "%s rows [%d, %d): message '%s'",
                  specs[s], r0, r1, e.msg);
            CHECK(R.rowptr == NULL, "%s rows [%d, %d): written on failure", specs[s], r0, r1);
        }
    }
    const char *bad[] = {"laplace:5", "poisson3d-7", "poisson3d-7:0", "poisson3d-7:4x", "convdiff7:4:abc",
                         "poisson3d-7:4:5", "poisson5:5:seed=1", "band:100:seed=x", "saddle:1", "poisson3d-7:2000",
                         "elasticity3d:900", "brusselator:32768", "rgg:100:8:sideways", "brusselator:10:1e-200",
                         "aniso2d:5:0", ""};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        spk_csr R = {0}, A = {0};
        spk_err e, ea, es;
        spk_err_clear(&e);
        spk_err_clear(&ea);
        spk_err_clear(&es);
        int n1 = -7;
        const int st = spk_gen_spec_rows(bad[k], 0, 1, &R, &e), sa = spk_gen_spec(bad[k], &A, &ea);
        const int ss = spk_gen_spec_size(bad[k], &n1, &es);
        CHECK(st == SPK_ERR_INVALID_ARG && contains(e.msg, bad[k]), "'%s': rows status %d, message '%s'", bad[k],
              st, e.msg);
        CHECK(R.rowptr == NULL && A.rowptr == NULL, "'%s': written on failure", bad[k]);
        CHECK(sa == SPK_ERR_INVALID_ARG && ss == sa && !strcmp(es.msg, ea.msg) && n1 == -7,
              "'%s': size status %d, message '%s'; spk_gen_spec %d, '%s'", bad[k], ss, es.msg, sa, ea.msg);
        CHECK(spk_gen_spec_has_rows(bad[k]) == 0, "'%s': has_rows", bad[k]);
    }
    /* too many entries for one matrix, not for its size or a small range */
    const char *big[] = {"poisson3d-7:700", "poisson3d-27:500", "elasticity3d:300", "brusselator:13378"};
    const int bign[] = {343000000, 125000000, 81000000, 357941768};
    for (size_t k = 0; k < sizeof big / sizeof *big; k++) {
        spk_err e;
        int n1 = 0;
        CHECK_OK(spk_gen_spec_size(big[k], &n1, &e), e.msg);
        CHECK(n1 == bign[k], "%s: size %d, expected %d", big[k], n1, bign[k]);
        CHECK(spk_gen_spec_has_rows(big[k]) == 1, "%s: has_rows", big[k]);
    }
    spk_err e;
    int n1;
    spk_csr R = {0};
    CHECK(spk_gen_spec_rows(NULL, 0, 0, &R, &e) == SPK_ERR_INVALID_ARG, "NULL spec");
    CHECK(spk_gen_spec_rows("poisson5:3", 0, 0, NULL, &e) == SPK_ERR_INVALID_ARG, "NULL rows");
    CHECK(spk_gen_spec_size(NULL, &n1, &e) == SPK_ERR_INVALID_ARG, "NULL spec");
    CHECK(spk_gen_spec_size("poisson5:3", NULL, &e) == SPK_ERR_INVALID_ARG, "NULL n");
    CHECK(spk_gen_spec_has_rows(NULL) == 0, "NULL spec has rows");
    CHECK(spk_gen_spec_rows("poisson5:3", 9, 9, &R, NULL) == 0 && R.nrows == 0 && R.ncols == 9 && R.nnz == 0,
          "the empty range at the end: %d x %d, %d entries", R.nrows, R.ncols, R.nnz);
    spk_csr_free(&R);
}

/* Row r of poisson3d-7:N written out: its columns in order, into c; returns their count. */
static int poisson7_row(long long N, long long r, long long *c)
{
    const long long x = r % N, y = r / N % N, z = r / (N * N);
    const long long off[7] = {-N * N, -N, -1, 0, 1, N, N * N};
    const int in[7] = {z > 0, y > 0, x > 0, 1, x < N - 1, y < N - 1, z < N - 1};
    int k = 0;
    for (int t = 0; t < 7; t++)
        if (in[t]) c[k++] = r + off[t];
    return k;
}

/* Ranges of matrices of far more than 2^31 entries: poisson3d-7:1290 (about 15e9 entries) at
 * both ends, checked row by row against the stencil; elasticity3d:894 (about 174e9) and
 * brusselator:32767 (about 13e9), a middle range made whole and in three parts; a range of
 * over 2^31 entries refused. */
static void test_huge(void)
{
    const long long N = 1290;
    spk_err e;
    int n = 0;
    CHECK_OK(spk_gen_spec_size("poisson3d-7:1290", &n, &e), e.msg);
    CHECK(n == N * N * N, "poisson3d-7:1290: size %d", n);
    spk_csr X = {0};
    CHECK(spk_gen_spec("poisson3d-7:1290", &X, &e) == SPK_ERR_INVALID_ARG && X.rowptr == NULL,
          "poisson3d-7:1290 fits whole?");
    const int from[2] = {0, n - 10000};
    for (int k = 0; k < 2; k++) {
        spk_csr R = {0};
        const clock_t t0 = clock();
        const int st = spk_gen_spec_rows("poisson3d-7:1290", from[k], from[k] + 10000, &R, &e);
        const double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
        CHECK(st == 0, "poisson3d-7:1290 rows [%d, +10000): %s", from[k], e.msg);
        if (st) continue;
        CHECK(secs < 2.0, "poisson3d-7:1290: 10000 rows took %.2f s", secs);
        int bad = R.nrows != 10000 || R.ncols != n;
        for (int i = 0; i < R.nrows && !bad; i++) {
            long long c[7];
            const int len = poisson7_row(N, from[k] + i, c);
            bad |= R.rowptr[i + 1] - R.rowptr[i] != len;
            for (int j = 0; j < len && !bad; j++) {
                const int q = R.rowptr[i] + j;
                bad |= R.colind[q] != c[j] || R.val[q] != (c[j] == from[k] + i ? 6.0 : -1.0);
            }
        }
        CHECK(!bad, "poisson3d-7:1290 rows [%d, +10000) differ from the stencil", from[k]);
        spk_csr_free(&R);
    }
    const char *specs[] = {"elasticity3d:894", "brusselator:32767"};
    for (int k = 0; k < 2; k++) {
        CHECK_OK(spk_gen_spec_size(specs[k], &n, &e), e.msg);
        const int b[4] = {n / 2 - 3000, n / 2 - 2999, n / 2, n / 2 + 3000};
        spk_csr W = {0};
        const int st = spk_gen_spec_rows(specs[k], b[0], b[3], &W, &e);
        CHECK(st == 0 && W.nrows == 6000 && W.ncols == n, "%s: %s", specs[k], e.msg);
        if (st) continue;
        /* the same rows in three ranges, one of them a single row */
        spk_csr S = {0};
        CHECK_OK(spk_csr_alloc(&S, W.nrows, W.ncols, W.nnz, &e), e.msg);
        spk_csr parts[3] = {{0}, {0}, {0}};
        int ok = 1;
        for (int p = 0; p < 3; p++) {
            ok &= spk_gen_spec_rows(specs[k], b[p], b[p + 1], &parts[p], &e) == 0;
            if (ok) append(&S, b[p] - b[0], &parts[p]);
            spk_csr_free(&parts[p]);
        }
        CHECK(ok && same(&S, &W), "%s: rows [%d, %d) differ when made in 3 ranges", specs[k], b[0], b[3]);
        spk_csr_free(&S);
        spk_csr_free(&W);
    }
    spk_csr R = {0};
    spk_err_clear(&e);
    const int st = spk_gen_spec_rows("elasticity3d:894", 0, 40000000, &R, &e);
    CHECK(st == SPK_ERR_INVALID_ARG && contains(e.msg, "elasticity3d:894") && contains(e.msg, "smaller range"),
          "elasticity3d:894 rows [0, 4e7): status %d (%s)", st, e.msg);
    CHECK(R.rowptr == NULL, "written on failure");
}

int main(void)
{
    test_families();
    test_errors();
    test_huge();
    return check_exit();
}

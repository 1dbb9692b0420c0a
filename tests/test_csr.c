/* test_csr.c -- the host CSR utilities against hand-worked and brute-force answers. */
#include <limits.h>
#include <stdint.h>

#include "check.h"
#include "core/csr.h"

static uint64_t rng_state = 12345;
static double rnd(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* Dense copy of A (row-major nrows x ncols). */
static double *dense(const spk_csr *A)
{
    double *d = calloc((size_t)A->nrows * A->ncols + 1, sizeof(double));
    for (int i = 0; i < A->nrows; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) d[(size_t)i * A->ncols + A->colind[k]] += A->val[k];
    return d;
}

static void test_from_coo(void)
{
    spk_err e;
    spk_err_clear(&e);
    /* 3 x 4 with an unsorted row, a duplicate and an empty row */
    int r[] = {2, 0, 0, 2, 0, 2};
    int c[] = {3, 2, 0, 1, 2, 3};
    double v[] = {1, 2, 3, 4, 5, 6};
    spk_csr A = {0};
    CHECK_OK(spk_csr_from_coo(3, 4, 6, r, c, v, &A, &e), e.msg);
    CHECK(A.nnz == 4, "nnz %d", A.nnz);
    int rp[] = {0, 2, 2, 4}, ci[] = {0, 2, 1, 3};
    double vv[] = {3, 7, 4, 7};
    for (int i = 0; i < 4; i++) CHECK(A.rowptr[i] == rp[i], "rowptr[%d] = %d", i, A.rowptr[i]);
    for (int k = 0; k < 4 && k < A.nnz; k++) {
        CHECK(A.colind[k] == ci[k], "colind[%d] = %d", k, A.colind[k]);
        CHECK(A.val[k] == vv[k], "val[%d] = %g", k, A.val[k]);
    }
    CHECK_OK(spk_csr_validate(&A, 1, &e), e.msg);
    spk_csr_free(&A);
    /* out of range entry */
    int rb[] = {0, 3};
    int cb[] = {0, 0};
    int st = spk_csr_from_coo(3, 3, 2, rb, cb, NULL, &A, &e);
    CHECK(st == SPK_ERR_INVALID_MATRIX, "status %d", st);
    CHECK(check_contains(e.msg, "(3, 0)"), "message: %s", e.msg);
    /* pattern (val NULL) gives ones */
    CHECK_OK(spk_csr_from_coo(3, 3, 1, rb, cb, NULL, &A, &e), e.msg);
    CHECK(A.nnz == 1 && A.val[0] == 1.0, "pattern value");
    spk_csr_free(&A);
}

static void test_validate(void)
{
    spk_err e;
    int rp[] = {0, 2, 1}, ci[] = {0, 1};
    double v[] = {1, 2};
    spk_csr A = {2, 2, 2, rp, ci, v};
    CHECK(spk_csr_validate(&A, 0, &e) == SPK_ERR_INVALID_MATRIX, "decreasing rowptr accepted");
    CHECK(check_contains(e.msg, "non-decreasing"), "%s", e.msg);
    int rp2[] = {0, 1, 2}, ci2[] = {0, 5};
    spk_csr B = {2, 2, 2, rp2, ci2, v};
    CHECK(spk_csr_validate(&B, 0, &e) == SPK_ERR_INVALID_MATRIX, "column out of range accepted");
    CHECK(check_contains(e.msg, "column index 5"), "%s", e.msg);
    int rp3[] = {0, 2, 2}, ci3[] = {1, 0};
    spk_csr C = {2, 2, 2, rp3, ci3, v};
    CHECK(spk_csr_validate(&C, 0, &e) == SPK_OK, "unsorted rejected without require_sorted");
    CHECK(spk_csr_validate(&C, 1, &e) == SPK_ERR_INVALID_MATRIX, "unsorted accepted");
    int rp4[] = {1, 2, 2};
    spk_csr D = {2, 2, 2, rp4, ci3, v};
    CHECK(spk_csr_validate(&D, 0, &e) == SPK_ERR_INVALID_MATRIX, "rowptr[0] != 0 accepted");
    int rp5[] = {0, 1, 1};
    spk_csr F = {2, 2, 2, rp5, ci3, v};
    CHECK(spk_csr_validate(&F, 0, &e) == SPK_ERR_INVALID_MATRIX, "rowptr[n] != nnz accepted");
}

/* Random matrix with duplicates; sort + sum must equal the dense sum. */
static void test_sort_sum_random(void)
{
    spk_err e;
    for (int trial = 0; trial < 20; trial++) {
        int m = 1 + (int)(rnd() * 40), n = 1 + (int)(rnd() * 40), nnz = (int)(rnd() * 300);
        spk_csr A = {0};
        CHECK_OK(spk_csr_alloc(&A, m, n, nnz, &e), e.msg);
        /* random rows: assign entries to rows in order with random columns (unsorted, dups) */
        for (int k = 0; k < nnz; k++) A.rowptr[1 + (int)(rnd() * m)]++;
        for (int i = 0; i < m; i++) A.rowptr[i + 1] += A.rowptr[i];
        for (int k = 0; k < nnz; k++) {
            A.colind[k] = (int)(rnd() * n);
            A.val[k] = rnd() - 0.5;
        }
        double *d0 = dense(&A);
        int *perm = malloc((size_t)nnz * sizeof(int) + 1), *map = malloc((size_t)nnz * sizeof(int) + 1);
        double *orig = malloc((size_t)nnz * sizeof(double) + 1);
        memcpy(orig, A.val, (size_t)nnz * sizeof(double));
        CHECK_OK(spk_csr_sort(&A, perm, &e), e.msg);
        for (int k = 0; k < nnz; k++) CHECK(A.val[k] == orig[perm[k]], "perm wrong at %d", k);
        spk_csr_sum_duplicates(&A, map);
        CHECK_OK(spk_csr_validate(&A, 1, &e), e.msg);
        double *d1 = dense(&A);
        double maxdiff = 0;
        for (size_t q = 0; q < (size_t)m * n; q++) maxdiff = fmax(maxdiff, fabs(d0[q] - d1[q]));
        CHECK(maxdiff < 1e-14, "sort+sum changed the matrix by %g", maxdiff);
        free(d0);
        free(d1);
        free(perm);
        free(map);
        free(orig);
        spk_csr_free(&A);
    }
}

static void test_transpose_symmetry(void)
{
    spk_err e;
    /* nonsymmetric 3x3 */
    int r[] = {0, 0, 1, 2, 2};
    int c[] = {0, 2, 1, 0, 2};
    double v[] = {4, 1, 5, 1, 6};
    spk_csr A = {0}, T = {0};
    CHECK_OK(spk_csr_from_coo(3, 3, 5, r, c, v, &A, &e), e.msg);
    int ps, vs;
    CHECK_OK(spk_csr_symmetry(&A, 0, &ps, &vs, &e), e.msg);
    CHECK(ps == 1 && vs == 1, "symmetric matrix: pattern %d values %d", ps, vs);
    A.val[1] = 1.0 + 1e-15; /* (0,2) */
    CHECK_OK(spk_csr_symmetry(&A, 1e-12, &ps, &vs, &e), e.msg);
    CHECK(vs == 1, "tolerance not applied");
    CHECK_OK(spk_csr_symmetry(&A, 0, &ps, &vs, &e), e.msg);
    CHECK(vs == 0 && ps == 1, "exact test: pattern %d values %d", ps, vs);
    spk_csr_free(&A);
    /* pattern nonsymmetric, 2x3 transpose */
    int r2[] = {0, 1, 1};
    int c2[] = {2, 0, 1};
    double v2[] = {1, 2, 3};
    CHECK_OK(spk_csr_from_coo(2, 3, 3, r2, c2, v2, &A, &e), e.msg);
    CHECK_OK(spk_csr_transpose(&A, &T, &e), e.msg);
    CHECK(T.nrows == 3 && T.ncols == 2 && T.nnz == 3, "transpose shape");
    CHECK_OK(spk_csr_validate(&T, 1, &e), e.msg);
    double *da = dense(&A), *dt = dense(&T);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) CHECK(da[i * 3 + j] == dt[j * 2 + i], "T(%d,%d)", j, i);
    free(da);
    free(dt);
    CHECK_OK(spk_csr_symmetry(&A, 0, &ps, &vs, &e), e.msg);
    CHECK(ps == 0 && vs == 0, "rectangular reported symmetric");
    spk_csr_free(&A);
    spk_csr_free(&T);
    /* an entry without partner but zero value: pattern no, values yes */
    int r3[] = {0, 0, 1};
    int c3[] = {0, 1, 1};
    double v3[] = {1, 0, 2};
    CHECK_OK(spk_csr_from_coo(2, 2, 3, r3, c3, v3, &A, &e), e.msg);
    CHECK_OK(spk_csr_symmetry(&A, 0, &ps, &vs, &e), e.msg);
    CHECK(ps == 0 && vs == 1, "zero partner: pattern %d values %d", ps, vs);
    spk_csr_free(&A);
}

/* The definition of spk_csr_symmetry, by the transpose: both outputs. */
static void symmetry_by_transpose(const spk_csr *A, double rtol, int *pat, int *vals)
{
    spk_err e;
    spk_csr T = {0};
    *pat = *vals = 1;
    CHECK_OK(spk_csr_transpose(A, &T, &e), e.msg);
    for (int i = 0; i < A->nrows; i++) {
        int ka = A->rowptr[i], ea = A->rowptr[i + 1], kt = T.rowptr[i], et = T.rowptr[i + 1];
        while (ka < ea || kt < et) {
            int ca = ka < ea ? A->colind[ka] : INT_MAX, ct = kt < et ? T.colind[kt] : INT_MAX;
            double va = 0, vt = 0;
            if (ca == ct)
                va = A->val[ka++], vt = T.val[kt++];
            else if (ca < ct)
                *pat = 0, va = A->val[ka++];
            else
                *pat = 0, vt = T.val[kt++];
            if (fabs(va - vt) > rtol * fmax(fabs(va), fabs(vt)) || va != va || vt != vt) *vals = 0;
        }
    }
    spk_csr_free(&T);
}

/* Random canonical matrices, symmetric and then disturbed (a partner dropped,
 * a value changed, an unpaired zero, a NaN): the one-pass check agrees with
 * the transpose on every one. */
static void test_symmetry_random(void)
{
    spk_err e;
    unsigned seed = 12345;
    int agree = 0, kinds[4] = {0, 0, 0, 0};
    for (int t = 0; t < 400; t++) {
        const int n = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 40;
        const int m = (int)((seed = seed * 1103515245u + 12345u) >> 16) % (3 * n + 1);
        int *r = malloc((size_t)(2 * m + n) * sizeof(int)), *c = malloc((size_t)(2 * m + n) * sizeof(int));
        double *v = malloc((size_t)(2 * m + n) * sizeof(double));
        int q = 0;
        for (int i = 0; i < n; i++) r[q] = c[q] = i, v[q++] = 4.0 + i;
        for (int k = 0; k < m; k++) {
            int i = (int)((seed = seed * 1103515245u + 12345u) >> 16) % n;
            int j = (int)((seed = seed * 1103515245u + 12345u) >> 16) % n;
            if (i == j) continue;
            double x = -1.0 - (k % 5);
            r[q] = i, c[q] = j, v[q++] = x;
            r[q] = j, c[q] = i, v[q++] = x;
        }
        spk_csr A = {0};
        CHECK_OK(spk_csr_from_coo(n, n, q, r, c, v, &A, &e), e.msg); /* sorted, duplicates summed */
        const int what = t % 5, k = A.nnz ? (int)((seed = seed * 1103515245u + 12345u) >> 16) % A.nnz : 0;
        if (A.nnz && what == 1) A.val[k] *= 1.0 + 1e-9;                     /* values differ */
        if (A.nnz && what == 2) A.val[k] = NAN;                              /* NaN */
        if (A.nnz > 1 && what >= 3) {                                        /* drop entry k */
            int row = 0;
            while (A.rowptr[row + 1] <= k) row++;
            const int col = A.colind[k];
            for (int p = k; p + 1 < A.nnz; p++) A.colind[p] = A.colind[p + 1], A.val[p] = A.val[p + 1];
            for (int i = row + 1; i <= n; i++) A.rowptr[i]--;
            A.nnz--;
            if (what == 4) /* and zero the partner left behind: pattern no, values yes */
                for (int p = A.rowptr[col]; p < A.rowptr[col + 1]; p++)
                    if (A.colind[p] == row) A.val[p] = 0.0;
        }
        const double tols[2] = {0.0, 1e-6};
        for (int ti = 0; ti < 2; ti++) {
            int p1, v1, p2, v2;
            CHECK_OK(spk_csr_symmetry(&A, tols[ti], &p1, &v1, &e), e.msg);
            symmetry_by_transpose(&A, tols[ti], &p2, &v2);
            CHECK(p1 == p2 && v1 == v2, "random matrix %d (n %d, nnz %d, change %d, rtol %g): pattern %d/%d values %d/%d",
                  t, n, A.nnz, what, tols[ti], p1, p2, v1, v2);
            agree += p1 == p2 && v1 == v2;
            kinds[2 * p1 + v1]++;
        }
        spk_csr_free(&A);
        free(r);
        free(c);
        free(v);
    }
    /* every combination of the two answers came up */
    CHECK(kinds[0] > 0 && kinds[1] > 0 && kinds[2] > 0 && kinds[3] > 0, "outcomes %d %d %d %d", kinds[0], kinds[1],
          kinds[2], kinds[3]);
    CHECK(agree == 800, "%d of 800 agree", agree);
}

static void test_diagonal_stats(void)
{
    spk_err e;
    /* 4x4: row 1 has no diagonal, row 3 is empty */
    int r[] = {0, 0, 1, 2, 2};
    int c[] = {0, 3, 2, 0, 2};
    double v[] = {5, -1, 3, -2, -4};
    spk_csr A = {0}, B = {0};
    CHECK_OK(spk_csr_from_coo(4, 4, 5, r, c, v, &A, &e), e.msg);
    double d[4];
    int missing = spk_csr_diagonal(&A, d);
    CHECK(missing == 2, "missing %d", missing);
    CHECK(d[0] == 5 && d[1] == 0 && d[2] == -4 && d[3] == 0, "diag values");
    int pos[4];
    CHECK(spk_csr_diag_pos(&A, pos) == 2, "diag_pos missing");
    CHECK(pos[0] == 0 && pos[1] == -1 && pos[2] == 4 && pos[3] == -1, "diag positions %d %d %d %d",
          pos[0], pos[1], pos[2], pos[3]);
    int added = -1;
    CHECK_OK(spk_csr_with_diagonal(&A, &B, &added, &e), e.msg);
    CHECK(added == 2 && B.nnz == 7, "added %d nnz %d", added, B.nnz);
    CHECK_OK(spk_csr_validate(&B, 1, &e), e.msg);
    CHECK(spk_csr_diag_pos(&B, pos) == 0, "diagonal still missing");
    CHECK(B.val[pos[1]] == 0.0 && B.val[pos[3]] == 0.0, "inserted values not zero");
    /* the other entries are unchanged */
    double *da = dense(&A), *db = dense(&B);
    for (int q = 0; q < 16; q++) CHECK(da[q] == db[q], "entry %d changed", q);
    free(da);
    free(db);
    spk_csr_rowstats s;
    spk_csr_row_stats(&A, &s);
    CHECK(s.min == 0 && s.max == 2 && s.empty == 1, "row stats %d %d %d", s.min, s.max, s.empty);
    CHECK_NEAR(s.mean, 1.25, 1e-15);
    CHECK_NEAR(s.std, sqrt((0.5625 + 0.0625 + 0.5625 + 1.5625) / 4), 1e-14);
    /* rows 0 (5 >= 1) and 2 (4 >= 2) are dominant, row 1 (0 < 3) is not, row 3 (empty) is */
    CHECK(spk_csr_diag_dominant_rows(&A) == 3, "dominant rows %d", spk_csr_diag_dominant_rows(&A));
    spk_csr_free(&A);
    spk_csr_free(&B);
    int r1[] = {0};
    int c1[] = {1};
    CHECK_OK(spk_csr_from_coo(1, 2, 1, r1, c1, NULL, &A, &e), e.msg);
    CHECK(spk_csr_with_diagonal(&A, &B, &added, &e) == SPK_ERR_INVALID_MATRIX, "rectangular accepted");
    spk_csr_free(&A);
}

/* Levels of the triangular solves: a chain, a diagonal, a 2D grid. */
static void test_tri_levels(void)
{
    spk_err e;
    enum { N = 7 };
    int r[3 * N], c[3 * N], nz = 0;
    for (int i = 0; i < N; i++) /* tridiagonal: every row depends on the one before */
        for (int j = i - 1; j <= i + 1; j++)
            if (j >= 0 && j < N) {
                r[nz] = i;
                c[nz++] = j;
            }
    spk_csr A = {0};
    CHECK_OK(spk_csr_from_coo(N, N, nz, r, c, NULL, &A, &e), e.msg);
    CHECK(spk_csr_tri_levels(&A, 0) == N && spk_csr_tri_levels(&A, 1) == N, "tridiagonal: %d %d",
          spk_csr_tri_levels(&A, 0), spk_csr_tri_levels(&A, 1));
    spk_csr_free(&A);
    for (int i = 0; i < N; i++) r[i] = c[i] = i;
    CHECK_OK(spk_csr_from_coo(N, N, N, r, c, NULL, &A, &e), e.msg);
    CHECK(spk_csr_tri_levels(&A, 0) == 1 && spk_csr_tri_levels(&A, 1) == 1, "diagonal");
    spk_csr_free(&A);
    /* m x m 5-point grid in lexicographic order: 2m - 1 anti-diagonals */
    const int m = 5, n = m * m;
    int *gr = malloc(5 * (size_t)n * sizeof(int)), *gc = malloc(5 * (size_t)n * sizeof(int));
    nz = 0;
    for (int y = 0; y < m; y++)
        for (int x = 0; x < m; x++) {
            const int i = y * m + x;
            const int nb[5][2] = {{x, y}, {x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}};
            for (int q = 0; q < 5; q++)
                if (nb[q][0] >= 0 && nb[q][0] < m && nb[q][1] >= 0 && nb[q][1] < m) {
                    gr[nz] = i;
                    gc[nz++] = nb[q][1] * m + nb[q][0];
                }
        }
    CHECK_OK(spk_csr_from_coo(n, n, nz, gr, gc, NULL, &A, &e), e.msg);
    CHECK(spk_csr_tri_levels(&A, 0) == 2 * m - 1 && spk_csr_tri_levels(&A, 1) == 2 * m - 1, "grid: %d %d",
          spk_csr_tri_levels(&A, 0), spk_csr_tri_levels(&A, 1));
    spk_csr_free(&A);
    free(gr);
    free(gc);
    spk_csr Z = {0};
    CHECK(spk_csr_tri_levels(&Z, 0) == 0, "empty matrix");
}

/* Multicoloring, color order and the symmetric permutation on random square
 * matrices (nonsymmetric patterns, empty rows, n = 0 and 1): no entry couples
 * two rows of one color, the greedy bound holds, P A P^T is canonical and
 * equal to A permuted entry by entry, map points at each entry's source, and
 * each triangle of the reordered matrix has at most one level per color. */
static void test_multicolor_permute(void)
{
    spk_err e;
    for (int trial = 0; trial < 40; trial++) {
        const int n = trial == 0 ? 0 : trial == 1 ? 1 : 2 + (int)(rnd() * 60);
        const int want = n ? (int)(rnd() * 6 * n) : 0;
        int *r = malloc((size_t)want * sizeof(int) + 1), *c = malloc((size_t)want * sizeof(int) + 1);
        for (int k = 0; k < want; k++) {
            r[k] = (int)(rnd() * n);
            c[k] = trial % 3 == 0 ? (r[k] + 1 + (int)(rnd() * 3)) % n : (int)(rnd() * n); /* banded or scattered */
        }
        spk_csr A = {0}, B = {0};
        CHECK_OK(spk_csr_from_coo(n, n, (size_t)want, r, c, NULL, &A, &e), e.msg);
        for (int k = 0; k < A.nnz; k++) A.val[k] = rnd() - 0.5;
        int *color = malloc((size_t)n * sizeof(int) + 1), *perm = malloc((size_t)n * sizeof(int) + 1);
        int *map = malloc((size_t)A.nnz * sizeof(int) + 1), ncolors = -1, maxdeg = 0, nrb = -1;
        int *rb = malloc((size_t)n * sizeof(int) + 1);
        /* blocks of one row: plain row multicoloring, each row its own block */
        CHECK_OK(spk_csr_block_multicolor(&A, 1, rb, color, &nrb, &ncolors, perm, &e), e.msg);
        CHECK(nrb == n, "%d blocks of one row for %d rows", nrb, n);
        for (int i = 0; i < n; i++) CHECK(rb[i] == i, "row %d in block %d", i, rb[i]);
        free(rb);
        for (int i = 0; i < n; i++) {
            if (A.rowptr[i + 1] - A.rowptr[i] > maxdeg) maxdeg = A.rowptr[i + 1] - A.rowptr[i];
            CHECK(color[i] >= 0 && color[i] < ncolors, "row %d color %d of %d", i, color[i], ncolors);
            for (int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++)
                CHECK(A.colind[k] == i || color[A.colind[k]] != color[i], "rows %d and %d share color %d", i,
                      A.colind[k], color[i]);
        }
        CHECK(n == 0 ? ncolors == 0 : ncolors >= 1 && ncolors <= 2 * maxdeg + 1, "%d colors, max row %d",
              ncolors, maxdeg);
        for (int i = 1; i < n; i++)
            CHECK(color[perm[i - 1]] < color[perm[i]] || (color[perm[i - 1]] == color[perm[i]] && perm[i - 1] < perm[i]),
                  "order at %d", i);
        CHECK_OK(spk_csr_permute(&A, perm, &B, map, &e), e.msg);
        CHECK_OK(spk_csr_validate(&B, 1, &e), e.msg);
        CHECK(B.nnz == A.nnz, "nnz %d, was %d", B.nnz, A.nnz);
        double *dA = dense(&A), *dB = dense(&B);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                CHECK(dB[(size_t)i * n + j] == dA[(size_t)perm[i] * n + perm[j]], "B(%d,%d)", i, j);
        for (int i = 0; i < n; i++)
            for (int k = B.rowptr[i]; k < B.rowptr[i + 1]; k++)
                CHECK(A.val[map[k]] == B.val[k] && A.colind[map[k]] == perm[B.colind[k]] && map[k] >= A.rowptr[perm[i]] &&
                          map[k] < A.rowptr[perm[i] + 1],
                      "map at %d", k);
        CHECK(spk_csr_tri_levels(&B, 0) <= ncolors && spk_csr_tri_levels(&B, 1) <= ncolors, "levels %d %d, %d colors",
              spk_csr_tri_levels(&B, 0), spk_csr_tri_levels(&B, 1), ncolors);
        /* blocks of up to `block` rows, colored so that no entry couples two
         * blocks of one color; perm by color, block, row */
        const int block = 1 + (int)(rnd() * 8);
        int *blk = malloc((size_t)n * sizeof(int) + 1), *size = calloc((size_t)n + 1, sizeof(int)), nb = -1;
        int *bperm = malloc((size_t)n * sizeof(int) + 1), bcolors = -1;
        CHECK_OK(spk_csr_block_multicolor(&A, block, blk, color, &nb, &bcolors, bperm, &e), e.msg);
        CHECK(nb >= (n + block - 1) / block && nb <= n && bcolors <= nb, "%d blocks of %d rows, %d colors", nb, block,
              bcolors);
        for (int i = 0; i < n; i++) {
            CHECK(blk[i] >= 0 && blk[i] < nb && color[i] >= 0 && color[i] < bcolors, "row %d: block %d color %d", i,
                  blk[i], color[i]);
            if (blk[i] >= 0 && blk[i] < nb) size[blk[i]]++;
            for (int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) {
                const int j = A.colind[k];
                CHECK(blk[j] == blk[i] || color[j] != color[i], "blocks %d and %d (rows %d, %d) share color %d",
                      blk[i], blk[j], i, j, color[i]);
                if (blk[j] == blk[i]) CHECK(color[j] == color[i], "block %d has two colors", blk[i]);
            }
        }
        for (int b = 0; b < nb; b++) CHECK(size[b] >= 1 && size[b] <= block, "block %d has %d rows", b, size[b]);
        for (int t = 1; t < n; t++) {
            const int p0 = bperm[t - 1], p1 = bperm[t];
            CHECK(color[p0] < color[p1] || (color[p0] == color[p1] && (blk[p0] < blk[p1] || (blk[p0] == blk[p1] && p0 < p1))),
                  "block order at %d", t);
        }
        spk_csr_free(&B);
        CHECK_OK(spk_csr_permute(&A, bperm, &B, NULL, &e), e.msg);
        CHECK(spk_csr_tri_levels(&B, 0) <= bcolors * block && spk_csr_tri_levels(&B, 1) <= bcolors * block,
              "block order: levels %d %d, %d colors of blocks of %d", spk_csr_tri_levels(&B, 0),
              spk_csr_tri_levels(&B, 1), bcolors, block);
        free(blk);
        free(size);
        free(bperm);
        free(dA);
        free(dB);
        free(r);
        free(c);
        free(color);
        free(map);
        spk_csr_free(&B);
        if (n >= 2) { /* not a permutation: refused */
            perm[0] = perm[1];
            CHECK(spk_csr_permute(&A, perm, &B, NULL, &e) == SPK_ERR_INVALID_ARG, "duplicate index accepted");
        }
        free(perm);
        spk_csr_free(&A);
    }
    spk_csr R = {0};
    int col[3], nc;
    CHECK_OK(spk_csr_alloc(&R, 2, 3, 0, &e), e.msg);
    int nb, pm[3], bl[3];
    CHECK(spk_csr_block_multicolor(&R, 4, bl, col, &nb, &nc, pm, &e) == SPK_ERR_INVALID_MATRIX,
          "rectangular matrix block-colored");
    spk_csr_free(&R);
}

static void test_spmv_reference(void)
{
    spk_err e;
    int r[] = {0, 0, 2, 2};
    int c[] = {0, 2, 1, 2};
    double v[] = {2, -1, 3, 4};
    spk_csr A = {0};
    CHECK_OK(spk_csr_from_coo(3, 3, 4, r, c, v, &A, &e), e.msg);
    double x[] = {1, 2, 3}, y[] = {NAN, NAN, NAN};
    spk_csr_spmv(&A, 1.0, x, 0.0, y); /* beta = 0 must not read y */
    CHECK(y[0] == -1 && y[1] == 0 && y[2] == 18, "y = %g %g %g", y[0], y[1], y[2]);
    spk_csr_spmv(&A, 2.0, x, -1.0, y);
    CHECK(y[0] == -1 && y[1] == 0 && y[2] == 18, "alpha/beta y = %g %g %g", y[0], y[1], y[2]);
    spk_csr_free(&A);
    /* 0 x 0 matrix */
    CHECK_OK(spk_csr_alloc(&A, 0, 0, 0, &e), e.msg);
    CHECK_OK(spk_csr_validate(&A, 1, &e), e.msg);
    spk_csr_spmv(&A, 1.0, x, 0.0, y);
    spk_csr_free(&A);
}

static void test_alloc_limits(void)
{
    spk_err e;
    spk_csr A = {0};
    CHECK(spk_csr_alloc(&A, -1, 2, 0, &e) == SPK_ERR_INVALID_MATRIX, "negative rows accepted");
    size_t out;
    CHECK(spk_mul_size(SIZE_MAX / 2, 3, &out) != 0, "overflow not detected");
    CHECK(spk_mul_size(1000, 1000, &out) == 0 && out == 1000000, "mul");
    void *p = spk_malloc(SIZE_MAX / 4, 8, "test", &e);
    CHECK(p == NULL && e.code == SPK_ERR_NOMEM && check_contains(e.msg, "test"), "huge malloc: %s", e.msg);
    spk_err_set(&e, SPK_ERR_PARSE, "inner %d", 7);
    spk_err_prefix(&e, "outer");
    CHECK(strcmp(e.msg, "outer: inner 7") == 0 && e.code == SPK_ERR_PARSE, "prefix: %s", e.msg);
}

int main(void)
{
    test_from_coo();
    test_validate();
    test_sort_sum_random();
    test_transpose_symmetry();
    test_symmetry_random();
    test_diagonal_stats();
    test_tri_levels();
    test_multicolor_permute();
    test_spmv_reference();
    test_alloc_limits();
    return check_exit();
}

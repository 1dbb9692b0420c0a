/* test_gen_families.c -- the generator families beyond the Poisson ones:
 * canonical square CSR, the stated symmetry or nonsymmetry, SPD-ness
 * (dense Cholesky on tiny instances), the saddle's inertia (dense LDL^T),
 * determinism and seeds, row-length structure, size and spec errors; the
 * Brusselator Jacobian against SuiteSparse's rdb matrices; and the random
 * right-hand side b = A x*. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "core/csr.h"
#include "io/gen.h"
#include "io/mmio.h"
#include "io/rhs.h"

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

/* Generate spec; check square and canonical; symmetry of pattern and values
 * into *pat, *val.  Returns 0 when generation failed. */
static int make(const char *spec, spk_csr *A, int *pat, int *val)
{
    spk_err e;
    spk_err_clear(&e);
    memset(A, 0, sizeof *A);
    int st = spk_gen_spec(spec, A, &e);
    CHECK(st == 0, "%s: %s", spec, e.msg);
    if (st) return 0;
    CHECK(A->nrows == A->ncols && A->nrows > 0, "%s: %d x %d", spec, A->nrows, A->ncols);
    CHECK(spk_csr_validate(A, 1, &e) == 0, "%s: not canonical: %s", spec, e.msg);
    CHECK(A->rowptr[A->nrows] == A->nnz, "%s: rowptr ends at %d, nnz %d", spec, A->rowptr[A->nrows], A->nnz);
    *pat = *val = 0;
    CHECK_OK(spk_csr_symmetry(A, 0.0, pat, val, &e), e.msg);
    return 1;
}

/* The dense copy of a small A. */
static double *dense(const spk_csr *A)
{
    const int n = A->nrows;
    double *D = calloc((size_t)n * n, sizeof(double));
    for (int i = 0; i < n; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) D[(size_t)i * n + A->colind[k]] = A->val[k];
    return D;
}

/* Dense LDL^T without pivoting of a small symmetric A: the counts of
 * positive and negative pivots (-1 each when a pivot is tiny or not finite).
 * All positive: SPD (Cholesky succeeds); by Sylvester's law the signs give
 * the inertia when every leading block is nonsingular. */
static void ldlt_signs(const spk_csr *A, int *pos, int *neg)
{
    const int n = A->nrows;
    double *D = dense(A), scale = 0;
    for (int i = 0; i < n * n; i++) scale = fmax(scale, fabs(D[i]));
    *pos = *neg = 0;
    for (int k = 0; k < n; k++) {
        const double p = D[(size_t)k * n + k];
        if (!isfinite(p) || fabs(p) <= 1e-13 * scale) {
            *pos = *neg = -1;
            break;
        }
        if (p > 0) ++*pos;
        else ++*neg;
        for (int i = k + 1; i < n; i++) {
            const double l = D[(size_t)i * n + k] / p;
            if (l == 0) continue;
            for (int j = k + 1; j < n; j++) D[(size_t)i * n + j] -= l * D[(size_t)k * n + j];
        }
    }
    free(D);
}

/* Rows whose diagonal exceeds the off-diagonal absolute sum. */
static int dominant_rows(const spk_csr *A)
{
    int c = 0;
    for (int i = 0; i < A->nrows; i++) {
        double d = 0, s = 0;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] == i) d = A->val[k];
            else s += fabs(A->val[k]);
        c += d > s;
    }
    return c;
}

static void test_spd(void)
{
    const char *spd[] = {"aniso2d:9:1e-3:30", "aniso2d:9:1e-3", "aniso3d:6:1e-3", "elasticity3d:3",
                         "elasticity3d:4:0.49", "rgg:400", "rgg3d:400:6:shuffled", "powerlaw-sym:400",
                         "convdiff2d-5:9:0"};
    for (size_t c = 0; c < sizeof spd / sizeof *spd; c++) {
        spk_csr A;
        int pat, val, pos, neg;
        if (!make(spd[c], &A, &pat, &val)) continue;
        CHECK(pat && val, "%s: not symmetric", spd[c]);
        ldlt_signs(&A, &pos, &neg);
        CHECK(pos == A.nrows && neg == 0, "%s: Cholesky: %d positive, %d negative pivots of %d", spd[c], pos, neg,
              A.nrows);
        spk_csr_free(&A);
    }
    /* saddle: N^2 positive and (N/2)^2 negative eigenvalues, nonsingular */
    spk_csr S;
    int pat, val, pos, neg;
    if (make("saddle:7", &S, &pat, &val)) {
        CHECK(S.nrows == 49 + 9, "saddle:7: %d rows", S.nrows);
        CHECK(pat && val, "saddle: not symmetric");
        ldlt_signs(&S, &pos, &neg);
        CHECK(pos == 49 && neg == 9, "saddle:7 inertia: %d positive, %d negative", pos, neg);
        for (int i = 49; i < S.nrows; i++)
            CHECK(S.val[S.rowptr[i + 1] - 1] < 0 && S.colind[S.rowptr[i + 1] - 1] == i,
                  "saddle: row %d lacks its -C diagonal", i);
        spk_csr_free(&S);
    }
}

static void test_nonsymmetric(void)
{
    const struct {
        const char *spec;
        int pattern; /* expected pattern symmetry */
        int dominant; /* every row strictly diagonally dominant */
    } ns[] = {{"band:300:6", 0, 1}, {"band:300:6:0.4", 0, 1}, {"circuit:3000", 0, 1},
              {"convdiff2d-5:12", 1, 0}, {"convdiff5:12:50", 1, 0}, {"powerlaw:500", 0, 1},
              {"brusselator:12", 1, 0}, {"brusselator:12:3", 1, 0}};
    for (size_t c = 0; c < sizeof ns / sizeof *ns; c++) {
        spk_csr A;
        int pat, val;
        if (!make(ns[c].spec, &A, &pat, &val)) continue;
        CHECK(!val, "%s: values symmetric", ns[c].spec);
        CHECK(pat == ns[c].pattern, "%s: pattern symmetry %d", ns[c].spec, pat);
        if (ns[c].dominant)
            CHECK(dominant_rows(&A) == A.nrows, "%s: %d of %d rows dominant", ns[c].spec, dominant_rows(&A), A.nrows);
        spk_csr_free(&A);
    }
    /* band at full fill: the pattern is nearly symmetric (one pair in 20 loses one entry) */
    spk_csr B;
    int pat, val;
    if (make("band:2000:10", &B, &pat, &val)) {
        const double full = 2000.0 * 21 - 110;
        CHECK(B.nnz < full && B.nnz > 0.95 * full, "band:2000:10: %d entries of a full band's %.0f", B.nnz, full);
        spk_csr_free(&B);
    }
}

static void test_structure(void)
{
    spk_csr A;
    int pat, val;
    /* aniso2d: theta 0 is the 5-point stencil, a rotation adds the corners */
    if (make("aniso2d:10:0.01:0", &A, &pat, &val)) {
        CHECK(A.nnz == 5 * 100 - 40, "aniso2d theta 0: %d entries", A.nnz);
        spk_csr_free(&A);
    }
    if (make("aniso2d:10:0.01:30", &A, &pat, &val)) {
        CHECK(A.nnz == 9 * 100 - 4 * 3 * 10 + 4, "aniso2d theta 30: %d entries", A.nnz);
        spk_csr_free(&A);
    }
    /* elasticity3d: 3 N^3 rows, 81 entries in interior rows, 3 x 3 blocks */
    if (make("elasticity3d:5", &A, &pat, &val)) {
        CHECK(A.nrows == 375, "elasticity3d:5: %d rows", A.nrows);
        const int node = 2 + 5 * (2 + 5 * 2);
        for (int p = 0; p < 3; p++)
            CHECK(A.rowptr[3 * node + p + 1] - A.rowptr[3 * node + p] == 81, "interior row: %d entries",
                  A.rowptr[3 * node + p + 1] - A.rowptr[3 * node + p]);
        CHECK(A.rowptr[1] - A.rowptr[0] == 24, "corner row: %d entries", A.rowptr[1] - A.rowptr[0]);
        spk_csr_free(&A);
    }
    /* circuit: short rows, plus 8 dense rows and columns */
    if (make("circuit:4000", &A, &pat, &val)) {
        int *collen = calloc((size_t)A.ncols, sizeof(int)), dense_rows = 0, dense_cols = 0, short_rows = 0;
        for (int i = 0; i < A.nrows; i++) {
            const int len = A.rowptr[i + 1] - A.rowptr[i];
            dense_rows += len > 0.08 * A.nrows;
            short_rows += len >= 2 && len <= 6 + 8;
            for (int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) collen[A.colind[k]]++;
        }
        for (int j = 0; j < A.ncols; j++) dense_cols += collen[j] > 0.08 * A.nrows;
        CHECK(dense_rows == 8 && dense_cols == 8, "circuit: %d dense rows, %d dense columns", dense_rows, dense_cols);
        CHECK(short_rows > 0.95 * A.nrows, "circuit: %d short rows of %d", short_rows, A.nrows);
        free(collen);
        spk_csr_free(&A);
    }
    if (make("circuit:4000:0", &A, &pat, &val)) {
        int longest = 0;
        for (int i = 0; i < A.nrows; i++)
            if (A.rowptr[i + 1] - A.rowptr[i] > longest) longest = A.rowptr[i + 1] - A.rowptr[i];
        CHECK(longest < 20, "circuit without nets: longest row %d", longest);
        spk_csr_free(&A);
    }
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* Sorted row lengths of A (caller frees). */
static int *degrees(const spk_csr *A)
{
    int *d = malloc((size_t)A->nrows * sizeof(int));
    for (int i = 0; i < A->nrows; i++) d[i] = A->rowptr[i + 1] - A->rowptr[i];
    qsort(d, (size_t)A->nrows, sizeof(int), cmp_int);
    return d;
}

static void test_determinism(void)
{
    const char *specs[] = {"band:500:8:0.5", "circuit:2000", "rgg:3000", "rgg3d:3000:10:shuffled",
                           "powerlaw-sym:2000", "powerlaw:2000", "elasticity3d:4:0.2", "saddle:10",
                           "aniso2d:12:1e-2:45", "aniso3d:6", "convdiff2d-5:10", "brusselator:30:2"};
    for (size_t c = 0; c < sizeof specs / sizeof *specs; c++) {
        spk_csr A, B;
        int pat, val;
        if (!make(specs[c], &A, &pat, &val)) continue;
        if (make(specs[c], &B, &pat, &val)) CHECK(same(&A, &B), "%s: two runs differ", specs[c]);
        spk_csr_free(&A);
        spk_csr_free(&B);
    }
    /* other seeds and parameters give other matrices; explicit defaults the same */
    const char *pairs[][2] = {{"band:500:8", "band:500:8:1:seed=2"}, {"circuit:2000", "circuit:2000:seed=1"},
                              {"rgg:3000", "rgg:3000:8:local:seed=5"}, {"powerlaw-sym:2000", "powerlaw-sym:2000:seed=9"},
                              {"powerlaw:2000", "powerlaw:2000:seed=3"}, {"band:500:8", "band:500:9"},
                              {"elasticity3d:4", "elasticity3d:4:0.4"}, {"aniso2d:8", "aniso2d:8:1e-3:10"},
                              {"brusselator:10", "brusselator:10:1"}};
    for (size_t c = 0; c < sizeof pairs / sizeof *pairs; c++) {
        spk_csr A, B;
        int pat, val;
        if (!make(pairs[c][0], &A, &pat, &val)) continue;
        if (make(pairs[c][1], &B, &pat, &val)) CHECK(!same(&A, &B), "%s equals %s", pairs[c][0], pairs[c][1]);
        spk_csr_free(&A);
        spk_csr_free(&B);
    }
    const char *eq[][2] = {{"band:500", "band:500:40:1:seed=0"}, {"rgg:2000", "rgg:2000:8:local"},
                           {"circuit:900", "CIRCUIT:900:8"}, {"aniso2d:7", "aniso2d:7:1e-3:0"},
                           {"brusselator:10", "Brusselator:10:0.5"}};
    for (size_t c = 0; c < sizeof eq / sizeof *eq; c++) {
        spk_csr A, B;
        int pat, val;
        if (!make(eq[c][0], &A, &pat, &val)) continue;
        if (make(eq[c][1], &B, &pat, &val)) CHECK(same(&A, &B), "%s differs from %s", eq[c][0], eq[c][1]);
        spk_csr_free(&A);
        spk_csr_free(&B);
    }
    /* rgg: the shuffled numbering is of the same graph */
    spk_csr L, S;
    int pat, val;
    if (make("rgg:5000:10", &L, &pat, &val) && make("rgg:5000:10:shuffled", &S, &pat, &val)) {
        int *dl = degrees(&L), *ds = degrees(&S);
        CHECK(L.nnz == S.nnz && memcmp(dl, ds, (size_t)L.nrows * sizeof(int)) == 0,
              "rgg local and shuffled: other degrees (%d, %d entries)", L.nnz, S.nnz);
        CHECK(!same(&L, &S), "rgg: shuffled equals local");
        /* the local order keeps neighbours near: a smaller mean |i - j| */
        double gl = 0, gs = 0;
        for (int i = 0; i < L.nrows; i++)
            for (int k = L.rowptr[i]; k < L.rowptr[i + 1]; k++) gl += abs(L.colind[k] - i);
        for (int i = 0; i < S.nrows; i++)
            for (int k = S.rowptr[i]; k < S.rowptr[i + 1]; k++) gs += abs(S.colind[k] - i);
        CHECK(gl * 4 < gs, "rgg: local bandwidth sum %.0f not far below shuffled %.0f", gl, gs);
        CHECK(fabs(L.nnz / 5000.0 - 11.0) < 1.5, "rgg:5000:10: %.2f entries per row", L.nnz / 5000.0);
        free(dl);
        free(ds);
    }
    spk_csr_free(&L);
    spk_csr_free(&S);
}

static void test_errors(void)
{
    const struct {
        const char *spec, *msg;
    } bad[] = {
        {"band:100000000:40", "exceed 32-bit index limits"},
        {"band:2147483647:0", "rows exceed 32-bit index limits"},
        {"circuit:500000000", "exceed 32-bit index limits"},
        {"rgg:2147483647", "exceed 32-bit index limits"},
        {"elasticity3d:900", "rows exceed 32-bit index limits"},
        {"elasticity3d:300", "entries exceed 32-bit index limits"},
        {"saddle:50000", "rows exceed 32-bit index limits"},
        {"powerlaw-sym:600000000", "exceed 32-bit index limits"},
        {"aniso3d:1300", "rows exceeds 32-bit index limits"},
        {"band:100:-1", "bad half-bandwidth in generator spec 'band:100:-1': W must be an integer >= 0"},
        {"band:100:2.5", "W must be an integer"},
        {"band:100:40:0", "F must be a number in (0, 1]"},
        {"band:100:40:1.5", "bad fill"},
        {"band:100:4:0.5:0.3", "too many fields: band:N[:W[:F]][:seed=S]"},
        {"band:100:seed=x", "bad seed"},
        {"poisson5:5:seed=1", "is not random and takes no seed"},
        {"rgg:100:8:sideways", "ORDER must be local or shuffled"},
        {"rgg:100:0", "bad degree"},
        {"circuit:100:99", "D must be an integer in [0, 64]"},
        {"circuit:100:30", "D must be in [0, N/4 + 1]"},
        {"elasticity3d:5:0.5", "NU must be a number in [0, 0.5)"},
        {"aniso2d:5:0", "EPS must be a number in (0, 1e6]"},
        {"aniso2d:5:1e-3:nan", "THETA must be a finite angle"},
        {"aniso3d:5:-1", "bad anisotropy"},
        {"saddle:1", "saddle: N must be >= 2"},
        {"saddle:4:1", "too many fields: saddle:N"},
        {"powerlaw-sym:100:0.5", "G must be a number > 1"},
        {"convdiff2d-5:5:inf", "bad velocity"},
        {"brusselator:0", "N must be an integer from 1"},
        {"brusselator:10:0", "bad length in generator spec 'brusselator:10:0': L must be a finite number > 0 "
                             "(brusselator:N[:L])"},
        {"brusselator:10:-2", "L must be a finite number > 0"},
        {"brusselator:10:inf", "bad length"},
        {"brusselator:10:nan", "bad length"},
        {"brusselator:10:0.5x", "bad length"},
        {"brusselator:10:", "bad length"},
        {"brusselator:10:0.5:1", "too many fields: brusselator:N[:L]"},
        {"brusselator:10:seed=3", "brusselator is not random and takes no seed"},
        {"brusselator:10:1e-200", "brusselator:10:1e-200: the diffusion terms D/(h L)^2 overflow"},
        {"brusselator:32768", "brusselator:32768: its 2147483648 rows exceed 32-bit index limits"},
        {"brusselator:13378", "brusselator:13378: its 2147543584 entries exceed 32-bit index limits"},
    };
    for (size_t c = 0; c < sizeof bad / sizeof *bad; c++) {
        spk_csr A = {0};
        spk_err e;
        spk_err_clear(&e);
        int st = spk_gen_spec(bad[c].spec, &A, &e);
        CHECK(st == SPK_ERR_INVALID_ARG, "'%s': status %d (%s)", bad[c].spec, st, e.msg);
        CHECK(contains(e.msg, bad[c].msg), "'%s': message '%s' lacks '%s'", bad[c].spec, e.msg, bad[c].msg);
        CHECK(A.rowptr == NULL, "'%s': A written on failure", bad[c].spec);
    }
    const char *help = spk_gen_help();
    const char *names[] = {"band:N[:W[:F]]", "circuit:N[:D]", "elasticity3d:N[:NU]", "rgg:N[:K[:ORDER]]",
                           "powerlaw-sym:N[:G]", "aniso2d:N[:EPS[:THETA]]", "aniso3d:N[:EPS]",
                           "convdiff2d-5:N[:W]", "saddle:N", "CG does not apply", "seed=S",
                           "brusselator:N[:L]", "rdb200"};
    for (size_t c = 0; c < sizeof names / sizeof *names; c++)
        CHECK(contains(help, names[c]), "help lacks %s", names[c]);
}

/* brusselator:10 is SuiteSparse's Bai/rdb200 (tests/mm/rdb200.mtx.gz), entry
 * for entry: the same pattern, values equal to rounding. */
static void test_brusselator_rdb200(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/rdb200.mtx.gz", SPK_TEST_FILES);
    spk_csr R = {0}, A;
    spk_err e;
    int pat, val;
    CHECK_OK(spk_mm_read_csr(path, &R, NULL, &e), e.msg);
    CHECK(R.nrows == 200 && R.ncols == 200 && R.nnz == 1120, "rdb200: %d x %d, %d entries", R.nrows, R.ncols,
          R.nnz);
    if (R.nnz == 1120 && make("brusselator:10", &A, &pat, &val)) {
        CHECK(A.nrows == R.nrows && A.nnz == R.nnz, "brusselator:10: %d rows, %d entries", A.nrows, A.nnz);
        CHECK(A.nrows == R.nrows && memcmp(A.rowptr, R.rowptr, (size_t)(R.nrows + 1) * sizeof(int)) == 0,
              "brusselator:10: row lengths differ from rdb200");
        int cols = 0, vals = 0;
        double worst = 0;
        for (int k = 0; A.nnz == R.nnz && k < R.nnz; k++) {
            const double d = fabs(A.val[k] - R.val[k]) / fabs(R.val[k]);
            cols += A.colind[k] != R.colind[k];
            vals += !(d <= 1e-14);
            worst = fmax(worst, d);
        }
        CHECK(cols == 0 && vals == 0, "brusselator:10 vs rdb200: %d columns, %d values differ (worst %g)", cols,
              vals, worst);
        /* both nonsymmetric with a symmetric pattern */
        CHECK(pat && !val, "brusselator:10: pattern symmetry %d, value symmetry %d", pat, val);
        spk_csr_free(&A);
    }
    spk_csr_free(&R);
}

/* The rows of brusselator spec on n^2 nodes: the values of SuiteSparse's rdb
 * matrix of that size (as stored there), the row lengths and columns, the
 * entry count 12 N^2 - 8 N and the sum of all entries -N^2 - 4 N (t1 + t2). */
static void check_brusselator(const char *spec, int n, double off_u, double diag_u, double off_v, double diag_v,
                              double tol)
{
    spk_csr A;
    int pat, val;
    if (!make(spec, &A, &pat, &val)) return;
    const long long rows = 2LL * n * n;
    CHECK(A.nrows == rows && A.nnz == 12LL * n * n - 8LL * n, "%s: %d rows, %d entries", spec, A.nrows, A.nnz);
    CHECK(pat && !val, "%s: pattern symmetry %d, value symmetry %d", spec, pat, val);
    if (A.nrows != rows) {
        spk_csr_free(&A);
        return;
    }
    int bad = 0, len[7] = {0};
    double sum = 0;
    for (int r = 0; r < A.nrows; r++) {
        const int s = r % 2, k = r / 2, x = k % n, y = k / n;
        const int want = 2 + (x > 0) + (x < n - 1) + (y > 0) + (y < n - 1);
        const int lo = A.rowptr[r], l = A.rowptr[r + 1] - lo;
        len[l < 7 ? l : 6]++;
        bad += l != want;
        for (int q = lo; q < A.rowptr[r + 1]; q++) {
            const int c = A.colind[q];
            double v;
            sum += A.val[q];
            if (c == r) v = s ? diag_v : diag_u;
            else if (c == (s ? r - 1 : r + 1)) v = s ? -5.45 : 4.0; /* -beta, alpha^2 */
            else if ((c - r) % 2 == 0 && (abs(c - r) == 2 || abs(c - r) == 2 * n)) v = s ? off_v : off_u;
            else v = NAN;
            bad += !(fabs(A.val[q] - v) <= tol * fabs(v));
        }
    }
    CHECK(bad == 0, "%s: %d rows or entries unlike the reference", spec, bad);
    if (n >= 2)
        CHECK(len[4] == 8 && len[5] == 8 * (n - 2) && len[6] == 2 * (n - 2) * (n - 2),
              "%s: rows of 4, 5, 6 entries: %d, %d, %d", spec, len[4], len[5], len[6]);
    const double want_sum = -(double)n * n - 4.0 * n * (off_u + off_v);
    CHECK(fabs(sum - want_sum) <= 1e-9 * fabs(want_sum) + tol * 4.0 * n * (off_u + off_v),
          "%s: entries sum to %.10g, expected %.10g", spec, sum, want_sum);
    spk_csr_free(&A);
}

static void test_brusselator_family(void)
{
    /* the distinct values of rdb800l (N = 20, L = 1), rdb1250 (N = 25) and
     * rdb2048 (N = 32; its file rounds to 5 digits: -143.39 for -143.392) */
    check_brusselator("brusselator:20:1", 20, 1.764, -2.606, 3.528, -18.112, 1e-14);
    check_brusselator("brusselator:25", 25, 10.816, -38.814, 21.632, -90.528, 1e-14);
    check_brusselator("brusselator:32", 32, 17.424, -65.246, 34.848, -143.39, 5e-5);
    check_brusselator("brusselator:32:0.5", 32, 17.424, -65.246, 34.848, -143.392, 1e-14);
    /* a larger grid and another L: t1 = 0.004 (N+1)^2 / L^2, t2 = 2 t1 */
    const double t = 0.004 * 301 * 301 / 9.0;
    check_brusselator("brusselator:300:3", 300, t, 4.45 - 4 * t, 2 * t, -4 - 8 * t, 1e-13);
    /* one node: the 2 x 2 reaction block plus -4 t on the diagonal */
    check_brusselator("brusselator:1:2", 1, 0.004, 4.45 - 0.016, 0.008, -4.032, 1e-14);
}

static void test_brusselator_errors(void)
{
    spk_csr A = {0};
    spk_err e;
    CHECK(spk_gen_brusselator(0, 0.5, &A, &e) == SPK_ERR_INVALID_ARG && contains(e.msg, "N must be >= 1 (got 0)"),
          "N = 0: %s", e.msg);
    CHECK(spk_gen_brusselator(4, NAN, &A, &e) == SPK_ERR_INVALID_ARG &&
              contains(e.msg, "brusselator: L must be a finite number > 0"),
          "L = nan: %s", e.msg);
    CHECK(spk_gen_brusselator(4, -1.0, &A, &e) == SPK_ERR_INVALID_ARG, "L = -1 accepted");
    CHECK(spk_gen_brusselator(4, 0.5, NULL, &e) == SPK_ERR_INVALID_ARG, "A = NULL accepted");
    CHECK(A.rowptr == NULL, "A written on failure");
    CHECK(spk_gen_brusselator(4, 0.5, &A, &e) == 0 && A.nrows == 32 && A.nnz == 12 * 16 - 32, "brusselator(4): %s",
          e.msg);
    spk_csr_free(&A);
}

static void test_random_rhs(void)
{
    spk_csr A;
    int pat, val;
    if (!make("rgg:2000", &A, &pat, &val)) return;
    const int n = A.nrows;
    double *x1 = malloc(n * sizeof(double)), *b1 = malloc(n * sizeof(double));
    double *x2 = malloc(n * sizeof(double)), *b2 = malloc(n * sizeof(double)), *r = malloc(n * sizeof(double));
    spk_rhs_random_solution(&A, 7, x1, b1);
    spk_rhs_random_solution(&A, 7, x2, b2);
    CHECK(memcmp(x1, x2, n * sizeof(double)) == 0 && memcmp(b1, b2, n * sizeof(double)) == 0,
          "same seed, other vectors");
    spk_csr_spmv(&A, 1.0, x1, 0.0, r);
    double lo = 1, hi = -1, mean = 0;
    for (int i = 0; i < n; i++) {
        CHECK(r[i] == b1[i], "b[%d] = %g is not (A x*)[%d] = %g", i, b1[i], i, r[i]);
        lo = fmin(lo, x1[i]);
        hi = fmax(hi, x1[i]);
        mean += x1[i] / n;
    }
    CHECK(lo >= -1 && hi < 1 && lo < -0.9 && hi > 0.9 && fabs(mean) < 0.1, "x* in [%g, %g], mean %g", lo, hi, mean);
    spk_rhs_random_solution(&A, 8, x2, b2);
    CHECK(memcmp(x1, x2, n * sizeof(double)) != 0, "seeds 7 and 8 give one x*");
    spk_rhs_random_solution_arrays(n, n, A.rowptr, A.colind, A.val, 7, x2, b2);
    CHECK(memcmp(x1, x2, n * sizeof(double)) == 0, "the arrays form differs");
    /* one entry at a time (a rank's rows): the same bits, random, ones and the A*1 = 0 fallback */
    {
        spk_rhs_kind rk = {1, 7}, ok = {0, 0};
        spk_csr L = {0};
        spk_err le;
        CHECK_OK(spk_csr_alloc(&L, 500, 500, 3 * 500 - 2, &le), le.msg); /* a path's Laplacian: A*1 = 0 */
        for (int i = 0, q = 0; i < 500; i++) {
            for (int j = i - 1; j <= i + 1; j++) {
                if (j < 0 || j >= 500) continue;
                L.colind[q] = j;
                L.val[q++] = j == i ? (i == 0 || i == 499 ? 1.0 : 2.0) : -1.0;
            }
            L.rowptr[i + 1] = q;
        }
        double *xf = malloc((size_t)L.nrows * sizeof(double)), *bf = malloc((size_t)L.nrows * sizeof(double));
        CHECK(spk_rhs_known_solution(&L, xf, bf) == 1, "rgg:500: A*1 = 0 takes the fallback");
        int off = 0;
        for (int i = 0; i < n; i++) off += spk_rhs_xstar_at(&rk, 0, i) != x1[i] || spk_rhs_xstar_at(&ok, 0, i) != 1.0;
        for (int i = 0; i < L.nrows; i++) off += spk_rhs_xstar_at(&ok, 1, i) != xf[i];
        CHECK(off == 0, "%d entries of x* one at a time differ from the whole vector's", off);
        free(xf);
        free(bf);
        spk_csr_free(&L);
    }
    /* the kinds */
    spk_rhs_kind k;
    spk_err e;
    char buf[40];
    CHECK(spk_rhs_kind_parse(NULL, &k, &e) == 0 && !k.random, "default kind");
    CHECK(spk_rhs_kind_parse("ones", &k, &e) == 0 && !k.random, "ones");
    CHECK(spk_rhs_kind_parse("random", &k, &e) == 0 && k.random && k.seed == SPK_RHS_DEFAULT_SEED, "random");
    CHECK(spk_rhs_kind_parse("random:42", &k, &e) == 0 && k.random && k.seed == 42, "random:42");
    spk_rhs_kind_text(&k, buf, sizeof buf);
    CHECK(strcmp(buf, "random:42") == 0, "text %s", buf);
    const char *badk[] = {"rand", "random:", "random:x", "random:4x", "one", "random:-3"};
    for (size_t c = 0; c < sizeof badk / sizeof *badk; c++) {
        spk_err_clear(&e);
        CHECK(spk_rhs_kind_parse(badk[c], &k, &e) == SPK_ERR_INVALID_ARG && contains(e.msg, "random:SEED"),
              "'%s' accepted: %s", badk[c], e.msg);
    }
    free(x1);
    free(b1);
    free(x2);
    free(b2);
    free(r);
    spk_csr_free(&A);
}

int main(void)
{
    test_spd();
    test_nonsymmetric();
    test_structure();
    test_determinism();
    test_errors();
    test_brusselator_rdb200();
    test_brusselator_family();
    test_brusselator_errors();
    test_random_rhs();
    return check_exit();
}

/* test_gen.c -- the model-problem generators: sizes and entry counts,
 * canonical CSR, symmetry, exact row sums, M-matrix properties of the
 * convection-diffusion matrix, spec parsing and overflow errors. */
#include <limits.h>

#include "check.h"
#include "core/csr.h"
#include "io/gen.h"

/* Value of entry (i, j) of a canonical matrix (0 when not stored). */
static double entry(const spk_csr *A, int i, int j)
{
    for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        if (A->colind[k] == j) return A->val[k];
    return 0.0;
}

/* Lexicographic index of grid point (x, y, z), x fastest. */
static int gidx(int n, int x, int y, int z)
{
    return x + n * (y + n * z);
}

/* Number of grid neighbours of (x,y,z) inside an n^dims grid for a stencil
 * with reach 1 in each axis: count of offsets in {-1,0,1}^dims (or only the
 * axis ones when faces_only) that stay inside, the point itself excluded. */
static int inside_neighbours(int n, int dims, int faces_only, int x, int y, int z)
{
    int c = 0, p[3] = {x, y, z};
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int d[3] = {dx, dy, dz}, nonzero = (dx != 0) + (dy != 0) + (dz != 0), ok = 1;
                if (!nonzero || (faces_only && nonzero != 1) || (dims == 2 && dz)) continue;
                for (int a = 0; a < dims; a++) ok &= p[a] + d[a] >= 0 && p[a] + d[a] < n;
                c += ok;
            }
    return c;
}

/* Check shape, canonical form, symmetry and row sums of a Poisson matrix:
 * every row sums to diag - (neighbours inside), i.e. 0 in the interior and
 * the count of eliminated boundary neighbours on the boundary. */
static void check_poisson(const spk_csr *A, int n, int dims, int faces_only, double diag,
                          long long nnz, const char *what)
{
    spk_err e = {0};
    long long rows = dims == 2 ? (long long)n * n : (long long)n * n * n;
    CHECK(A->nrows == rows && A->ncols == rows, "%s: %d x %d, expected %lld rows", what, A->nrows,
          A->ncols, rows);
    CHECK(A->nnz == nnz, "%s: nnz %d, expected %lld", what, A->nnz, nnz);
    CHECK(spk_csr_validate(A, 1, &e) == 0, "%s: not canonical: %s", what, e.msg);
    int pat = 0, val = 0;
    CHECK_OK(spk_csr_symmetry(A, 0.0, &pat, &val, &e), e.msg);
    CHECK(pat && val, "%s: not symmetric", what);
    int bad = 0, interior = 0, boundary = 0;
    for (int z = 0; z < (dims == 3 ? n : 1); z++)
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++) {
                int i = gidx(n, x, y, z), nb = inside_neighbours(n, dims, faces_only, x, y, z);
                double sum = 0;
                for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                    sum += A->val[k];
                    if (A->colind[k] != i && A->val[k] != -1.0) bad++;
                }
                if (entry(A, i, i) != diag) bad++;
                if (A->rowptr[i + 1] - A->rowptr[i] != nb + 1) bad++;
                if (sum != diag - nb) bad++;
                if (sum == 0) interior++;
                if (sum > 0) boundary++;
            }
    CHECK(bad == 0, "%s: %d wrong rows or entries", what, bad);
    long long inner = n > 2 ? (long long)(n - 2) * (n - 2) * (dims == 3 ? n - 2 : 1) : 0;
    CHECK(interior == inner && boundary == rows - inner,
          "%s: %d rows sum to 0 (expected %lld), %d positive", what, interior, inner, boundary);
}

/* The three Poisson stencils for N = 1..7, a written-out case, a larger one. */
static void test_poisson(void)
{
    spk_err e = {0};
    for (int n = 1; n <= 7; n++) {
        spk_csr A = {0};
        char what[64];
        long long N = n;
        snprintf(what, sizeof what, "poisson2d-5:%d", n);
        CHECK_OK(spk_gen_poisson2d5(n, &A, &e), e.msg);
        check_poisson(&A, n, 2, 1, 4.0, 5 * N * N - 4 * N, what);
        spk_csr_free(&A);
        snprintf(what, sizeof what, "poisson3d-7:%d", n);
        CHECK_OK(spk_gen_poisson3d7(n, &A, &e), e.msg);
        check_poisson(&A, n, 3, 1, 6.0, 7 * N * N * N - 6 * N * N, what);
        spk_csr_free(&A);
        snprintf(what, sizeof what, "poisson3d-27:%d", n);
        CHECK_OK(spk_gen_poisson3d27(n, &A, &e), e.msg);
        check_poisson(&A, n, 3, 0, 26.0, (3 * N - 2) * (3 * N - 2) * (3 * N - 2), what);
        spk_csr_free(&A);
    }
    /* the 2 x 2 grid written out */
    spk_csr A = {0};
    CHECK_OK(spk_gen_poisson2d5(2, &A, &e), e.msg);
    const double want[16] = {4, -1, -1, 0, -1, 4, 0, -1, -1, 0, 4, -1, 0, -1, -1, 4};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            CHECK(entry(&A, i, j) == want[4 * i + j], "poisson2d-5:2 (%d,%d) = %g", i, j,
                  entry(&A, i, j));
    spk_csr_free(&A);
    /* a larger one: the formula and a spot check in the middle */
    CHECK_OK(spk_gen_poisson3d7(40, &A, &e), e.msg);
    CHECK(A.nnz == 7 * 40 * 40 * 40 - 6 * 40 * 40, "poisson3d-7:40 nnz %d", A.nnz);
    int mid = gidx(40, 20, 20, 20);
    CHECK(entry(&A, mid, mid - 1600) == -1 && entry(&A, mid, mid + 40) == -1 &&
              entry(&A, mid, mid + 41) == 0,
          "poisson3d-7:40 middle row");
    spk_csr_free(&A);
}

/* Convection-diffusion: upwinding, M-matrix properties, row sums, symmetry only for W = 0. */
static void test_convdiff(void)
{
    spk_err e = {0};
    const double ws[] = {100.0, 0.0, -30.0, 1e4};
    for (int t = 0; t < 4; t++)
        for (int n = 1; n <= 6; n++) {
            spk_csr A = {0};
            double w = ws[t], h = 1.0 / (n + 1);
            CHECK_OK(spk_gen_convdiff3d7(n, w, &A, &e), e.msg);
            long long N = n;
            CHECK(A.nrows == n * n * n && A.nnz == 7 * N * N * N - 6 * N * N,
                  "convdiff %d:%g: %d rows, nnz %d", n, w, A.nrows, A.nnz);
            CHECK(spk_csr_validate(&A, 1, &e) == 0, "convdiff not canonical: %s", e.msg);
            int pat = 0, val = 0;
            spk_csr_symmetry(&A, 1e-14, &pat, &val, &e);
            CHECK(pat, "convdiff %d:%g: pattern not symmetric", n, w);
            CHECK(val == (w == 0 || n == 1), "convdiff %d:%g: value symmetry %d", n, w, val);
            int bad = 0, interior_zero = 0;
            const double wd[3] = {w, w / 2, w / 4};
            double diag = 6 + h * (fabs(wd[0]) + fabs(wd[1]) + fabs(wd[2]));
            for (int z = 0; z < n; z++)
                for (int y = 0; y < n; y++)
                    for (int x = 0; x < n; x++) {
                        int i = gidx(n, x, y, z), p[3] = {x, y, z}, step[3] = {1, n, n * n};
                        double off = 0, sum = 0;
                        for (int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) {
                            sum += A.val[k];
                            if (A.colind[k] != i) {
                                off += fabs(A.val[k]);
                                if (A.val[k] > 0) bad++; /* nonpositive off-diagonals */
                            }
                        }
                        double d = entry(&A, i, i);
                        if (!(d > 0) || fabs(d - diag) > 1e-12 * diag) bad++;
                        if (d < off * (1 - 1e-14)) bad++; /* weak diagonal dominance */
                        /* upwinding: the upstream neighbour carries -1 - h|w_d| */
                        for (int a = 0; a < 3; a++) {
                            double lo = -1 - (wd[a] > 0 ? h * wd[a] : 0);
                            double hi = -1 - (wd[a] < 0 ? -h * wd[a] : 0);
                            if (p[a] > 0 && fabs(entry(&A, i, i - step[a]) - lo) > 1e-12 * fabs(lo))
                                bad++;
                            if (p[a] < n - 1 &&
                                fabs(entry(&A, i, i + step[a]) - hi) > 1e-12 * fabs(hi))
                                bad++;
                        }
                        int inner = x > 0 && y > 0 && z > 0 && x < n - 1 && y < n - 1 && z < n - 1;
                        if (inner)
                            interior_zero += fabs(sum) <= 1e-12 * diag;
                        else if (!(sum > 0))
                            bad++;
                    }
            CHECK(bad == 0, "convdiff %d:%g: %d bad entries", n, w, bad);
            long long inner = n > 2 ? (N - 2) * (N - 2) * (N - 2) : 0;
            CHECK(interior_zero == inner,
                  "convdiff %d:%g: %d interior rows sum to 0, expected %lld", n, w, interior_zero,
                  inner);
            spk_csr_free(&A);
        }
    spk_csr A = {0};
    CHECK(spk_gen_convdiff3d7(4, NAN, &A, &e) == SPK_ERR_INVALID_ARG, "NaN velocity");
    CHECK(spk_gen_convdiff3d7(4, INFINITY, &A, &e) == SPK_ERR_INVALID_ARG, "Inf velocity");
}

/* Two matrices equal entry for entry (bitwise values)? */
static int same(const spk_csr *A, const spk_csr *B)
{
    return A->nrows == B->nrows && A->nnz == B->nnz &&
           !memcmp(A->rowptr, B->rowptr, ((size_t)A->nrows + 1) * sizeof(int)) &&
           !memcmp(A->colind, B->colind, (size_t)A->nnz * sizeof(int)) &&
           !memcmp(A->val, B->val, (size_t)A->nnz * sizeof(double));
}

/* Spec strings: names, aliases, W, errors and overflow. */
static void test_spec(void)
{
    spk_err e = {0};
    spk_csr A = {0}, B = {0};
    struct {
        const char *spec;
        int which, n;
        double w;
    } ok[] = {{"poisson2d-5:5", 0, 5, 0},        {"poisson5:5", 0, 5, 0},
              {"Poisson2D-5:5", 0, 5, 0},        {"poisson3d-7:4", 1, 4, 0},
              {"poisson7:4", 1, 4, 0},           {"poisson3d-27:3", 2, 3, 0},
              {"poisson27:3", 2, 3, 0},          {"convdiff3d-7:4", 3, 4, 100},
              {"convdiff7:4", 3, 4, 100},        {"convdiff3d-7:4:250", 3, 4, 250},
              {"convdiff7:4:-1.5e1", 3, 4, -15}, {"convdiff7:3:0", 3, 3, 0},
              {"poisson3d-7:1", 1, 1, 0}};
    for (size_t c = 0; c < sizeof ok / sizeof ok[0]; c++) {
        int st = spk_gen_spec(ok[c].spec, &A, &e);
        CHECK(st == 0, "%s: %s", ok[c].spec, e.msg);
        if (st) continue;
        switch (ok[c].which) {
        case 0: spk_gen_poisson2d5(ok[c].n, &B, &e); break;
        case 1: spk_gen_poisson3d7(ok[c].n, &B, &e); break;
        case 2: spk_gen_poisson3d27(ok[c].n, &B, &e); break;
        default: spk_gen_convdiff3d7(ok[c].n, ok[c].w, &B, &e); break;
        }
        CHECK(same(&A, &B), "%s differs from the direct call", ok[c].spec);
        spk_csr_free(&A);
        spk_csr_free(&B);
    }
    struct {
        const char *spec, *msg;
    } bad[] = {
        {"laplace:5", "unknown generator 'laplace' in 'laplace:5'"},
        {"", "unknown generator ''"},
        {"poisson3d-7", "has no size: expected NAME:N"},
        {"poisson3d-7:", "bad size in generator spec 'poisson3d-7:'"},
        {"poisson3d-7:0", "N must be an integer from 1"},
        {"poisson3d-7:-3", "bad size"},
        {"poisson3d-7:4x", "bad size"},
        {"poisson3d-7: 4", "bad size"},
        {"poisson3d-7:4.0", "bad size"},
        {"poisson3d-7:99999999999999999999", "bad size"},
        {"poisson3d-7:4:5", "has too many fields: poisson3d-7:N"},
        {"powerlaw:100:1", "bad exponent in generator spec 'powerlaw:100:1'"},
        {"powerlaw:100:x", "bad exponent"},
        {"powerlaw:600000000", "exceed 32-bit index limits"},
        {"convdiff7:4:", "bad velocity in generator spec 'convdiff7:4:'"},
        {"convdiff7:4:abc", "bad velocity"},
        {"convdiff7:4:nan", "bad velocity"},
        {"convdiff7:4:1e999", "bad velocity"},
        {"convdiff7:4:1:2", "too many fields: convdiff3d-7:N[:W]"},
        {"poisson3d-7:2000", "exceeds 32-bit index limits"},
        {"poisson3d-7:700", "entries exceeds 32-bit index limits"},
        {"poisson3d-27:500", "entries exceeds 32-bit index limits"},
        {"poisson2d-5:50000", "rows exceeds 32-bit index limits"},
        {"poisson2d-5:2147483647", "rows exceeds 32-bit index limits"},
        {"convdiff3d-7:1291", "rows exceeds 32-bit index limits"},
    };
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
        spk_err_clear(&e);
        int st = spk_gen_spec(bad[c].spec, &A, &e);
        CHECK(st == SPK_ERR_INVALID_ARG, "'%s': status %d (%s)", bad[c].spec, st, e.msg);
        CHECK(check_contains(e.msg, bad[c].msg), "'%s': message '%s' lacks '%s'", bad[c].spec,
              e.msg, bad[c].msg);
        CHECK(A.rowptr == NULL, "'%s': A written on failure", bad[c].spec);
    }
    /* unknown names list the valid ones */
    spk_gen_spec("foo:3", &A, &e);
    CHECK(check_contains(e.msg, "poisson2d-5") && check_contains(e.msg, "poisson3d-27") &&
              check_contains(e.msg, "convdiff3d-7") && check_contains(e.msg, "poisson7"),
          "list of valid names: %s", e.msg);
    CHECK(spk_gen_spec(NULL, &A, &e) == SPK_ERR_INVALID_ARG, "NULL spec");
    CHECK(spk_gen_poisson3d7(0, &A, &e) == SPK_ERR_INVALID_ARG &&
              check_contains(e.msg, "N must be >= 1"),
          "N = 0: %s", e.msg);
    CHECK(spk_gen_poisson2d5(-4, &A, &e) == SPK_ERR_INVALID_ARG, "N < 0");
    /* the largest 3D 7-point size that fits: nnz = 7 N^3 - 6 N^2 <= INT_MAX at N = 674 */
    CHECK(spk_gen_poisson3d7(675, &A, &e) == SPK_ERR_INVALID_ARG, "poisson3d-7:675 fits?");
    const char *help = spk_gen_help();
    CHECK(help && strchr(help, '\n') != strrchr(help, '\n') && strstr(help, "poisson3d-7:N") &&
              strstr(help, "convdiff3d-7:N[:W]") && strstr(help, "poisson27") && strstr(help, "powerlaw:N[:G]"),
          "help text: %s", help ? help : "(null)");
}

/* powerlaw: canonical, strictly diagonally dominant, nonsymmetric, heavy-tailed
 * row lengths, the same matrix every time, the spec's exponent */
static void test_powerlaw(void)
{
    spk_err e = {0};
    spk_csr A = {0}, B = {0};
    CHECK_OK(spk_gen_powerlaw(20000, 2.2, &A, &e), e.msg);
    CHECK_OK(spk_csr_validate(&A, 1, &e), e.msg);
    int maxlen = 0, dominant = 0, sym = 1;
    for (int i = 0; i < A.nrows; i++) {
        int len = A.rowptr[i + 1] - A.rowptr[i];
        maxlen = len > maxlen ? len : maxlen;
        double d = 0, off = 0;
        for (int q = A.rowptr[i]; q < A.rowptr[i + 1]; q++) {
            if (A.colind[q] == i) d = A.val[q];
            else off += fabs(A.val[q]);
            CHECK(A.colind[q] == i ? A.val[q] > 0 : A.val[q] < 0, "row %d: sign of a_%d", i, A.colind[q]);
        }
        dominant += d > off;
    }
    double mean = (double)A.nnz / A.nrows;
    CHECK(dominant == A.nrows, "%d of %d rows strictly dominant", dominant, A.nrows);
    CHECK(mean > 8 && mean < 30 && maxlen > 20 * mean, "row lengths: mean %g, max %d", mean, maxlen);
    CHECK_OK(spk_csr_symmetry(&A, 0, &sym, NULL, &e), e.msg);
    CHECK(!sym, "powerlaw pattern symmetric");
    CHECK_OK(spk_gen_spec("powerlaw:20000", &B, &e), e.msg);
    CHECK(same(&A, &B), "powerlaw:20000 differs between calls");
    spk_csr_free(&B);
    CHECK_OK(spk_gen_spec("powerlaw:20000:3", &B, &e), e.msg);
    CHECK(B.nnz < A.nnz, "a steeper tail has fewer entries: %d vs %d", B.nnz, A.nnz);
    spk_csr_free(&B);
    CHECK_OK(spk_gen_powerlaw(1, 2.2, &B, &e), e.msg);
    CHECK(B.nrows == 1 && B.nnz == 1 && B.val[0] == 1.0, "powerlaw:1");
    spk_csr_free(&B);
    CHECK(spk_gen_powerlaw(10, 0.5, &B, &e) == SPK_ERR_INVALID_ARG, "exponent 0.5 accepted");
    spk_csr_free(&A);
}

/* spk_csr_stencil_like: the generated Laplacians and upwind convection-
 * diffusion are; a diagonal off by more than 5 %, a row that is not
 * diagonally dominant, a missing diagonal entry, a non-square matrix are not. */
static void test_stencil_like(void)
{
    spk_err e;
    spk_csr A = {0};
    CHECK_OK(spk_gen_poisson3d7(6, &A, &e), e.msg);
    CHECK(spk_csr_stencil_like(&A) == 1, "poisson3d-7:6 is stencil-like");
    const int i = 100;
    int dk = -1;
    for (int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++)
        if (A.colind[k] == i) dk = k;
    CHECK(dk >= 0, "row %d has its diagonal", i);
    const double d = A.val[dk];
    A.val[dk] = d * 1.04; /* within 5 %, and more dominant */
    CHECK(spk_csr_stencil_like(&A) == 1, "a diagonal 4 %% larger still counts");
    A.val[dk] = d * 1.06;
    CHECK(spk_csr_stencil_like(&A) == 0, "a diagonal 6 %% larger does not");
    A.val[dk] = d * 0.98; /* within 5 %, but row 100 (interior) is no longer dominant */
    CHECK(spk_csr_stencil_like(&A) == 0, "a row that is not diagonally dominant");
    A.val[dk] = d;
    CHECK(spk_csr_stencil_like(&A) == 1, "restored");
    A.val[dk] = 0; /* a zero diagonal */
    CHECK(spk_csr_stencil_like(&A) == 0, "a zero diagonal entry");
    spk_csr_free(&A);
    CHECK_OK(spk_gen_poisson3d27(5, &A, &e), e.msg);
    CHECK(spk_csr_stencil_like(&A) == 1, "poisson3d-27:5 is stencil-like");
    spk_csr_free(&A);
    CHECK_OK(spk_gen_convdiff3d7(6, 100.0, &A, &e), e.msg);
    CHECK(spk_csr_stencil_like(&A) == 1, "convdiff3d-7:6:100 is stencil-like");
    spk_csr_free(&A);
    /* a 2 x 3 matrix, and a 2 x 2 one without its second diagonal entry */
    spk_csr R = {0};
    CHECK_OK(spk_csr_alloc(&R, 2, 3, 2, &e), e.msg);
    R.rowptr[1] = 1, R.rowptr[2] = 2, R.colind[0] = 0, R.colind[1] = 1, R.val[0] = R.val[1] = 1;
    CHECK(spk_csr_stencil_like(&R) == 0, "a non-square matrix");
    R.ncols = 2;
    R.colind[1] = 0;
    CHECK(spk_csr_stencil_like(&R) == 0, "a missing diagonal entry");
    spk_csr_free(&R);
}

int main(void)
{
    test_powerlaw();
    test_poisson();
    test_convdiff();
    test_spec();
    test_stencil_like();
    return check_exit();
}

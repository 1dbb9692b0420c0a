/* test_api_mpi.c -- the public API of the solve across MPI ranks
 * (include/spk_mpi.h), used as a finite-element code would: each rank
 * assembles its own rows (columns unsorted, entries split into duplicates),
 * solves, reassembles new values on the same pattern and solves again.
 * Only the installed headers: spk.h and spk_mpi.h.  Run with 1, 2 and 3
 * ranks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spk.h"
#include "spk_mpi.h"

static int g_rank, g_size, g_fail, g_checks;

#define CHECK(cond, ...)                                                                                             \
    do {                                                                                                             \
        g_checks++;                                                                                                  \
        if (!(cond)) {                                                                                               \
            g_fail++;                                                                                                \
            fprintf(stderr, "rank %d: %s:%d: ", g_rank, __FILE__, __LINE__);                                         \
            fprintf(stderr, __VA_ARGS__);                                                                            \
            fputc('\n', stderr);                                                                                     \
        }                                                                                                            \
    } while (0)

/* This rank's rows r0..r1-1 of the m x m grid's 5-point operator
 * -lap(u) + c * d/dx(u) (c = 0: symmetric), assembled as an FEM code does:
 * the diagonal in two halves (a duplicate), neighbours in reverse order. */
typedef struct rows {
    int n, r0, nrows, *rowptr, *colind;
    double *val;
} rows;

static void assemble(int m, double c, double scale, int r0, int r1, rows *R)
{
    R->n = m * m;
    R->r0 = r0;
    R->nrows = r1 - r0;
    R->rowptr = malloc(((size_t)R->nrows + 1) * sizeof(int));
    R->colind = malloc(((size_t)R->nrows * 6 + 1) * sizeof(int));
    R->val = malloc(((size_t)R->nrows * 6 + 1) * sizeof(double));
    int q = 0;
    R->rowptr[0] = 0;
    for (int i = r0; i < r1; i++) {
        const int x = i % m, y = i / m;
        const int nb[4] = {y < m - 1 ? i + m : -1, x < m - 1 ? i + 1 : -1, x > 0 ? i - 1 : -1, y > 0 ? i - m : -1};
        const double w[4] = {-1, -1 + c, -1 - c, -1};
        for (int k = 0; k < 4; k++)
            if (nb[k] >= 0) {
                R->colind[q] = nb[k];
                R->val[q++] = scale * w[k];
            }
        for (int h = 0; h < 2; h++) {
            R->colind[q] = i;
            R->val[q++] = scale * 2.0;
        }
        R->rowptr[i - r0 + 1] = q;
    }
}

static void free_rows(rows *R)
{
    free(R->rowptr);
    free(R->colind);
    free(R->val);
}

static double max_all(double v)
{
    double m = 0;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

static int same_on_all(int v)
{
    int lo = 0, hi = 0;
    MPI_Allreduce(&v, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

/* Solve with b = A xs, checked against xs, the method and the ranks. */
static int solve_check(spk_mpi_matrix *A, const rows *R, spk_solver_kind k, spk_precond_kind p,
                       const char *method, const char *pc, const char *what)
{
    const int nl = R->nrows;
    double *xs = malloc(((size_t)nl + 1) * sizeof(double)), *b = malloc(((size_t)nl + 1) * sizeof(double));
    double *x = calloc((size_t)nl + 1, sizeof(double));
    for (int i = 0; i < nl; i++) xs[i] = sin(0.37 * (R->r0 + i)) + 1.5;
    CHECK(spk_mpi_matrix_apply(A, xs, b) == SPK_OK, "%s: apply: %s", what, spk_mpi_last_error(A));
    spk_options o;
    spk_options_default(&o);
    o.rtol = 1e-10;
    spk_result res;
    const int st = spk_mpi_solve(A, k, p, &o, b, x, &res);
    CHECK(st == SPK_OK && res.reason == SPK_CONVERGED_RTOL, "%s: status %d (%s), %s", what, st,
          spk_reason_name(res.reason), spk_mpi_last_error(A));
    double err = 0;
    for (int i = 0; i < nl; i++) err = fmax(err, fabs(x[i] - xs[i]));
    err = max_all(err);
    CHECK(err < 1e-6, "%s: |x - x*| = %g", what, err);
    CHECK(strcmp(spk_mpi_method(A), method) == 0 && strcmp(spk_mpi_precond(A), pc) == 0, "%s: ran %s + %s", what,
          spk_mpi_method(A), spk_mpi_precond(A));
    CHECK(same_on_all(res.iterations) && res.iterations > 0, "%s: %d iterations, not the same on every rank", what,
          res.iterations);
    if (g_rank == 0)
        printf("%-40s %d ranks: %s + %s, %d iterations, |x - x*| = %.1e\n", what, g_size, spk_mpi_method(A),
               spk_mpi_precond(A), res.iterations, err);
    free(xs);
    free(b);
    free(x);
    return res.iterations;
}

static void fem_use(void)
{
    const int m = 40, n = m * m;
    const int r0 = (int)((long long)n * g_rank / g_size), r1 = (int)((long long)n * (g_rank + 1) / g_size);
    rows R;
    assemble(m, 0.0, 1.0, r0, r1, &R);
    spk_mpi_matrix *A = NULL;
    CHECK(spk_mpi_matrix_create(MPI_COMM_WORLD, n, r0, R.nrows, R.rowptr, R.colind, R.val, &A) == SPK_OK && A,
          "create: %s", spk_mpi_last_error(NULL));
    if (!A) return;
    int gn = 0, gr0 = -1, gnr = -1, halo = -1;
    spk_mpi_matrix_info(A, &gn, &gr0, &gnr, &halo);
    CHECK(gn == n && gr0 == r0 && gnr == R.nrows && (g_size == 1 ? halo == 0 : halo > 0), "info %d %d %d %d", gn, gr0,
          gnr, halo);
    solve_check(A, &R, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, "cg", "ic0", "FEM Poisson, the default");
    const int k_none = solve_check(A, &R, SPK_SOLVER_CG, SPK_PRECOND_NONE, "cg", "none", "CG, none");
    solve_check(A, &R, SPK_SOLVER_BICGSTAB, SPK_PRECOND_JACOBI, "bicgstab", "jacobi", "BiCGStab, Jacobi");
    /* new values on the same pattern (twice the matrix): for the same b, x halves */
    {
        const int nl = R.nrows;
        double *xs = malloc(((size_t)nl + 1) * sizeof(double)), *b = malloc(((size_t)nl + 1) * sizeof(double));
        double *x = calloc((size_t)nl + 1, sizeof(double));
        for (int i = 0; i < nl; i++) xs[i] = cos(0.11 * (r0 + i));
        spk_mpi_matrix_apply(A, xs, b);
        for (int k = 0; k < R.rowptr[R.nrows]; k++) R.val[k] *= 2.0;
        CHECK(spk_mpi_matrix_update_values(A, R.val) == SPK_OK, "update: %s", spk_mpi_last_error(A));
        spk_result res;
        CHECK(spk_mpi_solve(A, SPK_SOLVER_AUTO, SPK_PRECOND_FACTOR, NULL, b, x, &res) == SPK_OK, "after update: %s",
              spk_mpi_last_error(A));
        double err = 0;
        for (int i = 0; i < nl; i++) err = fmax(err, fabs(x[i] - 0.5 * xs[i]));
        err = max_all(err);
        CHECK(err < 1e-6, "after update_values(2 A): |x - x*/2| = %g", err);
        free(xs);
        free(b);
        free(x);
    }
    spk_mpi_matrix_destroy(A);

    /* the Fortran handle: the same solve */
    A = NULL;
    for (int k = 0; k < R.rowptr[R.nrows]; k++) R.val[k] *= 0.5;
    CHECK(spk_mpi_matrix_create_f((int)MPI_Comm_c2f(MPI_COMM_WORLD), n, r0, R.nrows, R.rowptr, R.colind, R.val, &A) ==
              SPK_OK, "create_f: %s", spk_mpi_last_error(NULL));
    if (A) {
        const int k = solve_check(A, &R, SPK_SOLVER_CG, SPK_PRECOND_NONE, "cg", "none", "CG, none (Fortran comm)");
        CHECK(k == k_none, "Fortran handle: %d iterations, %d with the C one", k, k_none);
        spk_mpi_matrix_destroy(A);
    }
    free_rows(&R);

    /* nonsymmetric: auto takes BiCGStab + block ILU(0) */
    assemble(m, 0.4, 1.0, r0, r1, &R);
    A = NULL;
    CHECK(spk_mpi_matrix_create(MPI_COMM_WORLD, n, r0, R.nrows, R.rowptr, R.colind, R.val, &A) == SPK_OK, "create");
    if (A) solve_check(A, &R, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, "bicgstab", "ilu0", "convection, the default");
    spk_mpi_matrix_destroy(A);
    free_rows(&R);

    /* every row on the last rank, none on the others */
    const int last = g_rank == g_size - 1;
    assemble(m, 0.0, 1.0, last ? 0 : n, last ? n : n, &R);
    A = NULL;
    CHECK(spk_mpi_matrix_create(MPI_COMM_WORLD, n, last ? 0 : n, R.nrows, R.rowptr, R.colind, R.val, &A) == SPK_OK,
          "create with empty ranks: %s", spk_mpi_last_error(NULL));
    if (A) solve_check(A, &R, SPK_SOLVER_CG, SPK_PRECOND_JACOBI, "cg", "jacobi", "all rows on the last rank");
    spk_mpi_matrix_destroy(A);
    free_rows(&R);
}

/* A failure on one rank is every rank's, with that rank's message. */
static void errors(void)
{
    const int m = 12, n = m * m;
    const int r0 = n * g_rank / g_size, r1 = n * (g_rank + 1) / g_size;
    rows R;
    assemble(m, 0.0, 1.0, r0, r1, &R);
    spk_mpi_matrix *A = NULL;
    /* the last rank's first column out of range */
    const int keep = R.colind[0];
    if (g_rank == g_size - 1) R.colind[0] = n + 5;
    int st = spk_mpi_matrix_create(MPI_COMM_WORLD, n, r0, R.nrows, R.rowptr, R.colind, R.val, &A);
    CHECK(st != SPK_OK && !A && same_on_all(st) && strstr(spk_mpi_last_error(NULL), "column"),
          "a bad column on one rank: status %d, '%s'", st, spk_mpi_last_error(NULL));
    R.colind[0] = keep;
    /* blocks not contiguous */
    if (g_size > 1) {
        st = spk_mpi_matrix_create(MPI_COMM_WORLD, n, r0, g_rank == 1 ? R.nrows - 1 : R.nrows, R.rowptr, R.colind,
                                   R.val, &A); /* rank 1 leaves its last row out */
        CHECK(st == SPK_ERR_INVALID_ARG && !A && strstr(spk_mpi_last_error(NULL), "contiguous"),
              "a gap between blocks: status %d, '%s'", st, spk_mpi_last_error(NULL));
    }
    CHECK(spk_mpi_matrix_create(MPI_COMM_WORLD, n, r0, R.nrows, R.rowptr, R.colind, R.val, NULL) ==
              SPK_ERR_INVALID_ARG, "NULL output");
    /* a NULL b on one rank */
    A = NULL;
    CHECK(spk_mpi_matrix_create(MPI_COMM_WORLD, n, r0, R.nrows, R.rowptr, R.colind, R.val, &A) == SPK_OK, "create");
    if (A) {
        double *b = calloc((size_t)R.nrows + 1, sizeof(double)), *x = calloc((size_t)R.nrows + 1, sizeof(double));
        spk_result res;
        memset(&res, 0, sizeof res);
        st = spk_mpi_solve(A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, NULL, g_rank == g_size - 1 ? NULL : b, x, &res);
        CHECK(st == SPK_ERR_INVALID_ARG && res.reason == SPK_SOLVE_ERROR && strstr(spk_mpi_last_error(A), "NULL"),
              "a NULL b on one rank: status %d, reason %d, '%s'", st, (int)res.reason, spk_mpi_last_error(A));
        st = spk_mpi_solve(A, (spk_solver_kind)7, SPK_PRECOND_AUTO, NULL, b, x, &res);
        CHECK(st == SPK_ERR_INVALID_ARG, "an unknown solver: %d", st);
        /* b = 0: x = 0, converged */
        st = spk_mpi_solve(A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, NULL, b, x, &res);
        CHECK(st == SPK_OK && res.reason == SPK_CONVERGED_ZERO_RHS, "b = 0: %d %s", st, spk_reason_name(res.reason));
        /* the history of the residuals: kept until the next solve (read after the solve's buffers are gone) */
        spk_options h;
        spk_options_default(&h);
        h.keep_history = 1;
        for (int i = 0; i < R.nrows; i++) b[i] = 1.0;
        memset(x, 0, (size_t)R.nrows * sizeof(double));
        st = spk_mpi_solve(A, SPK_SOLVER_CG, SPK_PRECOND_NONE, &h, b, x, &res);
        CHECK(st == SPK_OK && res.history && res.history_len == res.iterations + 1 && res.history[0] == res.rnorm0 &&
                  res.history[res.history_len - 1] <= 1e-8 * res.history[0] * 1.0001,
              "history: %d entries for %d iterations", res.history_len, res.iterations);
        /* too few iterations: not converged, the same on every rank */
        spk_options o;
        spk_options_default(&o);
        o.maxit = 2;
        for (int i = 0; i < R.nrows; i++) b[i] = 1.0;
        memset(x, 0, (size_t)R.nrows * sizeof(double));
        st = spk_mpi_solve(A, SPK_SOLVER_CG, SPK_PRECOND_NONE, &o, b, x, &res);
        CHECK(st == SPK_ERR_NOT_CONVERGED && res.reason == SPK_DIVERGED_MAXIT && same_on_all(st), "maxit 2: %d", st);
        free(b);
        free(x);
    }
    spk_mpi_matrix_destroy(A);
    free_rows(&R);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    fem_use();
    errors();
    int fails = 0, checks = 0;
    MPI_Allreduce(&g_fail, &fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&g_checks, &checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (g_rank == 0) printf("%d checks on %d ranks, %d failed\n", checks, g_size, fails);
    MPI_Finalize();
    return fails ? 1 : 0;
}

/* test_bench_ref.c -- the baseline ref of spk bench (apps/bench_ref.c) on
 * the GPU: on an SPD and a nonsymmetric model problem it converges, its true
 * residual meets rtol, and its iterations are within a few of spk's own
 * IC(0)/ILU(0) with exact triangular solves (cuSPARSE SpSV, the same
 * factorization); a factorization that meets a bad pivot is a failure, not
 * shifted.  Exit 77 without a usable GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/bench_ref.h"
#include "check.h"
#include "core/exec_cuda.h"
#include "io/gen.h"
#include "io/mmio.h"
#include "io/rhs.h"
#include "spk.h"

#define RTOL 1e-8
#define MAXIT 2000

/* spk's own solve of A x = b with IC(0)/ILU(0) applied by exact triangular
 * solves: its iterations (-1 when it did not converge). */
static int spk_iterations(spk_context *ctx, const spk_csr *A, const double *b, const char **method)
{
    spk_matrix *M = NULL;
    spk_solver *s = NULL;
    spk_options o;
    spk_result res;
    spk_options_default(&o);
    o.rtol = RTOL;
    o.maxit = MAXIT;
    o.format = "cusparse";
    o.precond_sweeps = 0;
    o.race = 0;
    CHECK(spk_options_set(&o, "vector-ops", "classic", NULL, 0) == SPK_OK, "vector-ops classic");
    if (spk_matrix_from_csr(ctx, A->nrows, A->ncols, A->rowptr, A->colind, A->val, &M) ||
        spk_solver_create(ctx, M, SPK_SOLVER_AUTO, SPK_PRECOND_FACTOR, &o, &s)) {
        fprintf(stderr, "spk: %s\n", spk_last_error(ctx));
        exit(1);
    }
    double *x = calloc((size_t)A->ncols, sizeof(double));
    if (!x) exit(1);
    const int st = spk_solve(s, b, x, &res);
    *method = strcmp(spk_solver_method(s), "cg") == 0 ? "cg" : "bicgstab";
    free(x);
    spk_solver_destroy(s);
    spk_matrix_destroy(M);
    return st == SPK_OK ? res.iterations : -1;
}

/* The baseline on gen:SPEC against spk's exact IC(0)/ILU(0). */
static void check_problem(spk_context *ctx, const char *spec, const char *want_method)
{
    spk_err e;
    spk_err_clear(&e);
    spk_csr A = {0};
    if (spk_gen_spec(spec, &A, &e)) {
        fprintf(stderr, "%s: %s\n", spec, e.msg);
        exit(1);
    }
    double *xs = malloc((size_t)A.ncols * sizeof(double)), *b = malloc((size_t)A.nrows * sizeof(double));
    if (!xs || !b) exit(1);
    spk_rhs_known_solution(&A, xs, b);
    const bench_ref_args a = {RTOL, 0.0, MAXIT, 3};
    bench_ref_result r;
    const int st = bench_ref_run(&A, b, &a, &r);
    const char *spk_method = NULL;
    const int its = spk_iterations(ctx, &A, b, &spk_method);
    printf("%s: ref %s+%s %s, %d iterations, true residual %.3e, upload %.3f ms, setup %.3f ms, solve %.3f ms; "
           "spk exact %s: %d iterations\n",
           spec, r.method, r.precond, st ? r.note : "converged", r.iterations, r.true_relres, r.upload_ms,
           r.setup_ms, r.solve_ms, spk_method, its);
    CHECK(st == SPK_OK && r.status == SPK_OK, "%s: %s", spec, r.note);
    CHECK(strcmp(r.method, want_method) == 0 && strcmp(spk_method, want_method) == 0, "%s: methods %s and %s",
          spec, r.method, spk_method);
    CHECK(r.iterations > 0 && r.true_relres <= RTOL * 1.05, "%s: true residual %g", spec, r.true_relres);
    CHECK(its > 0 && abs(r.iterations - its) <= 3, "%s: %d iterations against spk's %d", spec, r.iterations, its);
    CHECK(r.upload_ms > 0 && r.setup_ms > 0 && r.solve_ms > 0, "%s: times %g %g %g", spec, r.upload_ms,
          r.setup_ms, r.solve_ms);
    free(xs);
    free(b);
    spk_csr_free(&A);
}

/* A matrix whose factorization fails: the baseline says so. */
static void check_failure(const spk_csr *A, int want_added, const char *what)
{
    double *b = malloc((size_t)A->nrows * sizeof(double));
    if (!b) exit(1);
    for (int i = 0; i < A->nrows; i++) b[i] = 1.0;
    const bench_ref_args a = {RTOL, 0.0, MAXIT, 1};
    bench_ref_result r;
    const int st = bench_ref_run(A, b, &a, &r);
    printf("%s: ref %s+%s: %s (%s), %d diagonal entries added\n", what, r.method, r.precond,
           spk_status_name(st), r.note, r.added_diag);
    CHECK(st == SPK_ERR_ZERO_PIVOT && r.status == st && r.note[0] && r.added_diag == want_added,
          "%s: %s, %d added", what, spk_status_name(st), r.added_diag);
    free(b);
}

int main(void)
{
    const char *why = NULL;
    if (!spk_cuda_available(&why)) SKIP("no usable CUDA device: %s", why);
    spk_context *ctx = NULL;
    if (spk_context_create(&ctx, SPK_DEVICE_CUDA) != SPK_OK) SKIP("no usable CUDA device");
    check_problem(ctx, "poisson3d-7:20", "cg");
    check_problem(ctx, "convdiff3d-7:20", "bicgstab");
    /* IC(0) of plat362 meets a non-positive pivot (spk shifts; the baseline does not) */
    spk_err e;
    spk_err_clear(&e);
    spk_csr P = {0};
    if (spk_mm_read_csr(SPK_TEST_DATA "/plat362.mtx.gz", &P, NULL, &e)) {
        fprintf(stderr, "plat362: %s\n", e.msg);
        return 1;
    }
    check_failure(&P, 0, "plat362");
    spk_csr_free(&P);
    /* [0 1; 1 2] without its a_00: stored as an explicit zero, ILU(0)'s first pivot */
    int rp[3] = {0, 1, 3}, ci[3] = {1, 0, 1};
    double v[3] = {1.0, 1.0, 2.0};
    spk_csr Z = {2, 2, 3, rp, ci, v};
    check_failure(&Z, 1, "missing a_00");
    spk_context_destroy(ctx);
    return check_exit();
}

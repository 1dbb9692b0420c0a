/* test_gmres.c -- restarted GMRES(m) through the public API: a known
 * solution on nonsymmetric and symmetric indefinite systems with each
 * preconditioner and several m; the residual it tests is the true one
 * (recurrence and recomputed residual agree) and never grows; full GMRES
 * (m >= n) ends within n iterations; restarts, the iteration limit, a zero
 * right-hand side, an invariant subspace (A = I), the iterate callback and
 * the caller's preconditioner; the restart length's key and range; the
 * default's switch to GMRES where its BiCGStab broke down. */
#include "device.h"
#include "io/gen.h"

static spk_matrix *matrix_of(spk_context *ctx, spk_csr *C)
{
    spk_matrix *A = NULL;
    CHECK_OK(spk_matrix_from_csr(ctx, C->nrows, C->ncols, C->rowptr, C->colind, C->val, &A), spk_last_error(ctx));
    spk_csr_free(C);
    return A;
}

/* b = A x* with x*_i = 1 + (i mod 7) / 7 */
static void known(spk_matrix *A, int n, double *xs, double *b)
{
    for (int i = 0; i < n; i++) xs[i] = 1.0 + (i % 7) / 7.0;
    CHECK_OK(spk_matrix_multiply(A, xs, b), "spk_matrix_multiply");
}

typedef struct case_result {
    int st, iterations, restarts;
    double true_relres, relres, err;
} case_result;

static case_result solve_gmres(spk_context *ctx, spk_matrix *A, spk_precond_kind pk, int m, int maxit, int history,
                               const char *what)
{
    int n;
    spk_matrix_csr(A, &n, NULL, NULL, NULL, NULL, NULL);
    double *xs = malloc((size_t)n * sizeof(double)), *b = malloc((size_t)n * sizeof(double)),
           *x = calloc((size_t)n, sizeof(double));
    known(A, n, xs, b);
    spk_options o;
    spk_options_default(&o);
    o.rtol = 1e-10;
    o.gmres_restart = m;
    o.maxit = maxit;
    o.keep_history = history;
    spk_solver *s = NULL;
    case_result c = {0};
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_GMRES, pk, &o, &s), spk_last_error(ctx));
    if (!s) return c;
    CHECK(strcmp(spk_solver_method(s), "gmres") == 0, "%s: method %s", what, spk_solver_method(s));
    spk_result r;
    c.st = spk_solve(s, b, x, &r);
    c.iterations = r.iterations;
    c.restarts = r.restarts;
    c.true_relres = r.true_relres;
    c.relres = r.relres;
    double e = 0, m0 = 0;
    for (int i = 0; i < n; i++) {
        e = fmax(e, fabs(x[i] - xs[i]));
        m0 = fmax(m0, fabs(xs[i]));
    }
    c.err = e / m0;
    if (history && r.history_len > 1) { /* GMRES minimizes ||r|| over a growing space: it never grows */
        int grew = -1;
        for (int k = 1; k < r.history_len && grew < 0; k++)
            if (r.history[k] > r.history[k - 1] * (1 + 1e-8) + 1e-14 * r.history[0]) grew = k;
        CHECK(grew < 0, "%s: ||r|| grew at iteration %d: %g after %g", what, grew, r.history[grew > 0 ? grew : 0],
              r.history[grew > 0 ? grew - 1 : 0]);
        CHECK(r.history_len == r.iterations + 1, "%s: %d residuals for %d iterations", what, r.history_len,
              r.iterations);
    }
    spk_solver_destroy(s);
    free(xs);
    free(b);
    free(x);
    return c;
}

/* converged to rtol, the recurrence's residual the true one, x = x* as far as the conditioning allows */
static void expect_solved(case_result c, const char *what, double err_max)
{
    CHECK(c.st == SPK_OK && c.true_relres <= 2e-10 && fabs(c.relres - c.true_relres) <= 1e-3 * c.true_relres + 1e-14 &&
              c.err <= err_max,
          "%s: status %d after %d iterations, relres %.3e, true %.3e, error %.2e", what, c.st, c.iterations, c.relres,
          c.true_relres, c.err);
}

static void known_solutions(spk_context *ctx)
{
    spk_err err;
    spk_err_clear(&err);
    spk_csr C = {0};
    const spk_precond_kind pks[] = {SPK_PRECOND_NONE, SPK_PRECOND_JACOBI, SPK_PRECOND_ILU0, SPK_PRECOND_AUTO};
    const char *pnames[] = {"none", "jacobi", "ilu0", "auto"};
    const int ms[] = {5, 30, 200};
    CHECK_OK(spk_gen_convdiff2d5(30, 20.0, &C, &err), err.msg);
    spk_matrix *cd = matrix_of(ctx, &C);
    for (int p = 0; p < 4; p++)
        for (int k = 0; k < 3; k++) {
            char what[96];
            snprintf(what, sizeof what, "convdiff2d-5:30 GMRES(%d) + %s", ms[k], pnames[p]);
            const case_result c = solve_gmres(ctx, cd, pks[p], ms[k], 20000, 1, what);
            expect_solved(c, what, 1e-6);
            if (ms[k] == 5 && pks[p] == SPK_PRECOND_NONE)
                CHECK(c.restarts >= 1 && c.restarts >= (c.iterations - 1) / 5 - 1 && c.restarts <= c.iterations / 5,
                      "%s: %d restarts for %d iterations", what, c.restarts, c.iterations);
        }
    /* full GMRES ends within n iterations (here: n = 900, m = 1000) */
    const case_result full = solve_gmres(ctx, cd, SPK_PRECOND_NONE, 1000, 20000, 1, "full GMRES");
    expect_solved(full, "full GMRES", 1e-6);
    CHECK(full.iterations <= 900 && full.restarts == 0, "full GMRES: %d iterations, %d restarts", full.iterations,
          full.restarts);
    /* the iteration limit */
    const case_result lim = solve_gmres(ctx, cd, SPK_PRECOND_NONE, 10, 7, 0, "maxit 7");
    CHECK(lim.st == SPK_ERR_NOT_CONVERGED && lim.iterations == 7, "maxit 7: status %d after %d iterations", lim.st,
          lim.iterations);
    spk_matrix_destroy(cd);
    /* a symmetric indefinite system, where CG breaks down: GMRES solves it */
    CHECK_OK(spk_gen_poisson2d5(20, &C, &err), err.msg);
    for (int i = 0; i < C.nrows; i++)
        for (int q = C.rowptr[i]; q < C.rowptr[i + 1]; q++)
            if (C.colind[q] == i) C.val[q] -= 0.5; /* eigenvalues of both signs */
    spk_matrix *ind = matrix_of(ctx, &C);
    expect_solved(solve_gmres(ctx, ind, SPK_PRECOND_NONE, 400, 20000, 1, "indefinite, GMRES(400)"),
                  "indefinite, GMRES(400)", 1e-5);
    spk_matrix_destroy(ind);
}

/* A = I: the first direction spans the solution (an invariant subspace, h = 0) */
static void identity_and_zero(spk_context *ctx)
{
    const int n = 50;
    int *rp = malloc((n + 1) * sizeof(int)), *ci = malloc(n * sizeof(int));
    double *v = malloc(n * sizeof(double)), b[50], x[50];
    for (int i = 0; i < n; i++) rp[i] = i, ci[i] = i, v[i] = 2.0, b[i] = i + 1, x[i] = 0;
    rp[n] = n;
    spk_matrix *A = NULL;
    CHECK_OK(spk_matrix_from_csr(ctx, n, n, rp, ci, v, &A), spk_last_error(ctx));
    spk_solver *s = NULL;
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_GMRES, SPK_PRECOND_NONE, NULL, &s), spk_last_error(ctx));
    spk_result r;
    CHECK_OK(spk_solve(s, b, x, &r), spk_last_error(ctx));
    double e = 0;
    for (int i = 0; i < n; i++) e = fmax(e, fabs(x[i] - (i + 1) / 2.0));
    CHECK(r.iterations == 1 && e < 1e-13, "2 I x = b: %d iterations, error %g", r.iterations, e);
    memset(b, 0, sizeof b);
    for (int i = 0; i < n; i++) x[i] = 5;
    CHECK_OK(spk_solve(s, b, x, &r), spk_last_error(ctx));
    CHECK(r.reason == SPK_CONVERGED_ZERO_RHS && x[0] == 0 && x[n - 1] == 0, "b = 0: reason %s, x[0] %g",
          spk_reason_name(r.reason), x[0]);
    spk_solver_destroy(s);
    spk_matrix_destroy(A);
    free(rp);
    free(ci);
    free(v);
    /* singular, b outside the range: a breakdown, never a converged answer */
    int srp[] = {0, 2, 4}, sci[] = {0, 1, 0, 1};
    double sv[] = {1, 2, 2, 4}, sb[] = {1, 0}, sx[] = {0, 0};
    CHECK_OK(spk_matrix_from_csr(ctx, 2, 2, srp, sci, sv, &A), spk_last_error(ctx));
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_GMRES, SPK_PRECOND_NONE, NULL, &s), spk_last_error(ctx));
    const int st = spk_solve(s, sb, sx, &r);
    CHECK(st == SPK_ERR_BREAKDOWN && r.reason == SPK_BREAKDOWN_SINGULAR && r.true_relres > 0.5,
          "singular inconsistent system: status %d, %s, true residual %g", st, spk_reason_name(r.reason),
          r.true_relres);
    spk_solver_destroy(s);
    spk_matrix_destroy(A);
}

typedef struct last_x {
    int n, calls;
    double *x;
} last_x;

static void keep_x(void *user, int it, const double *x)
{
    last_x *L = user;
    (void)it;
    L->calls++;
    memcpy(L->x, x, (size_t)L->n * sizeof(double));
}

static int jacobi_apply(void *user, int n, const double *r, double *z)
{
    const double *inv = user;
    for (int i = 0; i < n; i++) z[i] = inv[i] * r[i];
    return 0;
}

/* the iterate callback sees x_k, the last one the solution; the caller's Jacobi as spk's */
static void callbacks(spk_context *ctx)
{
    spk_err err;
    spk_err_clear(&err);
    spk_csr C = {0};
    CHECK_OK(spk_gen_convdiff2d5(20, 10.0, &C, &err), err.msg);
    const int n = C.nrows;
    double *inv = malloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; i++)
        for (int q = C.rowptr[i]; q < C.rowptr[i + 1]; q++)
            if (C.colind[q] == i) inv[i] = 1.0 / C.val[q];
    spk_matrix *A = matrix_of(ctx, &C);
    double *b = malloc((size_t)n * sizeof(double)), *x = calloc((size_t)n, sizeof(double)),
           *x2 = calloc((size_t)n, sizeof(double));
    for (int i = 0; i < n; i++) b[i] = 1 + i % 4;
    last_x L = {n, 0, calloc((size_t)n, sizeof(double))};
    spk_options o;
    spk_options_default(&o);
    o.rtol = 1e-10;
    o.gmres_restart = 8;
    spk_options_set_iterate(&o, keep_x, &L);
    spk_solver *s = NULL, *s2 = NULL;
    spk_result r, r2;
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_GMRES, SPK_PRECOND_JACOBI, &o, &s), spk_last_error(ctx));
    CHECK_OK(spk_solve(s, b, x, &r), spk_last_error(ctx));
    double e = 0;
    for (int i = 0; i < n; i++) e = fmax(e, fabs(L.x[i] - x[i]));
    CHECK(L.calls == r.iterations && e <= 1e-12 * (1 + fabs(x[0])),
          "GMRES iterate callback: %d calls for %d iterations, the last %g from the solution", L.calls, r.iterations, e);
    spk_options_set_iterate(&o, NULL, NULL);
    spk_options_set_precond(&o, jacobi_apply, inv);
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_GMRES, SPK_PRECOND_USER, &o, &s2), spk_last_error(ctx));
    CHECK_OK(spk_solve(s2, b, x2, &r2), spk_last_error(ctx));
    const int host = strcmp(TEST_DEVICE_NAME, "host") == 0;
    CHECK(host ? r2.iterations == r.iterations : abs(r2.iterations - r.iterations) <= 1,
          "GMRES with the caller's Jacobi: %d iterations, spk's Jacobi %d", r2.iterations, r.iterations);
    spk_solver_destroy(s);
    spk_solver_destroy(s2);
    spk_matrix_destroy(A);
    free(L.x);
    free(inv);
    free(b);
    free(x);
    free(x2);
}

/* A skew-symmetric A (s'As = 0) breaks BiCGStab down at once: asked for, the
 * breakdown is reported; under SPK_SOLVER_AUTO restarted GMRES finishes
 * (switched = 2) and the solver keeps it for the next solve. */
static void auto_falls_back(spk_context *ctx)
{
    enum { N = 20 };
    int rp[N + 1], ci[2 * N], k = 0;
    double v[2 * N], b[N], x[N], ones[N];
    for (int i = 0; i < N; i++) {
        rp[i] = k;
        if (i > 0) ci[k] = i - 1, v[k++] = -1;
        if (i + 1 < N) ci[k] = i + 1, v[k++] = 1;
        ones[i] = 1;
    }
    rp[N] = k;
    spk_matrix *A = NULL;
    CHECK_OK(spk_matrix_from_csr(ctx, N, N, rp, ci, v, &A), spk_last_error(ctx));
    CHECK_OK(spk_matrix_multiply(A, ones, b), "multiply");
    spk_solver *s = NULL;
    spk_result r;
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_BICGSTAB, SPK_PRECOND_NONE, NULL, &s), spk_last_error(ctx));
    memset(x, 0, sizeof x);
    const int st = spk_solve(s, b, x, &r);
    CHECK(st == SPK_ERR_BREAKDOWN && r.switched == 0, "BiCGStab asked for on a skew matrix: status %d, switched %d",
          st, r.switched);
    spk_solver_destroy(s);
    /* no preconditioner: with one, static pivoting makes ILU(0) of this matrix exact */
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_NONE, NULL, &s), spk_last_error(ctx));
    for (int solve = 0; solve < 2; solve++) {
        memset(x, 0, sizeof x);
        const int st2 = spk_solve(s, b, x, &r);
        double e = 0;
        for (int i = 0; i < N; i++) e = fmax(e, fabs(x[i] - 1));
        CHECK(st2 == SPK_OK && e < 1e-6 && strcmp(spk_solver_method(s), "gmres") == 0 &&
                  (solve == 0 ? r.switched == 2 : r.switched == 0),
              "auto on a skew matrix, solve %d: status %d, method %s, switched %d, error %g (%s)", solve, st2,
              spk_solver_method(s), r.switched, e, spk_last_error(ctx));
    }
    spk_solver_destroy(s);
    spk_matrix_destroy(A);
}

static void restart_key(void)
{
    spk_options o;
    spk_options_default(&o);
    char msg[256], v[32];
    CHECK(o.gmres_restart == 30, "default restart %d", o.gmres_restart);
    CHECK_OK(spk_options_set(&o, "gmres-restart", "50", msg, sizeof msg), msg);
    CHECK(o.gmres_restart == 50 && spk_options_get(&o, "gmres_restart", v, sizeof v) == SPK_OK && strcmp(v, "50") == 0,
          "gmres-restart set to %d, read '%s'", o.gmres_restart, v);
    CHECK(spk_options_set(&o, "gmres-restart", "0", msg, sizeof msg) == SPK_ERR_INVALID_ARG &&
              check_contains(msg, "gmres-restart"),
          "gmres-restart 0 accepted: %s", msg);
    CHECK(strcmp(spk_solver_kind_name(SPK_SOLVER_GMRES), "gmres") == 0, "kind name %s",
          spk_solver_kind_name(SPK_SOLVER_GMRES));
}

int main(void)
{
    spk_context *ctx = test_context();
    restart_key();
    known_solutions(ctx);
    identity_and_zero(ctx);
    callbacks(ctx);
    auto_falls_back(ctx);
    spk_context_destroy(ctx);
    return check_exit();
}

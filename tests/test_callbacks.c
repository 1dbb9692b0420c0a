/* test_callbacks.c -- the public API's callbacks: a preconditioner of the
 * caller's (SPK_PRECOND_USER, spk_options_set_precond) against spk's own
 * Jacobi, in CG and BiCGStab, with every vector-ops engine; the iterate
 * callback (spk_options_set_iterate): once per iteration, its last x the
 * solution, in the caller's order when the rows are reordered; the monitor
 * through its setter; the progress callback, which leaves the default's
 * probe on; and the refusals and failures of each. */
#include "device.h"
#include "io/gen.h"

typedef struct jac {
    const spk_matrix *A;
    int n, calls, fail_at;
    double *inv;
} jac;

/* z = D^-1 r: Jacobi, as the caller writes it */
static int user_jacobi(void *user, int n, const double *r, double *z)
{
    jac *J = user;
    CHECK(n == J->n, "the preconditioner got n = %d, the matrix has %d rows", n, J->n);
    if (++J->calls == J->fail_at) return 7;
    for (int i = 0; i < n; i++) z[i] = J->inv[i] * r[i];
    return 0;
}

static void jac_init(jac *J, const spk_matrix *A)
{
    int n, nnz;
    const int *rp, *ci;
    const double *v;
    spk_matrix_csr(A, &n, NULL, &nnz, &rp, &ci, &v);
    J->A = A;
    J->n = n;
    J->calls = 0;
    J->fail_at = 0;
    J->inv = malloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; i++)
        for (int k = rp[i]; k < rp[i + 1]; k++)
            if (ci[k] == i) J->inv[i] = 1.0 / v[k];
}

typedef struct seen {
    int n, calls, last_it, in_order;
    double *last;
    int monitor_calls;
} seen;

static void on_iterate(void *user, int it, const double *x)
{
    seen *S = user;
    S->calls++;
    S->in_order &= it == S->last_it + 1;
    S->last_it = it;
    memcpy(S->last, x, (size_t)S->n * sizeof(double));
}

static void on_monitor(void *user, int it, double rnorm, double relres)
{
    (void)it;
    (void)rnorm;
    (void)relres;
    ((seen *)user)->monitor_calls++;
}

static spk_matrix *matrix_of(spk_context *ctx, spk_csr *C)
{
    spk_matrix *A = NULL;
    CHECK_OK(spk_matrix_from_csr(ctx, C->nrows, C->ncols, C->rowptr, C->colind, C->val, &A), spk_last_error(ctx));
    spk_csr_free(C);
    return A;
}

static double max_rel(const double *x, const double *y, int n)
{
    double e = 0, m = 0;
    for (int i = 0; i < n; i++) {
        e = fmax(e, fabs(x[i] - y[i]));
        m = fmax(m, fabs(y[i]));
    }
    return m > 0 ? e / m : e;
}

/* The caller's Jacobi gives the iterations of spk's Jacobi (on the host the
 * same numbers; on the GPU to rounding, one iteration apart at most), in
 * every engine; its apply is called at least once per iteration. */
static void user_matches_jacobi(spk_context *ctx, spk_matrix *A, spk_solver_kind kind, const char *what)
{
    int n;
    spk_matrix_csr(A, &n, NULL, NULL, NULL, NULL, NULL);
    double *b = malloc((size_t)n * sizeof(double)), *x0 = calloc((size_t)n, sizeof(double)),
           *x1 = calloc((size_t)n, sizeof(double));
    for (int i = 0; i < n; i++) b[i] = 1.0 + (i % 7) * 0.25;
    const char *engines[] = {"classic", "fused", "graph", "block"};
    for (int v = 0; v < 4; v++) {
        spk_options o;
        spk_options_default(&o);
        o.rtol = 1e-10;
        char msg[256];
        CHECK_OK(spk_options_set(&o, "vector-ops", engines[v], msg, sizeof msg), msg);
        spk_solver *sj = NULL, *su = NULL;
        spk_result rj, ru;
        memset(x0, 0, (size_t)n * sizeof(double));
        memset(x1, 0, (size_t)n * sizeof(double));
        CHECK_OK(spk_solver_create(ctx, A, kind, SPK_PRECOND_JACOBI, &o, &sj), spk_last_error(ctx));
        CHECK_OK(spk_solve(sj, b, x0, &rj), spk_last_error(ctx));
        jac J;
        jac_init(&J, A);
        spk_options_set_precond(&o, user_jacobi, &J);
        CHECK_OK(spk_solver_create(ctx, A, kind, SPK_PRECOND_USER, &o, &su), spk_last_error(ctx));
        CHECK(strcmp(spk_solver_precond(su), "user") == 0, "%s: precond %s", what, spk_solver_precond(su));
        CHECK_OK(spk_solve(su, b, x1, &ru), spk_last_error(ctx));
        const int host = strcmp(TEST_DEVICE_NAME, "host") == 0;
        CHECK(host ? ru.iterations == rj.iterations : abs(ru.iterations - rj.iterations) <= 1,
              "%s, %s: the caller's Jacobi took %d iterations, spk's %d", what, engines[v], ru.iterations,
              rj.iterations);
        CHECK(J.calls >= ru.iterations, "%s, %s: %d applies for %d iterations", what, engines[v], J.calls,
              ru.iterations);
        CHECK(ru.true_relres < 1e-9 && max_rel(x1, x0, n) < 1e-8, "%s, %s: true residual %g, x differs by %g", what,
              engines[v], ru.true_relres, max_rel(x1, x0, n));
        /* a second solve on the same solver applies it again */
        const int before = J.calls;
        memset(x1, 0, (size_t)n * sizeof(double));
        CHECK_OK(spk_solve(su, b, x1, &ru), spk_last_error(ctx));
        CHECK(J.calls > before, "%s: the second solve did not apply the caller's preconditioner", what);
        spk_solver_destroy(sj);
        spk_solver_destroy(su);
        free(J.inv);
    }
    free(b);
    free(x0);
    free(x1);
}

/* A nonzero return stops the solve with SPK_ERR_INVALID_ARG naming it;
 * SPK_PRECOND_USER without a function, or with a reordering, is refused. */
static void user_failures(spk_context *ctx, spk_matrix *A)
{
    int n;
    spk_matrix_csr(A, &n, NULL, NULL, NULL, NULL, NULL);
    double *b = malloc((size_t)n * sizeof(double)), *x = calloc((size_t)n, sizeof(double));
    for (int i = 0; i < n; i++) b[i] = 1;
    spk_options o;
    spk_options_default(&o);
    spk_solver *s = NULL;
    CHECK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_USER, &o, &s) == SPK_ERR_INVALID_ARG && !s &&
              check_contains(spk_last_error(ctx), "precond_apply"),
          "SPK_PRECOND_USER without a function: %s", spk_last_error(ctx));
    CHECK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_USER, NULL, &s) == SPK_ERR_INVALID_ARG && !s,
          "SPK_PRECOND_USER with no options at all: %s", spk_last_error(ctx));
    CHECK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, (spk_precond_kind)7, &o, &s) == SPK_ERR_INVALID_ARG && !s,
          "preconditioner kind 7 accepted");
    jac J;
    jac_init(&J, A);
    spk_options_set_precond(&o, user_jacobi, &J);
    o.reorder = SPK_REORDER_MULTICOLOR;
    CHECK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_USER, &o, &s) == SPK_ERR_INVALID_ARG && !s &&
              check_contains(spk_last_error(ctx), "reorder"),
          "SPK_PRECOND_USER with a reordering: %s", spk_last_error(ctx));
    o.reorder = SPK_REORDER_NONE;
    J.fail_at = 5;
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_USER, &o, &s), spk_last_error(ctx));
    spk_result r;
    const int st = spk_solve(s, b, x, &r);
    CHECK(st == SPK_ERR_INVALID_ARG && check_contains(spk_last_error(ctx), "returned 7") && J.calls == 5,
          "a failing preconditioner: status %d after %d calls, '%s'", st, J.calls, spk_last_error(ctx));
    spk_solver_destroy(s);
    /* the setter with NULL clears it */
    spk_options_set_precond(&o, NULL, &J);
    CHECK(o.precond_apply == NULL && o.precond_user == NULL, "spk_options_set_precond(NULL) left a function");
    free(J.inv);
    free(b);
    free(x);
}

/* The iterate callback: called for iterations 1, 2, ..., once each, its
 * last x the returned solution (in the caller's order when reordered); the
 * monitor set by its setter sees iterations 0..k. */
static void iterates(spk_context *ctx, spk_matrix *A, spk_solver_kind kind, int reorder, const char *what)
{
    int n;
    spk_matrix_csr(A, &n, NULL, NULL, NULL, NULL, NULL);
    double *b = malloc((size_t)n * sizeof(double)), *x = calloc((size_t)n, sizeof(double));
    for (int i = 0; i < n; i++) b[i] = 1.0 + (i % 5);
    seen S = {.n = n, .in_order = 1, .last = calloc((size_t)n, sizeof(double))};
    spk_options o;
    spk_options_default(&o);
    o.rtol = 1e-9;
    o.reorder = reorder;
    spk_options_set_iterate(&o, on_iterate, &S);
    spk_options_set_monitor(&o, on_monitor, &S);
    spk_solver *s = NULL;
    CHECK_OK(spk_solver_create(ctx, A, kind, SPK_PRECOND_AUTO, &o, &s), spk_last_error(ctx));
    spk_result r;
    CHECK_OK(spk_solve(s, b, x, &r), spk_last_error(ctx));
    CHECK(S.calls == r.iterations && S.in_order && S.last_it == r.iterations,
          "%s: %d calls, the last for iteration %d, for %d iterations (in order %d)", what, S.calls, S.last_it,
          r.iterations, S.in_order);
    CHECK(S.monitor_calls == r.iterations + 1, "%s: the monitor called %d times for %d iterations", what,
          S.monitor_calls, r.iterations);
    CHECK(memcmp(S.last, x, (size_t)n * sizeof(double)) == 0, "%s: the last iterate is not the solution (%g apart)",
          what, max_rel(S.last, x, n));
    spk_solver_destroy(s);
    free(S.last);
    free(b);
    free(x);
}

typedef struct progress_seen {
    int calls, last, monotone;
} progress_seen;

static void on_progress(void *user, int it, double rnorm, double relres)
{
    progress_seen *P = user;
    (void)rnorm;
    (void)relres;
    P->calls++;
    P->monotone &= it >= P->last;
    P->last = it;
}

/* The progress callback leaves the default as it is: the probe still
 * chooses (a monitor turns it off); it sees the solve's iterations counted
 * over the whole solve, in order. */
static void progress(spk_context *ctx, spk_matrix *A, const char *what)
{
    int n;
    spk_matrix_csr(A, &n, NULL, NULL, NULL, NULL, NULL);
    double *b = malloc((size_t)n * sizeof(double)), *x0 = calloc((size_t)n, sizeof(double)),
           *x1 = calloc((size_t)n, sizeof(double));
    for (int i = 0; i < n; i++) b[i] = 1.0 + (i % 3);
    spk_options o;
    spk_options_default(&o);
    o.rtol = 1e-10;
    spk_solver *s0 = NULL, *s1 = NULL, *s2 = NULL;
    spk_result r0, r1, r2;
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, &o, &s0), spk_last_error(ctx));
    CHECK_OK(spk_solve(s0, b, x0, &r0), spk_last_error(ctx));
    progress_seen P = {0, 0, 1};
    spk_options_set_progress(&o, on_progress, &P);
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, &o, &s1), spk_last_error(ctx));
    CHECK_OK(spk_solve(s1, b, x1, &r1), spk_last_error(ctx));
    /* the default decides as without it: the probe ran where it ran (its choice depends on
     * measured times, so only that it chose is compared), the race where it ran (on the GPU) */
    const int probed = spk_solver_choice(s0)[0] != 0;
    CHECK(probed == (spk_solver_choice(s1)[0] != 0) && !check_contains(spk_solver_choice(s1), "not made"),
          "%s: with the progress callback the probe's choice is '%s', without it '%s'", what, spk_solver_choice(s1),
          spk_solver_choice(s0));
    CHECK((r0.race != 0) == (r1.race != 0), "%s: race %d with the progress callback, %d without", what, r1.race,
          r0.race);
    CHECK(r1.true_relres <= 1e-9 && r0.true_relres <= 1e-9, "%s: true residuals %g and %g", what, r1.true_relres,
          r0.true_relres);
    /* the iterations the host runs are all seen, in order (a race runs whole on the device) */
    CHECK(P.monotone && P.calls >= 1 && (r1.race || (P.calls >= r1.iterations && P.last >= r1.iterations)),
          "%s: progress called %d times, last at %d, for %d iterations (monotone %d, race %d)", what, P.calls, P.last,
          r1.iterations, P.monotone, r1.race);
    /* a monitor instead turns the probe off */
    spk_options_set_progress(&o, NULL, NULL);
    spk_options_set_monitor(&o, on_monitor, &(seen){0});
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, &o, &s2), spk_last_error(ctx));
    memset(x1, 0, (size_t)n * sizeof(double));
    CHECK_OK(spk_solve(s2, b, x1, &r2), spk_last_error(ctx));
    CHECK(spk_solver_choice(s2)[0] == 0 && r2.race == 0, "%s: with a monitor the probe still chose '%s' (race %d)",
          what, spk_solver_choice(s2), r2.race);
    CHECK(probed || r0.race, "%s: neither the probe nor the race ran without a callback: nothing compared", what);
    spk_solver_destroy(s0);
    spk_solver_destroy(s1);
    spk_solver_destroy(s2);
    free(b);
    free(x0);
    free(x1);
}

int main(void)
{
    spk_err err;
    spk_err_clear(&err);
    spk_context *ctx = test_context();
    spk_csr C = {0};
    CHECK_OK(spk_gen_powerlaw_sym(600, 2.5, 3, &C, &err), err.msg);
    spk_matrix *spd = matrix_of(ctx, &C);
    CHECK_OK(spk_gen_convdiff2d5(24, 30.0, &C, &err), err.msg);
    spk_matrix *gen = matrix_of(ctx, &C);
    user_matches_jacobi(ctx, spd, SPK_SOLVER_CG, "CG, powerlaw-sym");
    user_matches_jacobi(ctx, gen, SPK_SOLVER_BICGSTAB, "BiCGStab, convdiff2d");
    user_failures(ctx, gen);
    iterates(ctx, spd, SPK_SOLVER_CG, SPK_REORDER_NONE, "CG");
    iterates(ctx, gen, SPK_SOLVER_BICGSTAB, SPK_REORDER_NONE, "BiCGStab");
    iterates(ctx, spd, SPK_SOLVER_CG, SPK_REORDER_MULTICOLOR, "CG, reordered");
    iterates(ctx, gen, SPK_SOLVER_BICGSTAB, SPK_REORDER_MULTICOLOR, "BiCGStab, reordered");
    /* a system the probe measures: the cheap preconditioner first, then the factor */
    CHECK_OK(spk_gen_convdiff2d5(60, 5.0, &C, &err), err.msg);
    spk_matrix *big = matrix_of(ctx, &C);
    progress(ctx, big, "convdiff2d-60");
    progress(ctx, spd, "powerlaw-sym");
    spk_matrix_destroy(big);
    spk_matrix_destroy(spd);
    spk_matrix_destroy(gen);
    spk_context_destroy(ctx);
    return check_exit();
}

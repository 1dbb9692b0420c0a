/* test_solver.c -- the CG and BiCGStab drivers through the three interfaces:
 * convergence to a known random solution on generated problems with every
 * preconditioner, and every way a solve can end (breakdowns, NaN, maxit,
 * zero right-hand side, invalid input) with the right reason.  Compiled with
 * SPK_TEST_CUDA, every case runs on the GPU (cuBLAS, cuSPARSE) and the
 * generated problems are also compared with the host run (iterations as in
 * iter_match.h, both true residuals below 10 rtol). */
#include <stdint.h>

#include "device.h"
#include "iter_match.h"
#include "io/gen.h"
#ifdef SPK_TEST_CUDA
#include "core/exec_cuda.h"
#endif
#include "precond/precond.h"
#include "solver/engine/block.h"
#include "solver/krylov.h"
#include "spmv/spmv.h"

enum { CG = 1, BICGSTAB = 2 };

static uint64_t rs = 2024;
static double rnd(void)
{
    rs = rs * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rs >> 11) / 9007199254740992.0;
}

/* An SpMV backend wrapping the executor's default one that writes NaN into
 * y[0] from its nan_after-th call on. */
typedef struct nan_spmv {
    const struct spk_spmv_ops *inner_ops;
    void *inner;
    spk_exec *e;
    int calls, nan_after;
} nan_spmv;
static int nan_after_calls = 1000000;
static int nan_create(spk_exec *e, const spk_csr *A, const spk_spmv_opts *o, void **impl)
{
    nan_spmv *w = calloc(1, sizeof *w);
    w->nan_after = nan_after_calls;
    w->e = e;
    *impl = w;
    int st = spk_spmv_find("auto", e, &w->inner_ops, e->err);
    return st ? st : w->inner_ops->create(e, A, o, &w->inner);
}
static int nan_apply(void *impl, double alpha, const double *x, double beta, double *y)
{
    nan_spmv *w = impl;
    int st = w->inner_ops->apply(w->inner, alpha, x, beta, y);
    if (!st && ++w->calls >= w->nan_after) st = w->e->ops->fill(w->e, 1, NAN, y);
    return st;
}
static void nan_destroy(void *impl)
{
    nan_spmv *w = impl;
    if (w->inner_ops) w->inner_ops->destroy(w->inner);
    free(w);
}
static void nan_stats(const void *impl, spk_spmv_stats *s)
{
    (void)impl;
    memset(s, 0, sizeof *s);
}
static const struct spk_spmv_ops nan_ops_host = {"nan-after", "host", "test", nan_create, nan_apply,
                                                  NULL, nan_destroy, nan_stats, NULL, NULL};
static const struct spk_spmv_ops nan_ops_cuda = {"nan-after", "cuda", "test", nan_create, nan_apply,
                                                  NULL, nan_destroy, nan_stats, NULL, NULL};

static spk_exec *g_host, *g_dev; /* the host executor and the one under test */
static int g_vector_ops;         /* the suite runs with SPK_VECTOR_CLASSIC, _FUSED, _GRAPH and _BLOCK */
static int g_dev_apply;          /* spk_precond_opts.dev_apply of the runs (0: timed) */
static int g_sweeps_float;       /* spk_precond_opts.sweeps_float of the runs */
static int g_block_kind;         /* the last run's preconditioner in one block (spk_block_prec.kind, -1: none) */
static int g_block_wide;         /* ... its spk_block_prec.wide */

static void test_options(spk_options *o)
{
    spk_options_default(o);
    o->vector_ops = g_vector_ops;
}

/* Solve A x = b with the drivers on executor ex (b, x on the host; x holds
 * x0 on entry); aops NULL: the executor's default SpMV. */
static int run_on(spk_exec *ex, const spk_csr *A, const struct spk_spmv_ops *aops, const char *pc,
                  int method, const double *b, double *x, const spk_options *o, spk_result *res,
                  spk_err *err)
{
    spk_krylov k;
    memset(&k, 0, sizeof k);
    memset(res, 0, sizeof *res);
    int st, n = A->nrows;
    double *db = NULL, *dx = NULL;
    spk_precond_opts po;
    spk_precond_opts_default(&po);
    SPK_CHECK(st, spk_krylov_init(&k, ex, n, o->maxit, o->keep_history));
#ifdef SPK_TEST_CUDA
    /* the block iterations read A's CSR arrays (not through a test's own SpMV) */
    spk_csr dA;
    memset(&dA, 0, sizeof dA);
    if (o->vector_ops == SPK_VECTOR_BLOCK && ex != g_host && aops != &nan_ops_cuda) {
        SPK_CHECK(st, spk_cuda_csr_upload(ex, A, &dA, "the test matrix"));
        k.dA = &dA;
    }
#endif
    if (!aops) SPK_CHECK(st, spk_spmv_find("auto", ex, &aops, err));
    SPK_CHECK(st, aops->create(ex, A, NULL, &k.A));
    k.A_ops = aops;
    SPK_CHECK(st, spk_precond_find(pc, ex, &k.M_ops, err));
    po.dev_apply = g_dev_apply;
    po.sweeps_float = g_sweeps_float;
    SPK_CHECK(st, k.M_ops->create(ex, A, &po, &k.M));
    {
        spk_block_prec bp;
        if (ex != g_host) g_block_kind = k.M_ops->block && k.M_ops->block(k.M, &bp) ? bp.kind : -1;
        if (ex != g_host) g_block_wide = g_block_kind >= 0 && bp.wide;
    }
    db = to_dev(ex, b, n);
    dx = to_dev(ex, x, n);
    if (!db || !dx) {
        st = SPK_ERR_NOMEM;
        goto cleanup;
    }
    st = method == CG ? spk_cg(&k, db, dx, o, res) : spk_bicgstab(&k, db, dx, o, res);
    if (!st) st = from_dev(ex, x, dx, n);
    if (res->history) { /* the workspace goes away below: keep a copy for the caller */
        static double saved[20000];
        int len = res->history_len < 20000 ? res->history_len : 20000;
        memcpy(saved, res->history, (size_t)len * sizeof(double));
        res->history = saved;
        res->history_len = len;
    }
cleanup:
#ifdef SPK_TEST_CUDA
    spk_cuda_csr_free(&dA);
#endif
    if (k.A_ops && k.A) k.A_ops->destroy(k.A);
    if (k.M_ops && k.M) k.M_ops->destroy(k.M);
    if (k.e) spk_krylov_free(&k);
    if (db) ex->ops->free(ex, db);
    if (dx) ex->ops->free(ex, dx);
    return st;
}

/* The same on the executor under test. */
static int run(const spk_csr *A, const struct spk_spmv_ops *aops, const char *pc, int method,
               const double *b, double *x, const spk_options *o, spk_result *res, spk_err *err)
{
    return run_on(g_dev, A, aops, pc, method, b, x, o, res, err);
}

/* A generated problem with a random solution: b = A xs, x = 0. */
typedef struct problem {
    spk_csr A;
    int n;
    double *xs, *b, *x;
} problem;

/* A with rows (j + 1) n / (count + 1), j < count, each coupled to the `len`
 * rows after it (or to the last ones), both ways, by -0.01 each, its
 * diagonal and theirs raised to keep A diagonally dominant (and SPD where A
 * is): `count` rows of A, and of its upper triangle, about `len` entries
 * long among short ones. */
static void add_long_rows(spk_csr *A, int len, int count, spk_err *err)
{
    const int n = A->nrows;
    const size_t m = (size_t)A->nnz + 4 * (size_t)len * (size_t)count + 1;
    int *ri = malloc(m * sizeof *ri), *ci = malloc(m * sizeof *ci);
    double *v = malloc(m * sizeof *v);
    size_t k = 0;
    for (int i = 0; i < n; i++)
        for (int q = A->rowptr[i]; q < A->rowptr[i + 1]; q++, k++) {
            ri[k] = i;
            ci[k] = A->colind[q];
            v[k] = A->val[q];
        }
    for (int j = 0; j < count; j++) {
        const int r = (int)((long long)(j + 1) * n / (count + 1));
        for (int c = r + 1; c <= r + len && c < n; c++) {
            const int e[4][2] = {{r, c}, {c, r}, {c, c}, {r, r}};
            const double w[4] = {-0.01, -0.01, 0.01, 0.01};
            for (int t = 0; t < 4; t++, k++) {
                ri[k] = e[t][0];
                ci[k] = e[t][1];
                v[k] = w[t];
            }
        }
    }
    spk_csr B;
    CHECK_OK(spk_csr_from_coo(n, n, k, ri, ci, v, &B, err), err->msg);
    spk_csr_free(A);
    *A = B;
    free(ri);
    free(ci);
    free(v);
}

/* spec, or spec+long:L or spec+long:LxC (add_long_rows: C rows, 1 by default). */
static void problem_make(const char *spec, problem *p, spk_err *err)
{
    memset(p, 0, sizeof *p);
    char base[64];
    const char *plus = strstr(spec, "+long:");
    snprintf(base, sizeof base, "%.*s", plus ? (int)(plus - spec) : (int)strlen(spec), spec);
    CHECK_OK(spk_gen_spec(base, &p->A, err), err->msg);
    if (plus) {
        const char *x = strchr(plus + 6, 'x');
        add_long_rows(&p->A, atoi(plus + 6), x ? atoi(x + 1) : 1, err);
    }
    p->n = p->A.nrows;
    p->xs = malloc(((size_t)p->n + 1) * sizeof(double));
    p->b = malloc(((size_t)p->n + 1) * sizeof(double));
    p->x = calloc((size_t)p->n + 1, sizeof(double));
    for (int i = 0; i < p->n; i++) p->xs[i] = rnd() * 2 - 1;
    spk_csr_spmv(&p->A, 1.0, p->xs, 0.0, p->b);
}

static void problem_free(problem *p)
{
    free(p->xs);
    free(p->b);
    free(p->x);
    spk_csr_free(&p->A);
}

/* Known random solution: converge, true residual below rtol, error bounded. */
static void known_solution(const char *spec, int method, const char *pc)
{
    spk_err err;
    spk_err_clear(&err);
    problem P;
    problem_make(spec, &P, &err);
    spk_csr A = P.A;
    int n = P.n;
    double *xs = P.xs, *b = P.b, *x = P.x;
    spk_options o;
    test_options(&o);
    o.rtol = 1e-10;
    o.keep_history = 1;
    spk_result r;
    CHECK_OK(run(&A, NULL, pc, method, b, x, &o, &r, &err), err.msg);
    const char *mname = method == CG ? "cg" : "bicgstab";
    CHECK(r.reason == SPK_CONVERGED_RTOL, "%s %s+%s: reason %s after %d iterations", spec, mname, pc,
          spk_reason_name(r.reason), r.iterations);
    CHECK(r.relres <= o.rtol, "%s %s+%s: relres %g", spec, mname, pc, r.relres);
    CHECK(r.true_relres <= 10 * o.rtol, "%s %s+%s: true relres %g", spec, mname, pc, r.true_relres);
    double e = 0, xn = 0;
    for (int i = 0; i < n; i++) {
        e = fmax(e, fabs(x[i] - xs[i]));
        xn = fmax(xn, fabs(xs[i]));
    }
    CHECK(e <= 1e-6 * xn, "%s %s+%s: error %g", spec, mname, pc, e);
    CHECK(r.history_len == r.iterations + 1, "%s: history %d for %d iterations", spec, r.history_len,
          r.iterations);
    CHECK(r.history && r.history[0] == r.rnorm0 && r.history[r.iterations] == r.rnorm,
          "%s: history ends", spec);
    CHECK(r.t_spmv > 0 && r.t_vector > 0, "%s: times spmv %g vector %g", spec, r.t_spmv, r.t_vector);
    CHECK(strcmp(pc, "none") == 0 ? r.t_precond == 0 : r.t_precond > 0, "%s: precond time %g", spec,
          r.t_precond);
    printf("%-16s %-8s %-6s %4d iterations, true relres %.2e, error %.2e\n", spec, mname, pc,
           r.iterations, r.true_relres, e);
    if (g_vector_ops == SPK_VECTOR_BLOCK && g_dev != g_host) {
        /* one block (a cluster beyond its entries) runs the iterations with no preconditioner, with
         * Jacobi (the same entry limits) and with the device factor's sweeps; the others (cuSPARSE's
         * factor, ISAI), and the sweeps beyond a cluster's entries, go on with graphs */
        const int none = !strcmp(pc, "none") || !strcmp(pc, "jacobi"), sweeps = strstr(pc, "-sweeps") != NULL;
        const int blk = n <= SPK_BLOCK_ROWS && ((none && A.nnz <= SPK_BLOCK_CLUSTER_NNZ_MAX) ||
                                                (sweeps && A.nnz <= SPK_BLOCK_CLUSTER_NNZ_PREC_MAX));
        const int first = strcmp(mname, "cg") != 0; /* BiCGStab's first iteration: the ordinary path */
        CHECK(blk ? r.block_iterations >= r.iterations - first && r.graph_iterations == 0 : r.block_iterations == 0,
              "%s %s+%s: %d of %d iterations in one block, %d as graphs", spec, mname, pc, r.block_iterations,
              r.iterations, r.graph_iterations);
        /* beyond one block's entries, a cluster of blocks (sm_90) */
        const int one = A.nnz <= (none ? SPK_BLOCK_NNZ_MAX : SPK_BLOCK_NNZ_PREC_MAX);
        CHECK(!blk || (one ? r.block_cluster == 1 : r.block_cluster > 1 && r.block_cluster <= SPK_BLOCK_CLUSTER_MAX),
              "%s %s+%s (%d entries): the block iterations ran in %d blocks", spec, mname, pc, A.nnz,
              r.block_cluster);
    }
    if (g_dev != g_host) { /* the host run of the same problem */
        spk_result rh;
        memset(x, 0, (size_t)n * sizeof(double));
        CHECK_OK(run_on(g_host, &A, NULL, pc, method, b, x, &o, &rh, &err), err.msg);
        /* with the preconditioner's name: the device's sweeps may be timed against its exact
         * solves and either taken (iter_match.h) */
        char full[64];
        snprintf(full, sizeof full, "%s+%s", mname, pc);
        CHECK(iter_match(full, r.iterations, rh.iterations), "%s %s: %d iterations on %s, %d on the host", spec,
              full, r.iterations, TEST_DEVICE_NAME, rh.iterations);
        CHECK(rh.true_relres <= 10 * o.rtol, "%s: host true relres %g", spec, rh.true_relres);
        printf("%-16s %-8s %-6s %4d iterations on the host\n", spec, mname, pc, rh.iterations);
    }
    problem_free(&P);
}

/* Build a dense-specified small matrix. */
static void small(int n, const double *dense, spk_csr *A)
{
    spk_err err;
    int r[64], c[64];
    double v[64];
    int k = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (dense[i * n + j] != 0) {
                r[k] = i;
                c[k] = j;
                v[k++] = dense[i * n + j];
            }
    if (spk_csr_from_coo(n, n, (size_t)k, r, c, v, A, &err)) fprintf(stderr, "%s\n", err.msg);
}

static int g_restarts; /* spk_result.restarts of the last expect() */

/* Expect a given reason from a small system. */
static void expect(const char *what, int n, const double *dense, const double *b, const double *x0,
                   int method, const char *pc, int maxit, spk_reason want, int max_iters)
{
    spk_err err;
    spk_err_clear(&err);
    spk_csr A = {0};
    small(n, dense, &A);
    double x[8];
    for (int i = 0; i < n; i++) x[i] = x0 ? x0[i] : 0;
    spk_options o;
    test_options(&o);
    o.maxit = maxit;
    spk_result r;
    CHECK_OK(run(&A, NULL, pc, method, b, x, &o, &r, &err), err.msg);
    CHECK(r.reason == want, "%s: reason '%s', expected '%s' (iterations %d)", what,
          spk_reason_name(r.reason), spk_reason_name(want), r.iterations);
    CHECK(r.iterations <= max_iters, "%s: %d iterations", what, r.iterations);
    if (r.reason == SPK_CONVERGED_RTOL) {
        double res = 0, bn = 0; /* the answer is right: ||b - A x|| from the dense matrix */
        for (int i = 0; i < n; i++) {
            double ax = 0;
            for (int j = 0; j < n; j++) ax += dense[i * n + j] * x[j];
            res += (b[i] - ax) * (b[i] - ax);
            bn += b[i] * b[i];
        }
        CHECK(sqrt(res) <= 1e-6 * sqrt(bn), "%s: true residual %g", what, sqrt(res / bn));
    }
    g_restarts = r.restarts;
    spk_csr_free(&A);
}

static void breakdowns(void)
{
    const double diag_pm[] = {1, 0, 0, -1};
    const double b11[] = {1, 1};
    expect("CG on diag(1,-1)", 2, diag_pm, b11, NULL, CG, "none", 100, SPK_BREAKDOWN_INDEFINITE, 0);
    const double negjac[] = {-1, 0.5, 0, 0.5, 2, 0, 0, 0, 1};
    const double bj[] = {2, 0.1, 0.1};
    expect("CG+Jacobi with a negative diagonal", 3, negjac, bj, NULL, CG, "jacobi", 100,
           SPK_BREAKDOWN_PRECOND, 0);
    const double rot[] = {0, 1, -1, 0};
    const double b10[] = {1, 0};
    /* r0'v = 0 at the first step: a restart would rebuild the same r0, so none is tried */
    expect("BiCGStab on a rotation (r0'v = 0)", 2, rot, b10, NULL, BICGSTAB, "none", 100,
           SPK_BREAKDOWN_R0V, 1);
    CHECK(g_restarts == 0, "rotation: %d restarts", g_restarts);
    const double om[] = {-2, -2, -2, 0};
    expect("BiCGStab with t's = 0 (omega = 0)", 2, om, b10, NULL, BICGSTAB, "none", 100,
           SPK_BREAKDOWN_OMEGA, 1);
    const double rh[] = {-2, -2, -2, -2, -2, -1, 2, -2, -2};
    const double b100[] = {1, 0, 0};
    /* r0'r = 0 exactly at step 2 (s and t keep a zero first entry): the solver
     * restarts from r = b - A x with r0 = r and converges */
    expect("BiCGStab with r0'r = 0 at step 2", 3, rh, b100, NULL, BICGSTAB, "none", 100,
           SPK_CONVERGED_RTOL, 8);
    CHECK(g_restarts >= 1, "r0'r = 0 at step 2: no restart");
    const double rh2[] = {2, 1, 1, 1, 3, 0, -1, 0, 4}; /* a12 a21 + a13 a31 = 0 */
    expect("BiCGStab with r0'r = 0 at step 2 (nonsymmetric)", 3, rh2, b100, NULL, BICGSTAB, "none",
           100, SPK_CONVERGED_RTOL, 8);
    CHECK(g_restarts == 1, "rh2: %d restarts, expected 1", g_restarts);
    /* maxit */
    const double spd[] = {4, 1, 0, 1, 3, 1, 0, 1, 2};
    expect("CG with maxit 1", 3, spd, b100, NULL, CG, "none", 1, SPK_DIVERGED_MAXIT, 1);
    expect("BiCGStab with maxit 0", 3, spd, b100, NULL, BICGSTAB, "none", 0, SPK_DIVERGED_MAXIT, 0);
    /* zero right-hand side, NaN input, already converged */
    const double b0[] = {0, 0, 0};
    const double x0[] = {5, 5, 5};
    expect("CG with b = 0", 3, spd, b0, x0, CG, "ic0", 100, SPK_CONVERGED_ZERO_RHS, 0);
    expect("BiCGStab with b = 0", 3, spd, b0, x0, BICGSTAB, "ilu0", 100, SPK_CONVERGED_ZERO_RHS, 0);
    const double bnan[] = {1, NAN, 0};
    expect("CG with NaN in b", 3, spd, bnan, NULL, CG, "none", 100, SPK_INVALID_INPUT, 0);
    const double xnan[] = {0, 0, INFINITY};
    expect("BiCGStab with Inf in x0", 3, spd, b100, xnan, BICGSTAB, "none", 100, SPK_INVALID_INPUT, 0);
    /* x0 is the solution: 0 iterations */
    const double xe[] = {1, 1, 1}, be[] = {5, 5, 3};
    expect("CG from the exact solution", 3, spd, be, xe, CG, "jacobi", 100, SPK_CONVERGED_RTOL, 0);
    expect("BiCGStab from the exact solution", 3, spd, be, xe, BICGSTAB, "jacobi", 100,
           SPK_CONVERGED_RTOL, 0);
    /* CG and BiCGStab solve a 3x3 SPD system in at most 3 (exact arithmetic) steps */
    expect("CG 3x3", 3, spd, b100, NULL, CG, "none", 100, SPK_CONVERGED_RTOL, 4);
    expect("BiCGStab 3x3", 3, spd, b100, NULL, BICGSTAB, "none", 100, SPK_CONVERGED_RTOL, 4);
    /* ILU(0) of a tridiagonal is exact: one step */
    expect("BiCGStab+ILU(0) on a tridiagonal", 3, spd, b100, NULL, BICGSTAB, "ilu0", 100,
           SPK_CONVERGED_RTOL, 1);
    expect("CG+IC(0) on a tridiagonal", 3, spd, b100, NULL, CG, "ic0", 100, SPK_CONVERGED_RTOL, 1);
}

/* A residual that blows up stops the solve at dtol, not at maxit; dtol = 0
 * turns the test off.  CG on a strongly nonsymmetric matrix (p'Ap = p'p > 0,
 * so no breakdown) lets ||r|| grow without bound. */
static void divergence(void)
{
    spk_err err;
    spk_err_clear(&err);
    const int n = 6;
    double dense[36] = {0}, b[6], x[6];
    for (int i = 0; i < n; i++) {
        dense[i * n + i] = 1e-3;
        if (i + 1 < n) {
            dense[i * n + i + 1] = 50;
            dense[(i + 1) * n + i] = -50;
        }
        b[i] = 1.0 + i;
    }
    spk_csr A = {0};
    small(n, dense, &A);
    spk_options o;
    test_options(&o);
    CHECK(o.dtol == 1e8, "default dtol %g", o.dtol);
    o.maxit = 5000;
    o.dtol = 1e3;
    spk_result r;
    for (int i = 0; i < n; i++) x[i] = 0;
    CHECK_OK(run(&A, NULL, "none", CG, b, x, &o, &r, &err), err.msg);
    CHECK(r.reason == SPK_DIVERGED_DTOL && r.iterations < 5000 && r.relres > 1e3,
          "CG on a skew matrix with dtol 1e3: %s after %d iterations, relres %g", spk_reason_name(r.reason),
          r.iterations, r.relres);
    o.dtol = 0; /* off: the same solve runs on */
    for (int i = 0; i < n; i++) x[i] = 0;
    CHECK_OK(run(&A, NULL, "none", CG, b, x, &o, &r, &err), err.msg);
    CHECK(r.reason != SPK_DIVERGED_DTOL, "dtol 0 still stopped the solve (%s)", spk_reason_name(r.reason));
    spk_csr_free(&A);
}

/* NaN appearing mid-solve must stop the iteration at once, never run to maxit. */
static void nan_midway(void)
{
    spk_err err;
    spk_err_clear(&err);
    spk_csr A = {0};
    CHECK_OK(spk_gen_poisson2d5(20, &A, &err), err.msg);
    double *b = malloc(400 * sizeof(double)), *x = calloc(400, sizeof(double));
    for (int i = 0; i < 400; i++) b[i] = 1;
    spk_options o;
    test_options(&o);
    spk_result r;
    for (int method = CG; method <= BICGSTAB; method++) {
        nan_after_calls = 4;
        memset(x, 0, 400 * sizeof(double));
        CHECK_OK(run(&A, g_dev == g_host ? &nan_ops_host : &nan_ops_cuda, "jacobi", method, b, x, &o, &r, &err), err.msg);
        CHECK(r.reason == SPK_DIVERGED_NAN, "method %d: reason %s", method, spk_reason_name(r.reason));
        CHECK(r.iterations <= 4, "method %d: %d iterations after NaN", method, r.iterations);
    }
    /* NaN only in the final true residual (the last SpMV: 1 start + k + 1):
     * the recurrence converged, but the answer must not be reported as such
     * (counted calls: a graph replays its SpMV without calling apply) */
    if (g_vector_ops >= SPK_VECTOR_GRAPH && g_dev != g_host) goto rest;
    nan_after_calls = 1000000;
    memset(x, 0, 400 * sizeof(double));
    CHECK_OK(run(&A, g_dev == g_host ? &nan_ops_host : &nan_ops_cuda, "jacobi", CG, b, x, &o, &r, &err), err.msg);
    CHECK(r.reason == SPK_CONVERGED_RTOL, "CG without NaN: %s", spk_reason_name(r.reason));
    nan_after_calls = r.iterations + 2;
    memset(x, 0, 400 * sizeof(double));
    CHECK_OK(run(&A, g_dev == g_host ? &nan_ops_host : &nan_ops_cuda, "jacobi", CG, b, x, &o, &r, &err), err.msg);
    CHECK(r.reason == SPK_DIVERGED_NAN && !isfinite(r.true_relres),
          "NaN in the final residual: reason %s, true relres %g", spk_reason_name(r.reason), r.true_relres);
rest:
    /* atol: a loose absolute tolerance stops first */
    o.atol = 1e3;
    o.rtol = 0;
    nan_after_calls = 1000000;
    memset(x, 0, 400 * sizeof(double));
    CHECK_OK(run(&A, NULL, "none", CG, b, x, &o, &r, &err), err.msg);
    CHECK(r.reason == SPK_CONVERGED_ATOL && r.iterations == 0, "atol: %s %d", spk_reason_name(r.reason),
          r.iterations);
    free(b);
    free(x);
    spk_csr_free(&A);
}

/* The monitor sees every iteration, in order. */
static int mon_calls, mon_last = -1, mon_ordered = 1;
static void mon(void *user, int it, double rnorm, double relres)
{
    (void)user;
    if (it != mon_last + 1 || !(rnorm >= 0) || !(relres >= 0)) mon_ordered = 0;
    mon_last = it;
    mon_calls++;
}

static void monitor(void)
{
    spk_err err;
    spk_err_clear(&err);
    spk_csr A = {0};
    CHECK_OK(spk_gen_poisson2d5(10, &A, &err), err.msg);
    double b[100], x[100] = {0};
    for (int i = 0; i < 100; i++) b[i] = i % 3;
    spk_options o;
    test_options(&o);
    o.monitor = mon;
    mon_calls = 0, mon_last = -1, mon_ordered = 1;
    spk_result r;
    CHECK_OK(run(&A, NULL, "ic0", CG, b, x, &o, &r, &err), err.msg);
    CHECK(mon_calls == r.iterations + 1 && mon_ordered, "monitor: %d calls for %d iterations",
          mon_calls, r.iterations);
    CHECK(r.history_len == 0 && r.history == NULL, "history without keep_history");
    spk_csr_free(&A);
}

/* Every SpMV format of the device solves the same problem in the same number
 * of iterations as the default format (to rounding). */
static void every_format(const char *spec, int method, const char *pc)
{
    spk_err err;
    spk_err_clear(&err);
    problem P;
    problem_make(spec, &P, &err);
    spk_csr A = P.A;
    int n = P.n;
    double *b = P.b, *x = P.x;
    spk_options o;
    test_options(&o);
    spk_result base, r;
    CHECK_OK(run(&A, NULL, pc, method, b, x, &o, &base, &err), err.msg);
    const char *mname = method == CG ? "cg" : "bicgstab";
    for (const struct spk_spmv_ops *const *p = spk_spmv_list(); *p; p++) {
        if (strcmp((*p)->exec, g_dev->ops->name) != 0) continue;
        memset(x, 0, (size_t)n * sizeof(double));
        CHECK_OK(run(&A, *p, pc, method, b, x, &o, &r, &err), err.msg);
        CHECK(r.reason == SPK_CONVERGED_RTOL && r.true_relres <= 10 * o.rtol, "%s %s+%s with %s: %s, true %g",
              spec, mname, pc, (*p)->name, spk_reason_name(r.reason), r.true_relres);
        CHECK(iter_match(mname, r.iterations, base.iterations), "%s %s+%s: %d iterations with %s, %d with %s",
              spec, mname, pc, r.iterations, (*p)->name, base.iterations, TEST_FORMAT);
    }
    printf("%-16s %-8s %-6s every format within bounds of %d iterations\n", spec, mname, pc, base.iterations);
    problem_free(&P);
}

/* The fused vector steps against the plain operations on one problem: the
 * same outcome; on the host the same iterations and the same x to the bit
 * (the fused steps do the plain operations' arithmetic in their order;
 * where the compiler may contract a*b+c into one rounding, within 1e-13);
 * on the GPU (other summation orders) iterations within iter_match's bound
 * and the true residual met.  The fused solve's times: phases and t_sync
 * non-negative, their sum within the loop's wall time. */
static void fused_vs_classic(const char *spec, int method, const char *pc)
{
    spk_err err;
    spk_err_clear(&err);
    problem P;
    problem_make(spec, &P, &err);
    const int n = P.n;
    const char *mname = method == CG ? "cg" : "bicgstab";
    spk_options o;
    spk_options_default(&o);
    o.rtol = 1e-10;
    spk_result rc, rf;
    double *xc = calloc((size_t)n, sizeof(double)), *xf = calloc((size_t)n, sizeof(double));
    CHECK_OK(run(&P.A, NULL, pc, method, P.b, xc, &o, &rc, &err), err.msg);
    o.vector_ops = SPK_VECTOR_FUSED;
    const double t0 = spk_time_now();
    CHECK_OK(run(&P.A, NULL, pc, method, P.b, xf, &o, &rf, &err), err.msg);
    const double wall = spk_time_now() - t0; /* setup and all: the solve's phases fit in it */
    CHECK(rc.reason == rf.reason, "%s %s+%s: classic %s, fused %s", spec, mname, pc, spk_reason_name(rc.reason),
          spk_reason_name(rf.reason));
    CHECK(rf.true_relres <= 10 * o.rtol, "%s %s+%s fused: true relres %g", spec, mname, pc, rf.true_relres);
    if (g_dev == g_host) {
        double d = 0, xn = 0;
        for (int i = 0; i < n; i++) d = fmax(d, fabs(xc[i] - xf[i])), xn = fmax(xn, fabs(xc[i]));
        CHECK(rc.iterations == rf.iterations && rc.restarts == rf.restarts,
              "%s %s+%s: %d iterations (%d restarts) classic, %d (%d) fused", spec, mname, pc, rc.iterations,
              rc.restarts, rf.iterations, rf.restarts);
#if (defined(__x86_64__) || defined(_M_X64)) && !defined(__FMA__)
        CHECK(memcmp(xc, xf, (size_t)n * sizeof(double)) == 0 && rc.rnorm == rf.rnorm,
              "%s %s+%s: fused x differs from classic by %g (bitwise expected)", spec, mname, pc, d);
#else
        CHECK(d <= 1e-13 * xn, "%s %s+%s: fused x differs from classic by %g", spec, mname, pc, d);
#endif
    } else {
        CHECK(iter_match(mname, rf.iterations, rc.iterations), "%s %s+%s: %d iterations classic, %d fused", spec,
              mname, pc, rc.iterations, rf.iterations);
    }
    CHECK(rf.t_spmv > 0 && rf.t_vector > 0 && rf.t_sync >= 0 &&
              rf.t_spmv + rf.t_precond + rf.t_vector + rf.t_sync <= wall,
          "%s fused times: spmv %g precond %g vector %g sync %g in %g s", spec, rf.t_spmv, rf.t_precond, rf.t_vector,
          rf.t_sync, wall);
    CHECK(strcmp(pc, "none") == 0 ? rf.t_precond == 0 : rf.t_precond > 0, "%s fused: precond time %g", spec,
          rf.t_precond);
    printf("%-16s %-8s %-6s classic %4d, fused %4d iterations (%s)\n", spec, mname, pc, rc.iterations,
           rf.iterations, TEST_DEVICE_NAME);
    free(xc);
    free(xf);
    problem_free(&P);
}

/* spk_block_lanes, the lanes a row of the block iterations' product for CG
 * without a preconditioner or with Jacobi: the model's choices on shapes
 * whose costs differ (by its sums: short rows, many of them, want few lanes
 * and fewer rounds; a few long rows want wide lanes; one long row among
 * short ones raises them), a power of two in [2, 32], none for bad input. */
static void block_lanes(void)
{
    enum { N = 16384 };
    int *rp = malloc((N + 1) * sizeof(int));
    if (!rp) return;
    CHECK(spk_block_lanes(0, rp, 1) == 0 && spk_block_lanes(10, NULL, 1) == 0 &&
              spk_block_lanes(10, rp, 0) == 0 && spk_block_lanes(10, rp, SPK_BLOCK_CLUSTER_MAX + 1) == 0,
          "spk_block_lanes: bad input gives 0");
    /* 16,384 rows of 4: 2 lanes in 32 rounds (2 each) against 4 lanes in 64 */
    for (int i = 0; i <= N; i++) rp[i] = 4 * i;
    const int many_short = spk_block_lanes(N, rp, 1);
    CHECK(many_short == 2, "16384 rows of 4 entries, one block: %d lanes (2 expected)", many_short);
    /* 64 rows of 64: 16 lanes, one round of 4 loads a lane (cost 3), against 32 lanes in 2 rounds (4) */
    for (int i = 0; i <= 64; i++) rp[i] = 64 * i;
    const int few_long = spk_block_lanes(64, rp, 1);
    CHECK(few_long == 16, "64 rows of 64 entries, one block: %d lanes (16 expected)", few_long);
    /* 2,048 rows of 4, then the first with 512 entries */
    for (int i = 0; i <= 2048; i++) rp[i] = 4 * i;
    const int without = spk_block_lanes(2048, rp, 1);
    for (int i = 1; i <= 2048; i++) rp[i] = 512 + 4 * (i - 1);
    const int with = spk_block_lanes(2048, rp, 1);
    CHECK(without == 2 && with == 8, "2048 rows of 4: %d lanes; with one of 512: %d (2 and 8 expected)", without,
          with);
    /* the same rows over a cluster: more threads, the fewest rounds at wider lanes */
    for (int b = 1; b <= SPK_BLOCK_CLUSTER_MAX; b *= 2) {
        const int l = spk_block_lanes(2048, rp, b);
        CHECK(l >= 2 && l <= 32 && (l & (l - 1)) == 0, "%d blocks: %d lanes, not a power of two in [2, 32]", b, l);
    }
    free(rp);
}

/* SPK_VECTOR_BLOCK on the GPU: each way a block applies the device factor
 * (sliced sweeps, sweeps on the factor as stored, exact solves) and Jacobi,
 * checked by known_solution against the host and the known answer. */
static void block_kinds(void)
{
    struct {
        const char *spec, *pc;
        int method, dev_apply, kind, single;
    } cases[] = {
        {"poisson3d-7:12", "ic0-sweeps", CG, 2, SPK_BLOCK_SWEEPS, 0},       /* 1 + APPLY_SMALL_SWEEPS */
        {"convdiff3d-7:12", "ilu0-sweeps", BICGSTAB, 2, SPK_BLOCK_SWEEPS, 0},
        {"poisson3d-7:12", "ic0-sweeps", CG, 3, SPK_BLOCK_SOLVE, 0},        /* 1 + APPLY_SMALL_SOLVE */
        {"convdiff3d-7:12", "ilu0-sweeps", BICGSTAB, 3, SPK_BLOCK_SOLVE, 0},
        {"powerlaw:1000:2.2", "ilu0-sweeps", BICGSTAB, 1, SPK_BLOCK_SWEEPS_CSR, 0}, /* rows too uneven to slice */
        /* the factor's values in float, in one block and in a cluster (27,136 entries) */
        {"poisson3d-7:12", "ic0-sweeps", CG, 2, SPK_BLOCK_SWEEPS, 1},
        {"poisson3d-7:16", "ic0-sweeps", CG, 2, SPK_BLOCK_SWEEPS, 1},
        {"convdiff3d-7:16", "ilu0-sweeps", BICGSTAB, 2, SPK_BLOCK_SWEEPS, 1},
        /* a cluster's sweeps on the factor as stored: at 56,387 entries every block keeps its rows of
         * both triangles in its shared memory (about 43 KB a triangle); at 110,549 entries 7 of the 16
         * blocks have rows of more than 80 KB a triangle and read the second from global memory
         * (block_kernels.cu, stage: 160 KB) */
        {"powerlaw:4000:2.2", "ilu0-sweeps", BICGSTAB, 1, SPK_BLOCK_SWEEPS_CSR, 0},
        {"powerlaw:8000:2.2", "ilu0-sweeps", BICGSTAB, 1, SPK_BLOCK_SWEEPS_CSR, 0},
        /* Jacobi, in one block and in a cluster (39,304 and 53,600 entries) */
        {"poisson3d-7:12", "jacobi", CG, 0, SPK_BLOCK_DIAG, 0},
        {"convdiff3d-7:12", "jacobi", BICGSTAB, 0, SPK_BLOCK_DIAG, 0},
        {"poisson3d-27:12", "jacobi", CG, 0, SPK_BLOCK_DIAG, 0},
        {"convdiff3d-7:20", "jacobi", BICGSTAB, 0, SPK_BLOCK_DIAG, 0},
        /* a row of 70 entries in the upper triangle among rows of at most 3: sliced, and in one
         * block (the kernels for wide slices) its slice's other rows stop at their own entries and
         * it is a warp's; in a cluster (27,276 entries) every row of the slice takes 70 */
        {"poisson2d-5:40+long:70", "ic0-sweeps", CG, 2, SPK_BLOCK_SWEEPS, 0},
        {"convdiff3d-7:12+long:70", "ilu0-sweeps", BICGSTAB, 2, SPK_BLOCK_SWEEPS, 1},
        {"convdiff3d-7:16+long:70", "ilu0-sweeps", BICGSTAB, 2, SPK_BLOCK_SWEEPS, 0},
        /* 8 such rows: too much padding to slice; in a cluster (19,152 entries, 4 lanes a row,
         * 343 of its 512 warps with rows) the idle warps take them */
        {"convdiff3d-7:14+long:70x8", "ilu0-sweeps", BICGSTAB, 1, SPK_BLOCK_SWEEPS_CSR, 0},
    };
    /* One block's sweeps give rows of more than SPK_DEV_LONG_ROW entries a triangle a warp
     * each.  On the factor as stored: powerlaw:1000 has such rows in both triangles (ILU(0)'s
     * pattern is A's), and shorter rows too.  On a sliced copy (spk_block_prec.wide): the +long
     * rows, in the upper triangle only.  A cluster's sweeps on the factor as stored give rows of
     * more than SPK_DEV_CLUSTER_LONG times its lanes a row (4 at 2,744 rows) to its idle warps
     * (169) where they take all: the 8 +long rows, in the upper triangle only. */
    {
        const struct {
            const char *spec;
            int over, lower; /* the length to pass; whether the lower triangle has such rows too */
            int most;        /* the most such rows in the upper triangle (0: any) */
        } shapes[] = {{"powerlaw:1000:2.2", SPK_DEV_LONG_ROW, 1, 0},
                      {"convdiff3d-7:14+long:70x8", SPK_DEV_CLUSTER_LONG * 4, 0, 8},
                      {"poisson2d-5:40+long:70", SPK_DEV_LONG_ROW, 0, 1},
                      {"convdiff3d-7:12+long:70", SPK_DEV_LONG_ROW, 0, 1}};
        for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++) {
            spk_err err;
            problem P;
            problem_make(shapes[c].spec, &P, &err);
            const spk_csr *A = &P.A;
            int longer[2] = {0, 0}, shorter[2] = {0, 0}, row_max = 0;
            for (int i = 0; i < A->nrows; i++) {
                int cnt[2] = {0, 0};
                for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
                    if (A->colind[k] != i) cnt[A->colind[k] > i]++;
                for (int t = 0; t < 2; t++) (cnt[t] > shapes[c].over ? longer : shorter)[t]++;
                if (A->rowptr[i + 1] - A->rowptr[i] > row_max) row_max = A->rowptr[i + 1] - A->rowptr[i];
            }
            CHECK((longer[0] > 0) == shapes[c].lower && longer[1] > 0 && shorter[0] > 0 && shorter[1] > 0 &&
                      (shapes[c].lower || row_max > 70) && (!shapes[c].most || longer[1] == shapes[c].most),
                  "%s: rows of more than %d entries %d and %d, of at most %d %d and %d (lower, upper), "
                  "longest %d",
                  shapes[c].spec, shapes[c].over, longer[0], longer[1], shapes[c].over, shorter[0], shorter[1],
                  row_max);
            problem_free(&P);
        }
    }
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        g_dev_apply = cases[c].dev_apply;
        g_sweeps_float = cases[c].single;
        known_solution(cases[c].spec, cases[c].method, cases[c].pc);
        CHECK(g_block_kind == cases[c].kind, "%s %s (apply %d%s): block kind %d, want %d", cases[c].spec,
              cases[c].pc, cases[c].dev_apply, cases[c].single ? ", float values" : "", g_block_kind,
              cases[c].kind);
        /* long rows are flagged where the factor is built on the host (up to 32,768 entries): the
         * +long ones, powerlaw:1000's */
        CHECK(g_block_wide == (strstr(cases[c].spec, "+long") != NULL || !strcmp(cases[c].spec, "powerlaw:1000:2.2")),
              "%s %s: long rows flagged %d", cases[c].spec, cases[c].pc, g_block_wide);
    }
    g_dev_apply = 0;
    g_sweeps_float = 0;
}

int main(int argc, char **argv)
{
    static spk_err herr, derr;
    if (argc > 2 || (argc == 2 && check_parts(argv[1]) != 0)) {
        fprintf(stderr, "usage: %s [I/N]   (I/N: every N-th case from the I-th)\n", argv[0]);
        return 2;
    }
    if (spk_exec_host_create(&herr, &g_host)) return 1;
    g_dev = test_exec(&derr);
#ifndef SPK_TEST_CUDA
    spk_exec_destroy(g_dev);
    g_dev = g_host;
#endif
    if (CASE()) block_lanes();
    for (g_vector_ops = SPK_VECTOR_CLASSIC; g_vector_ops <= SPK_VECTOR_BLOCK; g_vector_ops++) {
        printf("-- vector operations: %s\n", g_vector_ops == SPK_VECTOR_BLOCK   ? "block"
                                              : g_vector_ops == SPK_VECTOR_GRAPH ? "graph"
                                              : g_vector_ops == SPK_VECTOR_FUSED ? "fused"
                                                                                 : "classic");
        if (CASE()) known_solution("poisson2d-5:24", CG, "none");
        if (CASE()) known_solution("poisson2d-5:24", CG, "jacobi");
        if (CASE()) known_solution("poisson2d-5:24", CG, "ic0");
        if (CASE()) known_solution("poisson2d-5:24", BICGSTAB, "none");
        if (CASE()) known_solution("poisson2d-5:24", BICGSTAB, "jacobi");
        if (CASE()) known_solution("poisson2d-5:24", BICGSTAB, "ilu0");
        if (CASE()) known_solution("poisson3d-7:12", CG, "ic0");
        if (CASE()) known_solution("poisson3d-27:8", CG, "ic0");
        if (CASE()) known_solution("convdiff3d-7:12", BICGSTAB, "none");
        if (CASE()) known_solution("convdiff3d-7:12", BICGSTAB, "jacobi");
        if (CASE()) known_solution("convdiff3d-7:12", BICGSTAB, "ilu0");
        if (CASE()) known_solution("convdiff3d-7:10:1000", BICGSTAB, "ilu0");
        /* IC(0) / ILU(0) with 3 Jacobi sweeps per triangular solve (the default of spk_precond_opts) */
        if (CASE()) known_solution("poisson3d-7:12", CG, "ic0-sweeps");
        if (CASE()) known_solution("poisson3d-27:8", CG, "ic0-sweeps");
        if (CASE()) known_solution("convdiff3d-7:12", BICGSTAB, "ilu0-sweeps");
        /* more entries than one block takes (27,136-53,600): in block mode a cluster of blocks */
        if (CASE()) known_solution("poisson3d-27:12", CG, "none");
        if (CASE()) known_solution("poisson3d-27:12", CG, "ic0-sweeps");
        if (CASE()) known_solution("poisson3d-7:16", CG, "ic0-sweeps");
        if (CASE()) known_solution("convdiff3d-7:20", BICGSTAB, "none");
        if (CASE()) known_solution("convdiff3d-7:16", BICGSTAB, "ilu0-sweeps");
        /* ... and with the factors' approximate inverses */
        if (CASE()) known_solution("poisson3d-7:12", CG, "ic0-isai");
        if (CASE()) known_solution("convdiff3d-7:12", BICGSTAB, "ilu0-isai");
        if (CASE()) every_format("poisson3d-7:10", CG, "ic0");
        if (CASE()) every_format("convdiff3d-7:10", BICGSTAB, "ilu0");
        if (CASE()) every_format("poisson2d-5:30", BICGSTAB, "jacobi");
        if (CASE()) breakdowns();
        if (CASE()) nan_midway();
        if (CASE()) divergence();
        if (CASE()) monitor();
        if (g_vector_ops == SPK_VECTOR_BLOCK && g_dev != g_host && CASE()) block_kinds();
    }
    g_vector_ops = SPK_VECTOR_CLASSIC;
    if (CASE()) fused_vs_classic("poisson2d-5:24", CG, "none");
    if (CASE()) fused_vs_classic("poisson2d-5:24", CG, "ic0");
    if (CASE()) fused_vs_classic("poisson3d-27:8", CG, "jacobi");
    if (CASE()) fused_vs_classic("convdiff3d-7:12", BICGSTAB, "none");
    if (CASE()) fused_vs_classic("convdiff3d-7:12", BICGSTAB, "ilu0");
    if (CASE()) fused_vs_classic("poisson2d-5:24", BICGSTAB, "jacobi");
    if (g_dev != g_host) spk_exec_destroy(g_dev);
    spk_exec_destroy(g_host);
    return check_exit();
}

/* test_parfactor.c -- IC(0) and ILU(0) by fixed-point sweeps (precond/
 * parfactor.h) against the exact factorization on the host:
 *   - run to a standstill, the sweeps give the exact factor to rounding
 *     (generated grids, bands, random diagonally dominant matrices);
 *   - on a deep, diagonally dominant band a few sweeps bring the residual
 *     down sweep after sweep, close but not yet exact;
 *   - the default stopping gives CG / BiCGStab iteration counts close to the
 *     exact factor's (through the library's API, the keys set by name);
 *   - a refactor starts from the last factor (fewer sweeps for the same or
 *     nearby values);
 *   - a bad pivot fails at the exact factorization's row with its report,
 *     and the shift policy picks the same alpha;
 *   - the keys are parsed, and refused out of range;
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/csr.h"
#include "core/exec.h"
#include "io/gen.h"
#include "precond/factor.h"
#include "precond/parfactor.h"
#include "precond/precond.h"
#include "spk.h"

static spk_exec *g_host;

/* xorshift64*: a uniform double in [0, 1). */
static double rnd(unsigned long long *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/* A band of half-width w: a_ii = diag, off-diagonal entries in [-1, 0)
 * (sym: a_ij = a_ji), every `hole`-th off-diagonal left out (0: none). */
static void band(int n, int w, double diag, int sym, int hole, unsigned long long seed, spk_csr *A)
{
    spk_err e = {0, ""};
    CHECK_OK(spk_csr_alloc(A, n, n, n * (2 * w + 1), &e), e.msg);
    int q = 0;
    for (int i = 0; i < n; i++) {
        for (int j = i - w; j <= i + w; j++) {
            if (j < 0 || j >= n) continue;
            const int lo = i < j ? i : j, hi = i < j ? j : i;
            if (j != i && hole && (lo * 7 + hi * 3) % hole == 0) continue;
            unsigned long long s = seed + (unsigned long long)(sym ? lo * 131071LL + hi : i * 131071LL + j) * 2654435761ULL;
            A->colind[q] = j;
            A->val[q++] = j == i ? diag : -0.1 - 0.9 * rnd(&s);
        }
        A->rowptr[i + 1] = q;
    }
    A->nnz = q;
}

/* The host impl of "ilu0" / "ic0" for A with the factorization's keys. */
static int make(const spk_csr *A, int ic, int how, int sweeps, double tol, int shift, void **M)
{
    spk_precond_opts o;
    spk_precond_opts_default(&o);
    o.factorization = how;
    o.factor_sweeps = sweeps;
    o.factor_tol = tol;
    o.allow_shift = shift;
    return (ic ? &spk_precond_ic0_host : &spk_precond_ilu0_host)->create(g_host, A, &o, M);
}

static spk_precond_factor_info info_of(void *M)
{
    spk_precond_factor_info in;
    memset(&in, 0, sizeof in);
    CHECK_OK(spk_factor_info_of(M, &in), "factor_info");
    return in;
}

/* max |F1 - F2| / max |F1| over the pattern. */
static double factor_diff(void *M1, void *M2)
{
    const spk_csr *F1, *F2;
    CHECK_OK(spk_factor_inspect(M1, &F1, NULL), "inspect");
    CHECK_OK(spk_factor_inspect(M2, &F2, NULL), "inspect");
    double d = 0, m = 0;
    for (int q = 0; q < F1->nnz; q++) {
        d = fmax(d, fabs(F1->val[q] - F2->val[q]));
        m = fmax(m, fabs(F1->val[q]));
    }
    return m > 0 ? d / m : d;
}

/* Swept to a standstill, the iterative factor is the exact one. */
static void limit_case(const char *what, const spk_csr *A, int ic)
{
    void *X = NULL, *I = NULL;
    CHECK_OK(make(A, ic, SPK_FACTORIZATION_EXACT, 1, 0, 1, &X), g_host->err->msg);
    CHECK_OK(make(A, ic, SPK_FACTORIZATION_ITERATIVE, SPK_FACTOR_SWEEPS_MAX, 0, 1, &I), g_host->err->msg);
    if (X && I) {
        const spk_precond_factor_info in = info_of(I), ex = info_of(X);
        const double d = factor_diff(X, I);
        CHECK(d <= 1e-12, "%s %s: the iterative factor is %g from the exact one after %d sweeps", what,
              ic ? "IC(0)" : "ILU(0)", d, in.sweeps);
        CHECK(in.iterative == 1 && ex.iterative == 0 && in.sweeps < SPK_FACTOR_SWEEPS_MAX && in.residual < 1e-12,
              "%s: info %d/%d, %d sweeps, residual %g", what, in.iterative, ex.iterative, in.sweeps, in.residual);
        CHECK(spk_precond_ic0_host.shift(X) == spk_precond_ic0_host.shift(I), "%s: shifts %g and %g", what,
              spk_precond_ic0_host.shift(X), spk_precond_ic0_host.shift(I));
        printf("  %-22s %s: exact after %d sweeps\n", what, ic ? "IC(0) " : "ILU(0)", in.sweeps);
    }
    spk_precond_ic0_host.destroy(X);
    spk_precond_ic0_host.destroy(I);
}

static void test_limit(void)
{
    spk_err e;
    spk_csr P = {0}, C = {0}, B = {0}, S = {0}, R = {0};
    CHECK_OK(spk_gen_poisson3d7(8, &P, &e), e.msg);
    CHECK_OK(spk_gen_convdiff3d7(8, 50.0, &C, &e), e.msg);
    CHECK_OK(spk_gen_spec("poisson2d-5:20", &R, &e), e.msg);
    band(300, 6, 8.0, 0, 5, 11, &B);
    band(300, 6, 8.0, 1, 4, 12, &S);
    limit_case("poisson3d-7:8", &P, 1);
    limit_case("poisson3d-7:8", &P, 0);
    limit_case("convdiff3d-7:8", &C, 0);
    limit_case("poisson2d-5:20", &R, 1);
    limit_case("band 300/6", &B, 0);
    limit_case("sym band 300/6", &S, 1);
    limit_case("sym band 300/6", &S, 0);
    /* a band too weakly dominant for IC(0) without a shift: the same alpha */
    spk_csr W = {0};
    band(200, 4, 2.5, 1, 0, 13, &W);
    limit_case("weak sym band", &W, 1);
    spk_csr *all[] = {&P, &C, &B, &S, &R, &W};
    for (int k = 0; k < 6; k++) spk_csr_free(all[k]);
}

/* A few sweeps on a deep band: the residual falls each sweep, and is small
 * while the factor is not yet the exact one. */
static void test_few_sweeps(void)
{
    spk_csr B = {0};
    band(5000, 8, 12.0, 0, 0, 21, &B);
    void *X = NULL;
    CHECK_OK(make(&B, 0, SPK_FACTORIZATION_EXACT, 1, 0, 1, &X), g_host->err->msg);
    double last = INFINITY;
    for (int s = 1; s <= 6; s++) {
        void *I = NULL;
        CHECK_OK(make(&B, 0, SPK_FACTORIZATION_ITERATIVE, s, 0, 1, &I), g_host->err->msg);
        if (!I) break;
        const spk_precond_factor_info in = info_of(I);
        const double d = factor_diff(X, I);
        printf("  band 5000/8 ILU(0): %d sweeps, residual %.3g, from exact %.3g\n", s, in.residual, d);
        CHECK(in.sweeps == s && in.residual < last, "sweep %d: residual %g after %g", s, in.residual, last);
        if (s >= 3) CHECK(in.residual < 1e-2 && d > 0, "sweep %d: residual %g, from exact %g", s, in.residual, d);
        last = in.residual;
        spk_precond_ilu0_host.destroy(I);
    }
    spk_precond_ilu0_host.destroy(X);
    spk_csr_free(&B);
}

/* Iterations of the library's solve of A x = 1 with the keys given. */
static int solve_its(const spk_csr *A, spk_solver_kind kind, spk_precond_kind pk, const char *keys)
{
    spk_context *ctx = NULL;
    spk_matrix *M = NULL;
    spk_solver *s = NULL;
    spk_options o;
    spk_result r;
    char msg[256];
    int its = -1;
    spk_options_default(&o);
    CHECK_OK(spk_options_parse(&o, keys, msg, sizeof msg), msg);
    double *b = malloc((size_t)A->nrows * sizeof(double)), *x = calloc((size_t)A->nrows, sizeof(double));
    for (int i = 0; i < A->nrows; i++) b[i] = 1.0;
    CHECK_OK(spk_context_create(&ctx, SPK_DEVICE_HOST), "context");
    CHECK_OK(spk_matrix_from_csr(ctx, A->nrows, A->ncols, A->rowptr, A->colind, A->val, &M), spk_last_error(ctx));
    CHECK_OK(spk_solver_create(ctx, M, kind, pk, &o, &s), spk_last_error(ctx));
    if (s && spk_solve(s, b, x, &r) == SPK_OK) its = r.iterations;
    spk_solver_destroy(s);
    spk_matrix_destroy(M);
    spk_context_destroy(ctx);
    free(b);
    free(x);
    return its;
}

/* The default stopping against the exact factor, in iterations. */
static void test_iterations(void)
{
    spk_err e;
    const char *spec[] = {"poisson3d-7:20", "convdiff3d-7:20", "poisson2d-5:60"};
    for (int k = 0; k < 4; k++) {
        spk_csr A = {0};
        if (k < 3) {
            CHECK_OK(spk_gen_spec(spec[k], &A, &e), e.msg);
        } else {
            band(20000, 40, 40.0, 0, 3, 31, &A);
        }
        const int sym = k != 1 && k != 3;
        const spk_solver_kind sk = sym ? SPK_SOLVER_CG : SPK_SOLVER_BICGSTAB;
        const spk_precond_kind pk = sym ? SPK_PRECOND_IC0 : SPK_PRECOND_ILU0;
        const int ex = solve_its(&A, sk, pk, "factorization=exact");
        const int it = solve_its(&A, sk, pk, "factorization=iterative");
        const int one = solve_its(&A, sk, pk, "factorization=iterative, factor-sweeps=1, factor-tol=0");
        printf("  %-16s iterations: exact %d, iterative (defaults) %d, one sweep %d\n", k < 3 ? spec[k] : "band 20000/40",
               ex, it, one);
        CHECK(ex > 0 && it > 0 && it <= ex + 2 + ex / 10, "%s: %d iterations with the sweeps, %d exact",
              k < 3 ? spec[k] : "band", it, ex);
        spk_csr_free(&A);
    }
}

/* A refactor starts from the last factor. */
static void test_refactor(void)
{
    spk_csr B = {0}, B2 = {0};
    band(3000, 6, 10.0, 1, 0, 41, &B);
    band(3000, 6, 10.0, 1, 0, 41, &B2);
    for (int q = 0; q < B2.nnz; q++) B2.val[q] *= 1.0 + 1e-3 * ((q % 7) - 3) / 3.0;
    for (int ic = 0; ic < 2; ic++) {
        const struct spk_precond_ops *ops = ic ? &spk_precond_ic0_host : &spk_precond_ilu0_host;
        void *I = NULL;
        CHECK_OK(make(&B, ic, SPK_FACTORIZATION_ITERATIVE, 50, 1e-10, 1, &I), g_host->err->msg);
        if (!I) continue;
        const spk_csr *F0;
        CHECK_OK(spk_factor_inspect(I, &F0, NULL), "inspect");
        const double *val0 = F0->val;
        const int first = info_of(I).sweeps;
        CHECK_OK(ops->refactor(I, &B), g_host->err->msg);
        const int same = info_of(I).sweeps;
        CHECK_OK(ops->refactor(I, &B2), g_host->err->msg);
        const int near = info_of(I).sweeps;
        const spk_csr *F1;
        CHECK_OK(spk_factor_inspect(I, &F1, NULL), "inspect");
        printf("  refactor %s: %d sweeps from A, %d for the same values, %d for nearby ones\n", ic ? "IC(0)" : "ILU(0)",
               first, same, near);
        CHECK(same == 1 && near < first && F1->val == val0, "%s refactor: sweeps %d, %d, %d", ic ? "IC(0)" : "ILU(0)",
              first, same, near);
        /* the new values' factor is the one of B2 from scratch */
        void *J = NULL;
        CHECK_OK(make(&B2, ic, SPK_FACTORIZATION_ITERATIVE, 50, 1e-10, 1, &J), g_host->err->msg);
        if (J) CHECK(factor_diff(J, I) < 1e-8, "%s refactor: %g from B2's factor", ic ? "IC(0)" : "ILU(0)",
                     factor_diff(J, I));
        ops->destroy(J);
        ops->destroy(I);
    }
    spk_csr_free(&B);
    spk_csr_free(&B2);
}

/* A bad pivot: the same status, row and message as the exact factorization. */
static void fail_case(const char *what, const spk_csr *A, int ic, int shift)
{
    void *X = NULL, *I = NULL;
    char xm[1024];
    const int xs = make(A, ic, SPK_FACTORIZATION_EXACT, 1, 0, shift, &X);
    snprintf(xm, sizeof xm, "%s", g_host->err->msg);
    const int is = make(A, ic, SPK_FACTORIZATION_ITERATIVE, SPK_FACTOR_SWEEPS_MAX, 0, shift, &I);
    CHECK(xs == is, "%s: status %d exact, %d iterative (%s | %s)", what, xs, is, xm, g_host->err->msg);
    if (xs && is) CHECK(strcmp(xm, g_host->err->msg) == 0, "%s: '%s' vs '%s'", what, xm, g_host->err->msg);
    if (!xs && !is)
        CHECK(spk_precond_ic0_host.shift(X) == spk_precond_ic0_host.shift(I), "%s: alpha %g vs %g", what,
              spk_precond_ic0_host.shift(X), spk_precond_ic0_host.shift(I));
    spk_precond_ic0_host.destroy(X);
    spk_precond_ic0_host.destroy(I);
}

static void test_bad_pivots(void)
{
    spk_csr A = {0};
    band(60, 2, 6.0, 1, 0, 51, &A);
    for (int i = 0; i < 60; i++)
        for (int q = A.rowptr[i]; q < A.rowptr[i + 1]; q++)
            if (A.colind[q] == i && i == 37) A.val[q] = -1.0; /* IC(0): hopeless at row 37 */
    fail_case("negative a_37", &A, 1, 1);
    fail_case("negative a_37, no shift", &A, 1, 0);
    for (int q = A.rowptr[37]; q < A.rowptr[38]; q++)
        if (A.colind[q] == 37) A.val[q] = 0.0;
    fail_case("zero a_37", &A, 0, 1); /* ILU(0): u_37 is a fill of row 37's eliminations, shifted away */
    fail_case("zero a_37, no shift", &A, 0, 0);
    spk_csr_free(&A);
    /* a 2 x 2 that needs a shift: [1 2; 2 1] */
    spk_err e = {0, ""};
    spk_csr T = {0};
    CHECK_OK(spk_csr_alloc(&T, 2, 2, 4, &e), e.msg);
    const int rp[3] = {0, 2, 4}, ci[4] = {0, 1, 0, 1};
    const double v[4] = {1, 2, 2, 1};
    memcpy(T.rowptr, rp, sizeof rp);
    memcpy(T.colind, ci, sizeof ci);
    memcpy(T.val, v, sizeof v);
    fail_case("[1 2; 2 1]", &T, 1, 1);
    fail_case("[1 2; 2 1], no shift", &T, 1, 0);
    spk_csr_free(&T);
}

/* The keys, in range and out. */
static void test_keys(void)
{
    spk_options o;
    char msg[256];
    spk_options_default(&o);
    CHECK_OK(spk_options_parse(&o, "factorization=iterative, factor-sweeps=12, factor-tol=1e-4", msg, sizeof msg),
             msg);
    CHECK(o.factorization == SPK_FACTORIZATION_ITERATIVE && o.factor_sweeps == 12 && o.factor_tol == 1e-4, "parsed");
    CHECK_OK(spk_options_set(&o, "factorization", "exact", msg, sizeof msg), msg);
    CHECK(o.factorization == SPK_FACTORIZATION_EXACT, "exact");
    const char *bad[][2] = {{"factorization", "fast"}, {"factor-sweeps", "0"}, {"factor-sweeps", "100001"},
                            {"factor-tol", "1"},       {"factor-tol", "-1e-3"}};
    for (int k = 0; k < 5; k++) {
        msg[0] = '\0';
        CHECK(spk_options_set(&o, bad[k][0], bad[k][1], msg, sizeof msg) == SPK_ERR_INVALID_ARG &&
                  strstr(msg, bad[k][0]),
              "%s=%s accepted (%s)", bad[k][0], bad[k][1], msg);
    }
    /* a struct filled by code is checked at create */
    spk_csr A = {0};
    band(10, 1, 4.0, 1, 0, 61, &A);
    void *M = NULL;
    CHECK(make(&A, 1, SPK_FACTORIZATION_ITERATIVE, 0, 0, 1, &M) == SPK_ERR_INVALID_ARG &&
              strstr(g_host->err->msg, "factor_sweeps"),
          "factor_sweeps = 0: %s", g_host->err->msg);
    CHECK(make(&A, 1, SPK_FACTORIZATION_ITERATIVE, 5, 2.0, 1, &M) == SPK_ERR_INVALID_ARG &&
              strstr(g_host->err->msg, "factor_tol"),
          "factor_tol = 2: %s", g_host->err->msg);
    CHECK(make(&A, 1, 7, 5, 0, 1, &M) == SPK_ERR_INVALID_ARG && strstr(g_host->err->msg, "factorization"),
          "factorization = 7: %s", g_host->err->msg);
    /* auto on the host: exact */
    CHECK_OK(make(&A, 1, SPK_FACTORIZATION_AUTO, 5, 0, 1, &M), g_host->err->msg);
    if (M) CHECK(info_of(M).iterative == 0, "auto on the host is exact");
    spk_precond_ic0_host.destroy(M);
    spk_csr_free(&A);
}


/* Sweeps that have not met factor_tol after factor_sweeps: the exact factor
 * instead, and factor_info says so; with factor_tol 0 the sweeps' factor is
 * kept.  The 3-D elasticity block system is far from an M-matrix: six
 * sweeps do not get there. */
static void test_fallback(void)
{
    spk_err e;
    spk_csr A = {0};
    CHECK_OK(spk_gen_spec("elasticity3d:6", &A, &e), e.msg);
    void *X = NULL, *I = NULL, *K = NULL;
    CHECK_OK(make(&A, 1, SPK_FACTORIZATION_EXACT, 6, 1e-3, 1, &X), g_host->err->msg);
    CHECK_OK(make(&A, 1, SPK_FACTORIZATION_ITERATIVE, 6, 1e-3, 1, &I), g_host->err->msg);
    CHECK_OK(make(&A, 1, SPK_FACTORIZATION_ITERATIVE, 6, 0, 1, &K), g_host->err->msg);
    if (X && I && K) {
        const spk_precond_factor_info fi = info_of(I), fk = info_of(K);
        CHECK(fi.fallback == 1 && fi.iterative == 0 && fi.sweeps == 6 && fi.residual > 1e-3,
              "elasticity: fallback %d, iterative %d, %d sweeps, residual %g", fi.fallback, fi.iterative, fi.sweeps,
              fi.residual);
        CHECK(factor_diff(X, I) == 0, "elasticity: the fallback differs from the exact factor by %g",
              factor_diff(X, I));
        CHECK(fk.fallback == 0 && fk.iterative == 1 && factor_diff(X, K) > 1e-3,
              "elasticity, tol 0: fallback %d, iterative %d, %g from exact", fk.fallback, fk.iterative,
              factor_diff(X, K));
        printf("  elasticity3d:6   6 sweeps: residual %.3g, exact factor instead\n", fi.residual);
    }
    if (X) spk_precond_ic0_host.destroy(X);
    if (I) spk_precond_ic0_host.destroy(I);
    if (K) spk_precond_ic0_host.destroy(K);
    spk_csr_free(&A);
}

/* The solver tells how its factor was computed (spk_solver_factorization):
 * the solve report's "factor" line. */
static void test_told(void)
{
    static const struct {
        const char *spec, *keys, *want;
        spk_precond_kind pk;
    } cases[] = {
        {"band:3000:8", "probe=off,factorization=exact", "exact", SPK_PRECOND_AUTO},
        {"band:3000:8", "probe=off,factorization=iterative", "by ", SPK_PRECOND_AUTO},
        {"elasticity3d:6", "probe=off,factorization=iterative", "exact (6 sweeps left the residual at",
         SPK_PRECOND_AUTO},
        {"band:3000:8", "factorization=iterative", "", SPK_PRECOND_JACOBI},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        spk_err e;
        spk_csr A = {0};
        spk_context *ctx = NULL;
        spk_matrix *M = NULL;
        spk_solver *s = NULL;
        spk_options o;
        char msg[256];
        CHECK_OK(spk_gen_spec(cases[c].spec, &A, &e), e.msg);
        spk_options_default(&o);
        CHECK_OK(spk_options_parse(&o, cases[c].keys, msg, sizeof msg), msg);
        CHECK_OK(spk_context_create(&ctx, SPK_DEVICE_HOST), "context");
        CHECK_OK(spk_matrix_from_csr(ctx, A.nrows, A.ncols, A.rowptr, A.colind, A.val, &M), spk_last_error(ctx));
        CHECK_OK(spk_solver_create(ctx, M, SPK_SOLVER_AUTO, cases[c].pk, &o, &s), spk_last_error(ctx));
        const char *got = s ? spk_solver_factorization(s) : "-";
        const size_t wl = strlen(cases[c].want);
        CHECK(wl ? strncmp(got, cases[c].want, wl) == 0 : got[0] == '\0', "%s, %s: told '%s', expected '%s...'",
              cases[c].spec, cases[c].keys, got, cases[c].want);
        spk_solver_destroy(s);
        spk_matrix_destroy(M);
        spk_context_destroy(ctx);
        spk_csr_free(&A);
    }
}

int main(void)
{
    static spk_err err;
    if (spk_exec_host_create(&err, &g_host)) return 1;
    test_keys();
    test_limit();
    test_few_sweeps();
    test_refactor();
    test_bad_pivots();
    test_iterations();
    test_fallback();
    test_told();
    spk_exec_destroy(g_host);
    return check_exit();
}

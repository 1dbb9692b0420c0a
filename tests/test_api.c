/* test_api.c -- the public API as an application uses it: matrices from CSR
 * arrays (unsorted, duplicates), update_values, automatic method choice, the
 * switch from CG to BiCGStab on an indefinite matrix, several right-hand
 * sides, error messages for bad input, and the status of every outcome. */
#include <float.h>
#include <stdint.h>

#include "device.h"
#include "iter_match.h"

/* 2D Laplacian on a g x g grid as caller-owned CSR, rows given in reverse
 * column order with the diagonal split into two duplicate entries. */
static int laplacian_unsorted(int g, int **rp, int **ci, double **v)
{
    int n = g * g, cap = 6 * n, k = 0;
    *rp = malloc((size_t)(n + 1) * sizeof(int));
    *ci = malloc((size_t)cap * sizeof(int));
    *v = malloc((size_t)cap * sizeof(double));
    (*rp)[0] = 0;
    for (int i = 0; i < g; i++)
        for (int j = 0; j < g; j++) {
            int row = i * g + j;
            if (i < g - 1) (*ci)[k] = row + g, (*v)[k++] = -1;
            if (j < g - 1) (*ci)[k] = row + 1, (*v)[k++] = -1;
            (*ci)[k] = row, (*v)[k++] = 3;
            if (j > 0) (*ci)[k] = row - 1, (*v)[k++] = -1;
            if (i > 0) (*ci)[k] = row - g, (*v)[k++] = -1;
            (*ci)[k] = row, (*v)[k++] = 1; /* duplicate: diagonal 3 + 1 = 4 */
            (*rp)[row + 1] = k;
        }
    return n;
}

static double max_err(const double *x, const double *y, int n)
{
    double e = 0;
    for (int i = 0; i < n; i++) e = fmax(e, fabs(x[i] - y[i]));
    return e;
}

static void matrices_and_solves(void)
{
    spk_context *ctx = test_context();
    CHECK(strcmp(spk_context_device(ctx), TEST_DEVICE_NAME) == 0, "device %s", spk_context_device(ctx));
    int *rp, *ci;
    double *v;
    int n = laplacian_unsorted(12, &rp, &ci, &v), nin = rp[n];
    spk_matrix *A;
    CHECK_OK(spk_matrix_from_csr(ctx, n, n, rp, ci, v, &A), spk_last_error(ctx));
    int nnz;
    const int *crp, *cci;
    const double *cv;
    spk_matrix_csr(A, NULL, NULL, &nnz, &crp, &cci, &cv);
    CHECK(nnz == nin - n, "duplicates not merged: %d stored for %d given", nnz, nin);
    for (int i = 0; i < n; i++)
        for (int k = crp[i]; k < crp[i + 1]; k++) {
            if (k > crp[i]) CHECK(cci[k] > cci[k - 1], "row %d not sorted", i);
            if (cci[k] == i) CHECK(cv[k] == 4.0, "diagonal %g", cv[k]);
        }
    spk_matrix_info info;
    CHECK_OK(spk_matrix_get_info(A, &info), spk_last_error(ctx));
    CHECK(info.value_symmetric && info.pattern_symmetric && info.positive_diagonal, "info symmetry");
    CHECK(info.row_min == 3 && info.row_max == 5 && info.diag_dominant_rows == n, "info rows");

    spk_options o;
    spk_options_default(&o);
    CHECK(o.rtol == 1e-8 && o.maxit > 0 && o.allow_shift, "defaults");
    o.rtol = 1e-10;
    spk_solver *s;
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, &o, &s), spk_last_error(ctx));
    /* A is a 2D Laplacian: on the host AUTO starts the probe
     * (spk_options.probe) with the cheap preconditioner, none for a constant
     * diagonal; on the GPU this small CG system runs the race, IC(0) with
     * the plain and Jacobi sides alongside */
#ifdef SPK_TEST_CUDA
    const char *auto_pc = "ic0";
#else
    const char *auto_pc = "none";
#endif
    CHECK(strcmp(spk_solver_method(s), "cg") == 0 && strcmp(spk_solver_precond(s), auto_pc) == 0 &&
              strcmp(spk_solver_format(s), TEST_DEFAULT_FORMAT) == 0,
          "auto picked %s + %s on %s", spk_solver_method(s), spk_solver_precond(s), spk_solver_format(s));
    {   /* SPK_PRECOND_FACTOR: IC(0) always ("ic0" on the host; on the GPU by
         * default its sweeps or exact solves on the device's factor) */
        spk_solver *sf = NULL;
        CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_FACTOR, &o, &sf), spk_last_error(ctx));
        CHECK(sf && strncmp(spk_solver_precond(sf), "ic0", 3) == 0, "factor picked %s",
              sf ? spk_solver_precond(sf) : "-");
        /* sweeps where they apply it (the GPU's default), none for exact solves */
        CHECK(sf && (spk_solver_precond_sweeps(sf) > 0) == (strcmp(spk_solver_precond(sf), "ic0-sweeps") == 0),
              "%s with %d sweeps", sf ? spk_solver_precond(sf) : "-", sf ? spk_solver_precond_sweeps(sf) : -1);
        if (sf) spk_solver_destroy(sf);
        /* one diagonal entry 10 % larger: not Laplacian-shaped, so AUTO without
         * the probe takes IC(0) */
        const int probe = o.probe;
        o.probe = 0;
        double *v2 = malloc((size_t)nin * sizeof(double));
        memcpy(v2, v, (size_t)nin * sizeof(double));
        for (int k = rp[7]; k < rp[8]; k++)
            if (ci[k] == 7) v2[k] *= 1.1;
        spk_matrix *A2 = NULL;
        CHECK_OK(spk_matrix_from_csr(ctx, n, n, rp, ci, v2, &A2), spk_last_error(ctx));
        CHECK_OK(spk_solver_create(ctx, A2, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, &o, &sf), spk_last_error(ctx));
        CHECK(sf && strncmp(spk_solver_precond(sf), "ic0", 3) == 0, "auto on a perturbed Laplacian picked %s",
              sf ? spk_solver_precond(sf) : "-");
        o.probe = probe;
        if (sf) spk_solver_destroy(sf);
        spk_matrix_destroy(A2);
        free(v2);
    }
    /* several right-hand sides reuse the setup */
    double *xs = malloc((size_t)n * sizeof(double)), *b = malloc((size_t)n * sizeof(double));
    double *x = malloc((size_t)n * sizeof(double));
    for (int rhs = 0; rhs < 3; rhs++) {
        for (int i = 0; i < n; i++) xs[i] = sin(i * (rhs + 1.0));
        spk_matrix_multiply(A, xs, b);
        memset(x, 0, (size_t)n * sizeof(double));
        spk_result r;
        CHECK_OK(spk_solve(s, b, x, &r), spk_last_error(ctx));
        CHECK(r.reason == SPK_CONVERGED_RTOL && r.true_relres <= 1e-9, "rhs %d: %s %g", rhs,
              spk_reason_name(r.reason), r.true_relres);
        CHECK(max_err(x, xs, n) < 1e-7, "rhs %d: error %g", rhs, max_err(x, xs, n));
        /* fused vector steps (the default) time the phases with device events, each
         * interval to about 0.5 us: a few hundred of them may add up past the wall time
         * by tens of microseconds */
        CHECK(1.02 * r.t_total + 1e-4 >= r.t_spmv + r.t_precond + r.t_vector && r.t_setup > 0,
              "time split: total %g spmv %g precond %g vector %g", r.t_total, r.t_spmv, r.t_precond,
              r.t_vector);
    }
    /* new values, same pattern: scale A by 2 in the caller's layout */
    for (int k = 0; k < nin; k++) v[k] *= 2;
    CHECK_OK(spk_matrix_update_values(A, v), spk_last_error(ctx));
    spk_matrix_csr(A, NULL, NULL, NULL, NULL, NULL, &cv);
    for (int i = 0; i < n; i++)
        for (int k = crp[i]; k < crp[i + 1]; k++)
            CHECK(cv[k] == (cci[k] == i ? 8.0 : -2.0), "updated value %g at (%d,%d)", cv[k], i, cci[k]);
    for (int i = 0; i < n; i++) xs[i] = cos(i);
    spk_matrix_multiply(A, xs, b);
    memset(x, 0, (size_t)n * sizeof(double));
    spk_result r;
    CHECK_OK(spk_solve(s, b, x, &r), spk_last_error(ctx));
    CHECK(max_err(x, xs, n) < 1e-7, "after update: error %g", max_err(x, xs, n));
    /* IC(0) with Jacobi sweeps for the triangular solves: named, converges,
     * refactors with new values; a count out of range is refused */
    {
        spk_options os;
        spk_options_default(&os);
        CHECK(os.precond_sweeps == SPK_PRECOND_SWEEPS_AUTO && os.precond_isai == 0 &&
                  os.vector_ops == SPK_VECTOR_BLOCK,
              "default precond_sweeps %d, precond_isai %d, vector_ops %d", os.precond_sweeps, os.precond_isai,
              os.vector_ops);
        {   /* sweeps auto: on the GPU the device factor with sweeps (or exact solves
             * where the sweeps' check fails), on the host the exact IC(0) */
            spk_solver *sd = NULL;
            os.precond_sweeps = SPK_PRECOND_SWEEPS_AUTO;
            CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_FACTOR, &os, &sd), spk_last_error(ctx));
            const char *pn = sd ? spk_solver_precond(sd) : "-";
#ifdef SPK_TEST_CUDA
            CHECK(strcmp(pn, "ic0-sweeps") == 0 || strcmp(pn, "ic0-dev") == 0, "default precond on the GPU: %s", pn);
#else
            CHECK(strcmp(pn, "ic0") == 0, "default precond on the host: %s", pn);
#endif
            if (sd) { /* and it solves */
                for (int i = 0; i < n; i++) xs[i] = sin(2.0 * i);
                spk_matrix_multiply(A, xs, b);
                memset(x, 0, (size_t)n * sizeof(double));
                spk_result ra;
                CHECK_OK(spk_solve(sd, b, x, &ra), spk_last_error(ctx));
                CHECK(ra.reason == SPK_CONVERGED_RTOL && max_err(x, xs, n) < 1e-6, "sweeps auto: %s, error %g",
                      spk_reason_name(ra.reason), max_err(x, xs, n));
            }
            spk_solver_destroy(sd);
        }
        os.precond_sweeps = 2;
        os.rtol = 1e-10;
        spk_solver *sw = NULL;
        CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_FACTOR, &os, &sw), spk_last_error(ctx));
        CHECK(sw && strcmp(spk_solver_precond(sw), "ic0-sweeps") == 0, "precond %s",
              sw ? spk_solver_precond(sw) : "-");
        CHECK(sw && spk_solver_precond_sweeps(sw) == 2, "precond_sweeps %d, not the 2 asked for",
              sw ? spk_solver_precond_sweeps(sw) : -1);
        for (int pass = 0; sw && pass < 2; pass++) {
            if (pass == 1) { /* new values: the sweep matrices are rebuilt */
                for (int k = 0; k < nin; k++) v[k] *= 0.5;
                CHECK_OK(spk_matrix_update_values(A, v), spk_last_error(ctx));
            }
            for (int i = 0; i < n; i++) xs[i] = sin(3.0 * i + pass);
            spk_matrix_multiply(A, xs, b);
            memset(x, 0, (size_t)n * sizeof(double));
            spk_result rs;
            CHECK_OK(spk_solve(sw, b, x, &rs), spk_last_error(ctx));
            CHECK(rs.reason == SPK_CONVERGED_RTOL && max_err(x, xs, n) < 1e-7 && rs.t_precond > 0,
                  "sweeps, pass %d: %s, error %g", pass, spk_reason_name(rs.reason), max_err(x, xs, n));
        }
        spk_solver_destroy(sw);
        for (int k = 0; k < nin; k++) v[k] *= 2; /* back to the values the tests below expect */
        CHECK_OK(spk_matrix_update_values(A, v), spk_last_error(ctx));
        const int bad[] = {1001, -2};
        for (int t = 0; t < 2; t++) {
            os.precond_sweeps = bad[t];
            sw = NULL;
            CHECK(spk_solver_create(ctx, A, SPK_SOLVER_CG, SPK_PRECOND_IC0, &os, &sw) == SPK_ERR_INVALID_ARG &&
                      !sw && check_contains(spk_last_error(ctx), "precond_sweeps"),
                  "%d sweeps: %s", bad[t], spk_last_error(ctx));
        }
    }
    /* NaN in new values is refused */
    v[3] = NAN;
    CHECK(spk_matrix_update_values(A, v) == SPK_ERR_INVALID_MATRIX, "NaN update accepted");
    CHECK(check_contains(spk_last_error(ctx), "finite"), "%s", spk_last_error(ctx));
    /* not converged: status and message */
    spk_solver *s2;
    o.maxit = 2;
    o.keep_history = 1;
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_CG, SPK_PRECOND_NONE, &o, &s2), spk_last_error(ctx));
    memset(x, 0, (size_t)n * sizeof(double));
    int st = spk_solve(s2, b, x, &r);
    CHECK(st == SPK_ERR_NOT_CONVERGED && r.reason == SPK_DIVERGED_MAXIT && r.iterations == 2,
          "maxit: status %d reason %d iterations %d", st, r.reason, r.iterations);
    CHECK(check_contains(spk_last_error(ctx), "did not converge in 2 iterations"), "%s",
          spk_last_error(ctx));
    CHECK(r.history_len == 3 && r.history[0] == r.rnorm0, "history %d", r.history_len);
    spk_solver_destroy(s2);
    /* bad arguments */
    CHECK(spk_solve(s, NULL, x, &r) == SPK_ERR_INVALID_ARG, "NULL b accepted");
    for (int i = 0; i < n; i++) b[i] = 1;
    b[5] = NAN;
    st = spk_solve(s, b, x, &r);
    CHECK(st == SPK_ERR_INVALID_ARG && r.reason == SPK_INVALID_INPUT, "NaN b: %d", st);
    CHECK(check_contains(spk_last_error(ctx), "NaN"), "%s", spk_last_error(ctx));
    spk_solver_destroy(s);
    spk_matrix_destroy(A);
    free(rp);
    free(ci);
    free(v);
    free(xs);
    free(b);
    free(x);
    spk_context_destroy(ctx);
}

/* A symmetric tridiagonal with a positive diagonal that is indefinite: auto
 * chooses CG + IC(0) (which needs a shift), CG finds p'Ap <= 0, and the
 * solver switches to BiCGStab + ILU(0) and still solves the system. */
static void auto_switch(void)
{
    spk_context *ctx = test_context();
    enum { N = 60 };
    int rp[N + 1], ci[3 * N];
    double v[3 * N];
    int k = 0;
    rp[0] = 0;
    for (int i = 0; i < N; i++) {
        if (i > 0) ci[k] = i - 1, v[k++] = 0.6;
        ci[k] = i, v[k++] = 1.0;
        if (i < N - 1) ci[k] = i + 1, v[k++] = 0.6;
        rp[i + 1] = k;
    }
    spk_matrix *A;
    CHECK_OK(spk_matrix_from_csr(ctx, N, N, rp, ci, v, &A), spk_last_error(ctx));
    spk_solver *s;
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, NULL, &s), spk_last_error(ctx));
    double xs[N], b[N], x[N];
    for (int i = 0; i < N; i++) xs[i] = 1.0 + i % 5, x[i] = 0;
    spk_matrix_multiply(A, xs, b);
    spk_result r;
    int st = spk_solve(s, b, x, &r);
    CHECK(st == SPK_OK, "auto on indefinite: %s", spk_last_error(ctx));
    CHECK(r.switched == 1, "no switch reported");
    CHECK(strcmp(spk_solver_method(s), "bicgstab") == 0 && strncmp(spk_solver_precond(s), "ilu0", 4) == 0,
          "after switch: %s + %s", spk_solver_method(s), spk_solver_precond(s));
    CHECK(max_err(x, xs, N) < 1e-6, "switched solve error %g", max_err(x, xs, N));
    spk_solver_destroy(s);
    /* the switch changes the method, never a preconditioner the caller named */
    const spk_precond_kind named[] = {SPK_PRECOND_NONE, SPK_PRECOND_JACOBI};
    const char *const named_label[] = {"none", "jacobi"};
    for (int t = 0; t < 2; t++) {
        spk_options on;
        spk_options_default(&on);
        on.race = 0;
        CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, named[t], &on, &s), spk_last_error(ctx));
        memset(x, 0, sizeof x);
        st = spk_solve(s, b, x, &r);
        CHECK(st == SPK_OK && r.switched == 1, "auto + %s on indefinite: status %d, switched %d (%s)",
              named_label[t], st, r.switched, spk_last_error(ctx));
        CHECK(strcmp(spk_solver_method(s), "bicgstab") == 0 && strcmp(spk_solver_precond(s), named_label[t]) == 0,
              "auto + %s after the switch: %s + %s", named_label[t], spk_solver_method(s), spk_solver_precond(s));
        CHECK(max_err(x, xs, N) < 1e-4, "auto + %s switched: error %g", named_label[t], max_err(x, xs, N));
        spk_solver_destroy(s);
    }
    /* explicit CG reports the indefiniteness instead of switching */
    spk_options o;
    spk_options_default(&o);
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_CG, SPK_PRECOND_NONE, &o, &s), spk_last_error(ctx));
    memset(x, 0, sizeof x);
    st = spk_solve(s, b, x, &r);
    CHECK(st == SPK_ERR_INDEFINITE && r.reason == SPK_BREAKDOWN_INDEFINITE && !r.switched,
          "explicit CG: status %d reason %s", st, spk_reason_name(r.reason));
    CHECK(check_contains(spk_last_error(ctx), "not positive definite"), "%s", spk_last_error(ctx));
    spk_solver_destroy(s);
    /* IC(0) without shifting names the row of the bad pivot */
    o.allow_shift = 0;
    st = spk_solver_create(ctx, A, SPK_SOLVER_CG, SPK_PRECOND_IC0, &o, &s);
    CHECK(st == SPK_ERR_ZERO_PIVOT && s == NULL, "IC(0) without shift: status %d", st);
    CHECK(check_contains(spk_last_error(ctx), "row"), "%s", spk_last_error(ctx));
    spk_matrix_destroy(A);
    spk_context_destroy(ctx);
}

static void bad_input(void)
{
    spk_context *ctx = test_context();
    spk_matrix *A = NULL;
    int rp[] = {0, 2, 1};
    int ci[] = {0, 1};
    double v[] = {1, 2};
    CHECK(spk_matrix_from_csr(ctx, 2, 2, rp, ci, v, &A) == SPK_ERR_INVALID_MATRIX && !A, "bad rowptr");
    CHECK(check_contains(spk_last_error(ctx), "rowptr"), "%s", spk_last_error(ctx));
    int rp2[] = {0, 1, 2};
    int ci2[] = {0, 2};
    CHECK(spk_matrix_from_csr(ctx, 2, 2, rp2, ci2, v, &A) == SPK_ERR_INVALID_MATRIX, "bad column");
    CHECK(check_contains(spk_last_error(ctx), "column index 2"), "%s", spk_last_error(ctx));
    int ci3[] = {0, 1};
    double vn[] = {1, NAN};
    CHECK(spk_matrix_from_csr(ctx, 2, 2, rp2, ci3, vn, &A) == SPK_ERR_INVALID_MATRIX, "NaN value");
    CHECK(check_contains(spk_last_error(ctx), "finite"), "%s", spk_last_error(ctx));
    /* rectangular: a matrix, but no system */
    int rp3[] = {0, 1, 2};
    int ci4[] = {0, 2};
    CHECK_OK(spk_matrix_from_csr(ctx, 2, 3, rp3, ci4, v, &A), spk_last_error(ctx));
    spk_solver *s = NULL;
    CHECK(spk_solver_create(ctx, A, SPK_SOLVER_BICGSTAB, SPK_PRECOND_NONE, NULL, &s) ==
              SPK_ERR_INVALID_MATRIX, "rectangular system accepted");
    CHECK(check_contains(spk_last_error(ctx), "square"), "%s", spk_last_error(ctx));
    spk_matrix_destroy(A);
    /* nonsymmetric matrix with CG */
    int rp5[] = {0, 2, 3};
    int ci5[] = {0, 1, 1};
    double v5[] = {2, 1, 2};
    CHECK_OK(spk_matrix_from_csr(ctx, 2, 2, rp5, ci5, v5, &A), spk_last_error(ctx));
    CHECK(spk_solver_create(ctx, A, SPK_SOLVER_CG, SPK_PRECOND_NONE, NULL, &s) == SPK_ERR_INVALID_MATRIX,
          "CG on a nonsymmetric matrix accepted");
    CHECK(check_contains(spk_last_error(ctx), "symmetric"), "%s", spk_last_error(ctx));
    /* AUTO picks BiCGStab, FACTOR BiCGStab + ILU(0) for it (AUTO takes no preconditioner on
     * the GPU: this one is Laplacian-shaped) */
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, NULL, &s), spk_last_error(ctx));
    CHECK(strcmp(spk_solver_method(s), "bicgstab") == 0, "auto on nonsymmetric: %s", spk_solver_method(s));
    spk_solver_destroy(s);
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_FACTOR, NULL, &s), spk_last_error(ctx));
    CHECK(strcmp(spk_solver_method(s), "bicgstab") == 0 && strncmp(spk_solver_precond(s), "ilu0", 4) == 0,
          "factor on nonsymmetric: %s + %s", spk_solver_method(s), spk_solver_precond(s));
    spk_solver_destroy(s);
    /* bad options, unknown format */
    spk_options o;
    spk_options_default(&o);
    o.rtol = -1;
    CHECK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, &o, &s) == SPK_ERR_INVALID_ARG,
          "negative rtol accepted");
    spk_options_default(&o);
    o.format = "tile";
    o.tile_te = -0.5;
    CHECK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, &o, &s) == SPK_ERR_INVALID_ARG,
          "negative tile_te accepted");
    CHECK(check_contains(spk_last_error(ctx), "tile_te"), "%s", spk_last_error(ctx));
    o.tile_te = 0.3;
    o.tile_th = 2.0;
    o.tile_defer_nnz = 10; /* "tile" with deferred COO on this small matrix */
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, &o, &s), spk_last_error(ctx));
    CHECK(strcmp(spk_solver_format(s), "tile") == 0, "format %s", spk_solver_format(s));
    spk_solver_destroy(s);
    { /* SELL-C-sigma's and the blocked formats' options: out of range, or sigma not a multiple of C */
        const int bad[][3] = {{-1, 0, 0}, {2000, 0, 0}, {0, 100, 0}, {16, 40, 0}, {0, -3, 0}, {0, 0, 33}, {0, 0, -2}};
        const char *name[] = {"sell_c", "sell_c", "sell_sigma", "sell_sigma", "sell_sigma", "bcsr_block",
                              "bcsr_block"};
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            spk_options_default(&o);
            o.sell_c = bad[k][0];
            o.sell_sigma = bad[k][1];
            o.bcsr_block = bad[k][2];
            CHECK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, &o, &s) == SPK_ERR_INVALID_ARG && !s,
                  "sell_c %d, sell_sigma %d, bcsr_block %d accepted", bad[k][0], bad[k][1], bad[k][2]);
            CHECK(check_contains(spk_last_error(ctx), name[k]), "%s", spk_last_error(ctx));
        }
        spk_options_default(&o);
        o.sell_c = 16;
        o.sell_sigma = 64;
        o.bcsr_block = 2;
        CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, &o, &s), spk_last_error(ctx));
        spk_solver_destroy(s);
        s = NULL;
    }
    spk_options_default(&o);
    o.format = "nosuch";
    CHECK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, &o, &s) == SPK_ERR_NOT_FOUND,
          "unknown format accepted");
    CHECK(check_contains(spk_last_error(ctx), "nosuch"), "%s", spk_last_error(ctx));
    CHECK(spk_solver_create(ctx, A, (spk_solver_kind)9, SPK_PRECOND_AUTO, NULL, &s) == SPK_ERR_INVALID_ARG,
          "unknown solver kind accepted");
    spk_matrix_destroy(A);
    /* missing file */
    CHECK(spk_matrix_read(ctx, "/nonexistent/dir/a.mtx", &A) == SPK_ERR_IO, "missing file");
    CHECK(check_contains(spk_last_error(ctx), "/nonexistent/dir/a.mtx"), "%s", spk_last_error(ctx));
    /* names */
    CHECK(strcmp(spk_status_name(SPK_ERR_PARSE), "SPK_ERR_PARSE") == 0, "status name");
    CHECK(strcmp(spk_status_name(99), "unknown status") == 0, "unknown status name");
    CHECK(strlen(spk_version()) >= 5, "version %s", spk_version());
    {   /* the binary interface as compiled into the library: the header's sizes and version */
        size_t so = 0, sr = 0, sd = 0;
        int abi = 0;
        CHECK(spk_abi_info(&so, &sr, &sd, &abi) == SPK_OK && so == sizeof(spk_options) && so == spk_options_size()
                  && sr == sizeof(spk_result) && sd == sizeof(spk_option_desc) && abi == SPK_ABI_VERSION,
              "abi: options %zu, result %zu, option_desc %zu, version %d", so, sr, sd, abi);
        CHECK(spk_abi_info(NULL, NULL, NULL, NULL) == SPK_OK, "abi: NULL pointers");
    }
    spk_solver_destroy(NULL);
    spk_matrix_destroy(NULL);
    spk_context_destroy(ctx);
    spk_context_destroy(NULL);
    /* a device this build cannot use is an error, not a silent fallback */
    spk_context *c2 = NULL;
    int st = spk_context_create(&c2, SPK_DEVICE_CUDA);
    if (st == SPK_OK) {
        CHECK(strcmp(spk_context_device(c2), "cuda") == 0, "cuda context on %s", spk_context_device(c2));
        spk_context_destroy(c2);
    } else {
        CHECK(st == SPK_ERR_DEVICE && c2 == NULL, "cuda context status %d", st);
    }
}

static void vectors(void)
{
    spk_context *ctx;
    CHECK_OK(spk_context_create(&ctx, SPK_DEVICE_HOST), "context");
    char dir[] = "/tmp/spk_test_api_XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char path[256];
    snprintf(path, sizeof path, "%s/v.mtx", dir);
    double v[5] = {0.1, -1.0 / 3.0, 1e-300, 2.5e300, 4.9e-324};
    CHECK_OK(spk_vector_write(ctx, path, 5, v), spk_last_error(ctx));
    int n = 0;
    double *w = NULL;
    CHECK_OK(spk_vector_read(ctx, path, &n, &w), spk_last_error(ctx));
    CHECK(n == 5 && w && memcmp(v, w, sizeof v) == 0, "vector round trip");
    spk_free(w);
    remove(path);
    remove(dir);
    spk_context_destroy(ctx);
}

/* The options' format name belongs to the caller only during
 * spk_solver_create: a solve after new values (which may rebuild the format)
 * must not read the caller's string again. */
static void format_name_copied(void)
{
    spk_context *ctx = test_context();
    enum { N = 40 };
    int rp[N + 1], ci[3 * N];
    double v[3 * N], b[N], x[N];
    int k = 0;
    rp[0] = 0;
    for (int i = 0; i < N; i++) {
        if (i > 0) ci[k] = i - 1, v[k++] = -1.0;
        ci[k] = i, v[k++] = 4.0;
        if (i < N - 1) ci[k] = i + 1, v[k++] = -1.0;
        rp[i + 1] = k;
    }
    spk_matrix *A;
    CHECK_OK(spk_matrix_from_csr(ctx, N, N, rp, ci, v, &A), spk_last_error(ctx));
    char name[32];
    snprintf(name, sizeof name, "%s", TEST_FORMAT);
    spk_options o;
    spk_options_default(&o);
    o.format = name;
    spk_solver *s;
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_CG, SPK_PRECOND_IC0, &o, &s), spk_last_error(ctx));
    memset(name, 'x', sizeof name - 1); /* the caller reuses its buffer */
    for (int i = 0; i < k; i++) v[i] *= 3;
    CHECK_OK(spk_matrix_update_values(A, v), spk_last_error(ctx));
    for (int i = 0; i < N; i++) b[i] = 1, x[i] = 0;
    spk_result r;
    CHECK_OK(spk_solve(s, b, x, &r), spk_last_error(ctx));
    CHECK(strcmp(spk_solver_format(s), TEST_FORMAT) == 0, "format after update: %s", spk_solver_format(s));
    spk_solver_destroy(s);
    o.format = "a-format-name-far-longer-than-any-real-one-is-ever-going-to-be";
    CHECK(spk_solver_create(ctx, A, SPK_SOLVER_CG, SPK_PRECOND_IC0, &o, &s) == SPK_ERR_NOT_FOUND,
          "an overlong format name was accepted");
    spk_matrix_destroy(A);
    spk_context_destroy(ctx);
}

/* SPK_REORDER_MULTICOLOR: the 5-point Laplacian is red-black (2 colors); the
 * solution, the initial guess and new values go through the permutation; a
 * nonsymmetric variant with BiCGStab + ILU(0); a bad value is refused. */
static void reorder_multicolor(void)
{
    spk_context *ctx = test_context();
    int *rp, *ci;
    double *v;
    const int n = laplacian_unsorted(10, &rp, &ci, &v), nin = rp[n];
    double *xt = malloc((size_t)n * sizeof(double)), *b = malloc((size_t)n * sizeof(double));
    double *x = malloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; i++) xt[i] = 1.0 + 0.5 * sin(0.37 * i);
    spk_options o;
    spk_options_default(&o);
    o.format = TEST_FORMAT;
    o.rtol = 1e-10;
    for (int nonsym = 0; nonsym < 2; nonsym++) {
        if (nonsym) /* convection: the coupling to larger indices weighs three times the other */
            for (int i = 0; i < n; i++)
                for (int k = rp[i]; k < rp[i + 1]; k++)
                    if (ci[k] != i) v[k] = ci[k] > i ? -1.5 : -0.5;
        spk_matrix *A;
        CHECK_OK(spk_matrix_from_csr(ctx, n, n, rp, ci, v, &A), spk_last_error(ctx));
        spk_matrix_multiply(A, xt, b);
        spk_solver *plain = NULL, *s = NULL;
        const spk_solver_kind kind = nonsym ? SPK_SOLVER_BICGSTAB : SPK_SOLVER_CG;
        const spk_precond_kind pk = nonsym ? SPK_PRECOND_ILU0 : SPK_PRECOND_IC0;
        CHECK_OK(spk_solver_create(ctx, A, kind, pk, &o, &plain), spk_last_error(ctx));
        CHECK(spk_solver_colors(plain) == 0, "colors without reordering: %d", spk_solver_colors(plain));
        o.reorder = SPK_REORDER_MULTICOLOR;
        CHECK_OK(spk_solver_create(ctx, A, kind, pk, &o, &s), spk_last_error(ctx));
        o.reorder = SPK_REORDER_NONE;
        CHECK(spk_solver_colors(s) == 2, "%s: %d colors for a 5-point grid", nonsym ? "nonsymmetric" : "SPD",
              spk_solver_colors(s));
        int lv[4] = {0, 0, 0, 0};
        CHECK_OK(spk_solver_levels(s, &lv[0], &lv[1], &lv[2], &lv[3]), spk_last_error(ctx));
        CHECK(lv[0] == 2 && lv[1] == 2 && lv[2] == 19 && lv[3] == 19, "levels %d %d, natural %d %d", lv[0], lv[1],
              lv[2], lv[3]);
        CHECK_OK(spk_solver_levels(plain, &lv[0], NULL, &lv[2], NULL), spk_last_error(ctx));
        CHECK(lv[0] == 19 && lv[2] == 19, "without reordering: levels %d, natural %d", lv[0], lv[2]);
        /* blocks of 3 rows colored: the solve is as exact, with at most 3 levels per color */
        spk_solver *sb = NULL;
        o.reorder = SPK_REORDER_BLOCK_MULTICOLOR;
        o.reorder_block = 3;
        CHECK_OK(spk_solver_create(ctx, A, kind, pk, &o, &sb), spk_last_error(ctx));
        o.reorder = SPK_REORDER_NONE;
        o.reorder_block = 0;
        CHECK_OK(spk_solver_levels(sb, &lv[0], &lv[1], NULL, NULL), spk_last_error(ctx));
        CHECK(spk_solver_colors(sb) >= 2 && lv[0] <= 3 * spk_solver_colors(sb) && lv[1] <= 3 * spk_solver_colors(sb),
              "block multicolor: %d colors, levels %d %d", spk_solver_colors(sb), lv[0], lv[1]);
        spk_result rb;
        for (int i = 0; i < n; i++) x[i] = 0;
        CHECK_OK(spk_solve(sb, b, x, &rb), spk_last_error(ctx));
        CHECK(rb.true_relres <= 1e-10 && max_err(x, xt, n) < 1e-8, "block reordered: true relres %g, error %g",
              rb.true_relres, max_err(x, xt, n));
        spk_solver_destroy(sb);
        spk_result r, rp0;
        for (int i = 0; i < n; i++) x[i] = 0;
        CHECK_OK(spk_solve(plain, b, x, &rp0), spk_last_error(ctx));
        for (int i = 0; i < n; i++) x[i] = 0;
        CHECK_OK(spk_solve(s, b, x, &r), spk_last_error(ctx));
        CHECK(r.true_relres <= 1e-10 && max_err(x, xt, n) < 1e-8, "reordered: true relres %g, error %g",
              r.true_relres, max_err(x, xt, n));
        CHECK(r.iterations > 0 && rp0.iterations > 0, "iterations %d and %d", r.iterations, rp0.iterations);
        /* the initial guess is permuted too: the solution itself needs no iteration */
        memcpy(x, xt, (size_t)n * sizeof(double));
        CHECK_OK(spk_solve(s, b, x, &r), spk_last_error(ctx));
        CHECK(r.iterations == 0 && max_err(x, xt, n) < 1e-12, "from the solution: %d iterations, error %g",
              r.iterations, max_err(x, xt, n));
        /* new values reach the reordered matrix: 2A x = b gives x / 2 */
        double *v2 = malloc((size_t)nin * sizeof(double));
        for (int k = 0; k < nin; k++) v2[k] = 2 * v[k];
        CHECK_OK(spk_matrix_update_values(A, v2), spk_last_error(ctx));
        for (int i = 0; i < n; i++) x[i] = 0;
        CHECK_OK(spk_solve(s, b, x, &r), spk_last_error(ctx));
        double e2 = 0;
        for (int i = 0; i < n; i++) e2 = fmax(e2, fabs(2 * x[i] - xt[i]));
        CHECK(r.true_relres <= 1e-10 && e2 < 1e-8, "after new values: true relres %g, error %g", r.true_relres, e2);
        free(v2);
        spk_solver_destroy(plain);
        spk_solver_destroy(s);
        spk_matrix_destroy(A);
    }
    spk_matrix *A;
    CHECK_OK(spk_matrix_from_csr(ctx, n, n, rp, ci, v, &A), spk_last_error(ctx));
    spk_solver *s = NULL;
    o.reorder = 7;
    CHECK(spk_solver_create(ctx, A, SPK_SOLVER_BICGSTAB, SPK_PRECOND_ILU0, &o, &s) == SPK_ERR_INVALID_ARG && !s,
          "reorder 7 accepted");
    CHECK(check_contains(spk_last_error(ctx), "reorder"), "message: %s", spk_last_error(ctx));
    o.reorder = SPK_REORDER_NONE;
    o.vector_ops = 4;
    CHECK(spk_solver_create(ctx, A, SPK_SOLVER_BICGSTAB, SPK_PRECOND_ILU0, &o, &s) == SPK_ERR_INVALID_ARG && !s &&
              check_contains(spk_last_error(ctx), "vector_ops"),
          "vector_ops 4: %s", spk_last_error(ctx));
    o.vector_ops = SPK_VECTOR_CLASSIC;
    /* a zero pivot of the reordered matrix is named by its row in A too:
     * tridiagonal without a diagonal entry in row 4, red-black order puts it
     * third (0, 2, 4, ...) with no earlier row to fill it in */
    {
        enum { M = 8 };
        int trp[M + 1], tci[3 * M], k = 0;
        double tv[3 * M];
        trp[0] = 0;
        for (int i = 0; i < M; i++) {
            if (i > 0) tci[k] = i - 1, tv[k++] = -1.0;
            if (i != 4) tci[k] = i, tv[k++] = 3.0;
            if (i < M - 1) tci[k] = i + 1, tv[k++] = -1.5;
            trp[i + 1] = k;
        }
        spk_matrix *T;
        CHECK_OK(spk_matrix_from_csr(ctx, M, M, trp, tci, tv, &T), spk_last_error(ctx));
        o.reorder = SPK_REORDER_MULTICOLOR;
        spk_solver *st = NULL;
        CHECK(spk_solver_create(ctx, T, SPK_SOLVER_BICGSTAB, SPK_PRECOND_ILU0, &o, &st) == SPK_ERR_ZERO_PIVOT && !st,
              "zero pivot of the reordered matrix not reported");
        CHECK(check_contains(spk_last_error(ctx), "its row 2 is row 4 of A"), "message: %s", spk_last_error(ctx));
        o.reorder = SPK_REORDER_NONE;
        spk_matrix_destroy(T);
    }
    o.reorder = SPK_REORDER_BLOCK_MULTICOLOR;
    o.reorder_block = -2;
    CHECK(spk_solver_create(ctx, A, SPK_SOLVER_BICGSTAB, SPK_PRECOND_ILU0, &o, &s) == SPK_ERR_INVALID_ARG && !s,
          "reorder_block -2 accepted");
    spk_matrix_destroy(A);
    free(rp);
    free(ci);
    free(v);
    free(xt);
    free(b);
    free(x);
    spk_context_destroy(ctx);
}

/* Fused vector steps through the API on the device under test (the run the
 * GPU's racecheck and synccheck see): CG without a preconditioner and with
 * Jacobi, BiCGStab with ILU(0) of a tridiagonal (exact: it stops at the half
 * step) and without a preconditioner on a nonsymmetric matrix (full steps):
 * every fused step runs; each answer is right and takes the classic
 * solve's iterations (within iter_match's bound off the host). */
static void fused_solves(void)
{
    spk_context *ctx = test_context();
    const int g = 48, n = g * g; /* enough iterations for the graphs (from the 40th) */
    int *rp, *ci;
    double *v;
    laplacian_unsorted(g, &rp, &ci, &v);
    spk_matrix *A = NULL, *N = NULL;
    CHECK_OK(spk_matrix_from_csr(ctx, n, n, rp, ci, v, &A), spk_last_error(ctx));
    /* a nonsymmetric one: the Laplacian with a convection term on the off-diagonals */
    for (int i = 0; i < n; i++)
        for (int k = rp[i]; k < rp[i + 1]; k++)
            if (ci[k] == i + 1) v[k] = -1.3;
            else if (ci[k] == i - 1) v[k] = -0.7;
    CHECK_OK(spk_matrix_from_csr(ctx, n, n, rp, ci, v, &N), spk_last_error(ctx));
    /* a tridiagonal, whose ILU(0) is exact */
    int trp[65], tci[3 * 64];
    double tv[3 * 64];
    int q = 0;
    for (int i = 0; i < 64; i++) {
        trp[i] = q;
        if (i > 0) tci[q] = i - 1, tv[q++] = -1.2;
        tci[q] = i, tv[q++] = 4;
        if (i < 63) tci[q] = i + 1, tv[q++] = -0.8;
    }
    trp[64] = q;
    spk_matrix *T = NULL;
    CHECK_OK(spk_matrix_from_csr(ctx, 64, 64, trp, tci, tv, &T), spk_last_error(ctx));
    const struct {
        spk_matrix *M;
        int n;
        spk_solver_kind kind;
        spk_precond_kind pc;
        const char *what;
    } cases[] = {{A, n, SPK_SOLVER_CG, SPK_PRECOND_NONE, "CG"},
                 {A, n, SPK_SOLVER_CG, SPK_PRECOND_JACOBI, "CG + Jacobi"},
                 {A, n, SPK_SOLVER_CG, SPK_PRECOND_IC0, "CG + IC(0)"},
                 {T, 64, SPK_SOLVER_BICGSTAB, SPK_PRECOND_ILU0, "BiCGStab + ILU(0), tridiagonal"},
                 {N, n, SPK_SOLVER_BICGSTAB, SPK_PRECOND_NONE, "BiCGStab, nonsymmetric"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int m = cases[c].n;
        double *xs = malloc((size_t)m * sizeof(double)), *b = malloc((size_t)m * sizeof(double));
        double *x = calloc((size_t)m, sizeof(double));
        for (int i = 0; i < m; i++) xs[i] = 1.0 + (i % 5) * 0.25;
        CHECK_OK(spk_matrix_multiply(cases[c].M, xs, b), spk_last_error(ctx));
        int iters[3] = {0, 0, 0};
        double *xf = malloc((size_t)m * sizeof(double));
        static const char *const vname[3] = {"classic", "fused", "graph"};
        for (int f = 0; f < 3; f++) {
            spk_options o;
            spk_options_default(&o);
            o.rtol = 1e-10;
            o.precond_sweeps = 0; /* exact solves: the same preconditioner for all three */
            o.vector_ops = f == 2 ? SPK_VECTOR_GRAPH : f ? SPK_VECTOR_FUSED : SPK_VECTOR_CLASSIC;
            spk_solver *s = NULL;
            spk_result r;
            memset(x, 0, (size_t)m * sizeof(double));
            CHECK_OK(spk_solver_create(ctx, cases[c].M, cases[c].kind, cases[c].pc, &o, &s), spk_last_error(ctx));
            CHECK_OK(spk_solve(s, b, x, &r), spk_last_error(ctx));
            CHECK(r.reason == SPK_CONVERGED_RTOL && max_err(x, xs, m) < 1e-7, "%s (%s): %s, error %g", cases[c].what,
                  vname[f], spk_reason_name(r.reason), max_err(x, xs, m));
            CHECK(f ? r.t_sync >= 0 : r.t_sync == 0, "%s: t_sync %g", cases[c].what, r.t_sync);
            iters[f] = r.iterations;
            if (f == 1) memcpy(xf, x, (size_t)m * sizeof(double));
            if (f == 2) { /* the same kernels in the same order as fused: the same numbers */
                CHECK(r.iterations == iters[1] && memcmp(x, xf, (size_t)m * sizeof(double)) == 0,
                      "%s: graph %d iterations, fused %d; x differs by %g", cases[c].what, r.iterations, iters[1],
                      max_err(x, xf, m));
                /* on the GPU CG replays graphs from its 41st iteration,
                 * BiCGStab from its 40th (no restarts here) */
                const int cg = cases[c].kind == SPK_SOLVER_CG, gpu = strcmp(spk_context_device(ctx), "cuda") == 0;
                const int from = cg ? 41 : 40, want = gpu;
                CHECK(want ? r.graph_iterations == (r.iterations >= from ? r.iterations - from + 1 : 0)
                           : r.graph_iterations == 0,
                      "%s: %d of %d iterations replayed (device %s)", cases[c].what, r.graph_iterations,
                      r.iterations, spk_context_device(ctx));
            } else {
                CHECK(r.graph_iterations == 0, "%s (%s): %d iterations replayed", cases[c].what, vname[f],
                      r.graph_iterations);
            }
            spk_solver_destroy(s);
        }
        free(xf);
        const char *mname = cases[c].kind == SPK_SOLVER_CG ? "cg" : "bicgstab";
        CHECK(iter_match(mname, iters[1], iters[0]), "%s: %d iterations fused, %d classic", cases[c].what, iters[1],
              iters[0]);
        if (cases[c].pc == SPK_PRECOND_ILU0) CHECK(iters[1] == 1, "%s: %d iterations", cases[c].what, iters[1]);
        free(xs);
        free(b);
        free(x);
    }
    spk_matrix_destroy(A);
    spk_matrix_destroy(N);
    spk_matrix_destroy(T);
    free(rp);
    free(ci);
    free(v);
    spk_context_destroy(ctx);
}

/* Is `reported` ||b - A x|| / ||b|| of this x, within the rounding of b - A x
 * (each entry's error at most about its row's length times eps times
 * (|A||x| + |b|)_i; either side's)?  *host and *bound: the host's value and
 * the rounding allowed. */
static int true_relres_of(spk_matrix *A, int n, const double *b, const double *x, double reported, double *host,
                          double *bound)
{
    const int *rp = NULL, *ci = NULL;
    const double *av = NULL;
    spk_matrix_csr(A, NULL, NULL, NULL, &rp, &ci, &av);
    double tt = 0, bb = 0, ee = 0;
    for (int i = 0; rp && i < n; i++) {
        double ax = 0, mag = fabs(b[i]);
        for (int q = rp[i]; q < rp[i + 1]; q++) {
            ax += av[q] * x[ci[q]];
            mag += fabs(av[q] * x[ci[q]]);
        }
        const double e = (rp[i + 1] - rp[i] + 1) * DBL_EPSILON * mag;
        tt += (b[i] - ax) * (b[i] - ax);
        ee += e * e;
        bb += b[i] * b[i];
    }
    *host = bb > 0 ? sqrt(tt / bb) : -1;
    *bound = bb > 0 ? 2 * sqrt(ee / bb) : 0;
    return *host > 0 && fabs(reported - *host) <= *bound + 1e-6 * *host;
}

/* SPK_VECTOR_BLOCK: on the GPU a small system's iterations run in one thread
 * block (the device factor's sweeps or exact solves, or none), elsewhere the
 * graphs; the same iterations as the graphs within rounding, the answer to
 * rtol, and after new values the block reads the new matrix. */
static void block_solves(void)
{
    spk_context *ctx = test_context();
    const int g = 40, n = g * g;
    int *rp, *ci;
    double *v;
    laplacian_unsorted(g, &rp, &ci, &v);
    /* a varying diagonal: IC(0)/ILU(0) kept by auto (not Laplacian-shaped) */
    for (int i = 0; i < n; i++)
        for (int k = rp[i]; k < rp[i + 1]; k++)
            if (ci[k] == i) v[k] += 0.25 * (i % 7);
    const int nin = rp[n];
    spk_matrix *A = NULL, *N = NULL;
    CHECK_OK(spk_matrix_from_csr(ctx, n, n, rp, ci, v, &A), spk_last_error(ctx));
    double *vA = malloc((size_t)nin * sizeof(double)), *nv = malloc((size_t)nin * sizeof(double));
    memcpy(vA, v, (size_t)nin * sizeof(double));
    for (int i = 0; i < n; i++)
        for (int k = rp[i]; k < rp[i + 1]; k++)
            if (ci[k] == i + 1) v[k] = -1.6;
    CHECK_OK(spk_matrix_from_csr(ctx, n, n, rp, ci, v, &N), spk_last_error(ctx));
    const int gpu = strcmp(spk_context_device(ctx), "cuda") == 0;
    double *xs = malloc((size_t)n * sizeof(double)), *b = malloc((size_t)n * sizeof(double));
    double *x = malloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; i++) xs[i] = 1.0 + sin(0.37 * i);
    const struct {
        spk_matrix *M;
        spk_solver_kind kind;
        spk_precond_kind pc;
        int sweeps;
        const char *what;
    } cases[] = {{A, SPK_SOLVER_CG, SPK_PRECOND_NONE, SPK_PRECOND_SWEEPS_AUTO, "CG"},
                 {A, SPK_SOLVER_CG, SPK_PRECOND_FACTOR, SPK_PRECOND_SWEEPS_AUTO, "CG + IC(0), sweeps auto"},
                 {A, SPK_SOLVER_CG, SPK_PRECOND_FACTOR, 2, "CG + IC(0), 2 sweeps"},
                 {N, SPK_SOLVER_BICGSTAB, SPK_PRECOND_NONE, SPK_PRECOND_SWEEPS_AUTO, "BiCGStab"},
                 {N, SPK_SOLVER_BICGSTAB, SPK_PRECOND_FACTOR, SPK_PRECOND_SWEEPS_AUTO, "BiCGStab + ILU(0)"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int iters[2] = {0, 0};
        for (int f = 0; f < 2; f++) {
            spk_options o;
            spk_options_default(&o);
            o.rtol = 1e-10;
            o.precond_sweeps = cases[c].sweeps;
            o.vector_ops = f ? SPK_VECTOR_BLOCK : SPK_VECTOR_GRAPH;
            spk_solver *s = NULL;
            spk_result r;
            CHECK_OK(spk_solver_create(ctx, cases[c].M, cases[c].kind, cases[c].pc, &o, &s), spk_last_error(ctx));
            CHECK_OK(spk_matrix_multiply(cases[c].M, xs, b), spk_last_error(ctx));
            memset(x, 0, (size_t)n * sizeof(double));
            CHECK_OK(spk_solve(s, b, x, &r), spk_last_error(ctx));
            CHECK(r.reason == SPK_CONVERGED_RTOL && r.true_relres <= 1e-9 && max_err(x, xs, n) < 1e-7,
                  "%s (%s): %s, true relres %g, error %g", cases[c].what, f ? "block" : "graph",
                  spk_reason_name(r.reason), r.true_relres, max_err(x, xs, n));
            iters[f] = r.iterations;
            if (f) {
                /* on the GPU every iteration in the block (BiCGStab's first on the
                 * ordinary path), none on the host */
                const int first = cases[c].kind == SPK_SOLVER_BICGSTAB;
                CHECK(gpu ? r.block_iterations == r.iterations - first && r.graph_iterations == 0
                          : r.block_iterations == 0,
                      "%s: %d of %d iterations in one block, %d replayed (device %s)", cases[c].what,
                      r.block_iterations, r.iterations, r.graph_iterations, spk_context_device(ctx));
                /* the true residual reported (on the GPU from the block's kernel) is that of the x returned */
                double host, bound;
                CHECK(true_relres_of(cases[c].M, n, b, x, r.true_relres, &host, &bound),
                      "%s: true relres %.9g reported, %.9g of the x returned (rounding %.3g)", cases[c].what,
                      r.true_relres, host, bound);
                CHECK(r.t_spmv > 0 && r.t_vector > 0 && (cases[c].pc == SPK_PRECOND_NONE) == (r.t_precond == 0),
                      "%s: phases %g %g %g", cases[c].what, r.t_spmv, r.t_precond, r.t_vector);
                /* new values (the diagonal doubled): refactored, and the block reads them */
                const double *orig = cases[c].M == A ? vA : v;
                memcpy(nv, orig, (size_t)nin * sizeof(double));
                for (int i = 0; i < n; i++)
                    for (int k = rp[i]; k < rp[i + 1]; k++)
                        if (ci[k] == i) nv[k] *= 2;
                CHECK_OK(spk_matrix_update_values(cases[c].M, nv), spk_last_error(ctx));
                CHECK_OK(spk_matrix_multiply(cases[c].M, xs, b), spk_last_error(ctx));
                memset(x, 0, (size_t)n * sizeof(double));
                CHECK_OK(spk_solve(s, b, x, &r), spk_last_error(ctx));
                CHECK(r.reason == SPK_CONVERGED_RTOL && max_err(x, xs, n) < 1e-7 && (!gpu || r.block_iterations > 0),
                      "%s after new values: %s, error %g, %d block iterations", cases[c].what,
                      spk_reason_name(r.reason), max_err(x, xs, n), r.block_iterations);
                CHECK_OK(spk_matrix_update_values(cases[c].M, orig), spk_last_error(ctx));
            }
            spk_solver_destroy(s);
        }
        const char *mname = cases[c].kind == SPK_SOLVER_CG ? "cg" : "bicgstab";
        CHECK(iter_match(mname, iters[1], iters[0]), "%s: %d iterations in one block, %d with graphs",
              cases[c].what, iters[1], iters[0]);
        printf("%-28s %4d iterations with graphs, %4d in one block\n", cases[c].what, iters[0], iters[1]);
    }
    free(xs);
    free(b);
    free(x);
    free(vA);
    free(nv);
    spk_matrix_destroy(A);
    spk_matrix_destroy(N);
    free(rp);
    free(ci);
    free(v);
    spk_context_destroy(ctx);
}

/* spk_options.race: on the GPU, CG + IC(0) chosen by auto on a small system
 * runs CG without a preconditioner and CG with Jacobi alongside, and the
 * first to converge answers.  Outcomes that do not hang on timing: plat362
 * (IC(0) takes more iterations than none: 2469 against 1523, each dearer;
 * Jacobi 3947) answers from the CG without a preconditioner; bcsstk21 with
 * maxit 2000 (without a preconditioner CG needs 5766) and only that CG
 * alongside (race 2) from IC(0); with Jacobi too (322 iterations, each
 * cheaper than IC(0)'s 251) from IC(0) or from Jacobi.  A scaled 2D
 * Laplacian of 10,000 rows (more than 32,768 entries: IC(0) factorized on
 * the device, where a side that converges stops the factorization's
 * kernel) answers from any.  Each answer is the one the same method gives
 * alone. */
static void race_solves(void)
{
    spk_context *ctx = test_context();
    const int gpu = strcmp(spk_context_device(ctx), "cuda") == 0;
    spk_options o;
    spk_options_default(&o);
    CHECK(o.race == 1, "race on by default");
    const struct {
        const char *file; /* NULL: D L D, L the 2D Laplacian on a 100 x 100 grid, d_i = 1 + 3 (i mod 5) */
        int maxit, race;
        int want[3]; /* spk_result.race on the GPU: any of them (0: no other) */
    } cases[] = {{"plat362.mtx.gz", 10000, 1, {2, 0, 0}},
                 {"bcsstk21.mtx.gz", 2000, 2, {1, 0, 0}},
                 {"bcsstk21.mtx.gz", 2000, 1, {1, 3, 0}},
                 {NULL, 10000, 1, {1, 2, 3}}};
    /* the method alone that each spk_result.race stands for */
    const spk_precond_kind alone_of[4] = {SPK_PRECOND_AUTO, SPK_PRECOND_FACTOR, SPK_PRECOND_NONE, SPK_PRECOND_JACOBI};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", SPK_TEST_DATA, cases[c].file ? cases[c].file : "");
        spk_matrix *A = NULL;
        if (cases[c].file) {
            CHECK_OK(spk_matrix_read(ctx, path, &A), spk_last_error(ctx));
        } else {
            int *lrp, *lci;
            double *lv;
            const int ln = laplacian_unsorted(100, &lrp, &lci, &lv);
            for (int i = 0; i < ln; i++)
                for (int k = lrp[i]; k < lrp[i + 1]; k++) lv[k] *= (1.0 + 3 * (i % 5)) * (1.0 + 3 * (lci[k] % 5));
            CHECK_OK(spk_matrix_from_csr(ctx, ln, ln, lrp, lci, lv, &A), spk_last_error(ctx));
            free(lrp);
            free(lci);
            free(lv);
        }
        const char *name = cases[c].file ? cases[c].file : "D L D (100 x 100)";
        if (!A) continue;
        int n = 0;
        spk_matrix_csr(A, &n, NULL, NULL, NULL, NULL, NULL);
        double *xs = malloc((size_t)n * sizeof(double)), *b = malloc((size_t)n * sizeof(double));
        double *x = malloc((size_t)n * sizeof(double));
        double *x1[4] = {NULL, NULL, NULL, NULL};
        spk_result ra[4];
        memset(ra, 0, sizeof ra);
        for (int i = 0; i < n; i++) xs[i] = 1.0 + 0.5 * sin(0.1 * i);
        CHECK_OK(spk_matrix_multiply(A, xs, b), spk_last_error(ctx));
        /* each method that may answer, alone, without the race */
        spk_options oa;
        spk_options_default(&oa);
        oa.maxit = cases[c].maxit;
        oa.race = 0;
        spk_solver *s = NULL;
        spk_result r;
        for (int w = 0; w < 3; w++) {
            const int k = cases[c].want[w];
            if (k < 1 || x1[k]) continue;
            x1[k] = calloc((size_t)n, sizeof(double));
            CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_CG, alone_of[k], &oa, &s), spk_last_error(ctx));
            if (!s || !x1[k]) continue;
            CHECK_OK(spk_solve(s, b, x1[k], &ra[k]), spk_last_error(ctx));
            CHECK(ra[k].race == 0, "%s alone: race %d", name, ra[k].race);
            spk_solver_destroy(s);
            s = NULL;
        }
        /* auto with the race: twice with the same solver (the first builds
         * IC(0) alongside; the second has it), then once after asking for
         * the preconditioner before any solve (its kind only: the solve
         * builds it) */
        o.maxit = cases[c].maxit;
        o.race = cases[c].race;
        o.probe = 0; /* where the race does not run, IC(0) from the start */
        for (int round = 0; round < 3; round++) {
            if (round != 1) { /* round 1 solves again with round 0's solver */
                spk_solver_destroy(s);
                s = NULL;
                CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, &o, &s), spk_last_error(ctx));
                if (!s) break;
            }
            if (round == 2)
                CHECK(gpu ? strcmp(spk_solver_precond(s), "ic0") == 0 && spk_solver_precond_sweeps(s) == 0
                          : strncmp(spk_solver_precond(s), "ic0", 3) == 0,
                      "%s: the preconditioner before the solve: %s, %d sweeps", name, spk_solver_precond(s),
                      spk_solver_precond_sweeps(s));
            memset(x, 0, (size_t)n * sizeof(double));
            const int st = spk_solve(s, b, x, &r);
            CHECK(st == SPK_OK, "%s round %d: %s", name, round, spk_last_error(ctx));
            const int k = r.race;
            CHECK(gpu ? k >= 1 && (k == cases[c].want[0] || k == cases[c].want[1] || k == cases[c].want[2]) : k == 0,
                  "%s race %d round %d: race %d (device %s)", name, cases[c].race, round, k,
                  spk_context_device(ctx));
            CHECK(strncmp(spk_solver_precond(s), "ic0", 3) == 0 && strcmp(spk_solver_method(s), "cg") == 0,
                  "%s: %s + %s", name, spk_solver_method(s), spk_solver_precond(s));
            if (!gpu || k < 1 || k > 3 || !x1[k]) continue;
            CHECK(r.reason == SPK_CONVERGED_RTOL && r.true_relres <= fmax(1e-7, 2 * ra[k].true_relres),
                  "%s round %d: %s, true relres %g (alone %g)", name, round, spk_reason_name(r.reason),
                  r.true_relres, ra[k].true_relres);
            { /* the true residual reported (from the kernel alongside) is that of the x returned */
                double host, bound;
                CHECK(true_relres_of(A, n, b, x, r.true_relres, &host, &bound),
                      "%s round %d (race %d): true relres %.9g reported, %.9g of the x returned (rounding %.3g)",
                      name, round, k, r.true_relres, host, bound);
            }
            if (k >= 2) {
                /* a CG alongside is that method alone, iteration for iteration */
                double d = 0, m = 0;
                for (int i = 0; i < n; i++) {
                    d = fmax(d, fabs(x[i] - x1[k][i]));
                    m = fmax(m, fabs(x1[k][i]));
                }
                CHECK(r.iterations == ra[k].iterations && d <= 1e-12 * m && r.shift == 0,
                      "%s round %d: %d iterations alongside (race %d), %d alone; x differs by %g of %g",
                      name, round, r.iterations, k, ra[k].iterations, d, m);
                CHECK(r.block_iterations == r.iterations && r.t_vector > 0 && (k == 3 || r.t_precond == 0),
                      "%s round %d: %d block iterations of %d, precond %g ms", name, round,
                      r.block_iterations, r.iterations, 1e3 * r.t_precond);
            } else {
                CHECK(r.iterations == ra[k].iterations, "%s round %d: %d iterations with the race, %d without",
                      name, round, r.iterations, ra[k].iterations);
            }
        }
        spk_solver_destroy(s);
        free(xs);
        free(b);
        free(x);
        for (int k = 0; k < 4; k++) free(x1[k]);
        spk_matrix_destroy(A);
    }
    /* IC(0) that fails (plat362 without shifts): on the GPU the first solve
     * builds it and reports the failure, and so does the next */
    {
        char path[1024];
        snprintf(path, sizeof path, "%s/plat362.mtx.gz", SPK_TEST_DATA);
        spk_matrix *P = NULL;
        CHECK_OK(spk_matrix_read(ctx, path, &P), spk_last_error(ctx));
        int np = 0;
        if (P) spk_matrix_csr(P, &np, NULL, NULL, NULL, NULL, NULL);
        double *bp = calloc((size_t)np + 1, sizeof(double)), *xp = calloc((size_t)np + 1, sizeof(double));
        for (int i = 0; i < np; i++) bp[i] = 1.0;
        spk_options oz;
        spk_options_default(&oz);
        oz.allow_shift = 0;
        oz.probe = 0; /* IC(0) from the start */
        for (int getter = 0; getter < 2 && P; getter++) {
            spk_solver *s = NULL;
            const int st = spk_solver_create(ctx, P, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, &oz, &s);
            if (!gpu) {
                CHECK(st == SPK_ERR_ZERO_PIVOT && !s, "plat362 without shifts on the host: %d (%s)", st,
                      spk_last_error(ctx));
                spk_solver_destroy(s);
                break;
            }
            CHECK(st == SPK_OK, "plat362 without shifts: create %d (%s)", st, spk_last_error(ctx));
            if (!s) continue;
            if (getter)
                CHECK(strcmp(spk_solver_precond(s), "ic0") == 0, "plat362 without shifts: '%s' before the solve",
                      spk_solver_precond(s));
            for (int round = 0; round < 2; round++) {
                spk_result r;
                const int ss = spk_solve(s, bp, xp, &r);
                CHECK(ss == SPK_ERR_ZERO_PIVOT && strstr(spk_last_error(ctx), "row"),
                      "plat362 without shifts, getter %d, solve %d: %d (%s)", getter, round, ss, spk_last_error(ctx));
            }
            spk_solver_destroy(s);
        }
        free(bp);
        free(xp);
        spk_matrix_destroy(P);
    }
    /* a bad value */
    spk_matrix *L = NULL;
    int *rp, *ci;
    double *v;
    const int n = laplacian_unsorted(6, &rp, &ci, &v);
    CHECK_OK(spk_matrix_from_csr(ctx, n, n, rp, ci, v, &L), spk_last_error(ctx));
    o.race = 3;
    spk_solver *s = NULL;
    CHECK(spk_solver_create(ctx, L, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, &o, &s) == SPK_ERR_INVALID_ARG && !s &&
              strstr(spk_last_error(ctx), "race"),
          "race = 3: %s", spk_last_error(ctx));
    spk_matrix_destroy(L);
    free(rp);
    free(ci);
    free(v);
    spk_context_destroy(ctx);
}

/* spk_solve fills the result on every return: one that ended on an error
 * never reads as converged (SPK_CONVERGED_RTOL is 0, a zeroed result's). */
/* A = [4 1; 1 3] in ctx: A x = (1, 2) has x = (1/11, 7/11). */
static spk_matrix *small_spd(spk_context *ctx)
{
    int rp[] = {0, 2, 4}, ci[] = {0, 1, 0, 1};
    double v[] = {4, 1, 1, 3};
    spk_matrix *A = NULL;
    CHECK_OK(spk_matrix_from_csr(ctx, 2, 2, rp, ci, v, &A), spk_last_error(ctx));
    return A;
}

static void result_on_every_return(void)
{
    spk_context *ctx = test_context();
    double b[] = {1, 2}, x[] = {0, 0};
    spk_matrix *A = small_spd(ctx);
    spk_solver *s = NULL;
    spk_options o;
    spk_options_default(&o);
    o.allow_shift = 0;
    o.race = 0;
    o.probe = 0;
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_CG, SPK_PRECOND_IC0, &o, &s), spk_last_error(ctx));
    spk_result r;
    CHECK_OK(spk_solve(s, b, x, &r), spk_last_error(ctx));
    CHECK(r.reason == SPK_CONVERGED_RTOL || r.reason == SPK_CONVERGED_ATOL, "reason %d", (int)r.reason);
    /* new values with a zero pivot: the refactorization in spk_solve fails before any iteration */
    double bad[] = {-4, 1, 1, 3};
    CHECK_OK(spk_matrix_update_values(A, bad), spk_last_error(ctx));
    memset(&r, 0, sizeof r); /* reads as converged if left untouched */
    x[0] = x[1] = 0;
    const int st = spk_solve(s, b, x, &r);
    CHECK(st == SPK_ERR_ZERO_PIVOT, "zero pivot after update_values: status %d", st);
    CHECK(r.reason == SPK_SOLVE_ERROR && r.iterations == 0, "zero pivot: reason %d (%s), %d iterations",
          (int)r.reason, spk_reason_name(r.reason), r.iterations);
    CHECK(check_contains(spk_reason_name(r.reason), "error"), "%s", spk_reason_name(r.reason));
    /* NULL arguments: the status and the reason say so */
    memset(&r, 0, sizeof r);
    CHECK(spk_solve(s, NULL, x, &r) == SPK_ERR_INVALID_ARG && r.reason == SPK_SOLVE_ERROR, "b NULL: reason %d",
          (int)r.reason);
    memset(&r, 0, sizeof r);
    CHECK(spk_solve(NULL, b, x, &r) == SPK_ERR_INVALID_ARG && r.reason == SPK_SOLVE_ERROR, "solver NULL: reason %d",
          (int)r.reason);
    CHECK(spk_solve(NULL, b, x, NULL) == SPK_ERR_INVALID_ARG, "solver and result NULL");
    spk_options_default(NULL); /* no options to fill: nothing happens */
    spk_solver_destroy(s);
    spk_matrix_destroy(A);
    spk_context_destroy(ctx);
}

/* Right-hand sides far from 1 are solved as well as b of 1 (scaled by a
 * power of two inside spk_solve); a non-finite entry is named. */
static void extreme_rhs(void)
{
    spk_context *ctx = test_context();
    int rp[] = {0, 2, 5, 8, 10}, ci[] = {0, 1, 0, 1, 2, 1, 2, 3, 2, 3};
    double v[] = {4, -1, -1, 4, -1, -1, 4, -1, -1, 4};
    spk_matrix *A = NULL;
    CHECK_OK(spk_matrix_from_csr(ctx, 4, 4, rp, ci, v, &A), spk_last_error(ctx));
    const double scale[] = {1e-300, 1e-310, 1e306, 1.0};
    const spk_precond_kind pk[] = {SPK_PRECOND_NONE, SPK_PRECOND_JACOBI, SPK_PRECOND_FACTOR};
    for (int p = 0; p < 3; p++)
        for (int t = 0; t < 4; t++) {
            spk_options o;
            spk_options_default(&o);
            o.probe = 0;
            o.race = 0;
            spk_solver *s = NULL;
            CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, pk[p], &o, &s), spk_last_error(ctx));
            double xs[4] = {1, -2, 3, 0.5}, b[4], x[4] = {0, 0, 0, 0};
            for (int i = 0; i < 4; i++) xs[i] *= scale[t];
            spk_matrix_multiply(A, xs, b);
            spk_result r;
            const int st = spk_solve(s, b, x, &r);
            double err = 0;
            for (int i = 0; i < 4; i++) err = fmax(err, fabs(x[i] - xs[i]) / scale[t]);
            CHECK(st == SPK_OK && r.reason == SPK_CONVERGED_RTOL && err < 1e-6 && r.true_relres < 1e-8,
                  "b of %g, precond %d: status %d (%s), reason %s, error %g relative", scale[t], (int)pk[p], st,
                  spk_last_error(ctx), spk_reason_name(r.reason), err);
            CHECK(r.rnorm0 > 0 && r.rnorm0 < 100 * scale[t] && isfinite(r.rnorm0), "b of %g: rnorm0 %g", scale[t],
                  r.rnorm0);
            spk_solver_destroy(s);
        }
    spk_solver *s = NULL;
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_NONE, NULL, &s), spk_last_error(ctx));
    double b[4] = {1, INFINITY, 1, 1}, x[4] = {0, 0, 0, 0};
    spk_result r;
    CHECK(spk_solve(s, b, x, &r) == SPK_ERR_INVALID_ARG && r.reason == SPK_INVALID_INPUT &&
              check_contains(spk_last_error(ctx), "b[1] = inf"),
          "inf in b: %s", spk_last_error(ctx));
    b[1] = 1;
    x[2] = NAN;
    CHECK(spk_solve(s, b, x, &r) == SPK_ERR_INVALID_ARG && check_contains(spk_last_error(ctx), "x0[2] = nan"),
          "NaN in x0: %s", spk_last_error(ctx));
    spk_solver_destroy(s);
    /* rtol 0 on a well-conditioned SPD system: the breakdown at the precision floor is said as
     * such, with no switch to BiCGStab and no "indefinite" or "singular" */
    for (int p = 0; p < 3; p++) {
        spk_options o;
        spk_options_default(&o);
        o.probe = 0;
        o.race = 0;
        o.rtol = 0;
        o.maxit = 300;
        CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, pk[p], &o, &s), spk_last_error(ctx));
        double bf[4] = {1, 2, 3, 4}, xf[4] = {0, 0, 0, 0};
        const int st = spk_solve(s, bf, xf, &r);
        const int floor = st == SPK_ERR_NOT_CONVERGED && r.true_relres < 1e-14 && !r.switched &&
                          (r.reason == SPK_PRECISION_FLOOR ? check_contains(spk_last_error(ctx), "precision floor")
                                                           : r.reason == SPK_DIVERGED_MAXIT);
        CHECK(floor && !check_contains(spk_last_error(ctx), "singular") &&
                  !check_contains(spk_last_error(ctx), "not positive definite;"),
              "rtol 0, precond %d: status %d, reason %s, switched %d, true %g: %s", (int)pk[p], st,
              spk_reason_name(r.reason), r.switched, r.true_relres, spk_last_error(ctx));
        spk_solver_destroy(s);
    }
    spk_matrix_destroy(A);
    /* the same with the default's choice measured (probe on) on an 8 x 8 SPD matrix whose
     * diagonal varies (its cheap preconditioner is Jacobi): the breakdown at the floor is no
     * failure of that choice, so the last resort (none after a failed preconditioner) stays out */
    int rp8[9], ci8[22];
    double v8[22];
    int q = 0;
    for (int i = 0; i < 8; i++) {
        rp8[i] = q;
        for (int j = i - 1; j <= i + 1; j++)
            if (j >= 0 && j < 8) ci8[q] = j, v8[q++] = j == i ? 2.0 + i : -1.0;
    }
    rp8[8] = q;
    CHECK_OK(spk_matrix_from_csr(ctx, 8, 8, rp8, ci8, v8, &A), spk_last_error(ctx));
    spk_options o;
    spk_options_default(&o);
    o.race = 0;
    o.rtol = 0;
    o.maxit = 300;
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, &o, &s), spk_last_error(ctx));
    double b8[8] = {1, 2, 3, 4, 5, 6, 7, 8}, x8[8] = {0};
    const int st8 = spk_solve(s, b8, x8, &r);
    CHECK(st8 == SPK_ERR_NOT_CONVERGED && r.true_relres < 1e-14 && !r.switched &&
              (r.reason == SPK_PRECISION_FLOOR || r.reason == SPK_DIVERGED_MAXIT) &&
              !check_contains(spk_solver_choice(s), "last resort") && strcmp(spk_solver_precond(s), "none") != 0,
          "rtol 0 with the probe: status %d, reason %s, true %g, precond %s, choice: %s", st8,
          spk_reason_name(r.reason), r.true_relres, spk_solver_precond(s), spk_solver_choice(s));
    spk_solver_destroy(s);
    spk_matrix_destroy(A);
    spk_context_destroy(ctx);
}

/* Destroying the context and the matrix before the solver is allowed: the
 * solver keeps them (the sanitizer and leak checks of the CI see any misuse
 * or leak). */
static void destroy_in_any_order(void)
{
    for (int order = 0; order < 2; order++) {
        spk_context *ctx = test_context();
        double b[] = {1, 2}, x[] = {0, 0};
        spk_matrix *A = small_spd(ctx);
        spk_solver *s = NULL;
        CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, NULL, &s), spk_last_error(ctx));
        if (order == 0) {
            spk_context_destroy(ctx);
            spk_matrix_destroy(A);
        } else {
            spk_matrix_destroy(A);
            spk_context_destroy(ctx);
        }
        spk_result r;
        CHECK(spk_solve(s, b, x, &r) == SPK_OK && fabs(x[0] - 1.0 / 11) < 1e-12 && fabs(x[1] - 7.0 / 11) < 1e-12,
              "solve after the context and matrix were destroyed (order %d): x = %g %g", order, x[0], x[1]);
        spk_solver_destroy(s);
    }
}

int main(void)
{
    matrices_and_solves();
    fused_solves();
    block_solves();
    race_solves();
    format_name_copied();
    auto_switch();
    bad_input();
    vectors();
    reorder_multicolor();
    result_on_every_return();
    extreme_rhs();
    destroy_in_any_order();
    return check_exit();
}

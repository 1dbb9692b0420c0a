/* solve.c -- spk_solve (include/spk.h): new values taken, the vectors
 * uploaded, the race and a deferred preconditioner's build, the method on
 * its engine, CG's switch to BiCGStab where AUTO met an indefinite matrix,
 * the answer and its status; spk_solve_device, the same with b and x in the
 * GPU's memory (copied on the device, never through the host). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/api_impl.h"
#ifdef SPK_HAVE_CUDA
#include "core/exec_cuda.h"
#endif

/* Status and message for a finished solve. */
static int outcome(spk_solver *s, const spk_result *r)
{
    spk_err *e = &s->ctx->err;
    const char *m = spk_solver_method(s);
    if (spk_result_at_floor(r))
        return spk_err_set(e, SPK_ERR_NOT_CONVERGED,
                           "%s reached the precision floor at iteration %d: relative residual %.1e (true %.1e), "
                           "rtol %.1e; double precision allows no further reduction (%s)",
                           m, r->iterations, r->relres, r->true_relres, s->opts.rtol, spk_reason_name(r->reason));
    switch (r->reason) {
    case SPK_CONVERGED_RTOL:
    case SPK_CONVERGED_ATOL:
    case SPK_CONVERGED_ZERO_RHS: return SPK_OK;
    case SPK_DIVERGED_MAXIT:
        return spk_err_set(e, SPK_ERR_NOT_CONVERGED,
                           "%s did not converge in %d iterations: relative residual %.3e, rtol %.1e",
                           m, r->iterations, r->relres, s->opts.rtol);
    case SPK_DIVERGED_DTOL:
        return spk_err_set(e, SPK_ERR_NOT_CONVERGED,
                           "%s diverged at iteration %d: relative residual %.3e, above dtol %.1e "
                           "times the larger of ||b|| and the initial residual",
                           m, r->iterations, r->relres, s->opts.dtol);
    case SPK_BREAKDOWN_INDEFINITE:
        return spk_err_set(e, SPK_ERR_INDEFINITE,
                           "CG broke down at iteration %d: p'Ap <= 0, so the matrix is not positive "
                           "definite; use BiCGStab (--solver bicgstab)",
                           r->iterations + 1);
    case SPK_BREAKDOWN_PRECOND:
        return spk_err_set(e, SPK_ERR_INDEFINITE,
                           "CG broke down at iteration %d: r'z <= 0, so the preconditioner (%s) is "
                           "not positive definite",
                           r->iterations + 1, spk_solver_precond(s));
    case SPK_INVALID_INPUT:
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "the right-hand side or the initial guess "
                                                   "contains NaN or Inf");
    case SPK_BREAKDOWN_RHO:
    case SPK_BREAKDOWN_R0V:
    case SPK_BREAKDOWN_OMEGA:
    case SPK_BREAKDOWN_SINGULAR:
        return spk_err_set(e, SPK_ERR_BREAKDOWN,
                           "%s stopped at iteration %d: %s%s; the system is probably singular or "
                           "nearly so (no solution, or b outside the range of A)",
                           m, r->iterations, spk_reason_name(r->reason),
                           r->restarts ? ", also after restarting" : "");
    default:
        return spk_err_set(e, SPK_ERR_BREAKDOWN, "%s stopped at iteration %d: %s", m,
                           r->iterations, spk_reason_name(r->reason));
    }
}

/* The deferred preconditioner's build (the race): it ends early where a
 * side has answered; stopped without a winner after all (the sides' ends
 * are tested on the host), it is built whole.  *t_setup: its seconds. */
static int build_deferred(spk_solver *s, spk_race *rc, double *t_setup)
{
    spk_err *e = &s->ctx->err;
    if (rc) {
        s->popts.stop = spk_solver_race_answered;
        s->popts.stop_arg = rc;
#ifdef SPK_HAVE_CUDA
        s->popts.stop_dev = spk_race_cuda_flag(s->ctx->exec, &s->popts.stop_value);
#endif
    }
    int st = spk_solver_deferred_setup(s);
    s->popts.stop = NULL;
    s->popts.stop_arg = NULL;
    s->popts.stop_dev = NULL;
    /* stopped on the device's flag: the side that set it ends within an iteration */
    if (st == SPK_PRECOND_STOPPED && rc) SPK_TRY(spk_race_settle(rc));
    if (st == SPK_PRECOND_STOPPED) {
        if (rc && rc->winner >= 0) {
            st = SPK_OK; /* not built: the next solve builds it */
        } else {
            st = spk_solver_deferred_setup(s);
            if (st == SPK_PRECOND_STOPPED)
                st = spk_err_set(e, SPK_ERR_INTERNAL, "the preconditioner's build stopped early");
        }
    }
    if (!st) *t_setup = s->t_setup;
    return st;
}

/* BiCGStab under AUTO broke down (rho, r0'v or omega zero, also after its
 * restarts) with the residual well above the precision floor: restarted
 * GMRES, whose residual cannot break down or grow, finishes from the
 * iterate reached, with the preconditioner in use and the iterations left;
 * later solves keep GMRES.  It only runs where the solve had failed. */
static int switch_to_gmres(spk_solver *s, const double *db, double *dx, spk_result *r)
{
    const spk_result first = *r;
    spk_options o = s->opts;
    o.maxit = s->opts.maxit - first.iterations;
    if (o.maxit < 1) return SPK_OK;
    s->kind = SPK_SOLVER_GMRES;
    memset(r, 0, sizeof *r);
    s->k.it_base = first.iterations; /* the progress callback counts on */
    const int st = spk_solver_run(s, db, dx, &o, r);
    s->k.it_base = 0;
    SPK_TRY(st);
    r->iterations += first.iterations;
    r->switched = 2;
    r->t_spmv += first.t_spmv;
    r->t_precond += first.t_precond;
    r->t_vector += first.t_vector;
    r->t_sync += first.t_sync;
    return SPK_OK;
}

/* x0, for a restart with BiCGStab if CG finds A indefinite under AUTO: with
 * device vectors the host's x is x0 until the final download; in place (the
 * host's vectors) a copy (*copy, freed by the caller). */
static int keep_x0(spk_solver *s, const double *x, const double **x0, double **copy)
{
    if (!s->auto_kind || s->kind != SPK_SOLVER_CG) return SPK_OK;
    if (s->b) {
        *x0 = x;
        return SPK_OK;
    }
    const int n = s->M->A.nrows;
    *copy = spk_malloc((size_t)n, sizeof(double), "initial guess copy", &s->ctx->err);
    if (!*copy) return SPK_ERR_NOMEM;
    memcpy(*copy, x, (size_t)n * sizeof(double));
    *x0 = *copy;
    return SPK_OK;
}

/* CG under AUTO found A (or M) indefinite: BiCGStab from x0 with ILU(0),
 * or with no preconditioner or Jacobi where the caller named one of those
 * (the switch changes the method, never a preconditioner the caller
 * chose), the first attempt's phase times added. */
static int switch_to_bicgstab(spk_solver *s, const double *db, double *dx, const double *x0, int dev,
                              const spk_race *rc, spk_result *r, double *t_setup, int *alongside)
{
    spk_exec *ex = s->ctx->exec;
    const spk_result first = *r;
    s->kind = SPK_SOLVER_BICGSTAB;
    s->pkind = s->pasked == SPK_PRECOND_NONE || s->pasked == SPK_PRECOND_JACOBI ? s->pasked : SPK_PRECOND_ILU0;
    const double t1 = spk_time_now();
    SPK_TRY(spk_solver_original_row(s, spk_solver_make_precond(s)));
    *t_setup += spk_time_now() - t1;
    const int n = s->M->A.nrows;
    SPK_TRY(dev ? ex->ops->copy(ex, n, x0, dx) : ex->ops->upload(ex, dx, x0, (size_t)n * sizeof(double)));
    memset(r, 0, sizeof *r);
    SPK_TRY(spk_solver_iterate(s, db, dx, r, t_setup)); /* with the default's last resort */
    *alongside = rc && rc->winner >= 0;
    r->switched = !*alongside;
    r->t_spmv += first.t_spmv;
    r->t_precond += first.t_precond;
    r->t_vector += first.t_vector;
    r->t_sync += first.t_sync;
    return SPK_OK;
}

/* spk_solve's work, its result in *res_out (zeroed by the caller); dev: b
 * and x in the executor's memory (spk_solve_device; no reordering). */
static int solve_into(spk_solver *s, const double *b, double *x, int dev, spk_result *res_out)
{
    spk_context *ctx = s->ctx;
    spk_err *e = &ctx->err;
    spk_exec *ex = ctx->exec;
    spk_err_clear(e);
    spk_result r;
    memset(&r, 0, sizeof r);
    double t0 = spk_time_now(), t_setup = 0;
    int n = s->M->A.nrows, st;
    size_t bytes = (size_t)n * sizeof(double);
    spk_race *rc = NULL;
    int alongside = 0; /* the answer is the CG alongside's (spk_options.race) */
    if (!b || !x) return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_solve: b and x are required");
    double *const xout = x;
    if (s->perm) { /* solve P A P^T (P x) = P b */
        for (int i = 0; i < n; i++) {
            s->pb[i] = b[s->perm[i]];
            s->px[i] = x[s->perm[i]];
        }
        b = s->pb;
        x = s->px;
    }
    if (s->version != s->M->version) {
        SPK_TRY(spk_solver_refresh(s));
        t_setup = s->t_setup;
    }
    const double *db = b;
    double *dx = x;
    if (s->b) {
        SPK_TRY(dev ? ex->ops->copy(ex, n, b, s->b) : ex->ops->upload(ex, s->b, b, bytes));
        SPK_TRY(dev ? ex->ops->copy(ex, n, x, s->x) : ex->ops->upload(ex, s->x, x, bytes));
        db = s->b;
        dx = s->x;
    }
    const double *x0 = NULL;
    double *x0_copy = NULL;
    SPK_TRY(keep_x0(s, x, &x0, &x0_copy));
    /* the race: CGs alongside, from before the deferred preconditioner is
     * built; the first to converge answers */
    rc = spk_solver_race_start(s, db, dx, &st);
    if (st) goto cleanup;
    if (s->deferred) SPK_CHECK(st, build_deferred(s, rc, &t_setup));
    if (rc) SPK_CHECK(st, spk_race_poll(rc, &alongside));
    s->k.race = rc;
    if (!alongside) SPK_CHECK(st, spk_solver_iterate(s, db, dx, &r, &t_setup));
    alongside = rc && rc->winner >= 0;
    if (!alongside && x0 && (r.reason == SPK_BREAKDOWN_INDEFINITE || r.reason == SPK_BREAKDOWN_PRECOND) &&
        !spk_result_at_floor(&r))
        SPK_CHECK(st, switch_to_bicgstab(s, db, dx, x0, dev, rc, &r, &t_setup, &alongside));
    if (!alongside && s->auto_kind && s->kind == SPK_SOLVER_BICGSTAB &&
        (r.reason == SPK_BREAKDOWN_RHO || r.reason == SPK_BREAKDOWN_R0V || r.reason == SPK_BREAKDOWN_OMEGA) &&
        !spk_result_at_floor(&r))
        SPK_CHECK(st, switch_to_gmres(s, db, dx, &r));
    s->k.race = NULL;
    int on_host = 0; /* the answer alongside is in x already */
    if (rc) {
        if (alongside) {
            SPK_CHECK(st, spk_race_result(rc, db, dx, s->b && !dev ? x : NULL, &on_host, &r));
        } else {
            SPK_CHECK(st, spk_race_stop(rc)); /* a win of its found now comes too late */
        }
        r.race = alongside ? 2 + rc->winner : 1;
    }
    if (s->b && !on_host)
        SPK_CHECK(st, dev ? ex->ops->copy(ex, n, s->x, x) : ex->ops->download(ex, x, s->x, bytes));
    if (s->perm)
        for (int i = 0; i < n; i++) xout[s->perm[i]] = x[i];
    r.shift = !alongside && s->k.M_ops && s->k.M_ops->shift ? s->k.M_ops->shift(s->k.M) : 0.0;
    r.t_setup = t_setup > 0 ? t_setup : s->t_setup;
    r.t_setup_upload = s->t_split[0];
    r.t_setup_check = s->t_split[1];
    r.t_setup_format = s->t_split[2];
    r.t_setup_precond = s->t_split[3];
    r.t_total = spk_time_now() - t0;
    st = outcome(s, &r);
    if (spk_result_at_floor(&r)) r.reason = SPK_PRECISION_FLOOR;
cleanup:
    s->k.race = NULL;
    s->k.begun.on = 0; /* a start made for the race and not taken (the CG alongside answered first) */
    if (st && rc) spk_race_stop(rc); /* after a failure: the error already set is the one to report */
    free(x0_copy);
    *res_out = r;
    return st;
}

/* A right-hand side whose entries are far from 1 (below 2^-500 or above
 * 2^500) is solved as A (2^-k x) = 2^-k b, with 2^k near its largest
 * entry: the scaling by a power of two is exact, and keeps the norms and
 * the inner products of the iterations (p'Ap, r'z) away from underflow and
 * overflow, where b of 1e-300 made CG see p'Ap = 0 ("indefinite") and b of
 * 1e-310 made ||b|| look infinite.  0: no scaling (k's exponent). */
static int rhs_exponent(int n, const double *b)
{
    double m = 0;
    for (int i = 0; i < n; i++) m = fmax(m, fabs(b[i])); /* a NaN is skipped: the solve reports it */
    int k = 0;
    if (m > 0 && isfinite(m) && (m < 0x1p-500 || m > 0x1p500)) frexp(m, &k);
    return k;
}

/* What is wrong with input the solve found not finite: an entry of b or x0
 * that is NaN or Inf, or (all finite) a norm beyond the double range. */
static int invalid_input(spk_solver *s, const double *b, const double *x)
{
    const int n = s->M->A.nrows;
    for (int w = 0; w < 2; w++) {
        const double *v = w ? x : b;
        for (int i = 0; i < n; i++)
            if (!isfinite(v[i]))
                return spk_err_set(&s->ctx->err, SPK_ERR_INVALID_ARG, "the %s contains NaN or Inf: %s[%d] = %g",
                                   w ? "initial guess" : "right-hand side", w ? "x0" : "b", i, v[i]);
    }
    return spk_err_set(&s->ctx->err, SPK_ERR_INVALID_ARG,
                       "the residual of the initial guess overflows the double range (b and x0 are finite; "
                       "A x0 or b - A x0 is not): scale the system");
}

/* Every return fills the result (spk_result_close), with the time spent
 * where the solve did not get as far as timing itself. */
static int settle_result(int st, spk_result *r, double t0, spk_result *res)
{
    if (r->t_total == 0) r->t_total = spk_time_now() - t0;
    return spk_result_close(st, r, res);
}

int spk_solve(spk_solver *s, const double *b, double *x, spk_result *res)
{
    spk_result r;
    memset(&r, 0, sizeof r);
    const double t0 = spk_time_now();
    int st = SPK_ERR_INVALID_ARG;
    if (s && s->z) {
        st = spk_err_set(&s->ctx->err, SPK_ERR_INVALID_ARG, "spk_solve: the matrix is complex (use spk_solve_complex)");
    } else if (s && b && x) {
        const int n = s->M->A.nrows, k = rhs_exponent(n, b);
        double *bs = k ? malloc(((size_t)n + 1) * sizeof(double)) : NULL;
        if (k && !bs) {
            st = spk_err_set(&s->ctx->err, SPK_ERR_NOMEM, "out of host memory (a scaled copy of b)");
        } else {
            const double atol = s->opts.atol;
            for (int i = 0; k && i < n; i++) {
                bs[i] = ldexp(b[i], -k);
                x[i] = ldexp(x[i], -k);
            }
            s->opts.atol = ldexp(atol, -k);
            const int threads = spk_threads_enter(s->ctx);
            st = solve_into(s, k ? bs : b, x, 0, &r);
            spk_threads_leave(s->ctx, threads);
            s->opts.atol = atol;
            for (int i = 0; k && i < n; i++) x[i] = ldexp(x[i], k);
            r.rnorm0 = ldexp(r.rnorm0, k);
            r.rnorm = ldexp(r.rnorm, k);
            for (int i = 0; k && r.history && i < r.history_len; i++) /* the solver's own buffer */
                ((double *)r.history)[i] = ldexp(r.history[i], k);
            free(bs);
            if (r.reason == SPK_INVALID_INPUT) st = invalid_input(s, b, x);
        }
    } else if (s) {
        st = spk_err_set(&s->ctx->err, SPK_ERR_INVALID_ARG, "spk_solve: b and x are required");
    }
    return settle_result(st, &r, t0, res);
}

#ifdef SPK_HAVE_CUDA
/* spk_solve_device's vectors: memory of the context's GPU, and no reordering
 * (it moves rows on the host); then the caller's work on them waited for. */
static int device_vectors(spk_solver *s, const double *b, const double *x)
{
    spk_exec *ex = s->ctx->exec;
    spk_err *e = &s->ctx->err;
    if (!spk_exec_is_cuda(ex))
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "spk_solve_device: the context runs on the host; b and x in GPU memory need a context "
                           "on the GPU (SPK_DEVICE_CUDA), host arrays spk_solve");
    if (s->perm)
        return spk_err_set(e, SPK_ERR_UNSUPPORTED,
                           "spk_solve_device: reorder moves b and x on the host; solve with spk_solve, or without "
                           "reorder");
    for (int w = 0; w < 2; w++)
        if (!spk_exec_cuda_holds(ex, w ? (const void *)x : (const void *)b))
            return spk_err_set(e, SPK_ERR_INVALID_ARG,
                               "spk_solve_device: %s (%p) is not memory of the context's GPU (device %d): give "
                               "device or managed memory of that GPU, or host arrays to spk_solve",
                               w ? "x" : "b", w ? (const void *)x : (const void *)b, spk_exec_cuda_device(ex));
    return spk_exec_cuda_settle(ex);
}

/* spk_solve's scaling of an extreme right-hand side (rhs_exponent), from
 * ||b|| on the device: b scaled into a device copy (*bs), x in place. */
static int device_scale(spk_solver *s, const double *b, double *x, int *k, double **bs)
{
    spk_exec *ex = s->ctx->exec;
    const int n = s->M->A.nrows;
    double m = 0;
    *k = 0;
    *bs = NULL;
    SPK_TRY(ex->ops->nrm2(ex, n, b, &m));
    if (!(m > 0) || !isfinite(m) || (m >= 0x1p-500 && m <= 0x1p500)) return SPK_OK;
    frexp(m, k);
    SPK_TRY(ex->ops->alloc(ex, (size_t)n * sizeof(double), (void **)bs));
    SPK_TRY(ex->ops->copy(ex, n, b, *bs));
    SPK_TRY(ex->ops->scal(ex, n, ldexp(1.0, -*k), *bs));
    return ex->ops->scal(ex, n, ldexp(1.0, -*k), x);
}

/* A right-hand side or x0 with NaN or Inf: invalid_input on host copies. */
static int device_invalid_input(spk_solver *s, const double *b, const double *x)
{
    spk_exec *ex = s->ctx->exec;
    const size_t bytes = (size_t)s->M->A.nrows * sizeof(double);
    double *h = malloc(2 * bytes + 1);
    if (!h) return spk_err_set(&s->ctx->err, SPK_ERR_NOMEM, "out of host memory (a copy of b and x0)");
    int st = ex->ops->download(ex, h, b, bytes);
    if (!st) st = ex->ops->download(ex, h + bytes / sizeof(double), x, bytes);
    if (!st) st = invalid_input(s, h, h + bytes / sizeof(double));
    free(h);
    return st;
}
#endif

int spk_solve_device(spk_solver *s, const double *b, double *x, spk_result *res)
{
    spk_result r;
    memset(&r, 0, sizeof r);
    const double t0 = spk_time_now();
    int st = SPK_ERR_INVALID_ARG;
    if (!s) return settle_result(st, &r, t0, res);
    spk_err *e = &s->ctx->err;
    spk_err_clear(e);
    if (s->z) {
        st = spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_solve_device: the matrix is complex (use spk_solve_complex)");
    } else if (!b || !x) {
        st = spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_solve_device: b and x are required");
    } else {
#ifdef SPK_HAVE_CUDA
        spk_exec *ex = s->ctx->exec;
        int k = 0;
        double *bs = NULL;
        const double atol = s->opts.atol;
        st = device_vectors(s, b, x);
        if (!st) st = device_scale(s, b, x, &k, &bs);
        if (!st) {
            s->opts.atol = ldexp(atol, -k);
            const int threads = spk_threads_enter(s->ctx);
            st = solve_into(s, k ? bs : b, x, 1, &r);
            spk_threads_leave(s->ctx, threads);
            s->opts.atol = atol;
            r.rnorm0 = ldexp(r.rnorm0, k);
            r.rnorm = ldexp(r.rnorm, k);
            for (int i = 0; k && r.history && i < r.history_len; i++) /* the solver's own buffer */
                ((double *)r.history)[i] = ldexp(r.history[i], k);
            const int st2 = k ? ex->ops->scal(ex, s->M->A.nrows, ldexp(1.0, k), x) : SPK_OK;
            const int st3 = ex->ops->sync(ex); /* x complete for the caller's streams */
            st = st ? st : st2 ? st2 : st3;
            if (r.reason == SPK_INVALID_INPUT) st = device_invalid_input(s, b, x);
        }
        if (bs) ex->ops->free(ex, bs);
#else
        st = spk_err_set(e, SPK_ERR_UNSUPPORTED, "spk_solve_device: this build of spk has no CUDA support");
#endif
    }
    return settle_result(st, &r, t0, res);
}

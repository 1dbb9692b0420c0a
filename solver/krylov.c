/* krylov.c -- workspace and the start/finish steps shared by CG and BiCGStab. */
#include <stdlib.h>
#include <string.h>

#include "solver/engine/steps.h"
#include "solver/krylov_common.h"

int spk_krylov_init(spk_krylov *k, spk_exec *e, int n, int maxit, int keep_history)
{
    memset(k, 0, sizeof *k);
    k->e = e;
    k->n = n;
    k->steps = spk_steps_of(e);
    /* On a device, one allocation for all of them (each allocation and free
     * there costs a few microseconds, a noticeable part of a small solve),
     * every vector at a multiple of 256 bytes; on the host one each (so a
     * checker sees each vector's bounds). */
    const size_t stride = ((size_t)(n > 0 ? n : 1) + 31) / 32 * 32;
    int st = SPK_OK;
    if (!spk_exec_is_host(e)) {
        double *pool = NULL;
        st = e->ops->alloc(e, SPK_KRYLOV_NWORK * stride * sizeof(double), (void **)&pool);
        if (!st) {
            k->pooled = 1;
            for (int i = 0; i < SPK_KRYLOV_NWORK; i++) k->w[i] = pool + (size_t)i * stride;
        }
    } else {
        for (int i = 0; i < SPK_KRYLOV_NWORK && !st; i++) st = spk_exec_alloc_vec(e, n, &k->w[i]);
    }
    if (st) {
        spk_err_prefix(e->err, "allocating %d Krylov work vectors of %d entries", SPK_KRYLOV_NWORK, n);
        spk_krylov_free(k);
        return st;
    }
    if (keep_history) {
        k->hist_cap = maxit + 2;
        k->hist = spk_malloc((size_t)k->hist_cap, sizeof(double), "residual history", e->err);
        if (!k->hist) {
            spk_krylov_free(k);
            return SPK_ERR_NOMEM;
        }
    }
    return SPK_OK;
}

void spk_krylov_free(spk_krylov *k)
{
    if (k->gmres.V) k->e->ops->free(k->e, k->gmres.V);
    k->gmres.V = NULL;
    k->gmres.m = 0;
    free(k->iter.host);
    free(k->iter.caller);
    k->iter.host = k->iter.caller = NULL;
    for (int i = 0; i < (k->pooled ? 1 : SPK_KRYLOV_NWORK); i++)
        if (k->w[i]) k->e->ops->free(k->e, k->w[i]);
    free(k->hist);
    memset(k->w, 0, sizeof k->w);
    k->pooled = 0;
    k->hist = NULL;
    k->hist_cap = 0;
}

int spk_krylov_start(spk_krylov *k, const double *b, double *x, double *r, const spk_options *o,
                     spk_result *res, double *bnorm, int *done)
{
    double rnorm = 0;
    *done = 1;
    SPK_VEC(k, res, nrm2, k->n, b, bnorm);
    if (isfinite(*bnorm) && *bnorm != 0.0) {
        SPK_TRY(spk_krylov_residual(k, res, b, x, r));
        SPK_VEC(k, res, nrm2, k->n, r, &rnorm);
    }
    return spk_krylov_started(k, o, res, x, *bnorm, rnorm, done);
}

int spk_krylov_started(spk_krylov *k, const spk_options *o, spk_result *res, double *x, double bnorm,
                       double rnorm, int *done)
{
    *done = 1;
    if (!isfinite(bnorm)) {
        res->reason = SPK_INVALID_INPUT;
        return SPK_OK;
    }
    if (bnorm == 0.0) {
        /* A x = 0 has the solution x = 0 (for a nonsingular A) */
        SPK_VEC(k, res, fill, k->n, 0.0, x);
        res->reason = SPK_CONVERGED_ZERO_RHS;
        spk_krylov_record(k, o, res, 0, 0.0, 0.0);
        return SPK_OK;
    }
    res->rnorm0 = res->rnorm = rnorm;
    res->relres = rnorm / bnorm;
    if (!isfinite(rnorm)) {
        res->reason = SPK_INVALID_INPUT; /* x0 holds NaN/Inf (b was finite) */
        return SPK_OK;
    }
    spk_krylov_record(k, o, res, 0, rnorm, bnorm);
    if (spk_krylov_converged(o, res, rnorm, bnorm)) return SPK_OK;
    *done = 0;
    return SPK_OK;
}

int spk_krylov_finish(spk_krylov *k, const double *b, const double *x, double *t,
                      spk_result *res, double bnorm)
{
    double tn;
    if (res->reason == SPK_INVALID_INPUT || res->reason == SPK_CONVERGED_ZERO_RHS)
        return spk_krylov_finished(res, 0.0, bnorm);
    SPK_TRY(spk_krylov_residual(k, res, b, x, t));
    SPK_VEC(k, res, nrm2, k->n, t, &tn);
    return spk_krylov_finished(res, tn, bnorm);
}

int spk_krylov_finished(spk_result *res, double tn, double bnorm)
{
    if (res->reason == SPK_INVALID_INPUT) {
        res->true_relres = NAN;
        return SPK_OK;
    }
    if (res->reason == SPK_CONVERGED_ZERO_RHS) {
        res->true_relres = 0.0;
        return SPK_OK;
    }
    res->true_relres = tn / bnorm;
    /* the recurrence can look converged while an overflow put Inf into x:
     * never report a non-finite answer as converged */
    if (!isfinite(tn) && (res->reason == SPK_CONVERGED_RTOL || res->reason == SPK_CONVERGED_ATOL))
        res->reason = SPK_DIVERGED_NAN;
    return SPK_OK;
}

int spk_bicgstab_broke(spk_krylov *k, const double *b, double *x, double *r, double *r0, const spk_options *o,
                       spk_result *res, int it, double bnorm, int broke, int *seq, int *fresh, int *stop)
{
    double rnorm;
    *stop = 1;
    if (res->restarts >= SPK_BICGSTAB_RESTARTS || *seq == 0) {
        res->reason = (spk_reason)broke;
        return SPK_OK;
    }
    SPK_TRY(spk_krylov_residual(k, res, b, x, r));
    SPK_VEC(k, res, nrm2, k->n, r, &rnorm);
    SPK_VEC(k, res, copy, k->n, r, r0);
    res->restarts++;
    res->rnorm = rnorm;
    res->relres = rnorm / bnorm;
    if (isfinite(rnorm) && spk_krylov_converged(o, res, rnorm, bnorm)) {
        spk_krylov_record(k, o, res, it - 1, rnorm, bnorm);
        return SPK_OK;
    }
    *stop = 0;
    *fresh = 1;
    *seq = 0;
    return SPK_OK;
}

/* krylov_common.h -- what the two drivers share: timed calls to the three
 * interfaces, the stopping test, the residual record and the final true
 * residual.  Internal to solver/. */
#ifndef SPK_SOLVER_KRYLOV_COMMON_H
#define SPK_SOLVER_KRYLOV_COMMON_H

#include <math.h>

#include "solver/control.h"
#include "solver/krylov.h"

/* Run one interface call, add its wall time to *acc (after a device sync so
 * queued work is charged to the phase that queued it), propagate failure. */
#define SPK_TIMED(k, acc, call)                              \
    do {                                                     \
        double t0_ = spk_time_now();                         \
        int st_ = (call);                                    \
        if (!st_) st_ = (k)->e->ops->sync((k)->e);           \
        (acc) += spk_time_now() - t0_;                       \
        if (st_) return st_;                                 \
    } while (0)

/* y = alpha*A*x + beta*y */
#define SPK_SPMV(k, res, alpha, x, beta, y) \
    SPK_TIMED(k, (res)->t_spmv, (k)->A_ops->apply((k)->A, alpha, x, beta, y))
/* z = M^-1 r; callers alias z = r when M is the identity */
#define SPK_PREC(k, res, r, z) SPK_TIMED(k, (res)->t_precond, (k)->M_ops->apply((k)->M, r, z))
/* any executor vector operation: SPK_VEC(k, res, dot, n, x, y, &out) */
#define SPK_VEC(k, res, op, ...) SPK_TIMED(k, (res)->t_vector, (k)->e->ops->op((k)->e, __VA_ARGS__))

static inline int spk_krylov_identity(const spk_krylov *k)
{
    return k->M_ops == NULL || k->M_ops->apply == NULL;
}

/* Record ||r_it|| in the history and call the monitor. */
static inline void spk_krylov_record(spk_krylov *k, const spk_options *o, spk_result *res,
                                     int it, double rnorm, double bnorm)
{
    if (k->hist && it < k->hist_cap) {
        k->hist[it] = rnorm;
        res->history = k->hist;
        res->history_len = it + 1;
    }
    if (o->monitor) o->monitor(o->monitor_user, it, rnorm, bnorm > 0 ? rnorm / bnorm : rnorm);
    if (o->iterate) spk_krylov_iterate(k, o, it);
    if (o->progress) o->progress(o->progress_user, k->it_base + it, rnorm, bnorm > 0 ? rnorm / bnorm : rnorm);
}

/* Has ||r|| met the stopping test (solver/control.h)?  Sets res->reason when it has. */
static inline int spk_krylov_converged(const spk_options *o, spk_result *res, double rnorm, double bnorm)
{
    const spk_stop t = spk_stop_of(o->rtol, o->atol, 0, bnorm, 0);
    int why;
    if (!spk_stop_met(&t, rnorm, &why)) return 0;
    res->reason = (spk_reason)why;
    return 1;
}

/* The end of an iteration with residual norm rnorm: record it; 1 when the
 * loop stops there (res->reason set: NaN, converged or diverged, or
 * stopped by k->check). */
static inline int spk_krylov_end_step(spk_krylov *k, const spk_options *o, spk_result *res, int it, double rnorm,
                                      double bnorm)
{
    res->rnorm = rnorm;
    res->relres = rnorm / bnorm;
    spk_krylov_record(k, o, res, it, rnorm, bnorm);
    if (k->iter.status) return 1; /* the iterate could not be copied: the solve returns why */
    const spk_stop t = spk_stop_of(o->rtol, o->atol, o->dtol, bnorm, res->rnorm0);
    int why;
    if (spk_stop_end(&t, rnorm, &why)) {
        res->reason = (spk_reason)why;
        return 1;
    }
    if (k->check.fn && it == k->check.at && k->check.fn(k->check.user, it, rnorm, bnorm)) {
        res->reason = SPK_DIVERGED_MAXIT;
        return 1;
    }
    return 0;
}

/* CG's tests on r'z (M must be positive definite) and p'q (A must be):
 * 1 when the loop stops (res->reason set). */
static inline int spk_cg_bad_rz(spk_result *res, double rz)
{
    int why;
    if (!spk_cg_rz_bad(rz, &why)) return 0;
    res->reason = (spk_reason)why;
    return 1;
}
static inline int spk_cg_bad_pq(spk_result *res, double pq)
{
    int why;
    if (!spk_cg_pq_bad(pq, &why)) return 0;
    res->reason = (spk_reason)why;
    return 1;
}

/* BiCGStab after a breakdown `broke` (SPK_BREAKDOWN_RHO or _R0V) at
 * iteration it: stop with it when the restarts are used up or none can help
 * (seq == 0: right after a (re)start a restart would rebuild the same r0),
 * else restart: r = b - A x, r0 = r, a fresh first step (*fresh = 1,
 * *seq = 0).  *stop = 1 when the loop ends (the reason set, or the restart's
 * residual already meets the test); else the caller repeats iteration it. */
int spk_bicgstab_broke(spk_krylov *k, const double *b, double *x, double *r, double *r0, const spk_options *o,
                       spk_result *res, int it, double bnorm, int broke, int *seq, int *fresh, int *stop);

/* r = b - A x (one SpMV and one copy). */
static inline int spk_krylov_residual(spk_krylov *k, spk_result *res, const double *b,
                                      const double *x, double *r)
{
    SPK_VEC(k, res, copy, k->n, b, r);
    SPK_SPMV(k, res, -1.0, x, 1.0, r);
    return SPK_OK;
}

/* Common start: ||b||, x = 0 for b = 0, r = b - A x0, ||r0||.  Returns SPK_OK
 * and *done = 1 when the solve is already decided (zero rhs, NaN input,
 * converged at x0). */
int spk_krylov_start(spk_krylov *k, const double *b, double *x, double *r, const spk_options *o,
                     spk_result *res, double *bnorm, int *done);
/* Its decisions, from ||b|| and ||r0|| found some other way (r = b - A x0
 * already in place when ||b|| is finite and nonzero). */
int spk_krylov_started(spk_krylov *k, const spk_options *o, spk_result *res, double *x, double bnorm,
                       double rnorm, int *done);
/* Common end: true residual into res (uses scratch vector t). */
int spk_krylov_finish(spk_krylov *k, const double *b, const double *x, double *t,
                      spk_result *res, double bnorm);
/* Its decisions, from ||b - A x|| = tn found some other way (not needed,
 * and not looked at, when res->reason is SPK_INVALID_INPUT or
 * SPK_CONVERGED_ZERO_RHS). */
int spk_krylov_finished(spk_result *res, double tn, double bnorm);

#endif

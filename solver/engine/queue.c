/* queue.c -- the queue engine (engine.h): a run of fused steps queued one
 * by one on the executor, each marked with its phase; and the fused
 * drivers' start and end, each with one read of the executor's scalars.
 *
 * Norms: ||r|| is sqrt(r'r) as nrm2 computes it where spk_norm_from_square
 * allows; otherwise the executor's nrm2 (which rescales) is called, as in
 * the classic drivers.
 *
 * Times: SpMV, preconditioner and vector phases from the executor's marks
 * (GPU time on the GPU), collected right after each read, when no work is
 * queued (so collecting waits for nothing); res->t_sync gets the rest of the
 * loop's wall time: launches, waits and the host's work. */
#include <string.h>

#include "solver/engine/engine.h"

void spk_steps_read_slots(const spk_steps *st, int want[3])
{
    const int w[3][3] = {{st->other, SPK_CG_PQ, SPK_CG_RR},
                         {st->cur, SPK_BI_R0V, SPK_BI_SS},
                         {SPK_BI_TT, SPK_BI_TS, SPK_BI_RR}};
    memcpy(want, w[st->kind], sizeof w[0]);
}

/* The phases' times so far into res, and the loop's other time into t_sync. */
int spk_fused_times(spk_krylov *k, spk_result *res, spk_clock *c)
{
    double sec[SPK_PHASES] = {0, 0, 0};
    SPK_TRY(SPK_ASYNC(k)->collect(k->e, sec));
    res->t_spmv += sec[SPK_PHASE_SPMV];
    res->t_precond += sec[SPK_PHASE_PRECOND];
    res->t_vector += sec[SPK_PHASE_VECTOR];
    c->marked += sec[SPK_PHASE_SPMV] + sec[SPK_PHASE_PRECOND] + sec[SPK_PHASE_VECTOR];
    double other = (spk_time_now() - c->t0) - c->marked;
    res->t_sync = other > 0 ? other : 0;
    return SPK_OK;
}

/* ||v|| from v'v as the plain drivers get it (nrm2's fast path, else nrm2). */
int spk_fused_norm(spk_krylov *k, int n, const double *v, double vv, double *out)
{
    const double fast = spk_norm_from_square(vv);
    if (fast >= 0) {
        *out = fast;
        return SPK_OK;
    }
    F_PLAIN(k, nrm2, n, v, out);
    return SPK_OK;
}

/* r = b - A x queued, then r'r (and b'b when bb) read back in one
 * transfer: h[0] = r'r, h[1] = b'b; the time into res's phases. */
static int residual_read(spk_krylov *k, spk_result *res, const double *b, const double *x, double *r, int bb,
                         double h[2])
{
    double sec[SPK_PHASES] = {0, 0, 0};
    const int want[2] = {SPK_CG_RR, SPK_CG_PQ};
    SPK_TRY(SPK_ASYNC(k)->mark(k->e, -1));
    F_PLAIN(k, copy, k->n, b, r);
    F_SPMV(k, -1.0, x, 1.0, r);
    F_VEC(k, dot, k->n, r, r, SPK_CG_RR);
    if (bb) F_VEC(k, dot, k->n, b, b, SPK_CG_PQ);
    F_VEC(k, read, want, bb ? 2 : 1, h);
    SPK_TRY(SPK_ASYNC(k)->collect(k->e, sec));
    res->t_spmv += sec[SPK_PHASE_SPMV];
    res->t_vector += sec[SPK_PHASE_VECTOR];
    return SPK_OK;
}

/* spk_krylov_start with one read (residual_read), the norms as norm_of
 * takes them (cuBLAS's nrm2 where b'b or r'r is not finite or tiny), the
 * decisions spk_krylov_started's.  A start made ahead for these b and x
 * (k->begun) is taken instead, once. */
int spk_fused_start(spk_krylov *k, const double *b, double *x, double *r, const spk_options *o,
                       spk_result *res, double *bnorm, int *done)
{
    double rnorm = 0, h[2];
    if (k->begun.on && k->begun.b == b && k->begun.x == x && r == k->w[0]) {
        k->begun.on = 0;
        *bnorm = k->begun.bnorm;
        res->t_spmv += k->begun.t_spmv;
        res->t_vector += k->begun.t_vector;
        return spk_krylov_started(k, o, res, x, *bnorm, k->begun.rnorm, done);
    }
    SPK_TRY(residual_read(k, res, b, x, r, 1, h));
    SPK_TRY(spk_fused_norm(k, k->n, b, h[1], bnorm));
    if (isfinite(*bnorm) && *bnorm != 0.0) SPK_TRY(spk_fused_norm(k, k->n, r, h[0], &rnorm));
    return spk_krylov_started(k, o, res, x, *bnorm, rnorm, done);
}

int spk_krylov_begin(spk_krylov *k, const double *b, double *x, const spk_options *o, int *done)
{
    spk_result res;
    double bnorm;
    memset(&res, 0, sizeof res);
    k->begun.on = 0;
    SPK_TRY(spk_fused_start(k, b, x, k->w[0], o, &res, &bnorm, done));
    k->begun.on = !*done;
    k->begun.b = b;
    k->begun.x = x;
    k->begun.bnorm = bnorm;
    k->begun.rnorm = res.rnorm0;
    k->begun.t_spmv = res.t_spmv;
    k->begun.t_vector = res.t_vector;
    return SPK_OK;
}

/* spk_krylov_finish with one read (residual_read), the norm as norm_of
 * takes it, the decisions spk_krylov_finished's. */
int spk_fused_finish(spk_krylov *k, const double *b, const double *x, double *t, spk_result *res, double bnorm)
{
    if (res->reason == SPK_INVALID_INPUT || res->reason == SPK_CONVERGED_ZERO_RHS)
        return spk_krylov_finished(res, 0.0, bnorm); /* nothing to compute */
    double h[2], tn;
    SPK_TRY(residual_read(k, res, b, x, t, 0, h));
    SPK_TRY(spk_fused_norm(k, k->n, t, h[0], &tn));
    return spk_krylov_finished(res, tn, bnorm);
}

/* Queue the steps (into the graph, when one is being recorded), then the read.
 *   CG, for the iteration after the one whose scalars were read: z = M^-1 r,
 *     rz' = r'z (or ||r||^2), p = z + (rz'/rz) p, q = A p, pq, the update;
 *     read rz', pq, rr.
 *   BiCGStab, first half: rho = r0'r, p, ph = M^-1 p, v = A ph, r0v, s, ss;
 *     read rho, r0v, ss.  Second half: sh = M^-1 s, t = A sh, tt, ts, the
 *     update of x and r, rr; read tt, ts, rr. */
int spk_queue_steps(spk_krylov *k, const spk_steps *st, double *h)
{
    const int n = k->n, ident = spk_krylov_identity(k);
    double *x = st->x;
    if (st->kind == SPK_STEPS_CG) {
        double *r = k->w[0], *p = k->w[1], *q = k->w[2];
        double *z = ident ? r : k->w[3];
        const int cur = st->cur, next = st->other;
        if (ident && st->rnorm < 0) {
            F_VEC(k, dot, n, r, r, next);
        } else if (ident) {
            F_VEC(k, set, next, st->rnorm * st->rnorm);
        } else {
            F_PREC(k, r, z);
            F_VEC(k, dot, n, r, z, next);
        }
        F_STEP(k, cg_direction, n, next, cur, z, p);
        F_SPMV(k, 1.0, p, 0.0, q);
        F_VEC(k, dot, n, p, q, SPK_CG_PQ);
        F_STEP(k, cg_update, n, next, SPK_CG_PQ, p, q, x, r, SPK_CG_RR);
        const int want[3] = {next, SPK_CG_PQ, SPK_CG_RR};
        F_VEC(k, read, want, 3, h);
        return SPK_OK;
    }
    double *r = k->w[0], *r0 = k->w[1], *p = k->w[2], *v = k->w[3], *t = k->w[4];
    double *ph = ident ? p : k->w[5];
    double *s = r; /* s overwrites r, as in bicgstab.c */
    double *sh = ident ? s : k->w[6];
    const int cur = st->cur, old = st->other;
    if (st->kind == SPK_STEPS_BICG_HALF) {
        F_VEC(k, dot, n, r0, r, cur);
        F_STEP(k, bicg_direction, n, st->fresh, cur, old, SPK_BI_R0V, SPK_BI_TS, SPK_BI_TT, r, v, p);
        if (!ident) F_PREC(k, p, ph);
        F_SPMV(k, 1.0, ph, 0.0, v);
        F_VEC(k, dot, n, r0, v, SPK_BI_R0V);
        F_STEP(k, bicg_s, n, cur, SPK_BI_R0V, v, s, SPK_BI_SS);
        const int want[3] = {cur, SPK_BI_R0V, SPK_BI_SS};
        F_VEC(k, read, want, 3, h);
        return SPK_OK;
    }
    if (!ident) F_PREC(k, s, sh);
    F_SPMV(k, 1.0, sh, 0.0, t);
    F_VEC(k, dot2, n, t, s, SPK_BI_TT, SPK_BI_TS);
    F_STEP(k, bicg_update, n, cur, SPK_BI_R0V, SPK_BI_TS, SPK_BI_TT, ph, sh, t, x, r, SPK_BI_RR);
    const int want[3] = {SPK_BI_TT, SPK_BI_TS, SPK_BI_RR};
    F_VEC(k, read, want, 3, h);
    return SPK_OK;
}


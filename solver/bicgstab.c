/* bicgstab.c -- right-preconditioned BiCGStab (van der Vorst), solving
 * A M^-1 y = b with x = M^-1 y, so the recurrence residual estimates b - A x:
 *
 *   r = b - A x, r0 = r
 *   repeat: rho = r0'r; p = r + beta (p - omega v)  (p = r the first time)
 *           ph = M^-1 p; v = A ph; alpha = rho / (r0'v); s = r - alpha v
 *           if ||s|| meets the test: x += alpha ph, stop (half step)
 *           sh = M^-1 s; t = A sh; omega = (t's)/(t't)
 *           x += alpha ph + omega sh; r = s - omega t; stop on ||r||
 *
 * Breakdowns of the Lanczos part: rho = r0'r = 0 or r0'v = 0.  Both mean the
 * shadow residual r0 has become orthogonal to the Krylov vectors, not that
 * the system is unsolvable, so the solver restarts: r = b - A x recomputed,
 * r0 = r, p = r (a fresh first step), at most SPK_BICGSTAB_RESTARTS times per
 * solve (spk_result.restarts counts them).  Only an exact zero (or an alpha
 * that overflows) counts: on ill-conditioned systems r0'r falls to
 * 1e-16 ||r0|| ||r|| and below and the iteration still converges, sooner
 * than after a restart, which throws the Krylov space away.  When the
 * restarts are used up, or the breakdown comes before any iteration of the
 * current sequence (a restart would rebuild the same r0), the solve stops
 * with SPK_BREAKDOWN_RHO / SPK_BREAKDOWN_R0V.  t't = 0 or omega = 0
 * (SPK_BREAKDOWN_OMEGA) stops at once; NaN/Inf: SPK_DIVERGED_NAN; ||r|| above
 * dtol max(||b||, ||r0||): SPK_DIVERGED_DTOL.  A half
 * step counts as a full iteration; a restart costs one SpMV, no iteration.
 *
 * Traffic per iteration (doubles): 2 SpMV + 2 M^-1 + dot(r0,r) 2n, p update
 * 2 x 3n, dot(r0,v) 2n, s 3n, nrm2(s) n, dots t't and t's 3n, x 2 x 3n,
 * r 3n, nrm2(r) n = 27n. */
#include "krylov_common.h"

int spk_bicgstab_classic(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res)
{
    const int n = k->n, ident = spk_krylov_identity(k);
    double *r = k->w[0], *r0 = k->w[1], *p = k->w[2], *v = k->w[3], *t = k->w[4];
    double *ph = ident ? p : k->w[5];
    double *s = r; /* s overwrites r: r is not needed once s is formed */
    double *sh = ident ? s : k->w[6];
    double bnorm, rnorm, snorm, rho, rho_old = 1, alpha = 1, omega = 1, r0v, tt, ts;
    int done, fresh = 1, seq = 0; /* seq: iterations since the (re)start */

    SPK_TRY(spk_krylov_start(k, b, x, r, o, res, &bnorm, &done));
    if (done) return spk_krylov_finish(k, b, x, t, res, bnorm);

    SPK_VEC(k, res, copy, n, r, r0);
    res->reason = SPK_DIVERGED_MAXIT;
    for (int it = 1; it <= o->maxit; it++) {
        int broke = 0; /* a breakdown: SPK_BREAKDOWN_RHO or SPK_BREAKDOWN_R0V */
        SPK_VEC(k, res, dot, n, r0, r, &rho);
        int why;
        if (spk_bicg_rho_bad(rho, &why)) {
            broke = why;
        } else {
            if (fresh) {
                SPK_VEC(k, res, copy, n, r, p);
                fresh = 0;
            } else {
                double beta = (rho / rho_old) * (alpha / omega);
                SPK_VEC(k, res, axpy, n, -omega, v, p);
                SPK_VEC(k, res, axpby, n, 1.0, r, beta, p);
            }
            if (!ident) SPK_PREC(k, res, p, ph);
            SPK_SPMV(k, res, 1.0, ph, 0.0, v);
            SPK_VEC(k, res, dot, n, r0, v, &r0v);
            if (spk_bicg_r0v_bad(rho, r0v, &why)) broke = why;
            else alpha = rho / r0v;
        }
        if (broke && !spk_bicg_restartable(broke)) {
            res->reason = (spk_reason)broke;
            break;
        }
        if (broke) {
            int stop;
            SPK_TRY(spk_bicgstab_broke(k, b, x, r, r0, o, res, it, bnorm, broke, &seq, &fresh, &stop));
            if (stop) break;
            it--; /* the restart is not an iteration */
            continue;
        }
        SPK_VEC(k, res, axpy, n, -alpha, v, s);
        SPK_VEC(k, res, nrm2, n, s, &snorm);
        res->iterations = it;
        if (isfinite(snorm) && spk_krylov_converged(o, res, snorm, bnorm)) {
            SPK_VEC(k, res, axpy, n, alpha, ph, x);
            res->rnorm = snorm;
            res->relres = snorm / bnorm;
            spk_krylov_record(k, o, res, it, snorm, bnorm);
            break;
        }
        if (!ident) SPK_PREC(k, res, s, sh);
        SPK_SPMV(k, res, 1.0, sh, 0.0, t);
        SPK_VEC(k, res, dot, n, t, t, &tt);
        SPK_VEC(k, res, dot, n, t, s, &ts);
        if (spk_bicg_rest_bad(tt, ts, &why)) {
            res->reason = (spk_reason)why;
            break;
        }
        omega = ts / tt;
        SPK_VEC(k, res, axpy, n, alpha, ph, x);
        SPK_VEC(k, res, axpy, n, omega, sh, x);
        SPK_VEC(k, res, axpy, n, -omega, t, r); /* r = s - omega t (s lives in r) */
        SPK_VEC(k, res, nrm2, n, r, &rnorm);
        if (spk_krylov_end_step(k, o, res, it, rnorm, bnorm)) break;
        if (omega == 0) {
            res->reason = SPK_BREAKDOWN_OMEGA;
            break;
        }
        rho_old = rho;
        seq++;
    }
    return spk_krylov_finish(k, b, x, t, res, bnorm);
}

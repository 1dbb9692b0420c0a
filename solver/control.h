/* control.h -- the control logic of the Krylov methods, written once: the
 * stopping test, divergence, the norm a read gives, and each method's
 * breakdown tests.  Every engine applies these (the classic and fused
 * drivers on the host, the block iterations and the race's sides inside
 * their kernels), so all stop at the same iteration with the same reason.
 * Plain C that also compiles as CUDA device code; tests/test_control.c
 * checks the device's answers against the host's on the same scalars.
 *
 * Stopping test: ||r|| <= conv = rtol ||b|| (SPK_CONVERGED_RTOL), or
 * ||r|| <= atol (SPK_CONVERGED_ATOL); a non-finite ||r|| stops with
 * SPK_DIVERGED_NAN; ||r|| > div = dtol max(||b||, ||r0||) with
 * SPK_DIVERGED_DTOL (div = 0: dtol off). */
#ifndef SPK_SOLVER_CONTROL_H
#define SPK_SOLVER_CONTROL_H

#include <math.h>

#include "spk.h"

#ifdef __CUDACC__
#define SPK_HD static inline __host__ __device__
#else
#define SPK_HD static inline
#endif

/* The thresholds of the stopping test for one solve. */
typedef struct spk_stop {
    double conv, atol, div;
} spk_stop;

/* The thresholds from the options, ||b|| and ||r0||. */
SPK_HD spk_stop spk_stop_of(double rtol, double atol, double dtol, double bnorm, double rnorm0)
{
    spk_stop t;
    t.conv = rtol * bnorm;
    t.atol = atol;
    t.div = dtol > 0 ? dtol * (bnorm > rnorm0 ? bnorm : rnorm0) : 0;
    return t;
}

/* Does ||r|| meet the test?  *why: SPK_CONVERGED_RTOL or _ATOL when it does. */
SPK_HD int spk_stop_met(const spk_stop *t, double rnorm, int *why)
{
    if (rnorm <= t->conv) {
        *why = SPK_CONVERGED_RTOL;
        return 1;
    }
    if (rnorm <= t->atol) {
        *why = SPK_CONVERGED_ATOL;
        return 1;
    }
    return 0;
}

/* Does ||r|| end the loop (met, NaN or diverged)?  *why: the reason. */
SPK_HD int spk_stop_end(const spk_stop *t, double rnorm, int *why)
{
    if (!isfinite(rnorm)) {
        *why = SPK_DIVERGED_NAN;
        return 1;
    }
    if (spk_stop_met(t, rnorm, why)) return 1;
    if (t->div > 0 && rnorm > t->div) {
        *why = SPK_DIVERGED_DTOL;
        return 1;
    }
    return 0;
}

/* ||v|| from v'v where the square root is exact enough (v'v finite,
 * nonzero, above 1e-290), else -1: the caller takes nrm2 (which rescales). */
SPK_HD double spk_norm_from_square(double vv)
{
    return vv != 0 && isfinite(vv) && vv > 1e-290 ? sqrt(vv) : -1.0;
}

/* CG: r'z must be positive (M positive definite): *why SPK_BREAKDOWN_PRECOND
 * or, not finite, SPK_DIVERGED_NAN. */
SPK_HD int spk_cg_rz_bad(double rz, int *why)
{
    if (isfinite(rz) && rz > 0) return 0;
    *why = !isfinite(rz) ? SPK_DIVERGED_NAN : SPK_BREAKDOWN_PRECOND;
    return 1;
}
/* CG: p'Ap must be positive (A positive definite): SPK_BREAKDOWN_INDEFINITE. */
SPK_HD int spk_cg_pq_bad(double pq, int *why)
{
    if (isfinite(pq) && pq > 0) return 0;
    *why = !isfinite(pq) ? SPK_DIVERGED_NAN : SPK_BREAKDOWN_INDEFINITE;
    return 1;
}

/* BiCGStab's first half, rho = r0'r: not finite (SPK_DIVERGED_NAN) or 0
 * (SPK_BREAKDOWN_RHO, a breakdown a restart may cure). */
SPK_HD int spk_bicg_rho_bad(double rho, int *why)
{
    if (isfinite(rho) && rho != 0) return 0;
    *why = !isfinite(rho) ? SPK_DIVERGED_NAN : SPK_BREAKDOWN_RHO;
    return 1;
}
/* ... then r0v = r0'v: not finite (SPK_DIVERGED_NAN), or alpha = rho / r0v
 * not finite (SPK_BREAKDOWN_R0V, a restart may cure it). */
SPK_HD int spk_bicg_r0v_bad(double rho, double r0v, int *why)
{
    if (!isfinite(r0v)) {
        *why = SPK_DIVERGED_NAN;
        return 1;
    }
    const double alpha = r0v != 0 ? rho / r0v : INFINITY;
    if (isfinite(alpha)) return 0;
    *why = SPK_BREAKDOWN_R0V;
    return 1;
}
/* Both: the first half cannot go on. */
SPK_HD int spk_bicg_half_bad(double rho, double r0v, int *why)
{
    return spk_bicg_rho_bad(rho, why) || spk_bicg_r0v_bad(rho, r0v, why);
}
/* ... and whether a breakdown there is one a restart may cure. */
SPK_HD int spk_bicg_restartable(int why)
{
    return why == SPK_BREAKDOWN_RHO || why == SPK_BREAKDOWN_R0V;
}

/* BiCGStab's second half (tt = t't, ts = t's): SPK_DIVERGED_NAN, or
 * SPK_BREAKDOWN_OMEGA where t't = 0. */
SPK_HD int spk_bicg_rest_bad(double tt, double ts, int *why)
{
    if (!isfinite(tt) || !isfinite(ts)) {
        *why = SPK_DIVERGED_NAN;
        return 1;
    }
    if (tt == 0) {
        *why = SPK_BREAKDOWN_OMEGA;
        return 1;
    }
    return 0;
}

#endif

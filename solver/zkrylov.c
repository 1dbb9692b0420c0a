/* zkrylov.c -- Krylov methods for complex systems, written once against the
 * executor (vectors of 2n doubles, their copies, fills and norms), its
 * complex operations (core/zops.h), the complex product and preconditioner.
 *
 *   bicgstab  right-preconditioned as the real one (bicgstab.c), with
 *             rho = r0^H r, alpha = rho / r0^H v, omega = t^H s / t^H t;
 *             restarts with a fresh shadow residual after rho = 0 or
 *             r0^H v = 0, at most SPK_BICGSTAB_RESTARTS times
 *   cocg      CG with the bilinear form x^T y in every place CG has a dot:
 *             rz = r^T z, alpha = rz / p^T A p; rz = 0 stops with
 *             SPK_BREAKDOWN_RHO, p^T A p = 0 with SPK_BREAKDOWN_R0V
 *   cg        CG with x^H y; r^H z and p^H A p are real for Hermitian A and
 *             M (their imaginary parts are rounding, and dropped) and must
 *             be positive: SPK_BREAKDOWN_PRECOND, SPK_BREAKDOWN_INDEFINITE
 * The stopping and breakdown tests are the real drivers' (control.h), on
 * the scalars' moduli.  Phase times: where the executor marks phases
 * (exec.h's async marks) a mark at each change of phase and one collect at
 * the end, so nothing waits for them; elsewhere a sync at each change. */
#include "core/zcmplx.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/zops.h"
#include "solver/control.h"
#include "solver/krylov.h"
#include "solver/zkrylov.h"

#define ZK_NWORK 7

typedef struct zk {
    spk_exec *e;
    const spk_zops *z;
    spk_zspmv *A;
    spk_zprecond *M; /* NULL: the identity */
    const spk_zkrylov_opts *o;
    spk_result *res;
    int n;
    double *w[ZK_NWORK]; /* parts of one allocation, w[0] */
    int marks;           /* the executor marks phases */
    int cur;             /* the phase of the work since the last boundary */
    double last;         /* without marks: the wall clock at the last boundary */
    double sec[SPK_PHASES];
} zk;

/* The work since the last boundary belongs to k->cur. */
static int zk_boundary(zk *k)
{
    spk_exec *e = k->e;
    if (k->marks) return e->ops->async->mark(e, k->cur);
    const int st = e->ops->sync ? e->ops->sync(e) : SPK_OK;
    const double now = spk_time_now();
    k->sec[k->cur] += now - k->last;
    k->last = now;
    return st;
}

/* The work queued next belongs to phase ph. */
static int zk_phase(zk *k, int ph)
{
    if (ph == k->cur) return SPK_OK;
    const int st = zk_boundary(k);
    k->cur = ph;
    return st;
}

#define ZK_DO(k, ph, call)                           \
    do {                                             \
        int st_ = zk_phase((k), (ph));               \
        if (!st_) st_ = (call);                      \
        if (st_) return st_;                         \
    } while (0)
/* an executor operation over the 2n doubles: ZK_RV(k, nrm2, x, &out) */
#define ZK_RV(k, op, ...) ZK_DO(k, SPK_PHASE_VECTOR, (k)->e->ops->op((k)->e, 2 * (k)->n, __VA_ARGS__))
/* a complex operation over the n entries: ZK_ZV(k, dotc, x, y, out) */
#define ZK_ZV(k, op, ...) ZK_DO(k, SPK_PHASE_VECTOR, (k)->z->op((k)->e, (k)->n, __VA_ARGS__))
#define ZK_SPMV(k, x, y) ZK_DO(k, SPK_PHASE_SPMV, spk_zspmv_apply((k)->A, x, y))
#define ZK_PREC(k, r, z) ZK_DO(k, SPK_PHASE_PRECOND, spk_zprecond_apply((k)->M, r, z))

/* complex scalars to and from the operations' two doubles */
#define ZS(name, v) const double name[2] = {creal(v), cimag(v)}
static double complex zget(const double *v)
{
    return CMPLX(v[0], v[1]);
}
/* a scalar that must be real: its real part, NaN where a part is not finite */
static double real_part(double complex v)
{
    return isfinite(cimag(v)) ? creal(v) : NAN;
}

static void zk_record(zk *k, int it, double rnorm, double bnorm)
{
    const spk_zkrylov_opts *o = k->o;
    if (o->history && it <= o->maxit) {
        o->history[it] = rnorm;
        k->res->history = o->history;
        k->res->history_len = it + 1;
    }
    if (o->monitor) o->monitor(o->user, it, rnorm, bnorm > 0 ? rnorm / bnorm : rnorm);
}

static int zk_converged(zk *k, double rnorm, double bnorm)
{
    const spk_stop t = spk_stop_of(k->o->rtol, k->o->atol, 0, bnorm, 0);
    int why;
    if (!spk_stop_met(&t, rnorm, &why)) return 0;
    k->res->reason = (spk_reason)why;
    return 1;
}

/* The end of iteration it with residual norm rnorm: 1 when the loop stops. */
static int zk_end_step(zk *k, int it, double rnorm, double bnorm)
{
    spk_result *res = k->res;
    res->rnorm = rnorm;
    res->relres = rnorm / bnorm;
    zk_record(k, it, rnorm, bnorm);
    const spk_stop t = spk_stop_of(k->o->rtol, k->o->atol, k->o->dtol, bnorm, res->rnorm0);
    int why;
    if (!spk_stop_end(&t, rnorm, &why)) return 0;
    res->reason = (spk_reason)why;
    return 1;
}

/* r = b - A x */
static int zk_residual(zk *k, const double *b, const double *x, double *r)
{
    ZK_SPMV(k, x, r);
    ZK_RV(k, axpby, 1.0, b, -1.0, r);
    return SPK_OK;
}

/* ||b||, x = 0 for b = 0, r = b - A x0, ||r0||; *done = 1 when that decides
 * the solve (zero b, NaN or Inf in b or x0, x0 meets the test). */
static int zk_start(zk *k, const double *b, double *x, double *r, double *bnorm, int *done)
{
    spk_result *res = k->res;
    double rnorm = 0;
    *done = 1;
    ZK_RV(k, nrm2, b, bnorm);
    if (!isfinite(*bnorm)) {
        res->reason = SPK_INVALID_INPUT;
        return SPK_OK;
    }
    if (*bnorm == 0) { /* A x = 0: x = 0 */
        ZK_RV(k, fill, 0.0, x);
        res->reason = SPK_CONVERGED_ZERO_RHS;
        zk_record(k, 0, 0.0, 0.0);
        return SPK_OK;
    }
    SPK_TRY(zk_residual(k, b, x, r));
    ZK_RV(k, nrm2, r, &rnorm);
    res->rnorm0 = res->rnorm = rnorm;
    res->relres = rnorm / *bnorm;
    if (!isfinite(rnorm)) {
        res->reason = SPK_INVALID_INPUT;
        return SPK_OK;
    }
    zk_record(k, 0, rnorm, *bnorm);
    if (!zk_converged(k, rnorm, *bnorm)) *done = 0;
    return SPK_OK;
}

/* The true residual ||b - A x|| / ||b|| (t: scratch); a non-finite one is
 * never reported as converged. */
static int zk_finish(zk *k, const double *b, const double *x, double *t, double bnorm)
{
    spk_result *res = k->res;
    double tn;
    if (res->reason == SPK_INVALID_INPUT || res->reason == SPK_CONVERGED_ZERO_RHS) {
        res->true_relres = res->reason == SPK_INVALID_INPUT ? NAN : 0.0;
        return SPK_OK;
    }
    SPK_TRY(zk_residual(k, b, x, t));
    ZK_RV(k, nrm2, t, &tn);
    res->true_relres = tn / bnorm;
    if (!isfinite(tn) && (res->reason == SPK_CONVERGED_RTOL || res->reason == SPK_CONVERGED_ATOL))
        res->reason = SPK_DIVERGED_NAN;
    return SPK_OK;
}

/* BiCGStab after a breakdown `broke` at iteration it: stop when the
 * restarts are used up or none can help (seq == 0: right after a (re)start
 * the same r0 would come back), else r = b - A x, r0 = r and a fresh first
 * step (*fresh = 1, *seq = 0); *stop = 1 when the loop ends. */
static int zk_broke(zk *k, const double *b, double *x, double *r, double *r0, int it, double bnorm, int broke,
                    int *seq, int *fresh, int *stop)
{
    spk_result *res = k->res;
    double rnorm;
    *stop = 1;
    if (res->restarts >= SPK_BICGSTAB_RESTARTS || *seq == 0) {
        res->reason = (spk_reason)broke;
        return SPK_OK;
    }
    SPK_TRY(zk_residual(k, b, x, r));
    ZK_RV(k, nrm2, r, &rnorm);
    ZK_RV(k, copy, r, r0);
    res->restarts++;
    res->rnorm = rnorm;
    res->relres = rnorm / bnorm;
    if (isfinite(rnorm) && zk_converged(k, rnorm, bnorm)) {
        zk_record(k, it - 1, rnorm, bnorm);
        return SPK_OK;
    }
    *stop = 0;
    *fresh = 1;
    *seq = 0;
    return SPK_OK;
}

/* BiCGStab's first half: rho = r0^H r, p, ph = M^-1 p, v = A ph, alpha.
 * *broke: a breakdown (SPK_BREAKDOWN_RHO, _R0V or SPK_DIVERGED_NAN). */
static int zk_bicg_half(zk *k, double *r, double *r0, double *p, double *ph, double *v, int *fresh,
                        double complex *rho, double complex rho_old, double complex *alpha, double complex omega,
                        int *broke)
{
    double out[2];
    int why;
    *broke = 0;
    ZK_ZV(k, dotc, r0, r, out);
    const double complex rho_new = zget(out);
    if (spk_bicg_rho_bad(cabs(rho_new), &why)) {
        *broke = why;
        return SPK_OK;
    }
    if (*fresh) {
        ZK_RV(k, copy, r, p);
        *fresh = 0;
    } else { /* p = r + beta (p - omega v) */
        const double complex beta = (rho_new / rho_old) * (*alpha / omega);
        ZS(mo, -omega);
        ZS(bt, beta);
        const double one[2] = {1, 0};
        ZK_ZV(k, axpy, mo, v, p);
        ZK_ZV(k, axpby, one, r, bt, p);
    }
    if (ph != p) ZK_PREC(k, p, ph);
    ZK_SPMV(k, ph, v);
    ZK_ZV(k, dotc, r0, v, out);
    const double complex r0v = zget(out);
    *rho = rho_new;
    if (spk_bicg_r0v_bad(cabs(rho_new), cabs(r0v), &why)) *broke = why;
    else *alpha = rho_new / r0v;
    return SPK_OK;
}

static int zk_bicgstab(zk *k, const double *b, double *x)
{
    const int ident = k->M == NULL;
    spk_result *res = k->res;
    double *r = k->w[0], *r0 = k->w[1], *p = k->w[2], *v = k->w[3], *t = k->w[4];
    double *ph = ident ? p : k->w[5], *s = r, *sh = ident ? s : k->w[6]; /* s overwrites r */
    double complex rho = 1, rho_old = 1, alpha = 1, omega = 1;
    double bnorm, rnorm, snorm, tt, out[2];
    int done, fresh = 1, seq = 0, why;

    SPK_TRY(zk_start(k, b, x, r, &bnorm, &done));
    if (done) return zk_finish(k, b, x, t, bnorm);
    ZK_RV(k, copy, r, r0);
    res->reason = SPK_DIVERGED_MAXIT;
    for (int it = 1; it <= k->o->maxit; it++) {
        int broke;
        SPK_TRY(zk_bicg_half(k, r, r0, p, ph, v, &fresh, &rho, rho_old, &alpha, omega, &broke));
        if (broke && !spk_bicg_restartable(broke)) {
            res->reason = (spk_reason)broke;
            break;
        }
        if (broke) {
            int stop;
            SPK_TRY(zk_broke(k, b, x, r, r0, it, bnorm, broke, &seq, &fresh, &stop));
            if (stop) break;
            it--; /* the restart is not an iteration */
            continue;
        }
        ZS(ma, -alpha);
        ZS(pa, alpha);
        ZK_ZV(k, axpy, ma, v, s);
        ZK_RV(k, nrm2, s, &snorm);
        res->iterations = it;
        if (isfinite(snorm) && zk_converged(k, snorm, bnorm)) { /* the half step */
            ZK_ZV(k, axpy, pa, ph, x);
            res->rnorm = snorm;
            res->relres = snorm / bnorm;
            zk_record(k, it, snorm, bnorm);
            break;
        }
        if (!ident) ZK_PREC(k, s, sh);
        ZK_SPMV(k, sh, t);
        ZK_RV(k, dot, t, t, &tt);
        ZK_ZV(k, dotc, t, s, out);
        const double complex ts = zget(out);
        if (spk_bicg_rest_bad(tt, cabs(ts), &why)) {
            res->reason = (spk_reason)why;
            break;
        }
        omega = ts / tt;
        ZS(po, omega);
        ZS(mo, -omega);
        ZK_ZV(k, axpy, pa, ph, x);
        ZK_ZV(k, axpy, po, sh, x);
        ZK_ZV(k, axpy, mo, t, r); /* r = s - omega t (s lives in r) */
        ZK_RV(k, nrm2, r, &rnorm);
        if (zk_end_step(k, it, rnorm, bnorm)) break;
        if (omega == 0) {
            res->reason = SPK_BREAKDOWN_OMEGA;
            break;
        }
        rho_old = rho;
        seq++;
    }
    return zk_finish(k, b, x, t, bnorm);
}

/* rz = r^H z (herm; with the identity ||r||^2) or r^T z, z = M^-1 r first. */
static int zk_rz(zk *k, int herm, double *r, double *z, double rnorm, double complex *rz)
{
    double out[2];
    if (z != r) ZK_PREC(k, r, z);
    if (herm && z == r) {
        *rz = rnorm * rnorm;
        return SPK_OK;
    }
    if (herm) ZK_ZV(k, dotc, r, z, out);
    else ZK_ZV(k, dotu, r, z, out);
    *rz = zget(out);
    return SPK_OK;
}

/* A breakdown of CG (herm) or COCG at rz or pq (pq: 0 for the test of rz
 * alone); 1 when the loop stops, the reason set. */
static int zk_cg_bad(zk *k, int herm, double complex rz, const double complex *pq)
{
    int why;
    int bad = herm ? (pq ? spk_cg_pq_bad(real_part(*pq), &why) : spk_cg_rz_bad(real_part(rz), &why))
                   : (pq ? spk_bicg_r0v_bad(cabs(rz), cabs(*pq), &why) : spk_bicg_rho_bad(cabs(rz), &why));
    if (bad) k->res->reason = (spk_reason)why;
    return bad;
}

/* Preconditioned CG (herm: x^H y) or COCG (x^T y). */
static int zk_cg(zk *k, const double *b, double *x, int herm)
{
    spk_result *res = k->res;
    double *r = k->w[0], *p = k->w[1], *q = k->w[2], *z = k->M ? k->w[3] : r;
    double bnorm, rnorm, out[2];
    double complex rz, rz_new;
    int done;

    SPK_TRY(zk_start(k, b, x, r, &bnorm, &done));
    if (done) return zk_finish(k, b, x, q, bnorm);
    rnorm = res->rnorm;
    SPK_TRY(zk_rz(k, herm, r, z, rnorm, &rz));
    ZK_RV(k, copy, z, p);
    res->reason = SPK_DIVERGED_MAXIT;
    for (int it = 1; it <= k->o->maxit; it++) {
        if (zk_cg_bad(k, herm, rz, NULL)) break;
        ZK_SPMV(k, p, q);
        if (herm) ZK_ZV(k, dotc, p, q, out);
        else ZK_ZV(k, dotu, p, q, out);
        const double complex pq = herm ? real_part(zget(out)) : zget(out);
        if (zk_cg_bad(k, herm, rz, &pq)) break;
        const double complex alpha = herm ? real_part(rz) / creal(pq) : rz / pq;
        ZS(pa, alpha);
        ZS(ma, -alpha);
        ZK_ZV(k, axpy, pa, p, x);
        ZK_ZV(k, axpy, ma, q, r);
        ZK_RV(k, nrm2, r, &rnorm);
        res->iterations = it;
        if (zk_end_step(k, it, rnorm, bnorm)) break;
        SPK_TRY(zk_rz(k, herm, r, z, rnorm, &rz_new));
        const double complex beta = herm ? real_part(rz_new) / real_part(rz) : rz_new / rz;
        rz = rz_new;
        ZS(bt, beta);
        const double one[2] = {1, 0};
        ZK_ZV(k, axpby, one, z, bt, p);
    }
    return zk_finish(k, b, x, q, bnorm);
}

const char *spk_zmethod_name(spk_zmethod m)
{
    switch (m) {
    case SPK_ZMETHOD_BICGSTAB: return "bicgstab";
    case SPK_ZMETHOD_COCG: return "cocg";
    case SPK_ZMETHOD_CG: return "cg";
    }
    return "unknown";
}

/* The status and message of a finished solve. */
static int zk_outcome(spk_err *e, spk_zmethod m, const spk_result *r, const spk_zkrylov_opts *o)
{
    const char *name = spk_zmethod_name(m);
    const int at = r->iterations + 1;
    switch (r->reason) {
    case SPK_CONVERGED_RTOL:
    case SPK_CONVERGED_ATOL:
    case SPK_CONVERGED_ZERO_RHS: return SPK_OK;
    case SPK_DIVERGED_MAXIT:
        return spk_err_set(e, SPK_ERR_NOT_CONVERGED, "complex %s did not converge in %d iterations: relative "
                           "residual %.3e, rtol %.1e", name, r->iterations, r->relres, o->rtol);
    case SPK_DIVERGED_DTOL:
        return spk_err_set(e, SPK_ERR_NOT_CONVERGED, "complex %s diverged at iteration %d: relative residual "
                           "%.3e, above dtol %.1e times the larger of ||b|| and the initial residual", name,
                           r->iterations, r->relres, o->dtol);
    case SPK_BREAKDOWN_INDEFINITE:
        return spk_err_set(e, SPK_ERR_INDEFINITE, "complex CG broke down at iteration %d: p^H A p <= 0, so the "
                           "matrix is not Hermitian positive definite; use COCG for a complex symmetric matrix, "
                           "else BiCGStab", at);
    case SPK_BREAKDOWN_PRECOND:
        return spk_err_set(e, SPK_ERR_INDEFINITE, "complex CG broke down at iteration %d: r^H z <= 0, so the "
                           "preconditioner is not Hermitian positive definite", at);
    case SPK_INVALID_INPUT:
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "the right-hand side or the initial guess contains NaN or Inf");
    case SPK_BREAKDOWN_RHO:
    case SPK_BREAKDOWN_R0V:
        if (m == SPK_ZMETHOD_COCG)
            return spk_err_set(e, SPK_ERR_BREAKDOWN, "complex COCG broke down at iteration %d: %s vanished (the "
                               "matrix or the preconditioner is not complex symmetric, or a quasi-null vector "
                               "was met); try BiCGStab", at, r->reason == SPK_BREAKDOWN_RHO ? "r^T z" :
                               "the bilinear form p^T A p");
        return spk_err_set(e, SPK_ERR_BREAKDOWN, "complex %s stopped at iteration %d: %s%s; the system is "
                           "probably singular or nearly so", name, r->iterations, spk_reason_name(r->reason),
                           r->restarts ? ", also after restarting" : "");
    default:
        return spk_err_set(e, SPK_ERR_BREAKDOWN, "complex %s stopped at iteration %d: %s", name, r->iterations,
                           spk_reason_name(r->reason));
    }
}

/* The arguments, before anything runs. */
static int zk_check(spk_exec *e, spk_zspmv *A, spk_zprecond *M, spk_zmethod method, const spk_zkrylov_opts *o,
                    int n, const double *b, const double *x, const spk_result *r)
{
    int nr, nc;
    if (!A || !o || !b || !x || !r)
        return spk_err_set(e->err, SPK_ERR_INVALID_ARG, "complex solve: the matrix, options, b, x or result is NULL");
    if ((int)method < SPK_ZMETHOD_BICGSTAB || (int)method > SPK_ZMETHOD_CG)
        return spk_err_set(e->err, SPK_ERR_NOT_FOUND, "unknown complex method %d (bicgstab, cocg, cg)", (int)method);
    spk_zspmv_size(A, &nr, &nc);
    if (n < 0 || nr != n || nc != n || (M && spk_zprecond_size(M) != n))
        return spk_err_set(e->err, SPK_ERR_INVALID_MATRIX, "complex solve: n = %d, but the matrix is %d x %d%s", n,
                           nr, nc, M && spk_zprecond_size(M) != n ? " or the preconditioner has another order" : "");
    if (o->maxit < 0 || !(o->rtol >= 0) || !(o->atol >= 0) || !(o->dtol >= 0))
        return spk_err_set(e->err, SPK_ERR_INVALID_ARG, "complex solve: maxit %d, rtol %g, atol %g and dtol %g must "
                           "not be negative", o->maxit, o->rtol, o->atol, o->dtol);
    if (!spk_zops_get(e))
        return spk_err_set(e->err, SPK_ERR_UNSUPPORTED, "complex solve: no complex operations on the %s executor",
                           e->ops->name);
    return SPK_OK;
}

int spk_zkrylov_solve(spk_exec *e, spk_zspmv *A, spk_zprecond *M, spk_zmethod method, const spk_zkrylov_opts *o,
                      int n, const double *b, double *x, spk_result *r)
{
    if (!e || !e->ops) return SPK_ERR_INVALID_ARG;
    SPK_TRY(zk_check(e, A, M, method, o, n, b, x, r));
    const double t0 = spk_time_now();
    memset(r, 0, sizeof *r);
    r->shift = spk_zprecond_shift(M);
    zk k = {.e = e, .z = spk_zops_get(e), .A = A, .o = o, .res = r, .n = n, .cur = SPK_PHASE_VECTOR};
    k.M = M && strcmp(spk_zprecond_name(M), "none") != 0 ? M : NULL;
    /* one allocation, each vector at a multiple of 256 bytes */
    const size_t stride = ((size_t)2 * (n > 0 ? n : 1) + 31) / 32 * 32;
    double *pool = NULL;
    SPK_TRY(e->ops->alloc(e, ZK_NWORK * stride * sizeof(double), (void **)&pool));
    for (int i = 0; i < ZK_NWORK; i++) k.w[i] = pool + (size_t)i * stride;
    const struct spk_exec_async_ops *as = e->ops->async;
    k.marks = as && as->mark && as->collect;
    int st = k.marks ? as->mark(e, -1) : SPK_OK;
    k.last = spk_time_now();
    if (!st) st = method == SPK_ZMETHOD_BICGSTAB ? zk_bicgstab(&k, b, x) : zk_cg(&k, b, x, method == SPK_ZMETHOD_CG);
    if (!st) st = zk_boundary(&k);
    if (!st && k.marks) st = as->collect(e, k.sec);
    e->ops->free(e, pool);
    r->t_spmv = k.sec[SPK_PHASE_SPMV];
    r->t_precond = k.sec[SPK_PHASE_PRECOND];
    r->t_vector = k.sec[SPK_PHASE_VECTOR];
    r->t_total = spk_time_now() - t0;
    if (st) return st;
    return zk_outcome(e->err, method, r, o);
}

/* cg.c -- preconditioned conjugate gradients for SPD A and SPD M.
 *
 *   r = b - A x, z = M^-1 r, p = z
 *   repeat: q = A p; alpha = (r'z)/(p'q); x += alpha p; r -= alpha q;
 *           stop on ||r||; z = M^-1 r; beta = (r'z)_new/(r'z); p = z + beta p
 *
 * Breakdowns: p'q <= 0 means A is not positive definite on p (reported as
 * SPK_BREAKDOWN_INDEFINITE), r'z <= 0 means M is not positive definite
 * (SPK_BREAKDOWN_PRECOND); NaN/Inf in any scalar stops with SPK_DIVERGED_NAN,
 * ||r|| above dtol max(||b||, ||r0||) with SPK_DIVERGED_DTOL.
 *
 * Traffic per iteration (n unknowns, doubles): SpMV + M^-1 + vector work of
 * dot(p,q) 2n, axpy x 3n, axpy r 3n, nrm2(r) n, dot(r,z) 2n, axpby p 3n = 14n
 * reads/writes (11n without a preconditioner: z = r, r'z = ||r||^2). */
#include "krylov_common.h"

int spk_cg_classic(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res)
{
    const int n = k->n, ident = spk_krylov_identity(k);
    double *r = k->w[0], *p = k->w[1], *q = k->w[2];
    double *z = ident ? r : k->w[3];
    double bnorm, rnorm, rz, rz_new, pq;
    int done;

    SPK_TRY(spk_krylov_start(k, b, x, r, o, res, &bnorm, &done));
    if (done) return spk_krylov_finish(k, b, x, q, res, bnorm);

    rnorm = res->rnorm;
    if (ident) {
        rz = rnorm * rnorm;
    } else {
        SPK_PREC(k, res, r, z);
        SPK_VEC(k, res, dot, n, r, z, &rz);
    }
    SPK_VEC(k, res, copy, n, z, p);
    res->reason = SPK_DIVERGED_MAXIT;
    for (int it = 1; it <= o->maxit; it++) {
        if (spk_cg_bad_rz(res, rz)) break;
        SPK_SPMV(k, res, 1.0, p, 0.0, q);
        SPK_VEC(k, res, dot, n, p, q, &pq);
        if (spk_cg_bad_pq(res, pq)) break;
        double alpha = rz / pq;
        SPK_VEC(k, res, axpy, n, alpha, p, x);
        SPK_VEC(k, res, axpy, n, -alpha, q, r);
        SPK_VEC(k, res, nrm2, n, r, &rnorm);
        res->iterations = it;
        if (spk_krylov_end_step(k, o, res, it, rnorm, bnorm)) break;
        if (ident) {
            rz_new = rnorm * rnorm;
        } else {
            SPK_PREC(k, res, r, z);
            SPK_VEC(k, res, dot, n, r, z, &rz_new);
        }
        double beta = rz_new / rz;
        rz = rz_new;
        SPK_VEC(k, res, axpby, n, 1.0, z, beta, p);
    }
    return spk_krylov_finish(k, b, x, q, res, bnorm);
}

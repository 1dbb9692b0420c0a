/* zkrylov.h -- Krylov methods for complex systems A x = b.
 *
 *   bicgstab  any nonsingular A (right-preconditioned as the real BiCGStab)
 *   cocg      complex symmetric A = A^T (conjugate orthogonal CG: CG with the
 *             bilinear form x^T y; M must be complex symmetric too)
 *   cg        Hermitian positive definite A (M Hermitian positive definite)
 *
 * b and x are executor vectors of 2*n doubles; x holds the initial guess.
 * The result (include/spk.h's spk_result) is filled as for real solves:
 * iterations, the initial, final and true relative residuals, the reason,
 * the time in products, preconditioner and vector operations.  Returns
 * SPK_OK when converged, SPK_ERR_NOT_CONVERGED, SPK_ERR_BREAKDOWN (rho, r0'v,
 * omega or the bilinear form p^T A p vanished), SPK_ERR_INDEFINITE (cg:
 * p^H A p <= 0) or an executor error; messages in e->err. */
#ifndef SPK_SOLVER_ZKRYLOV_H
#define SPK_SOLVER_ZKRYLOV_H

#include "core/exec.h"
#include "precond/zprecond.h"
#include "spk.h"
#include "spmv/zspmv.h"

typedef enum { SPK_ZMETHOD_BICGSTAB = 0, SPK_ZMETHOD_COCG, SPK_ZMETHOD_CG } spk_zmethod;

typedef struct spk_zkrylov_opts {
    int maxit;           /* iterations at most */
    double rtol, atol;   /* stop when ||r|| <= max(rtol ||b||, atol) */
    double dtol;         /* stop (SPK_DIVERGED_DTOL) when ||r|| > dtol max(||b||, ||r0||); 0: never */
    spk_monitor_fn monitor; /* per iteration (NULL: none) */
    void *user;
    double *history;     /* room for maxit + 1 residual norms (NULL: none kept) */
} spk_zkrylov_opts;

int spk_zkrylov_solve(spk_exec *e, spk_zspmv *A, spk_zprecond *M, spk_zmethod method, const spk_zkrylov_opts *o,
                      int n, const double *b, double *x, spk_result *r);
/* "bicgstab", "cocg", "cg" */
const char *spk_zmethod_name(spk_zmethod m);

#endif

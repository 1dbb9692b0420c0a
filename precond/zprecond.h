/* zprecond.h -- preconditioners of complex systems: z = M^-1 r.
 *
 *   none    z = r
 *   jacobi  z = D^-1 r (every diagonal entry stored and nonzero)
 *   ilu0    A ~ L U, L unit lower, U upper, in A's pattern
 *   ic0     the symmetric factorization in A's pattern: A ~ L D L^T for a
 *           complex symmetric A (COCG; M = M^T), A ~ L D L^H for a Hermitian
 *           one (CG; D real, positive where A is positive definite)
 *
 * The factors are computed on the host; on the GPU they are uploaded and
 * the triangular solves run there (cuSPARSE SpSV in CUDA_C_64F).  A zero or
 * tiny pivot (|u_ii| <= 1e-12 * |a_ii|, or a non-positive one for a
 * Hermitian ic0) is met by factoring A + alpha diag(A), alpha doubling from
 * 1e-3 up to 1 (spk_zprecond_shift says which). */
#ifndef SPK_PRECOND_ZPRECOND_H
#define SPK_PRECOND_ZPRECOND_H

#include "core/exec.h"
#include "core/zcsr.h"

typedef enum { SPK_ZPC_NONE = 0, SPK_ZPC_JACOBI, SPK_ZPC_ILU0, SPK_ZPC_IC0 } spk_zpc_kind;

typedef struct spk_zprecond spk_zprecond;

/* hermitian: for ic0, L D L^H (else L D L^T); ignored by the others.
 * Errors (SPK_ERR_ZERO_PIVOT naming the row) are recorded in e->err. */
int spk_zprecond_create(spk_exec *e, const spk_zcsr *A, spk_zpc_kind kind, int hermitian, spk_zprecond **out);
/* z = M^-1 r, executor vectors of 2*n doubles (z != r). */
int spk_zprecond_apply(spk_zprecond *p, const double *r, double *z);
/* New values of A (same pattern): the factor computed anew. */
int spk_zprecond_refactor(spk_zprecond *p, const spk_zcsr *A);
/* "none", "jacobi", "ilu0", "ic0" */
const char *spk_zprecond_name(const spk_zprecond *p);
/* alpha of A + alpha diag(A) the factorization needed (0: none) */
double spk_zprecond_shift(const spk_zprecond *p);
/* The order n of the matrix given to create (0 for NULL). */
int spk_zprecond_size(const spk_zprecond *p);
void spk_zprecond_destroy(spk_zprecond *p);
/* The name's kind, or -1. */
int spk_zpc_kind_parse(const char *name);

/* The host's triangular solves with a factor held as one CSR matrix F in
 * A's pattern (L strictly below the diagonal, unit diagonal implied; U on
 * and above): z = U^-1 L^-1 r.  For the GPU's upload (zprecond_cuda.c). */
void spk_zfactor_solve_host(const spk_zcsr *F, const int *diag, const double *r, double *z);
/* F = the factor of A in A's pattern (as above) for kind ilu0 or ic0
 * (ic0: U = D L^T or D L^H); *shift the alpha used.  F's pattern: A's with
 * every diagonal entry (an absent one inserted as 0); for ic0 the lower
 * triangle of A's (only it is read) with its mirror above the diagonal.
 * A square and canonical; on failure F and *diag are left empty. */
int spk_zfactor_compute(const spk_zcsr *A, spk_zpc_kind kind, int hermitian, spk_zcsr *F, int **diag, double *shift,
                        spk_err *e);

#endif

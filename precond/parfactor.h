/* parfactor.h -- IC(0) and ILU(0) by fixed-point sweeps (internal; Chow and
 * Patel's fine-grained factorization), the host reference of the device's
 * (devfactor.h, spk_dev_iter_*).
 *
 * The exact factorization computes the entries of F row by row in
 * dependency order: its cost on a parallel machine grows with the depth of
 * the dependency graph (about n on a band).  The iterative one updates every
 * entry of F at once from the previous iterate (Jacobi style: each sweep
 * reads only the last sweep's values, so the result does not depend on the
 * order of the updates and repeats to the bit):
 *   ILU(0), i > j:  l_ij = (a_ij - sum_{k<j} l_ik u_kj) / u_jj
 *           i <= j: u_ij =  a_ij - sum_{k<i} l_ik u_kj
 *   IC(0),  i > j:  l_ij = (a_ij - sum_{k<j} l_ik l_jk) / l_jj
 *                   l_ii = sqrt(a_ii - sum_{k<i} l_ik^2)
 * with the sums over F's pattern, subtracted in ascending k as the exact
 * factorization does: after at most the depth of the entries' dependency
 * graph the iterate stops changing and equals the exact factor to the bit.
 * ILU(0)'s sums read row i of L and column j of U (a transposed index of F).
 *
 * Initial guess: the factor of the symmetric scaling D^-1/2 A D^-1/2
 * (D = |diag(A)|) with unit diagonal, scaled back: ILU(0) l_ij = a_ij/a_jj,
 * u_ij = a_ij; IC(0) l_ij = a_ij/sqrt(a_jj), l_ii = sqrt(a_ii).  The sweeps
 * commute with that scaling, so none is applied; only the residual is
 * measured on the scaled matrix.  A refactor starts from the last good
 * factor instead.  A sweep whose divisor u_jj (l_jj) is 0 or not finite
 * keeps l_ij; IC(0) keeps l_ii where a_ii - sum is not positive.
 *
 * Stopping: the nonlinear residual r_ij = a_ij - (LU)_ij on F's pattern is
 * what a sweep adds to u_ij (times u_jj for l_ij), so each sweep measures it
 * for free on the iterate it starts from:
 *   res = ||W R W||_F / ||W A W||_F,   W = diag(|a_ii|^-1/2) (1 where a_ii = 0),
 * and stops after the sweep where res <= factor_tol, where nothing changed,
 * or after factor_sweeps sweeps.  Stopped there with the residual above
 * factor_tol (> 0), the factor's quality is unknown (the sweeps may even
 * diverge, away from M-matrices): the exact factorization runs instead and
 * factor_info says so (fallback).  factor_tol = 0 keeps whatever the sweeps
 * reached.  Then each pivot is tested as the exact
 * factorization tests it (ilu0.c, ic0.c); a bad one is reported, and
 * shifted, by the same policy (factor.h). */
#ifndef SPK_PRECOND_PARFACTOR_H
#define SPK_PRECOND_PARFACTOR_H

#include "factor.h"

/* The keys' range and defaults (factor.c's table): a few sweeps give a
 * preconditioner close to the exact one on the generated problems; the
 * tolerance stops earlier where they converge fast. */
#define SPK_FACTOR_SWEEPS_MAX 100000
#define SPK_FACTOR_SWEEPS_DEFAULT 6
#define SPK_FACTOR_TOL_DEFAULT 1e-3

typedef struct spk_parfactor spk_parfactor;

/* The sweeps' buffers for f (after spk_factor_setup): f->iter. */
int spk_parfactor_create(spk_factor *f);
void spk_parfactor_free(spk_parfactor *w);
/* spk_factor_kind.numeric by sweeps (f->iter set): P's values hold A's on
 * entry, the factor of A + alpha*diag(A) on return; 0, -1 with the first
 * bad pivot (fail), or a status.  Fills f->info. */
int spk_parfactor_numeric(spk_factor *f, double alpha, spk_factor_fail *fail);
/* Remember the factor in F as the next factorization's initial guess. */
void spk_parfactor_keep(spk_factor *f);

#endif

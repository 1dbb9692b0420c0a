/* pivot.c -- static pivoting on (spk_options.pivot): A's rows permuted by a
 * maximum product matching (core/matching.c) so that every diagonal entry
 * is one of its column's largest.  The solver then works on P A: b is
 * permuted, x keeps the caller's order (the columns do not move) and
 * ||b - A x|| is unchanged, so rtol means what it means without pivoting.
 * (SPK_PIVOT_AUTO keeps A and permutes inside a preconditioner that met a
 * zero pivot, precond/pivoted.c: pivoting the whole system of every matrix
 * whose diagonal had a zero made three shared-set solves that converged
 * fail, the probe ending without a preconditioner on the permuted operator.) */
#include <stdlib.h>

#include "solver/api_impl.h"

int spk_solver_pivot_setup(spk_solver *s, spk_solver_kind kind, spk_precond_kind pk)
{
    spk_err *e = &s->ctx->err;
    const spk_csr *A = &s->M->A;
    const int mode = s->opts.pivot;
    if (mode != SPK_PIVOT_ON || A->nrows != A->ncols) return SPK_OK;
    const char *why = kind == SPK_SOLVER_CG       ? "CG needs the symmetric matrix that pivoting destroys"
                      : pk == SPK_PRECOND_IC0     ? "IC(0) needs the symmetric matrix that pivoting destroys"
                      : pk == SPK_PRECOND_USER    ? "the caller's preconditioner works on A's own rows"
                      : s->opts.reorder != SPK_REORDER_NONE ? "it cannot be combined with reorder"
                                                            : NULL;
    if (why) return spk_err_set(e, SPK_ERR_INVALID_ARG, "pivot on: %s", why);
    const int n = A->nrows;
    int st = SPK_OK;
    s->rperm = spk_malloc((size_t)n, sizeof(int), "static pivoting's row order", e);
    s->pmap = spk_malloc((size_t)A->nnz + 1, sizeof(int), "static pivoting's entry map", e);
    s->pb = spk_malloc((size_t)n, sizeof(double), "the permuted right-hand side", e);
    if (!s->rperm || !s->pmap || !s->pb) return SPK_ERR_NOMEM;
    SPK_TRY(spk_csr_max_product_matching(A, s->rperm, NULL, e));
    SPK_TRY(spk_csr_permute_rows(A, s->rperm, &s->PA, s->pmap, e));
    s->pivot_moved = 0;
    for (int i = 0; i < n; i++) s->pivot_moved += s->rperm[i] != i;
    return st;
}

int spk_solver_pivoted(const spk_solver *s)
{
    if (s && s->rperm) return s->pivot_moved;
    return s && s->k.M_ops ? spk_precond_rows_moved(s->k.M_ops, s->k.M) : -1;
}

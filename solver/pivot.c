/* pivot.c -- static pivoting (spk_options.pivot): A's rows permuted by a
 * maximum product matching (core/matching.c) so that every diagonal entry
 * is one of its column's largest, where ILU(0) and Jacobi need a nonzero
 * diagonal.  The solver then works on P A: b is permuted, x keeps the
 * caller's order (the columns do not move) and ||b - A x|| is unchanged, so
 * rtol means what it means without pivoting.  SPK_PIVOT_AUTO pivots only
 * where the setup without it met a zero pivot (ILU(0)) or a zero diagonal
 * entry (Jacobi): on the shared set, pivoting every matrix whose diagonal
 * had a zero made three solves that converged fail (the default's probe
 * then ended without a preconditioner, on the permuted operator). */
#include <stdlib.h>

#include "solver/api_impl.h"

int spk_solver_pivot_setup(spk_solver *s, spk_solver_kind kind, spk_precond_kind pk, int failed)
{
    spk_err *e = &s->ctx->err;
    const spk_csr *A = &s->M->A;
    const int mode = s->opts.pivot;
    if (mode == SPK_PIVOT_OFF || A->nrows != A->ncols) return SPK_OK;
    const char *why = kind == SPK_SOLVER_CG       ? "CG needs the symmetric matrix that pivoting destroys"
                      : pk == SPK_PRECOND_IC0     ? "IC(0) needs the symmetric matrix that pivoting destroys"
                      : pk == SPK_PRECOND_USER    ? "the caller's preconditioner works on A's own rows"
                      : s->opts.reorder != SPK_REORDER_NONE ? "it cannot be combined with reorder"
                                                            : NULL;
    if (mode == SPK_PIVOT_ON && why) return spk_err_set(e, SPK_ERR_INVALID_ARG, "pivot on: %s", why);
    if (why || (mode == SPK_PIVOT_AUTO && !failed)) return SPK_OK;
    const int n = A->nrows;
    int st = SPK_OK, matched = 0;
    s->rperm = spk_malloc((size_t)n, sizeof(int), "static pivoting's row order", e);
    s->pmap = spk_malloc((size_t)A->nnz + 1, sizeof(int), "static pivoting's entry map", e);
    s->pb = spk_malloc((size_t)n, sizeof(double), "the permuted right-hand side", e);
    if (!s->rperm || !s->pmap || !s->pb) return SPK_ERR_NOMEM;
    SPK_TRY(spk_csr_max_product_matching(A, s->rperm, &matched, e));
    SPK_TRY(spk_csr_permute_rows(A, s->rperm, &s->PA, s->pmap, e));
    s->pivot_moved = 0;
    for (int i = 0; i < n; i++) s->pivot_moved += s->rperm[i] != i;
    s->pivot_matched = matched;
    return st;
}

int spk_solver_pivoted(const spk_solver *s)
{
    return s && s->rperm ? s->pivot_moved : -1;
}

/* pivot.c -- static pivoting (spk_options.pivot): ILU(0) or Jacobi built on
 * A's rows permuted by a maximum product matching (precond/pivoted.c), so
 * that every diagonal entry they see is one of its column's largest; the
 * operator, b and x stay A's, so rtol means what it means without it.
 * Here: the refusals of pivot on, and what the solver says it did.
 * (Pivoting the whole system, P A x = P b, of every matrix whose diagonal
 * had a zero made three shared-set solves that converged fail: the probe
 * then ended without a preconditioner on the permuted operator.) */
#include "solver/api_impl.h"

int spk_solver_pivot_check(const spk_solver *s, spk_solver_kind kind, spk_precond_kind pk)
{
    if (s->opts.pivot != SPK_PIVOT_ON) return SPK_OK;
    const char *why = kind == SPK_SOLVER_CG                   ? "CG needs the symmetric matrix that pivoting destroys"
                      : pk == SPK_PRECOND_IC0                 ? "IC(0) needs the symmetric matrix that pivoting destroys"
                      : pk == SPK_PRECOND_USER                ? "the caller's preconditioner works on A's own rows"
                      : s->opts.reorder != SPK_REORDER_NONE ? "it cannot be combined with reorder"
                                                              : NULL;
    return why ? spk_err_set(&s->ctx->err, SPK_ERR_INVALID_ARG, "pivot on: %s", why) : SPK_OK;
}

int spk_solver_pivoted(const spk_solver *s)
{
    return s && s->k.M_ops ? spk_precond_rows_moved(s->k.M_ops, s->k.M) : -1;
}

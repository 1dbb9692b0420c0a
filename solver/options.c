/* options.c -- the solver's options: defaults and checks (include/spk.h,
 * spk_options), and the SpMV backend's options taken from them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/api_impl.h"

void spk_options_default(spk_options *o)
{
    memset(o, 0, sizeof *o);
    o->rtol = 1e-8;
    o->atol = 0.0;
    o->maxit = 10000;
    o->dtol = 1e8;
    o->format = NULL; /* the executor's default: auto on the GPU, csr on the host */
    o->hmec_parts = 2;
    o->allow_shift = 1;
    o->shift_init = 1e-3;
    o->shift_max = 1.0;
    o->vector_ops = SPK_VECTOR_BLOCK;
    o->precond_sweeps = SPK_PRECOND_SWEEPS_AUTO;
    o->race = 1; /* docs/benchmarks.md says why */
}

int spk_options_check(const spk_options *o, spk_err *e)
{
    if (!(o->rtol >= 0) || !isfinite(o->rtol))
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "rtol must be a finite number >= 0 (got %g)", o->rtol);
    if (!(o->atol >= 0) || !isfinite(o->atol))
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "atol must be a finite number >= 0 (got %g)", o->atol);
    if (o->maxit < 0 || o->maxit > 1000000000)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "maxit must be in [0, 1e9] (got %d)", o->maxit);
    if (o->reorder < SPK_REORDER_NONE || o->reorder > SPK_REORDER_BLOCK_MULTICOLOR)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "reorder must be SPK_REORDER_NONE (0), "
                           "SPK_REORDER_MULTICOLOR (1) or SPK_REORDER_BLOCK_MULTICOLOR (2) (got %d)", o->reorder);
    if (o->reorder_block < 0 || o->reorder_block > 1000000)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "reorder_block must be in [1, 1e6] rows (got %d; 0: 16)",
                           o->reorder_block);
    if (o->precond_precision < SPK_PRECISION_AUTO || o->precond_precision > SPK_PRECISION_FLOAT)
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "precond_precision must be SPK_PRECISION_AUTO (0), SPK_PRECISION_DOUBLE (1) or "
                           "SPK_PRECISION_FLOAT (2) (got %d)", o->precond_precision);
    if (o->race < 0 || o->race > 2)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "race must be 0, 1 or 2 (got %d)", o->race);
    if (o->precond_isai != 0 && o->precond_isai != 1)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "precond_isai must be 0 or 1 (got %d)", o->precond_isai);
    if (o->vector_ops < SPK_VECTOR_CLASSIC || o->vector_ops > SPK_VECTOR_BLOCK)
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "vector_ops must be SPK_VECTOR_CLASSIC (0), SPK_VECTOR_FUSED (1), SPK_VECTOR_GRAPH (2) "
                           "or SPK_VECTOR_BLOCK (3) (got %d)",
                           o->vector_ops);
    if (o->precond_isai && o->precond_sweeps > 0)
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "precond_isai and precond_sweeps are two ways to apply IC(0)/ILU(0): choose one");
    if (o->precond_sweeps < SPK_PRECOND_SWEEPS_AUTO || o->precond_sweeps > 1000)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "precond_sweeps must be in [0, 1000] or SPK_PRECOND_SWEEPS_AUTO "
                           "(got %d; 0: exact triangular solves)", o->precond_sweeps);
    if (o->sell_c < 0 || o->sell_c > 1024)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "sell_c must be in [1, 1024] rows (got %d; 0: 32)", o->sell_c);
    {
        const int c = o->sell_c ? o->sell_c : 32;
        if (o->sell_sigma < 0 || o->sell_sigma > (1 << 24) || (o->sell_sigma > 1 && o->sell_sigma % c != 0))
            return spk_err_set(e, SPK_ERR_INVALID_ARG,
                               "sell_sigma must be 1 (no sorting) or a multiple of sell_c (%d) up to 2^24 "
                               "(got %d; 0: 256)", c, o->sell_sigma);
    }
    if (o->bcsr_block < 0 || o->bcsr_block > 32)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "bcsr_block must be in [1, 32] (got %d; 0: 4)", o->bcsr_block);
    if (o->hmec_parts < 0 || o->hmec_parts > 8)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "hmec_parts must be in [1, 8] (got %d)", o->hmec_parts);
    if (!(o->tile_te >= 0) || !(o->tile_th >= 0) || !isfinite(o->tile_te) || !isfinite(o->tile_th))
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "tile_te and tile_th must be finite numbers >= 0 (got %g and %g; 0: default)",
                           o->tile_te, o->tile_th);
    if (o->allow_shift && !(o->shift_init > 0 && o->shift_max >= o->shift_init && isfinite(o->shift_max)))
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "shift_init must be > 0 and <= shift_max (got %g and %g)", o->shift_init,
                           o->shift_max);
    return SPK_OK;
}

void spk_options_spmv(const spk_options *o, spk_spmv_opts *so)
{
    memset(so, 0, sizeof *so);
    so->hmec_parts = o->hmec_parts;
    so->tile_te = o->tile_te;
    so->tile_th = o->tile_th;
    so->tile_defer_nnz = o->tile_defer_nnz;
    so->sell_c = o->sell_c;
    so->sell_sigma = o->sell_sigma;
    so->bcsr_block = o->bcsr_block;
}


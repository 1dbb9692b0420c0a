/* method.c -- each method on the engine its options ask for: the classic
 * drivers (one executor operation per dot product, norm and update, each
 * scalar back on the host), or the fused drivers with their engines where
 * the executor keeps scalars (solver/fused.c). */
#include "solver/krylov_common.h"

/* The fused drivers run where asked and the executor has the steps. */
static int fused(const spk_krylov *k, const spk_options *o)
{
    return o->vector_ops != SPK_VECTOR_CLASSIC && k->steps != NULL;
}

int spk_cg(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res)
{
    k->iter.x = x;
    k->iter.status = SPK_OK;
    return fused(k, o) ? spk_cg_fused(k, b, x, o, res) : spk_cg_classic(k, b, x, o, res);
}

int spk_gmres(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res)
{
    k->iter.x = x;
    k->iter.status = SPK_OK;
    return spk_gmres_classic(k, b, x, o, res); /* no fused steps: its work is the basis's */
}

int spk_bicgstab(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res)
{
    k->iter.x = x;
    k->iter.status = SPK_OK;
    return fused(k, o) ? spk_bicgstab_fused(k, b, x, o, res) : spk_bicgstab_classic(k, b, x, o, res);
}

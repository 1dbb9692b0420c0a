/* iterate.c -- spk_options.iterate: the iterate x_k, copied to the host in
 * the caller's order, given to the caller's callback after each iteration
 * (krylov.h). */
#include <stdlib.h>

#include "solver/krylov.h"

void spk_krylov_iterate(spk_krylov *k, const spk_options *o, int it)
{
    if (!o->iterate || it < 1 || !k->iter.x || k->iter.status) return;
    const size_t n = (size_t)k->n;
    if (!k->iter.host) {
        k->iter.host = spk_malloc(n + 1, sizeof(double), "the iterate's host copy", k->e->err);
        if (k->iter.perm && k->iter.host)
            k->iter.caller = spk_malloc(n + 1, sizeof(double), "the iterate in the caller's order", k->e->err);
        if (!k->iter.host || (k->iter.perm && !k->iter.caller)) {
            k->iter.status = SPK_ERR_NOMEM;
            return;
        }
    }
    k->iter.status = k->e->ops->download(k->e, k->iter.host, k->iter.x, n * sizeof(double));
    if (k->iter.status) return;
    const double *x = k->iter.host;
    if (k->iter.perm) {
        for (size_t i = 0; i < n; i++) k->iter.caller[k->iter.perm[i]] = x[i];
        x = k->iter.caller;
    }
    o->iterate(o->iterate_user, it, x);
}

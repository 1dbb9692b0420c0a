/* tile_params.c -- the tile formats' knobs: their keys (core/options.h) and
 * spk_tile_params_for, which reads them. */
#include "spmv/options.h"
#include "tile.h"

#include <math.h>
#include <string.h>

static const spk_opt tile_keys[] = {
    {.key = "tile-te", SPK_SPMV_KNOB(tile_te), .type = SPK_OPT_DOUBLE, .min = 0, .max = INFINITY,
     .flags = SPK_OPT_MIN_OPEN, .unset = "0.2", .meta = "X", .scope = "tile,tile-dcoo",
     .help = "formats tile, tile-dcoo: a tile is ELL when its row-length variation (std/mean) is <= X"},
    {.key = "tile-th", SPK_SPMV_KNOB(tile_th), .type = SPK_OPT_DOUBLE, .min = 0, .max = INFINITY,
     .flags = SPK_OPT_MIN_OPEN, .unset = "1.0", .meta = "X", .scope = "tile,tile-dcoo",
     .help = "formats tile, tile-dcoo: a tile is HYB when its row-length variation is >= X (CSR between "
             "tile-te and X)"},
    {.key = "tile-defer-nnz", SPK_SPMV_KNOB(tile_defer_nnz), .type = SPK_OPT_LLONG, .min = -INFINITY,
     .max = INFINITY, .unset = "1800000", .meta = "N", .scope = "tile",
     .help = "format tile: move the COO entries to a separate CSR matrix above N nonzeros (< 0: never)"},
};
const spk_opt_table spk_tile_options = {"spmv", tile_keys, 3, NULL};

int spk_tile_params_for(const char *name, const spk_spmv_opts *o, const spk_csr *A, spk_tile_params *p,
                        spk_err *err)
{
    memset(p, 0, sizeof *p);
    p->te = o && o->tile_te != 0 ? o->tile_te : SPK_TILE_TE;
    p->th = o && o->tile_th != 0 ? o->tile_th : SPK_TILE_TH;
    if (!(p->te > 0) || !(p->th > 0) || !isfinite(p->te) || !isfinite(p->th))
        return spk_err_set(err, SPK_ERR_INVALID_ARG,
                           "format '%s': the tile thresholds te and th must be finite and > 0 "
                           "(got te %g, th %g)",
                           name, p->te, p->th);
    if (strcmp(name, "tile-csr") == 0) return SPK_OK;
    p->adaptive = 1;
    if (strcmp(name, "tile-dcoo") == 0) {
        p->defer = 1;
    } else {
        long long lim = o && o->tile_defer_nnz != 0 ? o->tile_defer_nnz : SPK_TILE_DEFER_NNZ;
        p->defer = lim > 0 && (long long)A->nnz > lim;
    }
    return SPK_OK;
}

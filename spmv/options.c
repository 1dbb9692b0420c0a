/* options.c -- the registry of the formats' option tables (options.h). */
#include "spmv/options.h"

#include <string.h>

/* A format with knobs adds its table here. */
const spk_opt_table *const spk_spmv_option_tables[] = {
    &spk_hmec_options,
    &spk_tile_options,
    &spk_sell_options,
    &spk_bcsr_options,
    NULL,
};

void spk_spmv_opts_of(const spk_options *o, spk_spmv_opts *so)
{
    memset(so, 0, sizeof *so);
    for (const spk_opt_table *const *t = spk_spmv_option_tables; *t; t++)
        spk_opt_copy(*t, SPK_OPT_PUBLIC, o, SPK_OPT_OWN, so);
}

int spk_spmv_opts_check(const spk_spmv_opts *so, const char *pre, spk_err *e)
{
    for (const spk_opt_table *const *t = spk_spmv_option_tables; *t; t++) {
        SPK_TRY(spk_opt_validate(*t, SPK_OPT_OWN, so, pre, e));
        if ((*t)->check) SPK_TRY((*t)->check(so, e));
    }
    return SPK_OK;
}

/* options.h -- the SpMV formats' options (core/options.h): each format
 * declares the knobs it reads next to the code that reads them, as a table
 * whose keys are stored in spk_options (the front ends' struct) and read
 * from spk_spmv_opts; this registry lists those tables. */
#ifndef SPK_SPMV_OPTIONS_H
#define SPK_SPMV_OPTIONS_H

#include <stddef.h>

#include "core/options.h"
#include "spmv/spmv.h"

/* The two places of a format's knob f: spk_options.f and spk_spmv_opts.f. */
#define SPK_SPMV_KNOB(f) .field = #f, .at = {offsetof(spk_options, f), offsetof(spk_spmv_opts, f)}

/* Each format's table, in its own file. */
extern const spk_opt_table spk_hmec_options, spk_tile_options, spk_sell_options, spk_bcsr_options;

/* Every format's table, NULL-terminated. */
extern const spk_opt_table *const spk_spmv_option_tables[];

/* The formats' knobs of o into so (every other field of so zero). */
void spk_spmv_opts_of(const spk_options *o, spk_spmv_opts *so);
/* Check so's knobs: each in its range, then each format's combinations;
 * messages name the knobs with prefix pre ("spk_options."). */
int spk_spmv_opts_check(const spk_spmv_opts *so, const char *pre, spk_err *e);

#endif

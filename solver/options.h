/* options.h -- the solver's options (core/options.h): its own keys, and
 * every component's table put together behind spk_options_set and friends
 * (include/spk.h). */
#ifndef SPK_SOLVER_OPTIONS_H
#define SPK_SOLVER_OPTIONS_H

#include "core/options.h"

/* Every table behind spk_options, NULL-terminated, into t (at most max
 * entries with the NULL): the solver's, the preconditioner's, the formats'.
 * Returns the count. */
int spk_options_tables(const spk_opt_table **t, int max);
/* Every key of o at its table's default (monitor and monitor_user NULL). */
void spk_options_fill_defaults(spk_options *o);
/* Check o: each value in its key's range, then each component's
 * combinations; pre goes in front of the fields named ("spk_options."; NULL:
 * the keys are named instead). */
int spk_options_validate(const spk_options *o, const char *pre, spk_err *e);

#endif

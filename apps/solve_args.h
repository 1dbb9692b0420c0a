/* solve_args.h -- `spk solve`'s arguments: its own options and the
 * library's, parsed the same way for the one-process solve (cmd_solve.c)
 * and the solve across MPI ranks (cmd_solve_dist.c). */
#ifndef SPK_APPS_SOLVE_ARGS_H
#define SPK_APPS_SOLVE_ARGS_H

#include "spk.h"
#include "io/rhs.h"

/* The command's own arguments (the solver's options go into o). */
typedef struct solve_args {
    const char *matrix, *rhs, *out, *rhs_kind, *max_memory;
    spk_rhs_kind kind;       /* --rhs-kind parsed */
    int solver, precond, device; /* spk_solver_kind, spk_precond_kind, spk_device */
    int partition;           /* across MPI ranks: 0 contiguous rows, 1 METIS parts */
    int monitor, json, out_failed;
    int threads;             /* host threads (0: the default) */
    spk_options o;
} solve_args;

/* Parse argv into a; returns CLI_OK, CLI_USAGE, or -1 for --help (printed). */
int solve_args_parse(int argc, char **argv, solve_args *a);

#endif

/* solve_race.c -- the race's part of a solver (spk_options.race): the
 * sides' work vectors, their start from the solve's vectors, and the stop
 * a deferred preconditioner's build asks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/api_impl.h"

/* Start the CGs alongside this solve (spk_solver.race) from the executor
 * copies b, x0; NULL where none started. */
spk_race *spk_solver_race_start(spk_solver *s, const double *db, const double *dx, int *st)
{
    spk_race *rc = &s->race;
    spk_exec *ex = s->ctx->exec;
    *st = SPK_OK;
    if (!s->racing || !s->b || s->kind != SPK_SOLVER_CG) return NULL;
    if (!s->race_init) {
        for (int w = 0; w < SPK_RACE_SIDES && !*st; w++) *st = spk_krylov_init(&rc->side[w].k, ex, s->k.n, 0, 0);
        /* the kernels the preconditioner's build may launch first: a kernel's
         * first load may wait for all the device's work, the sides' included */
        const struct spk_precond_ops *ops = s->k.M_ops;
        if (!*st && !ops) *st = spk_solver_precond_ops(s, &ops);
        if (!*st && ops->warm) *st = ops->warm(ex, spk_solver_work(s), &s->popts);
        s->race_init = 1;
        if (*st) {
            spk_solver_race_free(s);
            return NULL;
        }
    }
    for (int w = 0; w < SPK_RACE_SIDES; w++) {
        spk_krylov *k = &rc->side[w].k;
        k->A_ops = s->k.A_ops; /* a refactorization may have rebuilt the format */
        k->A = s->k.A;
        k->dA = s->k.dA;
        memcpy(k->lanes_light, s->k.lanes_light, sizeof k->lanes_light);
    }
    /* side 1: CG with Jacobi (where a diagonal entry is not positive it breaks
     * down or converges all the same: its tests keep a wrong answer out) */
    rc->sides = s->opts.race == 2 ? 1 : SPK_RACE_SIDES;
    rc->side[1].jacobi = 1;
    *st = spk_race_start(rc, &s->k, db, dx, &s->opts);
    return !*st && spk_race_running(rc) ? rc : NULL;
}

/* spk_precond_opts.stop during the race: has a CG alongside answered? */
int spk_solver_race_answered(void *arg)
{
    int won = 0;
    return spk_race_poll((spk_race *)arg, &won) == SPK_OK && won;
}


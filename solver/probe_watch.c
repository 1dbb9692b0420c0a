/* probe_watch.c -- the default's choice (probe.c): the rest of a solve
 * under the factor that was chosen, watched, and what follows where it
 * stalls. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "solver/probe_impl.h"

/* The factor's run after it took over, watched (k->check): it stops where its
 * residual has grown SPK_PROBE_HANDED_GROWTH times above the one it took
 * over at (no dtol is set by default to catch that), and BiCGStab's also
 * where it has run twice its predicted rest plus probe_iters without
 * converging (pf: its measurement; NULL or a rate of 1 or more: no such
 * limit).  CG has no such limit: with IC(0) it does not stall as BiCGStab
 * with ILU(0) can (rdb200), and its early rate can predict a fraction of
 * its rest (bcsstk13: stopped at 172 of some 400 iterations, then none did
 * not converge).  Looks every HANDED_LOOK iterations. */
#define HANDED_LOOK 10

typedef struct handed_watch {
    spk_solver *s;
    double rnorm0;
    int limit;   /* iterations at most (0: none) */
    int stopped; /* 1: past limit, 2: grown */
} handed_watch;

static int handed_look(void *user, int it, double rnorm, double bnorm)
{
    handed_watch *h = user;
    (void)bnorm;
    if (!(rnorm <= SPK_PROBE_HANDED_GROWTH * h->rnorm0)) {
        h->stopped = 2;
        return 1;
    }
    if (h->limit > 0 && it >= h->limit) {
        h->stopped = 1;
        return 1;
    }
    h->s->k.check.at = it + HANDED_LOOK;
    return 0;
}

/* The rest run by the factor that took over, from x (kept first, for the
 * last resort), watched as handed_look says. */
int spk_probe_run_handed(spk_solver *s, const double *b, double *x, spk_result *r, const probe_run *pf, probe_run *m,
                      int *stopped)
{
    spk_exec *e = s->ctx->exec;
    SPK_TRY(e->ops->copy(e, s->k.n, x, s->probe.xs));
    const double bnorm = r->relres > 0 ? r->rnorm / r->relres : 0;
    const double target = fmax(s->opts.rtol * bnorm, s->opts.atol);
    const double need = pf && pf->rate < 1 ? spk_probe_remaining(pf->rate, r->rnorm, target) : HUGE_VAL;
    const double limit = s->kind == SPK_SOLVER_CG ? HUGE_VAL : 2 * need + s->opts.probe_iters;
    handed_watch h = {s, r->rnorm > 0 ? r->rnorm : HUGE_VAL, limit < INT_MAX ? (int)limit : 0, 0};
    s->k.check.fn = handed_look;
    s->k.check.user = &h;
    s->k.check.at = h.limit > 0 && h.limit < HANDED_LOOK ? h.limit : HANDED_LOOK;
    spk_result more;
    const int st = spk_probe_run_some(s, b, x, s->opts.maxit - r->iterations, &more, m);
    s->k.check.fn = NULL;
    s->k.check.user = NULL;
    SPK_TRY(st);
    spk_probe_add_run(r, &more);
    *stopped = !spk_probe_converged(r) && r->iterations < s->opts.maxit ? h.stopped : 0;
    return SPK_OK;
}

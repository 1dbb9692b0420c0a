/* probe.c -- the solve's iterations, and the default's choice of the
 * preconditioner by measuring (spk_options.probe).
 *
 * Whether IC(0)/ILU(0) pays for its build and its dearer iterations is not
 * known from the matrix.  So the first solve starts with the cheap
 * preconditioner (none, or Jacobi where the diagonal varies), watched: after
 * probe_iters iterations its time per iteration and its rate (the residual's
 * reduction per iteration) predict the rest.  Where the rest is short the
 * run simply goes on (no restart); else the factor is built and a few of its
 * iterations are measured from the same iterate (from the start where
 * BiCGStab's residual ended above it), and the one whose predicted
 * remaining time is smaller finishes, from the latest iterate.
 * Where the factor does not converge and Jacobi, the cheap one, stalls,
 * none finishes; where the choice breaks down or diverges, none finishes
 * (the last resort), and where BiCGStab fails without one too, GMRES.  The
 * solver keeps the choice for its later solves; the choice and its numbers
 * are one line (spk_solver_choice).  Runs and their measures: probe_run.c;
 * the chosen factor's rest, watched: probe_watch.c. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "solver/probe_impl.h"

/* The cheap preconditioner back after the factor lost: the method and
 * kind it had. */
static int back_to_cheap(spk_solver *s, double *t_setup)
{
    double secs = 0;
    const int st = spk_solver_use_precond(s, s->probe.cheap_kind, s->probe.cheap, &secs);
    spk_probe_add_setup(s, t_setup, secs);
    return st;
}


/* The factor takes over from the latest iterate (after a breakdown, from
 * the one kept); why: what the cheap run did; pf: the factor's measurement
 * (NULL: none made).  Where its run stops unconverged (run_handed: grown, or
 * BiCGStab's past twice its predicted rest), none finishes from the iterate
 * it took over at. */
static int to_factor(spk_solver *s, const double *b, double *x, spk_result *r, probe_run *pc, const probe_run *pf,
                     const char *why, double *t_setup)
{
    const int broke = spk_probe_ended(r);
    if (broke) SPK_TRY(spk_probe_restore(s, x));
    double secs = 0;
    const int st = spk_solver_use_precond(s, s->probe.cheap_kind, s->probe.strong, &secs);
    spk_probe_add_setup(s, t_setup, secs);
    int factor = 0;
    if (st == SPK_ERR_ZERO_PIVOT) {
        spk_err_clear(&s->ctx->err);
        SPK_TRY(back_to_cheap(s, t_setup));
    } else {
        SPK_TRY(st);
        s->probe.decided = 2;
        factor = 1;
    }
    const size_t len = strlen(s->probe.why);
    snprintf(s->probe.why + len, sizeof s->probe.why - len, "; then %s: %s %s", spk_solver_precond(s),
             spk_precond_kind_name(s->probe.cheap), broke ? "broke down" : why);
    if (!factor) {
        spk_result more;
        SPK_TRY(spk_probe_run_some(s, b, x, s->opts.maxit - r->iterations, &more, pc));
        spk_probe_add_run(r, &more);
        return SPK_OK;
    }
    int stopped = 0;
    SPK_TRY(spk_probe_run_handed(s, b, x, r, pf, pc, &stopped));
    if (!stopped) return SPK_OK;
    char tail[160];
    if (stopped == 2)
        snprintf(tail, sizeof tail, "; then none, the last resort: %s's residual grew %g-fold (stopped at iteration %d)",
                 spk_solver_precond(s), SPK_PROBE_HANDED_GROWTH, r->iterations);
    else
        snprintf(tail, sizeof tail, "; then none, the last resort: %s did not converge in twice its predicted rest "
                 "(stopped at iteration %d)", spk_solver_precond(s), r->iterations);
    SPK_TRY(spk_probe_restore(s, x));
    probe_run m;
    return spk_probe_rest_without(s, s->probe.cheap_kind, b, x, r, tail, &m, t_setup);
}

/* The cheap run's watch (k->check).  At each look the rate since the last
 * one (the first: over the second half of the run so far) and the time per
 * iteration predict the rest.  Before the factor is measured: where the
 * rest is more than probe_try * probe_iters iterations, the run stops there
 * for the factor to be measured.  After the factor lost (vs): where the
 * factor's measured rest (pf) is now the shorter by the choice's rule, the
 * run stops for the factor to take over.  Else it goes on as it is (no
 * restart) and looks again at twice its predicted rest (plus probe_iters).
 * The first look is at probe_iters. */
typedef struct cheap_watch {
    spk_solver *s;
    double t0;
    int vs;           /* 1: the factor was measured and lost (pf) */
    double retry;     /* > 0: the factor's build was stopped at this budget (s): stop where the
                         budget allowed by the rest is twice that */
    probe_run pf;
    int looks;        /* looks made so far */
    int last_it;      /* ... the last one's iteration and residual */
    double last_rnorm;
    int stopped;      /* 1: stopped at a look for the factor */
    probe_run pc;
} cheap_watch;

/* probe-keep and probe-try, 0 (the default) resolved by the device.  On the
 * GPU the factor's iterations cost several products and the cheap ones'
 * few, so the factor must promise more there (decided on the train half of
 * bench/corpus.txt on each; docs/notes/default-choice.md). */
static double keep_of(const spk_solver *s)
{
    if (s->opts.probe_keep > 0) return s->opts.probe_keep;
    return spk_exec_is_host(s->ctx->exec) ? 2.0 : 0.5;
}

static double try_of(const spk_solver *s)
{
    if (s->opts.probe_try > 0) return s->opts.probe_try;
    return spk_exec_is_host(s->ctx->exec) ? 2.0 : 16.0;
}

/* probe-budget: the fraction of the cheap run's predicted rest that
 * measuring the factor may cost (decided on the GPU's train half; on the
 * host unbounded by default: its constants were decided without one, and
 * its build stops only before the factorization proper). */
#define PROBE_BUDGET_GPU 0.1

static double budget_of(const spk_solver *s)
{
    if (s->opts.probe_budget > 0) return s->opts.probe_budget;
    return spk_exec_is_host(s->ctx->exec) ? HUGE_VAL : PROBE_BUDGET_GPU;
}

/* Does the factor win: its predicted rest t_f at most probe-keep times the
 * cheap one's t_c? */
static int factor_wins(const spk_solver *s, double t_f, double t_c)
{
    return t_f <= keep_of(s) * t_c;
}

static int cheap_look(void *user, int it, double rnorm, double bnorm)
{
    cheap_watch *w = user;
    spk_solver *s = w->s;
    spk_result now;
    memset(&now, 0, sizeof now);
    now.iterations = it;
    now.rnorm = rnorm;
    now.rnorm0 = s->probe.hist[0];
    spk_probe_measure(&now, s->probe.hist, it + 1 < SPK_PROBE_HIST ? it + 1 : SPK_PROBE_HIST, spk_time_now() - w->t0, &w->pc);
    if (w->looks > 0 && w->last_rnorm > 0 && rnorm > 0 && it > w->last_it) {
        const double since_start = rnorm < now.rnorm0 ? pow(rnorm / now.rnorm0, 1.0 / it) : 1.0;
        w->pc.rate = spk_probe_rate_of(pow(rnorm / w->last_rnorm, 1.0 / (it - w->last_it)), since_start);
    }
    w->looks++;
    w->last_it = it;
    w->last_rnorm = rnorm;
    const double target = fmax(s->opts.rtol * bnorm, s->opts.atol);
    const double need = spk_probe_remaining(w->pc.rate, rnorm, target);
    int stop;
    if (w->vs)
        stop = factor_wins(s, spk_probe_remaining(w->pf.rate, rnorm, target) * w->pf.per_it, need * w->pc.per_it);
    else if (w->retry > 0)
        stop = budget_of(s) * need * w->pc.per_it > 2 * w->retry;
    else
        stop = need > try_of(s) * s->opts.probe_iters;
    if (stop) {
        w->stopped = 1;
        return 1;
    }
    if (!w->vs && !w->retry)
        snprintf(s->probe.why, sizeof s->probe.why,
                 "%s: it was predicted to end soon (its rate %.3g per iteration at iteration %d)",
                 spk_precond_kind_name(s->probe.cheap), w->pc.rate, it);
    const double at = it + 2.0 * need + s->opts.probe_iters;
    s->k.check.at = at < INT_MAX ? (int)at : 0; /* 0: never */
    return 0;
}

/* One watched run of the cheap preconditioner, of at most maxit iterations. */
static int run_watched(spk_solver *s, const double *b, double *x, int maxit, spk_result *r, cheap_watch *w,
                       probe_run *pc)
{
    w->s = s;
    w->t0 = spk_time_now();
    s->k.check.fn = cheap_look;
    s->k.check.user = w;
    s->k.check.at = s->opts.probe_iters;
    const int st = spk_probe_run_some(s, b, x, maxit, r, pc);
    s->k.check.fn = NULL;
    s->k.check.user = NULL;
    return st;
}

/* Jacobi stalled (its residual above where its run began) or broke down,
 * and the factor was measured not to converge: the third candidate, none,
 * finishes from the iterate kept at the run's start (a diagonal scaling
 * can stall an iteration on matrices far from diagonally dominant, where
 * no preconditioner converges).  Handing over to the factor instead, as
 * before, left such solves unconverged. */
static int to_none(spk_solver *s, const double *b, double *x, spk_result *r, probe_run *pc, double *t_setup)
{
    const int broke = spk_probe_ended(r);
    SPK_TRY(spk_probe_restore(s, x));
    s->probe.cheap = SPK_PRECOND_NONE;
    return spk_probe_rest_without(s, s->probe.cheap_kind, b, x, r,
                        broke ? "; then none: jacobi broke down and the factor did not converge"
                              : "; then none: jacobi stalled and the factor did not converge",
                        pc, t_setup);
}

/* The cheap preconditioner finishes (the factor failed, pf NULL, or lost to
 * it, pf its measurement), from the latest iterate: watched against the
 * factor's measurement, which takes over where the cheap one's rate drops
 * enough that the factor now wins (or where the cheap one breaks down). */
static int run_cheap(spk_solver *s, const double *b, double *x, spk_result *r, probe_run *pc, const probe_run *pf,
                     double *t_setup)
{
    spk_exec *e = s->ctx->exec;
    s->probe.decided = 1;
    if (spk_probe_converged(r) || r->reason == SPK_BREAKDOWN_INDEFINITE || r->iterations >= s->opts.maxit) return SPK_OK;
    SPK_TRY(e->ops->copy(e, s->k.n, x, s->probe.xs));
    spk_result more;
    if (!pf) {
        SPK_TRY(spk_probe_run_some(s, b, x, s->opts.maxit - r->iterations, &more, pc));
        spk_probe_add_run(r, &more);
        return SPK_OK;
    }
    cheap_watch w;
    memset(&w, 0, sizeof w);
    w.vs = 1;
    w.pf = *pf;
    SPK_TRY(run_watched(s, b, x, s->opts.maxit - r->iterations, &more, &w, pc));
    spk_probe_add_run(r, &more);
    if (spk_probe_converged(r) || r->reason == SPK_BREAKDOWN_INDEFINITE || r->iterations >= s->opts.maxit) return SPK_OK;
    if (!(pf->rate < 1) && s->probe.cheap == SPK_PRECOND_JACOBI) return to_none(s, b, x, r, pc, t_setup);
    return to_factor(s, b, x, r, pc, pf, "slowed down until the factor's predicted rest was the shorter", t_setup);
}

/* The cheap run, watched; where it did not stop for the factor to be
 * measured, the choice is made: the cheap run ended the solve, or it broke
 * down and the factor takes over. */
static int cheap_first(spk_solver *s, const double *b, double *x, spk_result *r, cheap_watch *w, double *t_setup)
{
    probe_run pc;
    SPK_TRY(run_watched(s, b, x, s->opts.maxit, r, w, &pc));
    if (w->stopped) return SPK_OK;
    s->probe.decided = 1;
    if (!w->looks)
        snprintf(s->probe.why, sizeof s->probe.why, "%s: it ended the solve in its first iterations (its rate %.3g "
                 "per iteration)", spk_precond_kind_name(s->probe.cheap), pc.rate);
    if (spk_probe_converged(r) || r->reason == SPK_BREAKDOWN_INDEFINITE || r->iterations >= s->opts.maxit) return SPK_OK;
    /* CG found A indefinite: spk_solve's switch answers; a breakdown: the factor */
    return to_factor(s, b, x, r, &pc, NULL, "broke down", t_setup);
}

/* The factor's measurement within a deadline (host seconds): the build
 * stops at it (spk_precond_opts.stop, between the build's steps), and the
 * measured iterations end at it (after at least FACTOR_MIN_ITS). */
#define FACTOR_MIN_ITS 3

typedef struct factor_watch {
    spk_solver *s;
    double deadline;
} factor_watch;

static int past_deadline(void *arg)
{
    return spk_time_now() > *(const double *)arg;
}

static int factor_look(void *user, int it, double rnorm, double bnorm)
{
    factor_watch *fw = user;
    (void)rnorm;
    (void)bnorm;
    if (spk_time_now() > fw->deadline) return 1;
    fw->s->k.check.at = it + 1;
    return 0;
}

/* Build the factor and run up to maxit of its iterations from x, by the
 * deadline: SPK_PRECOND_STOPPED where the build passed it. */
static int measure_factor(spk_solver *s, const double *b, double *x, double deadline, int maxit, double *secs,
                          spk_result *rf, probe_run *pf)
{
    factor_watch fw = {s, deadline};
    s->popts.stop = past_deadline;
    s->popts.stop_arg = &fw.deadline;
    const int st = spk_solver_use_precond(s, s->kind, s->probe.strong, secs);
    s->popts.stop = NULL;
    s->popts.stop_arg = NULL;
    if (st) return st;
    s->k.check.fn = factor_look;
    s->k.check.user = &fw;
    s->k.check.at = FACTOR_MIN_ITS;
    const int its = maxit < s->opts.probe_factor_iters ? maxit : s->opts.probe_factor_iters;
    const int rs = spk_probe_run_some(s, b, x, its, rf, pf);
    s->k.check.fn = NULL;
    s->k.check.user = NULL;
    return rs;
}

/* The factor measured and compared (r: the solve so far, at the iterate
 * the factor starts from; pc: the cheap run's measurement; secs: the
 * build's): the one predicted faster finishes. */
static int decide(spk_solver *s, const double *b, double *x, spk_result *r, const spk_result *cheap_r,
                  probe_run *pc, probe_run *pf, double secs, double target, int from_x0, double *t_setup)
{
    const int maxit = s->opts.maxit;
    const char *cheap_name = spk_precond_kind_name(s->probe.cheap), *strong_name = spk_solver_precond(s);
    const double need_f = spk_probe_remaining(pf->rate, r->rnorm, target);
    const double need_c = spk_probe_remaining(pc->rate, r->rnorm, target);
    const double t_f = need_f * pf->per_it, t_c = need_c * pc->per_it;
    /* a factor that cost more than it saved so far may still win on the
     * rest; one whose iterations broke down loses to the cheap one */
    const int keep = spk_probe_converged(r) || (!spk_probe_ended(r) && (r->iterations >= maxit || factor_wins(s, t_f, t_c)));
    if (spk_probe_converged(r)) {
        snprintf(s->probe.why, sizeof s->probe.why,
                 "%s: it ended the solve in its first iterations, after a %.3g ms build (%s's rate %.3g per "
                 "iteration in %.3g ms, %s's %.3g in %.3g ms)",
                 strong_name, 1e3 * secs, cheap_name, pc->rate, 1e3 * pc->per_it, strong_name, pf->rate,
                 1e3 * pf->per_it);
    } else {
        snprintf(s->probe.why, sizeof s->probe.why,
                 "%s: %s %.3g per iteration in %.3g ms, %s %.3g in %.3g ms after a %.3g ms build%s; "
                 "predicted rest %.3g ms against %.3g ms",
                 keep ? strong_name : cheap_name, cheap_name, pc->rate, 1e3 * pc->per_it, strong_name, pf->rate,
                 1e3 * pf->per_it, 1e3 * secs, from_x0 ? ", from the start (the cheap run's residual grew)" : "",
                 1e3 * (keep ? t_f : t_c), 1e3 * (keep ? t_c : t_f));
    }
    s->probe.decided = keep ? 2 : 1;
    if (!keep) {
        SPK_TRY(back_to_cheap(s, t_setup));
        const int factor_broke = spk_probe_ended(r);
        if (factor_broke) { /* the factor's iterations broke down: from the cheap run's iterate */
            SPK_TRY(spk_probe_restore(s, x));
            const int its = r->iterations;
            *r = *cheap_r;
            r->iterations = its;
        }
        /* a factor that broke down is no candidate to hand over to; Jacobi is still watched for a
         * stall, with the factor as one that does not converge (run_cheap then takes none) */
        probe_run broke = *pf;
        broke.rate = 1.0;
        const probe_run *watch = !factor_broke ? pf : s->probe.cheap == SPK_PRECOND_JACOBI ? &broke : NULL;
        return run_cheap(s, b, x, r, pc, watch, t_setup);
    }
    if (!spk_probe_converged(r) && !spk_probe_ended(r) && r->iterations < maxit) {
        spk_result more;
        SPK_TRY(spk_probe_run_some(s, b, x, maxit - r->iterations, &more, pf));
        spk_probe_add_run(r, &more);
    }
    return SPK_OK;
}

/* A factor whose build passed its budget: the cheap run goes on, watched
 * (w->retry) for a rest long enough to try the factor again, at most
 * PROBE_BUILDS builds in all.  *again: it stopped for that. */
#define PROBE_BUILDS 3

static int after_stopped(spk_solver *s, const double *b, double *x, spk_result *r, cheap_watch *w, probe_run *pc,
                         double allowed, double spent, int builds, double *t_setup, int *again)
{
    *again = 0;
    SPK_TRY(back_to_cheap(s, t_setup));
    const char *cheap_name = spk_precond_kind_name(s->probe.cheap);
    snprintf(s->probe.why, sizeof s->probe.why,
             "%s: the factor's build passed its budget of %.3g ms (%.3g of %s's predicted rest at its rate %.3g per "
             "iteration in %.3g ms)",
             cheap_name, 1e3 * allowed, budget_of(s), cheap_name, pc->rate, 1e3 * pc->per_it);
    if (builds >= PROBE_BUILDS) return run_cheap(s, b, x, r, pc, NULL, t_setup);
    memset(w, 0, sizeof *w);
    w->retry = spent > allowed ? spent : allowed;
    spk_result more;
    SPK_TRY(run_watched(s, b, x, s->opts.maxit - r->iterations, &more, w, pc));
    spk_probe_add_run(r, &more);
    if (w->stopped) {
        *again = 1;
        return SPK_OK;
    }
    s->probe.decided = 1;
    if (spk_probe_converged(r) || r->reason == SPK_BREAKDOWN_INDEFINITE || r->iterations >= s->opts.maxit) return SPK_OK;
    return to_factor(s, b, x, r, pc, NULL, "broke down", t_setup);
}

/* The first solve with the choice still to be made: runs from the latest
 * iterate under one preconditioner or another, to convergence. */
static int choose(spk_solver *s, const double *b, double *x, spk_result *r, double *t_setup)
{
    spk_exec *e = s->ctx->exec;
    const char *cheap_name = spk_precond_kind_name(s->probe.cheap);
    if (!s->probe.xs) SPK_TRY(spk_exec_alloc_vec(e, s->k.n, &s->probe.xs));
    SPK_TRY(e->ops->copy(e, s->k.n, x, s->probe.xs)); /* x0 */
    cheap_watch w;
    memset(&w, 0, sizeof w);
    SPK_TRY(cheap_first(s, b, x, r, &w, t_setup));
    for (int builds = 1; !s->probe.decided; builds++) {
        probe_run pc = w.pc, pf = {0};
        const double bnorm = r->relres > 0 ? r->rnorm / r->relres : 0;
        const double target = fmax(s->opts.rtol * bnorm, s->opts.atol);
        /* a BiCGStab run whose residual ended above its start (early growth
         * without a good preconditioner) leaves the factor a worse start
         * than x0, kept in xs (bayer10: ILU(0) diverged from there and
         * converges from x0).  Not CG's: its A-norm error falls every
         * iteration, whatever its residual does. */
        const int from_x0 = builds == 1 && s->kind != SPK_SOLVER_CG && !(r->rnorm <= r->rnorm0);
        if (from_x0) {
            SPK_TRY(spk_probe_restore(s, x));
            r->rnorm = r->rnorm0;
            r->relres = bnorm > 0 ? r->rnorm0 / bnorm : r->relres;
        }
        SPK_TRY(e->ops->copy(e, s->k.n, x, s->probe.xs)); /* the iterate both are measured from */
        const spk_result cheap_r = *r;
        const double allowed = budget_of(s) * spk_probe_remaining(pc.rate, r->rnorm, target) * pc.per_it;
        const double t0 = spk_time_now();
        double secs = 0;
        spk_result rf;
        memset(&rf, 0, sizeof rf);
        const int st = measure_factor(s, b, x, t0 + allowed, s->opts.maxit - r->iterations, &secs, &rf, &pf);
        spk_probe_add_setup(s, t_setup, secs);
        if (st == SPK_ERR_ZERO_PIVOT) { /* no factor for this matrix: the cheap one finishes */
            spk_err_clear(&s->ctx->err);
            SPK_TRY(back_to_cheap(s, t_setup));
            snprintf(s->probe.why, sizeof s->probe.why, "%s: the factorization failed (its rate %.3g per iteration)",
                     cheap_name, pc.rate);
            return run_cheap(s, b, x, r, &pc, NULL, t_setup);
        }
        if (st == SPK_PRECOND_STOPPED) {
            int again = 0;
            SPK_TRY(after_stopped(s, b, x, r, &w, &pc, allowed, spk_time_now() - t0, builds, t_setup, &again));
            if (again) continue;
            return SPK_OK;
        }
        SPK_TRY(st);
        spk_probe_add_run(r, &rf);
        return decide(s, b, x, r, &cheap_r, &pc, &pf, secs, target, from_x0, t_setup);
    }
    return SPK_OK;
}

/* A solve pieced from runs can end with its recurrence converged and its
 * true residual not (the runs' restarts and a cheap run's large residuals
 * cost accuracy): then one or two more runs from x, each starting from the
 * true residual, with the preconditioner chosen. */
static int settle(spk_solver *s, const double *b, double *x, spk_result *r)
{
    for (int more = 0; more < 2 && spk_probe_converged(r) && r->iterations < s->opts.maxit; more++) {
        const double bnorm = r->relres > 0 ? r->rnorm / r->relres : 0;
        const double target = fmax(s->opts.rtol, bnorm > 0 ? s->opts.atol / bnorm : 0);
        if (!(r->true_relres > 2 * target)) return SPK_OK;
        spk_result again;
        probe_run m;
        SPK_TRY(spk_probe_run_some(s, b, x, s->opts.maxit - r->iterations, &again, &m));
        spk_probe_add_run(r, &again);
    }
    return SPK_OK;
}

/* Did the default's choice fail: a breakdown or a divergence, away from
 * the precision floor?  (CG's p'Ap <= 0 is not one: spk_solve's switch to
 * BiCGStab answers it.) */
static int choice_failed(const spk_result *r)
{
    switch (r->reason) {
    case SPK_BREAKDOWN_RHO:
    case SPK_BREAKDOWN_R0V:
    case SPK_BREAKDOWN_OMEGA:
    case SPK_BREAKDOWN_SINGULAR:
    case SPK_BREAKDOWN_PRECOND:
    case SPK_DIVERGED_NAN:
    case SPK_DIVERGED_DTOL: return !spk_result_at_floor(r);
    default: return 0;
    }
}

/* The run that failed is taken over without a preconditioner by method
 * kind: after a breakdown from the iterate (the last good one), after a
 * divergence from the one kept before the failed run (xs); the choice line
 * ends with lead, what failed and where. */
static int take_over(spk_solver *s, spk_solver_kind kind, const char *lead, const double *b, double *x,
                     spk_result *r, double *t_setup)
{
    const int diverged = r->reason == SPK_DIVERGED_DTOL || r->reason == SPK_DIVERGED_NAN;
    if (diverged) SPK_TRY(spk_probe_restore(s, x));
    char tail[128];
    snprintf(tail, sizeof tail, "%s%s %s at iteration %d", lead, spk_solver_precond(s),
             diverged ? "diverged" : "broke down", r->iterations);
    probe_run m;
    return spk_probe_rest_without(s, kind, b, x, r, tail, &m, t_setup);
}

/* The resorts, each only after a failure with iterations left (away from
 * the precision floor), so a solve that converged never takes them.
 * The last resort: where the preconditioner the default chose broke down or
 * diverged, the same method runs on without one (the preconditioner is what
 * failed: on such matrices a factor or a diagonal scaling can make the
 * iteration diverge where none converges); the solver keeps none.  Then,
 * where none finished (this way, or after jacobi stalled and the factor did
 * not converge) and BiCGStab failed without a preconditioner too: GMRES,
 * whose residual never grows (only with the solver auto). */
static int resorts(spk_solver *s, const double *b, double *x, spk_result *r, double *t_setup)
{
    if (!choice_failed(r) || r->iterations >= s->opts.maxit) return SPK_OK;
    if (s->pkind != SPK_PRECOND_NONE) {
        SPK_TRY(take_over(s, s->kind, "; then none, the last resort: ", b, x, r, t_setup));
        if (!choice_failed(r) || r->iterations >= s->opts.maxit) return SPK_OK;
    }
    if (s->probe.resorted && s->auto_kind && s->kind == SPK_SOLVER_BICGSTAB)
        SPK_TRY(take_over(s, SPK_SOLVER_GMRES, "; then gmres: bicgstab + ", b, x, r, t_setup));
    return SPK_OK;
}

int spk_solver_iterate(spk_solver *s, const double *b, double *x, spk_result *r, double *t_setup)
{
    if (!s->probe.on) return spk_solver_run(s, b, x, &s->opts, r);
    s->k.it_base = 0; /* spk_options.progress: the runs' iterations counted over the solve */
    int st;
    if (s->probe.decided) { /* a later solve: its start kept for the last resort */
        if (s->pkind != SPK_PRECOND_NONE) SPK_TRY(s->ctx->exec->ops->copy(s->ctx->exec, s->k.n, x, s->probe.xs));
        st = spk_solver_run(s, b, x, &s->opts, r);
        s->k.it_base = r->iterations;
    } else {
        st = choose(s, b, x, r, t_setup);
    }
    if (!st) st = resorts(s, b, x, r, t_setup);
    if (!st) st = settle(s, b, x, r);
    s->k.it_base = 0;
    return st;
}

const char *spk_solver_choice(const spk_solver *s)
{
    if (!s) return "";
    if (!s->probe.on) return "";
    return s->probe.decided ? s->probe.why : "not made yet: the first solve measures";
}

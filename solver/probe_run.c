/* probe_run.c -- runs of the default's choice (probe.c): one run of the
 * method from x, timed and measured (its rate), runs summed into one
 * result, the iterate kept and restored, none finishing. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "solver/probe_impl.h"

/* One run of the configured method from the executor copies b, x. */
int spk_solver_run(spk_solver *s, const double *b, double *x, const spk_options *o, spk_result *r)
{
    s->k.iter.perm = s->perm;
    const int st = s->kind == SPK_SOLVER_CG      ? spk_cg(&s->k, b, x, o, r)
                   : s->kind == SPK_SOLVER_GMRES ? spk_gmres(&s->k, b, x, o, r)
                                                 : spk_bicgstab(&s->k, b, x, o, r);
    return st ? st : s->k.iter.status; /* the iterate callback's copy failed */
}

/* A window's rate, or where the residual rose over it (CG's is not
 * monotone: no stall) the rate since the start, where that shows progress. */
double spk_probe_rate_of(double window, double since_start)
{
    return window < 1 || !(since_start < 1) ? window : since_start;
}

/* The rate over the second half of the run's history h[0..its] (the first
 * iterations of a run, a restarted one above all, are no guide to the
 * rest), by a least-squares line through log ||r_k||. */
void spk_probe_measure(const spk_result *r, const double *h, int hlen, double secs, probe_run *m)
{
    m->its = r->iterations;
    m->secs = secs;
    m->per_it = secs / (r->iterations > 0 ? r->iterations : 1);
    m->rate = 1.0;
    if (r->iterations > 0 && r->rnorm0 > 0 && r->rnorm < r->rnorm0)
        m->rate = pow(r->rnorm / r->rnorm0, 1.0 / r->iterations);
    const int last = hlen - 1, first = last / 2;
    if (last - first < 3) return;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int cnt = 0;
    for (int k = first; k <= last; k++) {
        if (!(h[k] > 0) || !isfinite(h[k])) return;
        const double y = log(h[k]);
        sx += k;
        sy += y;
        sxx += (double)k * k;
        sxy += k * y;
        cnt++;
    }
    const double slope = (cnt * sxy - sx * sy) / (cnt * sxx - sx * sx);
    m->rate = spk_probe_rate_of(exp(slope), m->rate);
}

/* Iterations the rate needs from rnorm down to target (HUGE_VAL: never). */
double spk_probe_remaining(double rate, double rnorm, double target)
{
    if (rnorm <= target) return 0;
    if (!(rate < 1.0) || !(rate > 0)) return HUGE_VAL;
    return log(target / rnorm) / log(rate);
}

/* Did the run end for a reason other than its iteration budget? */
int spk_probe_ended(const spk_result *r)
{
    return r->reason != SPK_DIVERGED_MAXIT;
}

int spk_probe_converged(const spk_result *r)
{
    return r->reason == SPK_CONVERGED_RTOL || r->reason == SPK_CONVERGED_ATOL || r->reason == SPK_CONVERGED_ZERO_RHS;
}

/* Sum the phase times and iterations of a continued run into r. */
void spk_probe_add_run(spk_result *r, const spk_result *more)
{
    const spk_result first = *r;
    *r = *more;
    r->iterations += first.iterations;
    r->rnorm0 = first.rnorm0;
    r->restarts += first.restarts;
    r->t_spmv += first.t_spmv;
    r->t_precond += first.t_precond;
    r->t_vector += first.t_vector;
    r->t_sync += first.t_sync;
    r->graph_iterations += first.graph_iterations;
    r->block_iterations += first.block_iterations;
}

/* Run up to maxit more iterations of the current method, timed, its
 * residuals recorded in s->probe.hist (the first PROBE_HIST). */
int spk_probe_run_some(spk_solver *s, const double *b, double *x, int maxit, spk_result *r, probe_run *m)
{
    spk_options o = s->opts;
    o.maxit = maxit;
    memset(r, 0, sizeof *r);
    spk_krylov *k = &s->k;
    k->hist = s->probe.hist;
    k->hist_cap = SPK_PROBE_HIST;
    const double t = spk_time_now();
    const int st = spk_solver_run(s, b, x, &o, r);
    k->it_base += r->iterations; /* the next run's progress counts on from here */
    const double secs = spk_time_now() - t;
    k->hist = NULL;
    k->hist_cap = 0;
    const int hlen = r->history_len;
    r->history = NULL;
    r->history_len = 0;
    SPK_TRY(st);
    spk_probe_measure(r, s->probe.hist, hlen, secs, m);
    return SPK_OK;
}

/* A preconditioner built during the solve counts as setup, as a deferred
 * build does: in the solver's and in this solve's (*t_setup). */
void spk_probe_add_setup(spk_solver *s, double *t_setup, double secs)
{
    s->t_setup += secs;
    *t_setup = (*t_setup > 0 ? *t_setup : s->t_setup - secs) + secs;
}

/* x = the copy kept (xs), after a run that broke down or diverged. */
int spk_probe_restore(spk_solver *s, double *x)
{
    spk_exec *e = s->ctx->exec;
    return e->ops->copy(e, s->k.n, s->probe.xs, x);
}

/* The rest of the solve without a preconditioner (method kind), from x;
 * tail ends the choice line.  The solver keeps none for later solves. */
int spk_probe_rest_without(spk_solver *s, spk_solver_kind kind, const double *b, double *x, spk_result *r,
                        const char *tail, probe_run *m, double *t_setup)
{
    double secs = 0;
    SPK_TRY(spk_solver_use_precond(s, kind, SPK_PRECOND_NONE, &secs));
    spk_probe_add_setup(s, t_setup, secs);
    s->probe.decided = 1;
    s->probe.resorted = 1;
    const size_t len = strlen(s->probe.why);
    snprintf(s->probe.why + len, sizeof s->probe.why - len, "%s", tail);
    spk_result more;
    SPK_TRY(spk_probe_run_some(s, b, x, s->opts.maxit - r->iterations, &more, m));
    spk_probe_add_run(r, &more);
    return SPK_OK;
}

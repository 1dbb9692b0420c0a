/* probe_impl.h -- the pieces of the default's choice by measuring
 * (spk_options.probe) shared by its files: probe_run.c runs and measures,
 * probe_watch.c watches a preconditioner's rest, probe.c chooses. */
#ifndef SPK_SOLVER_PROBE_IMPL_H
#define SPK_SOLVER_PROBE_IMPL_H

#include "solver/api_impl.h"

/* What one measured run gives: seconds per iteration, and the residual's
 * reduction per iteration (1: none). */
typedef struct probe_run {
    int its;
    double secs, per_it, rate;
} probe_run;

/* The rate over the second half of the run's history h[0..its] (the first
 * iterations of a run, a restarted one above all, are no guide to the
 * rest), by a least-squares line through log ||r_k||. */
void spk_probe_measure(const spk_result *r, const double *h, int hlen, double secs, probe_run *m);
/* A window's rate, or where the residual rose over it the rate since the start. */
double spk_probe_rate_of(double window, double since_start);
/* Iterations the rate needs from rnorm down to target (HUGE_VAL: never). */
double spk_probe_remaining(double rate, double rnorm, double target);
/* Did the run end for a reason other than its iteration budget?  Did it converge? */
int spk_probe_ended(const spk_result *r);
int spk_probe_converged(const spk_result *r);
/* Sum the phase times and iterations of a continued run into r. */
void spk_probe_add_run(spk_result *r, const spk_result *more);
/* Run up to maxit more iterations of the current method, timed, its
 * residuals recorded in s->probe.hist (the first SPK_PROBE_HIST). */
int spk_probe_run_some(spk_solver *s, const double *b, double *x, int maxit, spk_result *r, probe_run *m);
/* A preconditioner built during the solve counts as setup (the solver's and this solve's). */
void spk_probe_add_setup(spk_solver *s, double *t_setup, double secs);
/* x = the copy kept (s->probe.xs). */
int spk_probe_restore(spk_solver *s, double *x);
/* The rest of the solve without a preconditioner (method kind), from x; tail
 * ends the choice line.  The solver keeps none for later solves. */
int spk_probe_rest_without(spk_solver *s, spk_solver_kind kind, const double *b, double *x, spk_result *r,
                           const char *tail, probe_run *m, double *t_setup);

/* How far the residual of the factor's run after it took over may grow above
 * the one it took over at (probe_watch.c). */
#define SPK_PROBE_HANDED_GROWTH 1e3

/* probe_watch.c: the factor's run after it took over, watched; *stopped: it
 * was stopped unconverged, 1 past its iteration limit, 2 where its residual
 * grew (probe_watch.c says when). */
int spk_probe_run_handed(spk_solver *s, const double *b, double *x, spk_result *r, const probe_run *pf,
                         probe_run *m, int *stopped);

#endif

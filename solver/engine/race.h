/* race.h -- the race engine (engine.h): CG solves run alongside a
 * preconditioned solve, each on a stream of the executor's own in one
 * block or a cluster (block_job.h), from the same x0: side 0 without a
 * preconditioner, side 1 (where asked) with Jacobi; the host takes
 * whichever converges first (spk_options.race, solver/solve_race.c). */
#ifndef SPK_SOLVER_ENGINE_RACE_H
#define SPK_SOLVER_ENGINE_RACE_H

#include "solver/engine/block.h"

#define SPK_RACE_SIDES 2
typedef struct spk_race_side {
    spk_krylov k;          /* A (and k.dA), no M, its work vectors; its x is w[4] */
    int jacobi;            /* with Jacobi (1 / a_ii made by the kernel in w[5]) */
    spk_result res;        /* from its start on: rnorm0, then the outcome when it won */
    int running;           /* queued and not yet ended */
    int won;               /* it ended converged (rtol or atol) */
    int count, cluster;    /* its iterations, the blocks that ran them */
    double seconds, share[SPK_PHASES];
    double true_rr;        /* t't of its answer's true residual as its kernel gave it (NaN: none) */
} spk_race_side;
typedef struct spk_race {
    spk_race_side side[SPK_RACE_SIDES];
    int sides;             /* the sides that take part (1: CG without a preconditioner only) */
    const spk_options *o;
    double bnorm;
    int winner;            /* the side that won, -1: none */
} spk_race;

/* Start it for b and x0 (device vectors; x0 is copied): the start of the
 * solve `main` (spk_krylov_begin: r0 and the norms, read once and kept for
 * main's driver), then for each side r0 and x0 copied and its iterations
 * alongside.  A side does not start (running 0) where the block iterations
 * cannot take the system or the start decides the solve (zero b, NaN, x0
 * converged). */
int spk_race_start(spk_race *rc, spk_krylov *main, const double *b, const double *x0, const spk_options *o);
/* Is any side running? */
int spk_race_running(const spk_race *rc);
/* Without waiting: has a side won (*won; rc->winner is the side)? */
int spk_race_poll(spk_race *rc, int *won);
/* Wait until a side has won or none runs. */
int spk_race_settle(spk_race *rc);
/* End every side still running (stopped at its current iteration and waited
 * for, its answer not read; NULL-safe). */
int spk_race_stop(spk_race *rc);
/* After a side won: its outcome in *res (iterations, residuals, the true
 * residual, its phase times) and its x copied into x, or, where host_x is
 * not NULL, into host_x from the side's stream (*on_host = 1), so that
 * nothing waits for the solve's own iterations to see the race's flag and
 * end; the other sides ended. */
int spk_race_result(spk_race *rc, const double *b, double *x, double *host_x, int *on_host, spk_result *res);
/* While sides run: the watch for a block launch of the solve (block.h);
 * NULL when none runs. */
const spk_block_watch *spk_race_watch(const spk_race *rc, spk_block_watch *w);

/* ---- race_cuda.c: the sides on the CUDA executor ---- */

/* Can e run sides? */
int spk_race_cuda_can(const spk_exec *e);
/* Queue side `which` (a CG job: M none or SPK_BLOCK_DIAG, ring 1, iters up
 * to its maxit) on its stream, to start when the work queued so far is
 * done, with its own scalar slots; job->cluster becomes the blocks it runs
 * in, 0 where it cannot run (the kernels cannot be loaded ahead, and a
 * kernel's first load would wait for it).  The sides share one flag: the
 * first to converge sets it, and the others and the solve's block
 * launches watching it stop. */
int spk_race_cuda_run(spk_exec *e, int which, spk_block_job *job);
/* Has side `which` ended (no wait)? */
int spk_race_cuda_poll(spk_exec *e, int which, int *ended);
/* Stop it (at the end of its current iteration) unless it has ended, wait,
 * and give its last read (last[0..2]) and t't of its true residual
 * (last[3], NaN where it had no b or did not converge), the iterations it
 * ran, its seconds and their shares by phase (last NULL: the wait alone). */
int spk_race_cuda_end(spk_exec *e, int which, double last[4], int *count, double *seconds, double *share);
/* Copy n entries of the ended side's vector dev to host, on its stream
 * (the executor's own may still run the solve's last iteration). */
int spk_race_cuda_download(spk_exec *e, int which, double *host, const double *dev, int n);
/* The watch while sides run on e (NULL: none run). */
const spk_block_watch *spk_race_cuda_watch(spk_exec *e, spk_block_watch *w);
/* While sides run: the flag in device memory that the first of them to
 * converge sets to *race, the race's number; NULL when none runs (a
 * preconditioner's build watches it: precond.h, stop_dev). */
const int *spk_race_cuda_flag(const spk_exec *e, int *race);

#endif

/* krylov.h -- the CG and BiCGStab drivers, written once against the three
 * interfaces (executor, SpMV backend, preconditioner).
 *
 * Vectors b, x and the workspace live on the executor.  Scalars (dots and
 * norms) come back to the CPU, which decides convergence:
 *     stop when ||r_k||_2 <= max(rtol*||b||_2, atol)  or  k = maxit,
 * where r_k is the recurrence residual (an estimate of b - A x_k; BiCGStab is
 * right-preconditioned so the same quantity is tested by both drivers).
 * After the loop the true residual b - A x is recomputed.
 * A driver returns SPK_OK whenever the iteration ran (the outcome is in
 * res->reason) and an error only when an operation itself failed. */
#ifndef SPK_SOLVER_KRYLOV_H
#define SPK_SOLVER_KRYLOV_H

#include "core/exec.h"
#include "precond/precond.h"
#include "spmv/spmv.h"

#define SPK_KRYLOV_NWORK 7
/* BiCGStab: restarts with a fresh shadow residual after a rho or r0'v breakdown */
#define SPK_BICGSTAB_RESTARTS 10

typedef struct spk_krylov {
    spk_exec *e;
    int n;
    const struct spk_spmv_ops *A_ops; /* y = alpha*A*x + beta*y */
    void *A;
    const struct spk_precond_ops *M_ops; /* z = M^-1 r (apply NULL: identity) */
    void *M;
    double *w[SPK_KRYLOV_NWORK];      /* workspace vectors on the executor */
    const spk_csr *dA;                /* A's CSR arrays in device memory for the block iterations
                                         (SPK_VECTOR_BLOCK; NULL: none) */
    int lanes_light[2];               /* lanes a row of their product for CG without a
                                         preconditioner or with Jacobi, in one block and in a
                                         cluster (spk_block_lanes; 0: by the mean row length) */
    double *hist;                     /* host, maxit + 2 entries when history is kept */
    int hist_cap;
    struct spk_race *race;            /* a CG run alongside this solve (NULL: none): the fused
                                         drivers stop, without their final steps, once it has
                                         converged */
    struct {                          /* a start made ahead for b and x (spk_krylov_begin): r0 in
                                         w[0]; the fused drivers' start takes it (once) */
        int on;
        const double *b, *x;
        double bnorm, rnorm, t_spmv, t_vector;
    } begun;
    int pooled;                       /* w[] are parts of one allocation, w[0] */
} spk_krylov;

/* CG runs alongside a preconditioned solve, each on a stream of the
 * executor's own (spk_exec_krylov_ops.side_run) in one block or a cluster,
 * from the same x0: side 0 without a preconditioner, side 1 (where asked)
 * with Jacobi; the host takes whichever converges first (spk_options.race,
 * solver/api.c). */
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
/* Wait until a side has won or none runs (a side set the race's flag, and
 * ends within an iteration). */
int spk_race_settle(spk_race *rc);
/* End every side still running (stopped at its current iteration and waited
 * for, its answer not read; NULL-safe). */
int spk_race_stop(spk_race *rc);
/* After a side won: its outcome in *res (iterations, residuals, the true
 * residual, its phase times) and its x copied into x, or, where host_x is
 * not NULL and the executor can (side_download), into host_x from the
 * side's stream (*on_host = 1), so that nothing waits for the solve's own
 * iterations to see the race's flag and end; the other sides ended. */
int spk_race_result(spk_race *rc, const double *b, double *x, double *host_x, int *on_host, spk_result *res);

/* The lanes a row for the block iterations' product (spk_block_job.lanes)
 * on A's rows (rp, n rows) in `blocks` blocks of kSmallBlock threads: of
 * 2, 4, .. 32, the least by a model of its latency, each warp's rounds of
 * rows (1 + the loads of its longest row, two in flight a lane) added up,
 * the busiest warp's sum. */
int spk_block_lanes(int n, const int *rp, int blocks);

/* Allocate the workspace for n unknowns (and the history for maxit when keep). */
int spk_krylov_init(spk_krylov *k, spk_exec *e, int n, int maxit, int keep_history);
void spk_krylov_free(spk_krylov *k);

/* Preconditioned CG.  A and M must be symmetric positive definite. */
int spk_cg(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res);
/* Right-preconditioned BiCGStab. */
int spk_bicgstab(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res);
/* The same iterations with fused vector steps and the scalars on the
 * executor (fused.c): spk_cg and spk_bicgstab call them when
 * o->vector_ops is SPK_VECTOR_FUSED and the executor has the steps. */
int spk_cg_fused(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res);
int spk_bicgstab_fused(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res);
/* The fused drivers' start made ahead for b and x (r0 into k->w[0], the
 * norms kept in k->begun for the driver's start to take); *done: the
 * start decides the solve (nothing kept: the driver's start decides it
 * again). */
int spk_krylov_begin(spk_krylov *k, const double *b, double *x, const spk_options *o, int *done);

#endif

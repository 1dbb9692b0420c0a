/* engine.h -- what the engines of the fused drivers share (solver/fused.c).
 *
 * A fused driver reads an iteration's scalars back once (CG) or twice
 * (BiCGStab, at the half step and at the end); between two reads its work
 * is a run of steps (spk_steps).  Engines run those runs:
 *   queue (queue.c): the steps queued one by one on the executor, each
 *     marked with its phase (steps.h; the scalars stay in its slots);
 *   graph (graph.c): the steps recorded once as a graph and replayed;
 *   block (block.c): whole iterations in one thread block or a cluster,
 *     many runs per launch, their reads handed out one by one;
 *   race (race.c): CG solves alongside the solve, the first answer taken.
 * The driver applies the method's control logic (solver/control.h) to
 * every read, whichever engine produced it, so all stop alike. */
#ifndef SPK_SOLVER_ENGINE_ENGINE_H
#define SPK_SOLVER_ENGINE_ENGINE_H

#include "solver/engine/steps.h"
#include "solver/krylov_common.h"

/* The executor's scalar slots of the two methods. */
enum {
    SPK_CG_RZ0, SPK_CG_RZ1, SPK_CG_PQ, SPK_CG_RR,
    SPK_BI_RHO0, SPK_BI_RHO1, SPK_BI_R0V, SPK_BI_SS, SPK_BI_TT, SPK_BI_TS, SPK_BI_RR
};

/* A run of steps between two reads, and the slots it reads into h[3]:
 *   CG, for the iteration after the one whose scalars were read: z = M^-1 r,
 *     rz' = r'z (or ||r||^2), p = z + (rz'/rz) p, q = A p, pq, the update;
 *     read rz', pq, rr.
 *   BiCGStab, first half: rho = r0'r, p, ph = M^-1 p, v = A ph, r0v, s, ss;
 *     read rho, r0v, ss.  Second half: sh = M^-1 s, t = A sh, tt, ts, the
 *     update of x and r, rr; read tt, ts, rr. */
enum { SPK_STEPS_CG, SPK_STEPS_BICG_HALF, SPK_STEPS_BICG_REST };
typedef struct spk_steps {
    int kind;
    int cur, other;  /* CG: rz's slot and its successor's; BiCGStab: rho's and rho_old's */
    int fresh;       /* BiCGStab: p = r (the first iteration, after a restart) */
    double rnorm;    /* CG without M: ||r||, whose square is rz'; negative: rz' = r'r
                        reduced on the device (graphs take no value from the host) */
    double *x;
} spk_steps;
/* The slots a run reads. */
void spk_steps_read_slots(const spk_steps *st, int want[3]);

/* The loop's clock: its start, and the phase time marked so far. */
typedef struct spk_clock {
    double t0, marked;
} spk_clock;

/* The executor's scalars and the steps of k (NULL: none). */
#define SPK_ASYNC(k) ((k)->e->ops->async)
#define SPK_STEP(k) ((k)->steps)

/* An SpMV, an apply or vector work, queued, then marked as its phase. */
#define F_SPMV(k, alpha, x, beta, y)                                       \
    do {                                                                   \
        SPK_TRY((k)->A_ops->apply((k)->A, alpha, x, beta, y));             \
        SPK_TRY(SPK_ASYNC(k)->mark((k)->e, SPK_PHASE_SPMV));               \
    } while (0)
#define F_PREC(k, r, z)                                                    \
    do {                                                                   \
        SPK_TRY((k)->M_ops->apply((k)->M, r, z));                          \
        SPK_TRY(SPK_ASYNC(k)->mark((k)->e, SPK_PHASE_PRECOND));            \
    } while (0)
/* a reduction, set or read of the executor's scalars */
#define F_VEC(k, op, ...)                                                  \
    do {                                                                   \
        SPK_TRY(SPK_ASYNC(k)->op((k)->e, __VA_ARGS__));                    \
        SPK_TRY(SPK_ASYNC(k)->mark((k)->e, SPK_PHASE_VECTOR));             \
    } while (0)
/* a fused step (steps.h) */
#define F_STEP(k, op, ...)                                                 \
    do {                                                                   \
        SPK_TRY(SPK_STEP(k)->op((k)->e, __VA_ARGS__));                     \
        SPK_TRY(SPK_ASYNC(k)->mark((k)->e, SPK_PHASE_VECTOR));             \
    } while (0)
/* one of the executor's plain vector operations (copy, nrm2), marked as
 * vector work like the fused ones: timed by the host (SPK_VEC), it would also
 * wait for, and count again, the work queued before it */
#define F_PLAIN(k, op, ...)                                                \
    do {                                                                   \
        SPK_TRY((k)->e->ops->op((k)->e, __VA_ARGS__));                     \
        SPK_TRY(SPK_ASYNC(k)->mark((k)->e, SPK_PHASE_VECTOR));             \
    } while (0)

/* ---- queue.c: the steps one by one, and the drivers' start and end ---- */

/* The phases' times so far into res, and the loop's other time into t_sync. */
int spk_fused_times(spk_krylov *k, spk_result *res, spk_clock *c);
/* ||v|| from v'v as the classic drivers get it (the square root where
 * spk_norm_from_square allows, else nrm2). */
int spk_fused_norm(spk_krylov *k, int n, const double *v, double vv, double *out);
/* spk_krylov_start with one read; a start made ahead for these b and x
 * (spk_krylov_begin) is taken instead, once. */
int spk_fused_start(spk_krylov *k, const double *b, double *x, double *r, const spk_options *o, spk_result *res,
                    double *bnorm, int *done);
/* spk_krylov_finish with one read. */
int spk_fused_finish(spk_krylov *k, const double *b, const double *x, double *t, spk_result *res, double bnorm);
/* Queue the run st (into the graph, when one is being recorded), then its
 * read into h[3]. */
int spk_queue_steps(spk_krylov *k, const spk_steps *st, double *h);

#endif

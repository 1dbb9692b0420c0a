/* block.h -- the block engine (engine.h): whole iterations in one thread
 * block or a cluster of blocks (block_job.h), a launch running until the
 * driver's tests would stop it and giving its reads, which the driver hands
 * out one by one where it would read, runs its tests on them as on its own
 * reads, and launches again when they are used up. */
#ifndef SPK_SOLVER_ENGINE_BLOCK_H
#define SPK_SOLVER_ENGINE_BLOCK_H

#include "solver/engine/block_job.h"
#include "solver/engine/engine.h"

/* Stopping on a race (race.h): while sides of a race run, a CG launch reads
 * their flag (over, holding `race` once one has converged) and its wait
 * for the reads also ends when a side has ended (ended(arg, &yes)). */
typedef struct spk_block_watch {
    int *over;
    int race;
    int (*ended)(void *arg, int *yes);
    void *arg;
} spk_block_watch;

typedef struct spk_blockrun {
    int on;
    spk_block_job job;
    double reads[3 * 2 * SPK_BLOCK_ITERS + 1]; /* and t't of the true residual after the last */
    double tt;       /* that t't, of the last launch (NaN: not computed) */
    int count, next; /* reads held, the next to hand out */
    int pending;     /* a launch whose reads are not back: a side of the race ended first */
    int stopped;     /* a CG alongside answered before the reads */
    double share[SPK_PHASES], before;
} spk_blockrun;

/* Can this solve run its iterations in one block, or in a cluster of
 * blocks?  br->on and the job's fixed parts set when it can.  One block up
 * to SPK_BLOCK_NNZ_MAX entries (SPK_BLOCK_NNZ_PREC_MAX with a
 * preconditioner), beyond that a cluster up to SPK_BLOCK_CLUSTER_NNZ_MAX
 * (SPK_BLOCK_CLUSTER_NNZ_PREC_MAX) where M is none or sweeps (exact solves
 * wait row on row: one block's shared memory only). */
void spk_block_open(spk_krylov *k, const spk_options *o, int method, const double *b, double *x,
                    const spk_result *res, double bnorm, spk_blockrun *br);
/* The next read into h, launching the iterations from iteration it + 1
 * (slots: spk_block_job.slot; at most `left` iterations) when none is
 * held; w (NULL: no race) as spk_block_watch says.  br->pending: the reads
 * are not back because a side of the race ended first; the caller takes
 * that side's end and calls spk_block_rest (or stops: br->stopped). */
int spk_block_read(spk_krylov *k, spk_result *res, spk_clock *c, spk_blockrun *br, const int *slot, int it,
                   int left, double rnorm, const spk_block_watch *w, double *h);
/* The reads of a pending launch (br->pending again where another side
 * ended first), then the next read into h. */
int spk_block_rest(spk_krylov *k, spk_result *res, spk_clock *c, spk_blockrun *br, const spk_block_watch *w,
                   double *h);
/* The loop ended: every read of the block iterations was tested. */
int spk_block_done(spk_krylov *k, const spk_blockrun *br, int it);
/* The solve's end: its true residual as the block iterations' kernel gave
 * it, where the loop ended at their last read and they ended converged
 * there, else spk_fused_finish's. */
int spk_block_finish(spk_krylov *k, const spk_blockrun *br, const double *b, const double *x, double *t,
                     spk_result *res, double bnorm);
/* The lanes a row for the product (spk_block_job.lanes) on A's rows (rp,
 * n rows) in `blocks` blocks: of 2, 4, .. 32, the least by a model of its
 * latency, each warp's rounds of rows (1 + the loads of its longest row,
 * two in flight a lane) added up, the busiest warp's sum. */
int spk_block_lanes(int n, const int *rp, int blocks);

/* ---- block_cuda.c: the launches on the CUDA executor ---- */

/* Can e run block iterations? */
int spk_block_runs_on(const spk_exec *e);
/* Run job (its cluster made smaller where the device runs fewer blocks;
 * job->cluster becomes the blocks that ran), then give in reads[3 i .. 3 i
 * + 2] what the fused driver's read i would give (CG: rz, pq, rr, a read per
 * iteration; BiCGStab: rho, r0v, ss, then tt, ts, rr), *count reads,
 * reads[3 * *count] the true residual's t't (NaN where not computed), and
 * share[SPK_PHASES], the part of the kernel's time in each phase; its time
 * is marked as vector work.  With w, *count may be 0: a side ended first
 * (spk_block_cuda_rest gives the reads later). */
int spk_block_cuda_run(spk_exec *e, spk_block_job *job, const spk_block_watch *w, double *reads, int *count,
                       double *share);
int spk_block_cuda_rest(spk_exec *e, const spk_block_watch *w, double *reads, int *count, double *share);

#endif

/* block_job.h -- whole CG or BiCGStab iterations in one thread block, or in a
 * cluster of blocks (SPK_VECTOR_BLOCK; block_kernels.cu, block_cuda.c).
 *
 * For small systems, where an iteration of separate kernels costs its
 * launches and waits more than its arithmetic, one launch runs the fused
 * steps (steps.h) with the product (CSR, `lanes` lanes a row), the
 * preconditioner (precond/devtri.h) and the reductions inside one block,
 * from the state those steps leave after a read, iteration it + 1 on.
 * After each read the fused driver would make, the kernel applies the
 * driver's tests (solver/control.h) to the same numbers and stops where any
 * of them would stop the loop or leave the fast path (a norm from nrm2, a
 * breakdown, a restart), at maxit, or after `iters` iterations; the slots
 * are left as the fused steps leave them, so the driver goes on from there
 * either way.  Plain C: shared with the kernels. */
#ifndef SPK_SOLVER_ENGINE_BLOCK_JOB_H
#define SPK_SOLVER_ENGINE_BLOCK_JOB_H

#include "precond/devtri.h"
#include "solver/control.h"

/* the most rows: SPK_BLOCK_ROWS (precond/devtri.h) */
#define SPK_BLOCK_ITERS 64 /* the most iterations of one launch */
/* The most entries of A for one block, without a preconditioner (or with
 * Jacobi) and with one: beyond them one SM reading A (and the factor) every
 * iteration is slower than the separate kernels spread over the GPU
 * (docs/benchmarks.md gives the measurements behind these limits). */
#ifndef SPK_BLOCK_NNZ_MAX
#define SPK_BLOCK_NNZ_MAX 14336
#endif
#ifndef SPK_BLOCK_NNZ_PREC_MAX
#define SPK_BLOCK_NNZ_PREC_MAX 16384
#endif
/* Beyond those entries the same iterations run in a cluster of
 * SPK_BLOCK_CLUSTER_MAX blocks (sm_90: one SM each, barriers over the
 * cluster, the sweeps' iterates in L2), up to SPK_BLOCK_CLUSTER_NNZ_MAX
 * entries without a preconditioner and SPK_BLOCK_CLUSTER_NNZ_PREC_MAX with
 * sweeps (exact solves stay in one block). */
#define SPK_BLOCK_CLUSTER_MAX 16
#ifndef SPK_BLOCK_CLUSTER_NNZ_MAX
#define SPK_BLOCK_CLUSTER_NNZ_MAX 524288
#endif
#ifndef SPK_BLOCK_CLUSTER_NNZ_PREC_MAX
#define SPK_BLOCK_CLUSTER_NNZ_PREC_MAX 131072
#endif
enum { SPK_BLOCK_CG, SPK_BLOCK_BICGSTAB };
typedef struct spk_block_job {
    int method, n;
    int cluster;             /* blocks: 1, or a cluster of 2 .. SPK_BLOCK_CLUSTER_MAX (fewer may
                                run where the device has no such clusters) */
    double *scratch;         /* a cluster's sweeps' iterates, 2 n doubles */
    const int *rp, *ci;      /* A in device memory, CSR */
    const double *val;
    int lanes;               /* lanes per row of the product: 1, 2, 4, 8, 16 or 32 */
    spk_block_prec M;        /* kind SPK_BLOCK_IDENTITY: none */
    double *x, *v[7];        /* CG: r, p, q, z; BiCGStab: r (and s), r0, p, v, t, ph, sh */
    int slot[7];             /* CG: rz, its successor, pq, rr; BiCGStab: rho, rho_old, r0v, ss, tt, ts, rr */
    int it, maxit, iters;    /* iterations done, the limit, the most to run now */
    int first;               /* CG: the launch starts at iteration 1, right after the initial
                                residual (p = z, no beta; rz's slot is slot[1]) */
    double rnorm;            /* CG without M: ||r|| after iteration it */
    spk_stop stop;           /* the stopping test (solver/control.h) */
    /* Stopping from outside (the race, race.h; CG only): the kernel reads
     * *over (NULL: none; device memory) once an iteration and ends an
     * iteration after it held `race`; with `signal` (a side of the race) it
     * sets *over to `race` when its last iteration met conv or atol, which
     * ends the other jobs of the race (the host ends them by writing `race`
     * there too). */
    int *over;
    int race, signal;
    int ring;                /* reads kept: 0 all (iters at most SPK_BLOCK_ITERS), r > 0 read i at
                                i mod r (a side of the race, whose host reads only its last) */
    int diag_of_A;           /* CG with SPK_BLOCK_DIAG: the launch first writes M.id[0][i] =
                                1 / a_ii from rp, ci, val (0 where a_ii is 0 or not stored) */
    const double *x0, *r0;   /* a side of the race: copied into x and v[0] before it starts
                                (NULL: x and v[0] hold them) */
    const double *b;         /* where the iterations end converged at their last read, the
                                kernel also gives t't for t = b - A x, the answer's true
                                residual, so that the answer needs no kernels and no read after
                                them (NULL: not computed) */
    double *true_rr;         /* where t't goes (NaN where not computed) */
} spk_block_job;

#endif

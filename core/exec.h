/* exec.h -- the executor: where vectors live and how BLAS-1 runs.
 *
 * The solver drivers see vectors only through this table, so the same driver
 * runs on host memory with plain loops or on device memory with cuBLAS.
 * Every operation returns a status and records a message in e->err on failure.
 * Vector lengths are ints (the matrix dimension). */
#ifndef SPK_CORE_EXEC_H
#define SPK_CORE_EXEC_H

#include <stddef.h>

#include "precond/devtri.h"
#include "error.h"

typedef struct spk_exec spk_exec;

/* Fused vector steps of the CG and BiCGStab iterations, with the scalars
 * kept on the executor (optional: spk_exec_ops.krylov is NULL where an
 * executor has none, and the drivers then use the plain operations).  The
 * scalars live in SPK_KRYLOV_SLOTS slots of the executor; s[i] below is
 * slot i.  A reduction adds in an order fixed by n alone, so a run repeats
 * to the bit; on the host every operation does the arithmetic of the plain
 * operations it replaces, in their order, so a fused solve there equals the
 * plain one to the bit.  A step whose guard fails changes no vector and
 * sets its result slot to NaN.  The ratios below are computed where they
 * are used, from the slots (s[a] / s[b]), as the plain drivers compute them
 * on the host. */
#define SPK_KRYLOV_SLOTS 16
enum { SPK_PHASE_SPMV, SPK_PHASE_PRECOND, SPK_PHASE_VECTOR, SPK_PHASES };
/* Whole iterations of CG or BiCGStab in one thread block (small systems,
 * spk_exec_krylov_ops.block): the fused steps of solver/fused.c with the
 * product (CSR, `lanes` lanes a row), the preconditioner (core/devtri.h)
 * and the reductions inside one block, from the state those steps leave
 * after a read, iteration it + 1 on.  After each read the fused driver would
 * make (CG: from iteration 1 on, `first`), the kernel applies the driver's tests to the same numbers and stops
 * where any of them would stop the loop or leave the fast path (a norm from
 * nrm2, a breakdown, a restart), at maxit, or after `iters` iterations; the
 * slots are left as the fused steps leave them, so the driver goes on from
 * there either way. */
#define SPK_BLOCK_ROWS 12288 /* the most rows: the sweeps' iterates (2 n doubles) in shared memory */
#define SPK_BLOCK_ITERS 64   /* the most iterations of one launch */
#define SPK_EXEC_SIDES 2     /* jobs alongside at a time (spk_exec_krylov_ops.side_run) */
/* The most entries of A for the block iterations in one block, without a
 * preconditioner (or with Jacobi) and with one: one SM reads A (and the
 * factor, K times per sweep pair) from L2 every iteration, where the
 * separate kernels spread it over the GPU.  Measured on the H100
 * (docs/benchmarks.md), time per iteration in one block against the graphs:
 * without a preconditioner faster on every system up to 23,884 entries (69
 * against 99 us), slower from 150,645 (283 against 122); with IC(0)/ILU(0)
 * faster on every one up to 15,844 (57 against 85), ties and losses from
 * 17,319 to 27,520 (sherman5, 20,793: 438 against 350), 6x slower at 83,883
 * (bcsstk13, many sweeps).  Without a preconditioner a cluster (below) beats
 * one block from about 14,000 entries: 16 systems of 7,744 to 27,520
 * entries, CG and BiCGStab without a preconditioner and with Jacobi, one
 * block faster or even up to 12,960 (bcsstk08 CG 14.8 against 19.6 us), the
 * cluster from 14,585 (pde2961 BiCGStab 33 against 44 us, nos3 CG 13.5
 * against 23.3, bcsstk21 CG with Jacobi 18.5 against 33.4). */
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
 * sweeps (exact solves stay in one block).  Measured on the H100 (16
 * blocks; 8 and 4 were slower on every system), time per iteration against
 * the graphs: without a preconditioner faster on every system measured up
 * to 290,378 entries (bcsstk16: 25 against 44-60 us); with IC(0)/ILU(0) sweeps
 * faster on every one from 17,319 to 117,816 entries (sherman3: 113 against
 * 215 us; bcsstk13, 83,883: 111 against 124-128; bcsstk15, 117,816: 93
 * against 114-121), uneven beyond (bcsstk16, 290,378: 178-204 against 188;
 * cage10, 150,645: 249-259 against 226-238).  The sweeps' limit was 32,768
 * until a block kept its rows' entries of the factor in shared memory and
 * its rows' positions, b_i and d_i in registers across the sweeps
 * (devtri.cuh, one_round_sweeps; a sweep 1.3-1.9 us instead of 2-3.4). */
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
    int cluster;             /* blocks: 1, or a cluster of 2 .. SPK_BLOCK_CLUSTER_MAX (the
                                executor may run fewer where the device has no such clusters) */
    double *scratch;         /* a cluster's sweeps' iterates, 2 n doubles (the executor's) */
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
    double conv, atol, div;  /* the tests: ||r|| <= conv (rtol ||b||), <= atol, > div (when div > 0) */
    /* Stopping from outside (the race of api.c; set by the executor; CG
     * only): the kernel reads *over (NULL: none; device memory) once an
     * iteration and ends an iteration after it held `race`; with `signal`
     * (a job alongside) it sets *over to `race` when its last iteration met
     * conv or atol, which ends the other jobs of the race (the host ends
     * them by writing `race` there too). */
    int *over;
    int race, signal;
    int ring;                /* reads kept: 0 all (iters at most SPK_BLOCK_ITERS), r > 0 read i at
                                i mod r (a job alongside, whose host reads only its last) */
    int diag_of_A;           /* CG with SPK_BLOCK_DIAG: the launch first writes M.id[0][i] =
                                1 / a_ii from rp, ci, val (0 where a_ii is 0 or not stored) */
    const double *x0, *r0;   /* a job alongside (side_run): copied into x and v[0] before it
                                starts, in the executor's order (NULL: x and v[0] hold them) */
    const double *b;         /* where the iterations end converged at their last read, the
                                kernel also gives t't for t = b - A x, the answer's true
                                residual, so that the answer needs no kernels and no read after
                                them (for a job alongside: none queued behind the solve; NULL:
                                not computed) */
    double *true_rr;         /* where t't goes (NaN where not computed; set by the executor) */
} spk_block_job;
struct spk_exec_krylov_ops {
    /* s[o] = x'y */
    int (*dot)(spk_exec *e, int n, const double *x, const double *y, int o);
    /* s[o1] = x'x, s[o2] = x'y */
    int (*dot2)(spk_exec *e, int n, const double *x, const double *y, int o1, int o2);
    /* s[o] = v (a value the host computed) */
    int (*set)(spk_exec *e, int o, double v);
    /* CG: a = s[rz] / s[pq], guard s[rz] > 0, s[pq] > 0, a finite:
     * x += a p; r += (-a) q; s[o] = r'r */
    int (*cg_update)(spk_exec *e, int n, int rz, int pq, const double *p, const double *q, double *x, double *r,
                     int o);
    /* CG: b = s[num] / s[den], guard b finite: p = z + b p */
    int (*cg_direction)(spk_exec *e, int n, int num, int den, const double *z, double *p);
    /* BiCGStab: fresh: p = r; else, guard s[rho] finite and nonzero and beta
     * finite: beta = (s[rho] / s[rho_old]) * ((s[rho_old] / s[r0v]) / (s[ts] / s[tt])),
     * p = r + beta (p + (-omega) v) with omega = s[ts] / s[tt] (the previous
     * iteration's alpha and omega) */
    int (*bicg_direction)(spk_exec *e, int n, int fresh, int rho, int rho_old, int r0v, int ts, int tt,
                          const double *r, const double *v, double *p);
    /* BiCGStab: a = s[rho] / s[r0v], guard a finite: r += (-a) v; s[o] = r'r */
    int (*bicg_s)(spk_exec *e, int n, int rho, int r0v, const double *v, double *r, int o);
    /* y += (s[num] / s[den]) x, guard the ratio finite */
    int (*axpy_ratio)(spk_exec *e, int n, int num, int den, const double *x, double *y);
    /* BiCGStab: a = s[rho] / s[r0v], w = s[ts] / s[tt], guard s[tt] nonzero
     * and a, w, s[ts], s[tt] finite: x = (x + a ph) + w sh; r += (-w) t; s[o] = r'r */
    int (*bicg_update)(spk_exec *e, int n, int rho, int r0v, int ts, int tt, const double *ph, const double *sh,
                       const double *t, double *x, double *r, int o);
    /* host[i] = s[slots[i]] for i < count: one transfer after the queued work */
    int (*read)(spk_exec *e, const int *slots, int count, double *host);
    /* Phase times without a wait per phase: mark(e, ph) says that the work
     * queued since the previous mark belongs to phase ph (SPK_PHASE_*);
     * mark(e, -1) only sets a starting point (and drops what was marked
     * since the last collect).  collect waits for the work
     * marked so far and adds to seconds[SPK_PHASES] the time of each phase
     * since the last collect (on the GPU the time the GPU spent, from events;
     * on the host wall time); the last mark stays the next starting point. */
    int (*mark)(spk_exec *e, int ph);
    int (*collect)(spk_exec *e, double *seconds);
    /* Graphs of steps (NULL where the executor has none).  capture(e, timed):
     * the steps queued next (the preconditioner's and the SpMV format's
     * work included) are recorded instead of run, with their marks as timing
     * nodes when timed (which cost time on every replay), without them
     * otherwise; a read then only queues its transfer.  end_capture(e, &g): the graph, or an error
     * (*g NULL, nothing run, the executor usable) when something queued
     * could not be recorded; the caller then queues the steps itself.
     * launch(e, g) runs it, its marks counting as if queued one by one;
     * read_wait(e, slots, count, host) waits for it and gives what its read
     * transferred; graph_free(g) (NULL-safe). */
    int (*capture)(spk_exec *e, int timed);
    int (*end_capture)(spk_exec *e, void **graph);
    int (*launch)(spk_exec *e, void *graph);
    int (*read_wait)(spk_exec *e, const int *slots, int count, double *host);
    void (*graph_free)(void *graph);
    /* Whole iterations in one block (see spk_block_job; NULL where the
     * executor has none): runs them, then gives in reads[3 i .. 3 i + 2] what
     * the fused driver's read i would give (CG: rz, pq, rr, a read per
     * iteration; BiCGStab: rho, r0v, ss, then tt, ts, rr), *count reads,
     * reads[3 * *count] the true residual's t't (spk_block_job.b; NaN
     * where the job has no b or did not end converged at its last read), and
     * share[SPK_PHASES], the part of the kernel's time in each phase; its
     * time is marked as vector work (the caller moves the shares).
     * job->cluster becomes the blocks that ran them.  Where they run
     * alongside jobs (side_run; job->over set), a job alongside may end
     * first: then *count is 0, nothing is read yet, and block_rest gives the
     * reads (or 0 again, for another job alongside) once the caller has
     * taken that job's end (side_end); their iterations stop on the race's
     * flag where it converged. */
    int (*block)(spk_exec *e, spk_block_job *job, double *reads, int *count, double *share);
    int (*block_rest)(spk_exec *e, double *reads, int *count, double *share);
    /* CG jobs alongside the work of this executor (NULL where the executor
     * has none; up to SPK_EXEC_SIDES at a time, `which` naming one):
     * side_run queues job `which` on a stream of its own, to start when the
     * work queued so far is done, with its own scalar slots (the job's ring
     * is 1, its iters up to its maxit; M none or SPK_BLOCK_DIAG).  The jobs
     * running share one flag: the first to converge sets it, and the other
     * jobs and the block iterations queued by `block` stop on it.  While any
     * runs, device memory freed through spk_exec_ops.free is freed when the
     * last ends (cudaFree would wait for them).  side_poll: has job `which`
     * ended (no wait)?  side_end: stop it (at the end of its current
     * iteration) unless it has ended, wait, and give its last read
     * (last[0..2]) and t't of its true residual (last[3], NaN where the
     * job had no b or did not converge), the iterations it ran, its seconds
     * and their shares by phase (last NULL: the wait alone, nothing read
     * back).  side_download copies n entries of the ended job's vector
     * dev to host, on its stream (the executor's own may still run the
     * solve's last iteration).  side_run
     * sets job->cluster to the blocks it runs in, 0 where it cannot run one
     * (the kernels cannot be loaded ahead, and a kernel's first load would
     * wait for the job). */
    int (*side_run)(spk_exec *e, int which, spk_block_job *job);
    int (*side_poll)(spk_exec *e, int which, int *ended);
    int (*side_end)(spk_exec *e, int which, double last[4], int *count, double *seconds, double *share);
    int (*side_download)(spk_exec *e, int which, double *host, const double *dev, int n);
};

struct spk_exec_ops {
    const char *name; /* "host", "cuda" */
    int (*alloc)(spk_exec *e, size_t bytes, void **p);
    void (*free)(spk_exec *e, void *p);
    int (*upload)(spk_exec *e, void *dst, const void *src, size_t bytes);   /* host -> exec */
    int (*download)(spk_exec *e, void *dst, const void *src, size_t bytes); /* exec -> host */
    /* *out = x'y */
    int (*dot)(spk_exec *e, int n, const double *x, const double *y, double *out);
    /* *out = ||x||_2 */
    int (*nrm2)(spk_exec *e, int n, const double *x, double *out);
    /* y = a*x + y */
    int (*axpy)(spk_exec *e, int n, double a, const double *x, double *y);
    /* y = a*x + b*y (b == 0: y is not read) */
    int (*axpby)(spk_exec *e, int n, double a, const double *x, double b, double *y);
    /* x = a*x */
    int (*scal)(spk_exec *e, int n, double a, double *x);
    /* y = x */
    int (*copy)(spk_exec *e, int n, const double *x, double *y);
    /* x[i] = a */
    int (*fill)(spk_exec *e, int n, double a, double *x);
    /* wait for queued work (timing); NULL-safe no-op on the host */
    int (*sync)(spk_exec *e);
    void (*destroy)(spk_exec *e);
    /* the fused steps (NULL: none) */
    const struct spk_exec_krylov_ops *krylov;
};

struct spk_exec {
    const struct spk_exec_ops *ops;
    void *impl;      /* executor-private state (handles, streams) */
    spk_err *err;    /* where failures are recorded (owned by the context) */
};

/* Create the host executor; errors go to err. */
int spk_exec_host_create(spk_err *err, spk_exec **e);
/* Destroy any executor (NULL-safe). */
void spk_exec_destroy(spk_exec *e);
/* Is this the host executor (pointers are host pointers)? */
int spk_exec_is_host(const spk_exec *e);

/* Allocate n doubles on the executor. */
int spk_exec_alloc_vec(spk_exec *e, int n, double **p);

/* Monotonic wall clock in seconds. */
double spk_time_now(void);

#endif

/* krylov.h -- the CG and BiCGStab drivers, written once against the three
 * interfaces (executor, SpMV backend, preconditioner).
 *
 * Vectors b, x and the workspace live on the executor.  Scalars (dots and
 * norms) come back to the CPU, which decides convergence:
 *     stop when ||r_k||_2 <= max(rtol*||b||_2, atol)  or  k = maxit,
 * where r_k is the recurrence residual (an estimate of b - A x_k; BiCGStab is
 * right-preconditioned so the same quantity is tested by both drivers).
 * After the loop the true residual b - A x is recomputed.  The tests are
 * written once, in control.h.
 * A driver returns SPK_OK whenever the iteration ran (the outcome is in
 * res->reason) and an error only when an operation itself failed. */
#ifndef SPK_SOLVER_KRYLOV_H
#define SPK_SOLVER_KRYLOV_H

#include "core/exec.h"
#include "precond/precond.h"
#include "spmv/spmv.h"

struct spk_steps_ops;
struct spk_race;

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
    const struct spk_steps_ops *steps; /* the fused steps on e (engine/steps.h; NULL: none) */
    double *w[SPK_KRYLOV_NWORK];      /* workspace vectors on the executor */
    const spk_csr *dA;                /* A's CSR arrays in device memory for the block iterations
                                         (SPK_VECTOR_BLOCK; NULL: none) */
    int lanes_light[2];               /* lanes a row of their product for CG without a
                                         preconditioner or with Jacobi, in one block and in a
                                         cluster (spk_block_lanes; 0: by the mean row length) */
    double *hist;                     /* host, maxit + 2 entries when history is kept */
    int hist_cap;
    struct spk_race *race;            /* CG solves alongside this one (engine/race.h; NULL:
                                         none): the fused drivers stop, without their final
                                         steps, once one has converged */
    struct {                          /* a start made ahead for b and x (spk_krylov_begin): r0 in
                                         w[0]; the fused drivers' start takes it (once) */
        int on;
        const double *b, *x;
        double bnorm, rnorm, t_spmv, t_vector;
    } begun;
    struct {                          /* a look at the run at the end of iteration `at` (probe.c):
                                         fn's nonzero stops it there, as its iteration limit
                                         would (SPK_DIVERGED_MAXIT); fn may move `at` on */
        int at;
        int (*fn)(void *user, int it, double rnorm, double bnorm);
        void *user;
    } check;
    int pooled;                       /* w[] are parts of one allocation, w[0] */
    struct {                          /* spk_options.iterate: x_k to the callback */
        const double *x;              /* the run's x on the executor (set by spk_cg/spk_bicgstab) */
        const int *perm;              /* the solver's row i is the caller's row perm[i] (NULL: same) */
        double *host, *caller;        /* host copies: as solved, in the caller's order (perm) */
        int status;                   /* a failed copy: its status, which ends the run */
    } iter;
    struct {                          /* GMRES's basis (gmres.c): m + 1 vectors of stride entries */
        double *V;
        int m;
        size_t stride;
    } gmres;
    int it_base;                      /* iterations of the solve before this run (the probe's
                                         later runs), added for spk_options.progress */
} spk_krylov;

/* spk_options.iterate: x_k copied to the host (in the caller's order) and given to the
 * callback; a failed copy is kept in k->iter.status (the run then stops). */
void spk_krylov_iterate(spk_krylov *k, const spk_options *o, int it);
/* Allocate the workspace for n unknowns (and the history for maxit when keep). */
int spk_krylov_init(spk_krylov *k, spk_exec *e, int n, int maxit, int keep_history);
void spk_krylov_free(spk_krylov *k);

/* Preconditioned CG.  A and M must be symmetric positive definite. */
int spk_cg(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res);
/* Right-preconditioned BiCGStab. */
int spk_bicgstab(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res);
/* Restarted GMRES(o->gmres_restart), right-preconditioned (gmres.c; executor operations only). */
int spk_gmres(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res);
int spk_gmres_classic(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res);
/* Each runs on the engine its options ask for (method.c): classic, one
 * executor operation per dot product, norm and update (cg.c, bicgstab.c),
 * where o->vector_ops is SPK_VECTOR_CLASSIC or the executor keeps no
 * scalars; else the fused drivers (fused.c). */
int spk_cg_classic(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res);
int spk_bicgstab_classic(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res);
int spk_cg_fused(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res);
int spk_bicgstab_fused(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res);
/* The fused drivers' start made ahead for b and x (r0 into k->w[0], the
 * norms kept in k->begun for the driver's start to take); *done: the
 * start decides the solve (nothing kept: the driver's start decides it
 * again). */
int spk_krylov_begin(spk_krylov *k, const double *b, double *x, const spk_options *o, int *done);

#endif

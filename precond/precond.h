/* precond.h -- the preconditioner interface: z = M^-1 r.
 *
 * create() does the whole setup (symbolic and numeric) for the matrix on an
 * executor; refactor() redoes only the numeric part for new values with the
 * same pattern; apply() computes z = M^-1 r on the executor's vectors.
 * apply == NULL means M = I (the drivers then use r itself, no copy). */
#ifndef SPK_PRECOND_H
#define SPK_PRECOND_H

#include <stddef.h>

#include "core/csr.h"
#include "core/exec.h"
#include "core/options.h"
#include "precond/devtri.h"
#include "spmv/spmv.h"

typedef struct spk_precond_opts {
    int allow_shift;     /* on a bad pivot, retry on A + alpha*diag(A) */
    double shift_init;   /* first alpha (> 0) */
    double shift_max;    /* give up beyond this alpha */
    int factorization;   /* SPK_FACTORIZATION_*: exact (dependency order), iterative (sweeps,
                            precond/parfactor.h), auto (iterative on the GPU for deep patterns) */
    int factor_sweeps;   /* iterative: the most sweeps */
    double factor_tol;   /* iterative: stop once the relative residual is at most this */
    int sweeps;          /* "ilu0-sweeps", "ic0-sweeps": Jacobi sweeps per triangular solve */
    double sweeps_check; /* GPU sweeps: > 0 checks them on a probe after each factorization:
                            the fewest sweeps from 2 to `sweeps` whose relative residual on
                            each triangle is at most this, exact solves where none is
                            (0: `sweeps` sweeps always) */
    double sweeps_rho;   /* ... and (> 0) beyond SPK_DEV_SMALL_ROWS rows: fewer sweeps than the
                            check's where the preconditioner they apply is within this of
                            the exact one (the largest growth of E = I - M_K^-1 M over a
                            few steps of the power method, precond/devsweep_check.c; 0: off) */
    int sweeps_float;    /* ... 1: the factor's values rounded to float for the sweeps (on the GPU
                            stored in float, half the bytes; sums in double), 0: double */
    int dev_apply;       /* GPU sweeps: how apply runs; 0: chosen by timing each way (sweeps a
                            kernel each or in one block; exact solves in one block, or by
                            cusparseSpSV, where they are asked or cheap, precond/devsweep_mode.c);
                            1 + APPLY_* of devsweep.h: that way, where it applies (tests) */
    int build;           /* GPU sweeps: where the factor and its copies are made: 0 by size
                            (the host up to 32768 entries of A, devsweep.c), 1 the host,
                            2 the device (tests) */
    int block;           /* GPU sweeps: 1 when the solver will apply M inside its block
                            iterations in one block (solver/engine/block_job.h): the ways one
                            block applies M are compared, by time, and the separate kernels
                            are not timed; 2 when in a cluster of blocks: the sweeps are
                            taken untimed (the cluster sweeps them itself) */
    int (*stop)(void *arg); /* IC(0)/ILU(0) (NULL: none): asked between the steps of the build;
                            nonzero ends it (the caller no longer wants it), create returning
                            SPK_PRECOND_STOPPED with nothing made; not kept for a refactor */
    void *stop_arg;
    const int *stop_dev; /* GPU sweeps (NULL: none): a flag in device memory that holds
                            stop_value once the build is no longer wanted: the
                            factorization's kernel ends early, and the build ends as by stop;
                            not kept for a refactor */
    int stop_value;
    int (*user_apply)(void *user, int n, const double *r, double *z); /* "user": the caller's
                            z = M^-1 r on host arrays (spk_options.precond_apply) */
    void *user_arg;
    char format[64];     /* ... the SpMV format of the sweeps ("": the executor's default) */
    spk_spmv_opts spmv;  /* ... and its options */
} spk_precond_opts;

/* The phases of spk_precond_factor_info.phase_ms: F's pattern; the factorization's preparation (the
 * order, the column index); the numeric factorization with its
 * shifts; the transpose and the sliced copies; the sweeps' check; the timed
 * choice of how apply runs. */
#define SPK_SETUP_PHASES 6
#define SPK_SETUP_PHASE_NAMES {"pattern", "prepare", "factor", "slice", "check", "mode"}

/* How an IC(0)/ILU(0) factor was computed (spk_precond_ops.factor_info). */
typedef struct spk_precond_factor_info {
    int iterative;   /* 1: by fixed-point sweeps (precond/parfactor.h), 0: exactly, in dependency order */
    int sweeps;      /* iterative: the sweeps the last factorization took */
    double residual; /* iterative: its relative residual, measured on the iterate the last sweep
                        started from (the factor returned is one sweep further) */
    int fallback;    /* 1: the sweeps stopped at factor_sweeps with the residual above factor_tol,
                        so the factor in use was computed exactly (iterative 0) */
    /* the build's phases on the device, ms in stream order (0 where built on
       the host): SPK_SETUP_PHASE_NAMES */
    double phase_ms[SPK_SETUP_PHASES];
} spk_precond_factor_info;


/* create's status where opts.stop ended the build (not an error: no message
 * is set, and it never leaves the library) */
#define SPK_PRECOND_STOPPED 100

struct spk_precond_ops {
    const char *name;    /* "none", "jacobi", "ilu0", "ic0" */
    const char *exec;    /* "host" or "cuda" */
    int (*create)(spk_exec *e, const spk_csr *A, const spk_precond_opts *o, void **impl);
    /* z = M^-1 r; on the GPU queued without waiting, the same work for the
     * same arguments on every call (SPK_VECTOR_GRAPH replays one recorded call) */
    int (*apply)(void *impl, const double *r, double *z);
    int (*refactor)(void *impl, const spk_csr *A);
    void (*destroy)(void *impl);
    /* alpha of the shifted factorization in use, 0 when none was needed */
    double (*shift)(const void *impl);
    /* Optional: what is applied, when an implementation chooses between
     * ways at setup (NULL: name) */
    const char *(*describe)(const void *impl);
    /* Optional (GPU): the same as create, from A's CSR arrays already in
     * device memory (dA; A on the host gives the sizes and must hold the
     * same matrix), with no host pass over A; NULL where there is none. */
    int (*create_dev)(spk_exec *e, const spk_csr *A, const spk_csr *dA, const spk_precond_opts *o, void **impl);
    /* Optional (GPU): 1 and *out filled when one thread block can apply
     * what apply applies (precond/devtri.h; the block iterations of small
     * systems, solver/engine/block_job.h), else 0; NULL: never. */
    int (*block)(const void *impl, spk_block_prec *out);
    /* Optional: the Jacobi sweeps per triangular solve that apply runs, 0
     * where it solves exactly; NULL: no triangular solves by sweeps. */
    int (*sweeps)(const void *impl);
    /* Optional (GPU): load ahead the library kernels that create for A with
     * options o will launch, so that no first load happens during the
     * build (a kernel's first load may wait for all the device's work,
     * other streams' included); NULL where there is nothing to load. */
    int (*warm)(spk_exec *e, const spk_csr *A, const spk_precond_opts *o);
    /* Optional (IC(0)/ILU(0)): how the factor in use was computed; NULL where
     * it is not told. */
    int (*factor_info)(const void *impl, spk_precond_factor_info *out);
};

/* Default options: shifting allowed, alpha from 1e-3 doubling up to 1 (the
 * keys' defaults), 3 sweeps, nothing else. */
void spk_precond_opts_default(spk_precond_opts *o);

/* The two places of a preconditioner's option f: spk_options.f and spk_precond_opts.f. */
#define SPK_PRECOND_KNOB(f) .field = #f, .at = {offsetof(spk_options, f), offsetof(spk_precond_opts, f)}
/* The keys the factorizations read (factor.c): "shift", "shift-init", "shift-max",
 * "factorization", "factor-sweeps", "factor-tol". */
extern const spk_opt_table spk_precond_options;
/* The preconditioner's options of o: its keys, its SpMV format and that
 * format's knobs; every other field zero (the solver's to fill). */
void spk_precond_opts_of(const spk_options *o, spk_precond_opts *po);
/* Find a preconditioner by name for executor e. */
int spk_precond_find(const char *name, const spk_exec *e, const struct spk_precond_ops **ops,
                     spk_err *err);

extern const struct spk_precond_ops spk_precond_none_host;
extern const struct spk_precond_ops spk_precond_jacobi_host;
extern const struct spk_precond_ops spk_precond_ilu0_host;
extern const struct spk_precond_ops spk_precond_ic0_host;
/* On the GPU (built with CUDA): cuSPARSE csrilu02/csric02 + cusparseSpSV, a Jacobi kernel. */
extern const struct spk_precond_ops spk_precond_none_cuda;
extern const struct spk_precond_ops spk_precond_jacobi_cuda;
extern const struct spk_precond_ops spk_precond_ilu0_cuda;
extern const struct spk_precond_ops spk_precond_ic0_cuda;
/* ILU(0) / IC(0) with each triangular solve replaced by `sweeps` Jacobi sweeps:
 * on the host each one SpMV in any format (sweep.c); on the GPU resident on
 * the device from the matrix to the apply (devsweep.c). */
extern const struct spk_precond_ops spk_precond_ilu0_sweeps_host;
extern const struct spk_precond_ops spk_precond_ic0_sweeps_host;
extern const struct spk_precond_ops spk_precond_ilu0_sweeps_cuda;
extern const struct spk_precond_ops spk_precond_ic0_sweeps_cuda;
/* ILU(0) / IC(0) applying each factor's incomplete sparse approximate inverse
 * (one SpMV per factor, sweep.c), on the host and the GPU. */
extern const struct spk_precond_ops spk_precond_ilu0_isai_host;
extern const struct spk_precond_ops spk_precond_ic0_isai_host;
extern const struct spk_precond_ops spk_precond_ilu0_isai_cuda;
extern const struct spk_precond_ops spk_precond_ic0_isai_cuda;
/* Static pivoting inside a preconditioner (pivoted.c): inner built on P A, P the rows of a
 * maximum product matching, applied as inner(P r); *ops and *impl the wrapper, which forwards
 * to inner.  spk_precond_rows_moved: the rows such a wrapper moved, -1 for any other. */
int spk_precond_pivot(spk_exec *e, const spk_csr *A, const struct spk_precond_ops *inner, const spk_precond_opts *o,
                      const struct spk_precond_ops **ops, void **impl);
int spk_precond_rows_moved(const struct spk_precond_ops *ops, const void *impl);
int spk_precond_pivoted_create(spk_exec *e, const spk_csr *A, const struct spk_precond_ops *inner,
                               const spk_precond_opts *o, void **impl);
extern const struct spk_precond_ops spk_precond_pivoted;
int spk_precond_pivoted_moved(const void *impl);
/* The caller's preconditioner (opts.user_apply) on host arrays; on the GPU r and z pass
 * through host buffers (user.c). */
extern const struct spk_precond_ops spk_precond_user_host;
extern const struct spk_precond_ops spk_precond_user_cuda;

#endif

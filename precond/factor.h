/* factor.h -- what the ILU(0) and IC(0) preconditioners share (internal): the
 * host ones, and the CUDA ones, whose numeric step runs on the device.
 *
 * The working pattern P is a canonical copy of A with every missing diagonal
 * entry inserted as an explicit zero (spk_csr_with_diagonal); IC(0) keeps only
 * its lower triangle, diagonal included.  The factor overwrites P's values,
 * with no fill:
 *   ILU(0): A ~ L U, L unit lower (strictly below the diagonal of P),
 *           U upper (on and above the diagonal of P).
 *   IC(0):  A ~ L L^T, L lower (the whole lower P; L^T is applied by columns
 *           of L, so no transpose is stored).
 *
 * The shift policy (spk_factor_run): factorize A; when a pivot is bad and
 * shifting is allowed, factorize A + alpha*diag(A) (a_ii -> a_ii*(1+alpha)) for
 * alpha = shift_init, 2*shift_init, 4*shift_init, ... with shift_max as the
 * last value tried, and keep the first that succeeds.  A failure whose row
 * cannot be cured by any alpha (spk_factor_kind.hopeless) ends the loop at
 * once.  Every failure names the row, the pivot and the diagonal entry.
 * Each attempt first copies A's values into P (A is not kept), so no second
 * value array is needed.
 *
 * Refactoring with new values runs the same loop from alpha = 0 on A, which
 * must have the pattern it had at create (with or without the inserted
 * diagonal entries); every buffer is reused. */
#ifndef SPK_PRECOND_FACTOR_H
#define SPK_PRECOND_FACTOR_H

#include "precond/precond.h"

typedef struct spk_factor spk_factor;

/* Where a numeric factorization broke down. */
typedef struct spk_factor_fail {
    int row;       /* 0-based row of the bad pivot */
    double pivot;  /* its value (u_ii for ILU(0), d_i = l_ii^2 for IC(0)) */
    int overflow;  /* 1: the row got a non-finite entry (the pivot may be fine) */
} spk_factor_fail;

/* The per-method part: labels and the numeric kernel. */
typedef struct spk_factor_kind {
    const char *label;       /* "ILU(0)", "IC(0)" for messages */
    const char *pivot_what;  /* "zero pivot u_ii", "non-positive pivot d_i" */
    int lower_only;          /* keep only the lower triangle of A (IC(0)) */
    /* Factorize in place: P's values hold A's on entry; a_ii is scaled by
     * (1 + alpha) first.  0 on success, -1 on a bad pivot (fail filled in),
     * or a positive spk status when an operation failed (message set). */
    int (*numeric)(spk_factor *f, double alpha, spk_factor_fail *fail);
    /* 1 when no alpha can cure a bad pivot at row (decided from the
     * structure and a_ii alone), else 0. */
    int (*hopeless)(const spk_factor *f, int row);
    /* Device variants: numeric runs on the executor's device.  prepare (may
     * be NULL) sets up f->dev after the host pattern is built and before the
     * first factorization; release (may be NULL) frees it. */
    int device;
    int (*prepare)(spk_factor *f);
    void (*release)(spk_factor *f);
    /* 1: the host numeric, for a preconditioner on any executor that reads
     * the factor from the host arrays (sweep.c) */
    int any_exec;
} spk_factor_kind;

struct spk_factor {
    const spk_factor_kind *kind;
    spk_exec *exec;          /* host executor; errors go to exec->err */
    spk_precond_opts opts;
    int n;
    spk_csr F;               /* working pattern; val holds the factor */
    int *diag;               /* position of the diagonal entry in each row of F */
    double *adiag;           /* a_ii of the last A loaded (0 where not stored) */
    unsigned char *missing;  /* 1 where the last A loaded did not store a_ii */
    double *idiag;           /* 1 / pivot of each row (U's diagonal, or L's) */
    int *mark;               /* n entries, -1: column -> position in the current row */
    double alpha;            /* shift of the factorization in use */
    int valid;               /* 1 when F holds a usable factorization */
    void *dev;               /* device-side state of a device variant */
    struct spk_parfactor *iter; /* the iterative factorization's state (parfactor.h); NULL: exact */
    struct spk_factor_plan *plan; /* the threaded apply's levels (factor_levels.c); NULL: none yet */
    unsigned stamp;          /* counts the factorizations, so copies of F's values know they are stale */
    spk_precond_factor_info info; /* how the factor in F was computed */
};

/* Check A (square, canonical) and the options, and build the working
 * pattern and buffers on the host executor e; spk_factor_run loads values. */
int spk_factor_setup(spk_exec *e, const spk_csr *A, const spk_precond_opts *o,
                     const spk_factor_kind *kind, spk_factor **f);
/* Check A (size, canonical CSR) and copy its values into the working
 * pattern: A must be finite and have P's pattern (an inserted diagonal entry
 * may be absent, or present); records a_ii and which rows lack it. */
int spk_factor_load(spk_factor *f, const spk_csr *A);
/* Factorize A with the shift policy; on success f->alpha holds the shift used.
 * SPK_PRECOND_STOPPED (no message) where opts.stop, asked before each retry
 * with a shift, ends it. */
int spk_factor_run(spk_factor *f, const spk_csr *A);
/* Release everything (NULL-safe). */
void spk_factor_free(spk_factor *f);
/* Record in f->exec->err why the factorization failed: first (hopeless_first:
 * no shift can cure it) with shifting off or hopeless, else after `tries`
 * shifted attempts up to alpha_last, the last failing as `last`.  Reads
 * f->kind, f->opts, f->adiag and f->missing.  Returns SPK_ERR_ZERO_PIVOT. */
int spk_factor_report(const spk_factor *f, const spk_factor_fail *first, int hopeless_first, int tries,
                      double alpha_last, const spk_factor_fail *last, int hopeless_last);

/* The spk_precond_ops entries ILU(0) and IC(0) share: create = setup + run,
 * refactor = run (numeric only, shift loop from 0), destroy, shift; and the
 * check at the top of apply (a failed refactor leaves nothing to apply). */
int spk_factor_create(spk_exec *e, const spk_csr *A, const spk_precond_opts *o,
                      const spk_factor_kind *kind, void **impl);
int spk_factor_refactor(void *impl, const spk_csr *A);
void spk_factor_destroy(void *impl);
double spk_factor_shift(const void *impl);
int spk_factor_check_apply(const spk_factor *f, const double *r, const double *z);

/* x = L^-1 b for the lower triangle given, in row i, by positions
 * [beg[i] + boff, end[i] + eoff) of (colind, val) (all columns < i), with
 * x_i = (b_i - sum) * idiag[i], or unit diagonal when idiag is NULL.
 * x may equal b. */
void spk_factor_lower_solve(int n, const int *beg, int boff, const int *end, int eoff,
                            const int *colind, const double *val, const double *idiag,
                            const double *b, double *x);
/* x = U^-1 b, the same for an upper triangle (all columns > i), solved from
 * the last row up.  x may equal b. */
void spk_factor_upper_solve(int n, const int *beg, int boff, const int *end, int eoff,
                            const int *colind, const double *val, const double *idiag,
                            const double *b, double *x);
/* x = L^-T x in place, L lower triangular in CSR with its diagonal the last
 * entry of each row (1/l_ii in idiag): by columns of L^T, from the last row
 * up (x_i = x_i / l_ii, then x_j -= l_ij x_i for j < i). */
void spk_factor_lower_trans_solve(int n, const int *rowptr, const int *colind, const double *val,
                                  const double *idiag, double *x);

/* z = M^-1 r: by level-scheduled solves on the host's threads where there
 * are several, the factor's levels are wide enough and the first applies,
 * timed both ways, found them faster; else by one(f, r, z), the one-thread
 * solves.  Both give the same bits. */
int spk_factor_solve_levels(spk_factor *f, const double *r, double *z,
                            void (*one)(const spk_factor *, const double *, double *));
void spk_factor_plan_free(struct spk_factor_plan *p);
/* 1 when applies of this host factor (an ilu0/ic0 impl) have run by levels
 * (in the timed trials at least). */
int spk_factor_levels_used(const void *impl);
/* The host kinds (ilu0.c, ic0.c), for the preconditioners built on them. */
extern const spk_factor_kind spk_ilu0_kind;
extern const spk_factor_kind spk_ic0_kind;

/* Is the bad pivot at row i beyond every shift?  (ILU(0): a_ii = 0 and no
 * elimination step reaches (i,i); IC(0): a_ii <= 0.)  Shared by the host and
 * device variants. */
int spk_ilu0_hopeless(const spk_factor *f, int i);
int spk_ic0_hopeless(const spk_factor *f, int i);

/* For tests: the factor held by an "ilu0" or "ic0" host impl (L and U in one
 * CSR for ILU(0), L for IC(0); the arrays stay at the same addresses across
 * refactors) and the alpha it used.  Either output may be NULL.  Returns
 * SPK_ERR_INVALID_ARG for a NULL impl, SPK_ERR_ZERO_PIVOT (no message) when
 * the last factorization failed. */
int spk_factor_inspect(const void *impl, const spk_csr **F, double *alpha);
/* spk_precond_ops.factor_info of the host kinds. */
int spk_factor_info_of(const void *impl, spk_precond_factor_info *out);

#endif

/* api_impl.h -- the objects behind the public C API (include/spk.h) and
 * what the files that implement it share: context.c (names, contexts),
 * matrix.c (matrices, vectors), options.c, setup.c (a solver's setup,
 * refactorization, getters), solve_race.c (the race's part of a solver),
 * solve.c (spk_solve).  Internal to solver/. */
#ifndef SPK_SOLVER_API_IMPL_H
#define SPK_SOLVER_API_IMPL_H

#include "core/csr.h"
#include "core/exec.h"
#include "core/zcsr.h"
#include "precond/precond.h"
#include "solver/engine/race.h"
#include "solver/krylov.h"
#include "solver/options.h"
#include "spmv/options.h"
#include "spmv/spmv.h"

#define SPK_STR2(x) #x
#define SPK_STR(x) SPK_STR2(x)

/* the residuals a measured run of the probe records */
#define SPK_PROBE_HIST 64

/* Contexts and matrices are freed when destroyed and no longer used: a
 * matrix holds its context, a solver its context and matrix (refs), so
 * the caller may destroy them in any order. */
typedef struct spk_ref {
    int refs, closed; /* holders; destroy called */
} spk_ref;

/* One holder fewer, and destroy: 1 where the object is to be freed now. */
static inline int spk_ref_drop(spk_ref *r)
{
    return --r->refs == 0 && r->closed;
}
static inline int spk_ref_close(spk_ref *r)
{
    if (r->closed) return 0;
    r->closed = 1;
    return r->refs == 0;
}

struct spk_context {
    spk_exec *exec;
    spk_err err;
    char note[SPK_ERR_MSG_MAX]; /* why this device (SPK_DEVICE_AUTO) */
    spk_ref ref;                /* its holders (matrices, solvers) */
    size_t mem_limit;           /* bytes a file read may hold (spk_context_set_memory_limit; 0: none) */
    int threads;                /* host threads (spk_context_set_threads; 0: the default) */
};

/* Around a setup or a solve: the context's host threads in effect, and back
 * to the caller's count (spk_threads_enter returns it) after. */
int spk_threads_enter(const spk_context *ctx);
void spk_threads_leave(const spk_context *ctx, int before);

struct spk_matrix {
    spk_context *ctx;
    spk_ref ref;      /* its holders (solvers) */
    spk_csr A;        /* canonical host CSR */
    int *map;         /* input entry k -> position in A (NULL: identity) */
    int nin;          /* entries in the caller's arrays (spk_matrix_update_values) */
    unsigned version; /* bumped by spk_matrix_update_values */
    char warning[256]; /* the file's first reading warning (spk_mm_info.warning), "" none */
    int complex;      /* a complex matrix: Z holds it, A is empty (zmatrix.c) */
    spk_zcsr Z;
};

struct spk_solver {
    spk_context *ctx;
    spk_matrix *M;
    spk_options opts;
    spk_solver_kind kind;     /* CG or BiCGStab, after AUTO was resolved */
    spk_precond_kind pkind;   /* after AUTO was resolved */
    int auto_kind;            /* the caller asked for SPK_SOLVER_AUTO */
    int auto_precond;         /* the caller asked for SPK_PRECOND_AUTO */
    spk_precond_kind pasked;  /* the preconditioner the caller asked for (AUTO unresolved) */
    spk_precond_opts popts;
    spk_krylov k;
    double *b, *x;            /* executor copies (NULL on the host: caller's arrays are used) */
    unsigned version;         /* matrix version the setup was made for */
    double t_setup;           /* seconds of the (last) setup */
    double t_split[4];        /* ... its parts: upload, checks, format, preconditioner */
    char format_detail[512];  /* the SpMV backend's description, after setup */
    char factorization[160];  /* how the factor in use was computed (spk_solver_factorization) */
    char format_name[64];     /* opts.format points here: the caller's string may not outlive
                                 spk_solver_create, and a refactorization rebuilds the format */
    /* SPK_REORDER_MULTICOLOR: the system solved is P A P^T (P b) */
    spk_csr PA;               /* P A P^T */
    int *perm;                /* row i of PA is row perm[i] of A (NULL: no reordering) */
    int *pmap;                /* entry k of PA is entry pmap[k] of A (for new values) */
    int ncolors;
    double *pb, *px;          /* host b and x in the solver's order */
    const spk_csr *dA;        /* during setup on the GPU: the matrix in device memory, shared by
                                 the SpMV format and the preconditioner (NULL: none) */
    spk_csr blockA;           /* SPK_VECTOR_BLOCK on a small system: that copy, kept for the
                                 block iterations (k.dA; rowptr NULL: none) */
    int racing;               /* spk_options.race applies: each solve runs CG without the
                                 preconditioner alongside (see race_applies) */
    int deferred;             /* ... and the preconditioner is built by the first solve, while
                                 that CG already iterates */
    int race_init;            /* the race's sides' work vectors made */
    spk_race race;
    struct spk_zsolver *z;    /* a complex matrix's solver (zsolve.c); NULL for a real one */
    struct {                  /* spk_options.probe (probe.c): the default's preconditioner chosen
                                 by measuring the first solve */
        int on;
        int decided;          /* 0: not yet; 1: the cheap one; 2: the factor */
        int resorted;         /* 1: none finished after a failure (probe.c rest_without) */
        spk_precond_kind cheap, strong;
        spk_solver_kind cheap_kind;
        double *xs;           /* executor vector: the iterate a run that broke down restarts from */
        char why[512];        /* the choice and its numbers (spk_solver_choice) */
        double hist[SPK_PROBE_HIST]; /* a measured run's residuals */
    } probe;
};

/* The end of every public solve call: a result that ended on an error
 * (st) never reads as converged (SPK_CONVERGED_RTOL is 0, the value of a
 * zeroed result); it is copied to res (may be NULL). */
static inline int spk_result_close(int st, spk_result *r, spk_result *res)
{
    if (st && (r->reason == SPK_CONVERGED_RTOL || r->reason == SPK_CONVERGED_ATOL ||
               r->reason == SPK_CONVERGED_ZERO_RHS))
        r->reason = SPK_SOLVE_ERROR;
    if (res) *res = *r;
    return st;
}

/* A breakdown at the precision floor: the residual already as small as
 * double precision allows (rtol 0 asks for more), so p'Ap, r'z, rho or
 * omega rounded to 0 -- no sign of an indefinite or singular system (which
 * break down with a large residual). */
#define SPK_FLOOR_RELRES 1e-13

static inline int spk_result_at_floor(const spk_result *r)
{
    switch (r->reason) {
    case SPK_BREAKDOWN_INDEFINITE:
    case SPK_BREAKDOWN_PRECOND:
    case SPK_BREAKDOWN_RHO:
    case SPK_BREAKDOWN_R0V:
    case SPK_BREAKDOWN_OMEGA:
    case SPK_BREAKDOWN_SINGULAR: return r->relres <= SPK_FLOOR_RELRES || r->true_relres <= SPK_FLOOR_RELRES;
    default: return 0;
    }
}

/* rows per block of SPK_REORDER_BLOCK_MULTICOLOR when reorder_block is 0 */
#define SPK_REORDER_BLOCK_DEFAULT 16

/* The matrix the solver works on: A, or P A P^T when reordered. */
static inline const spk_csr *spk_solver_work(const spk_solver *s)
{
    return s->perm ? &s->PA : &s->M->A;
}

/* pivot.c: pivot on (spk_options.pivot) refused where it cannot apply to the method kind
 * and preconditioner pk the caller asked for (the pivoting itself: spk_solver_make_precond). */
int spk_solver_pivot_check(const spk_solver *s, spk_solver_kind kind, spk_precond_kind pk);

/* matrix.c: a new empty matrix of ctx (held by it). */
int spk_matrix_new(spk_context *ctx, spk_matrix **out);
/* ... the calls that take real arrays refused for a complex matrix: SPK_OK
 * for a real one, else SPK_ERR_INVALID_ARG naming the call and its complex
 * counterpart. */
int spk_matrix_real_only(const spk_matrix *A, const char *call);
/* zsolve.c: a complex matrix's solver (s made by spk_solver_create, its
 * options copied; solver and precond as the caller asked); the getters'
 * names; its release (NULL-safe). */
int spk_zsolver_setup(spk_solver *s, spk_solver_kind solver, spk_precond_kind precond);
const char *spk_zsolver_method(const spk_solver *s);
const char *spk_zsolver_precond(const spk_solver *s);
const char *spk_zsolver_format(const spk_solver *s);
void spk_zsolver_free(spk_solver *s);
/* matrix.c: is every diagonal entry of A stored and positive? */
int spk_matrix_positive_diagonal(const spk_csr *A, int *yes, spk_err *e);
/* context.c, matrix.c: one more holder, one fewer (freed by the last, once destroyed). */
void spk_context_hold(spk_context *ctx);
void spk_context_drop(spk_context *ctx);
void spk_matrix_hold(spk_matrix *A);
void spk_matrix_drop(spk_matrix *A);

/* setup.c: the preconditioner of kind s->pkind made anew; st with the row
 * of A named where a reordered factorization failed; the deferred build of
 * the first solve (its seconds added to s->t_setup); new values since the
 * setup taken; the preconditioner's table entry that make_precond uses. */
int spk_solver_make_precond(spk_solver *s);
int spk_solver_precond_ops(spk_solver *s, const struct spk_precond_ops **ops);
int spk_solver_original_row(spk_solver *s, int st);
int spk_solver_deferred_setup(spk_solver *s);
int spk_solver_refresh(spk_solver *s);
/* ... the method kind and the preconditioner pkind made anew (the probe's
 * switch), its seconds in *secs. */
int spk_solver_use_precond(spk_solver *s, spk_solver_kind kind, spk_precond_kind pkind, double *secs);
/* probe.c: one run of the method with options o; the solve's iterations,
 * with the probe's choice where it is still to be made (factor build
 * seconds added to *t_setup). */
int spk_solver_run(spk_solver *s, const double *b, double *x, const spk_options *o, spk_result *r);
int spk_solver_iterate(spk_solver *s, const double *b, double *x, spk_result *r, double *t_setup);
/* ... the race's sides' work vectors freed. */
void spk_solver_race_free(spk_solver *s);
/* solve_race.c: the race's part of a solver (spk_options.race). */
spk_race *spk_solver_race_start(spk_solver *s, const double *db, const double *dx, int *st);
int spk_solver_race_answered(void *arg);

#endif

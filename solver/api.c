/* api.c -- the public C API (include/spk.h): contexts, matrices, solvers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/csr.h"
#include "core/exec.h"
#ifdef SPK_HAVE_CUDA
#include "core/exec_cuda.h"
#endif
#include "io/mmio.h"
#include "krylov.h"
#include "options.h"
#include "precond/precond.h"
#include "spmv/spmv.h"

#define SPK_STR2(x) #x
#define SPK_STR(x) SPK_STR2(x)

struct spk_context {
    spk_exec *exec;
    spk_err err;
    char note[SPK_ERR_MSG_MAX]; /* why this device (SPK_DEVICE_AUTO) */
};

struct spk_matrix {
    spk_context *ctx;
    spk_csr A;        /* canonical host CSR */
    int *map;         /* input entry k -> position in A (NULL: identity) */
    int nin;          /* entries in the caller's arrays (spk_matrix_update_values) */
    unsigned version; /* bumped by spk_matrix_update_values */
};

struct spk_solver {
    spk_context *ctx;
    spk_matrix *M;
    spk_options opts;
    spk_solver_kind kind;     /* CG or BiCGStab, after AUTO was resolved */
    spk_precond_kind pkind;   /* after AUTO was resolved */
    int auto_kind;            /* the caller asked for SPK_SOLVER_AUTO */
    int auto_precond;         /* the caller asked for SPK_PRECOND_AUTO */
    spk_precond_opts popts;
    spk_krylov k;
    double *b, *x;            /* executor copies (NULL on the host: caller's arrays are used) */
    unsigned version;         /* matrix version the setup was made for */
    double t_setup;           /* seconds of the (last) setup */
    double t_split[4];        /* ... its parts: upload, checks, format, preconditioner */
    char format_detail[512];  /* the SpMV backend's description, after setup */
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
};

/* rows per block of SPK_REORDER_BLOCK_MULTICOLOR when reorder_block is 0 */
#define SPK_REORDER_BLOCK_DEFAULT 16

/* The matrix the solver works on: A, or P A P^T when reordered. */
static const spk_csr *work_matrix(const spk_solver *s)
{
    return s->perm ? &s->PA : &s->M->A;
}

/* ---- names ---------------------------------------------------------------- */

const char *spk_version(void)
{
    return SPK_STR(SPK_VERSION_MAJOR) "." SPK_STR(SPK_VERSION_MINOR) "." SPK_STR(SPK_VERSION_PATCH);
}

const char *spk_status_name(int status)
{
    static const char *const names[] = {
        "SPK_OK",          "SPK_ERR_INVALID_ARG",    "SPK_ERR_IO",         "SPK_ERR_PARSE",
        "SPK_ERR_UNSUPPORTED", "SPK_ERR_NOMEM",      "SPK_ERR_INVALID_MATRIX", "SPK_ERR_ZERO_PIVOT",
        "SPK_ERR_NOT_FOUND", "SPK_ERR_DEVICE",       "SPK_ERR_NOT_CONVERGED", "SPK_ERR_BREAKDOWN",
        "SPK_ERR_INDEFINITE", "SPK_ERR_INTERNAL",
    };
    if (status < 0 || status >= (int)(sizeof names / sizeof names[0])) return "unknown status";
    return names[status];
}

const char *spk_reason_name(spk_reason r)
{
    switch (r) {
    case SPK_CONVERGED_RTOL: return "converged (rtol)";
    case SPK_CONVERGED_ATOL: return "converged (atol)";
    case SPK_CONVERGED_ZERO_RHS: return "converged (b = 0, x = 0)";
    case SPK_DIVERGED_MAXIT: return "not converged (maximum iterations)";
    case SPK_BREAKDOWN_RHO: return "breakdown (rho = 0)";
    case SPK_BREAKDOWN_R0V: return "breakdown (r0'v = 0)";
    case SPK_BREAKDOWN_OMEGA: return "breakdown (omega = 0)";
    case SPK_BREAKDOWN_INDEFINITE: return "breakdown (p'Ap <= 0: matrix not positive definite)";
    case SPK_BREAKDOWN_PRECOND: return "breakdown (r'z <= 0: preconditioner not positive definite)";
    case SPK_DIVERGED_NAN: return "diverged (NaN or Inf)";
    case SPK_DIVERGED_DTOL: return "diverged (residual above dtol)";
    case SPK_INVALID_INPUT: return "invalid input (NaN or Inf in b or x0)";
    }
    return "unknown reason";
}

const char *spk_solver_kind_name(spk_solver_kind k)
{
    switch (k) {
    case SPK_SOLVER_AUTO: return "auto";
    case SPK_SOLVER_CG: return "cg";
    case SPK_SOLVER_BICGSTAB: return "bicgstab";
    }
    return "unknown";
}

const char *spk_precond_kind_name(spk_precond_kind k)
{
    switch (k) {
    case SPK_PRECOND_AUTO: return "auto";
    case SPK_PRECOND_NONE: return "none";
    case SPK_PRECOND_JACOBI: return "jacobi";
    case SPK_PRECOND_ILU0: return "ilu0";
    case SPK_PRECOND_IC0: return "ic0";
    case SPK_PRECOND_FACTOR: return "factor";
    }
    return "unknown";
}

void spk_free(void *p)
{
    free(p);
}

/* ---- context -------------------------------------------------------------- */

int spk_context_create(spk_context **ctx, spk_device device)
{
    if (!ctx) return SPK_ERR_INVALID_ARG;
    *ctx = NULL;
    spk_context *c = calloc(1, sizeof *c);
    if (!c) return SPK_ERR_NOMEM;
    int st;
    switch (device) {
    case SPK_DEVICE_AUTO:
#ifdef SPK_HAVE_CUDA
        st = spk_exec_cuda_create(&c->err, &c->exec);
        if (!st) {
            snprintf(c->note, sizeof c->note, "a CUDA device was found");
            break;
        }
        snprintf(c->note, sizeof c->note, "%s", c->err.msg);
        spk_err_clear(&c->err);
#else
        snprintf(c->note, sizeof c->note, "this build of spk has no CUDA support");
#endif
        st = spk_exec_host_create(&c->err, &c->exec);
        break;
    case SPK_DEVICE_HOST: st = spk_exec_host_create(&c->err, &c->exec); break;
    case SPK_DEVICE_CUDA:
#ifdef SPK_HAVE_CUDA
        st = spk_exec_cuda_create(&c->err, &c->exec);
#else
        st = SPK_ERR_DEVICE;
#endif
        break;
    default: st = SPK_ERR_INVALID_ARG; break;
    }
    if (st) {
        free(c);
        return st;
    }
    *ctx = c;
    return SPK_OK;
}

const char *spk_context_note(const spk_context *ctx)
{
    return ctx ? ctx->note : "";
}

int spk_have_cuda(void)
{
#ifdef SPK_HAVE_CUDA
    return 1;
#else
    return 0;
#endif
}

void spk_context_destroy(spk_context *ctx)
{
    if (!ctx) return;
    spk_exec_destroy(ctx->exec);
    free(ctx);
}

const char *spk_context_device(const spk_context *ctx)
{
    return ctx && ctx->exec ? ctx->exec->ops->name : "none";
}

const char *spk_last_error(const spk_context *ctx)
{
    return ctx ? ctx->err.msg : "no context";
}

/* ---- matrices ------------------------------------------------------------- */

/* First non-finite value of A, as a message; SPK_OK when all are finite. */
static int check_finite(const spk_csr *A, spk_err *e, const char *what)
{
    for (int i = 0; i < A->nrows; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (!isfinite(A->val[k]))
                return spk_err_set(e, SPK_ERR_INVALID_MATRIX,
                                   "%s: entry (%d, %d) (0-based) is %g; values must be finite", what,
                                   i, A->colind[k], A->val[k]);
    return SPK_OK;
}

/* *yes = 1 when every diagonal entry of the square A is stored and > 0. */
static int positive_diagonal(const spk_csr *A, int *yes, spk_err *e)
{
    int *pos = spk_malloc((size_t)A->nrows, sizeof(int), "diagonal positions", e);
    if (!pos) return SPK_ERR_NOMEM;
    *yes = spk_csr_diag_pos(A, pos) == 0 && A->nrows > 0;
    for (int i = 0; i < A->nrows && *yes; i++)
        if (!(A->val[pos[i]] > 0)) *yes = 0;
    free(pos);
    return SPK_OK;
}

static int matrix_new(spk_context *ctx, spk_matrix **out)
{
    spk_matrix *m = calloc(1, sizeof *m);
    if (!m) return spk_err_set(&ctx->err, SPK_ERR_NOMEM, "out of host memory (matrix)");
    m->ctx = ctx;
    *out = m;
    return SPK_OK;
}

int spk_matrix_from_csr(spk_context *ctx, int nrows, int ncols, const int *rowptr,
                        const int *colind, const double *val, spk_matrix **A)
{
    if (!ctx) return SPK_ERR_INVALID_ARG;
    spk_err *e = &ctx->err;
    spk_err_clear(e);
    if (!A || !rowptr || nrows < 0 || ncols < 0)
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "spk_matrix_from_csr: need nrows, ncols >= 0, rowptr and an output "
                           "pointer");
    *A = NULL;
    int nnz = nrows > 0 ? rowptr[nrows] : 0;
    if (nnz > 0 && (!colind || !val))
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "spk_matrix_from_csr: colind and val are required for %d entries", nnz);
    spk_csr in = {nrows, ncols, nnz, (int *)rowptr, (int *)colind, (double *)val};
    int st = spk_csr_validate(&in, 0, e);
    if (st) return spk_err_prefix(e, "spk_matrix_from_csr");
    SPK_TRY(check_finite(&in, e, "spk_matrix_from_csr"));

    spk_matrix *m = NULL;
    int *perm = NULL, *map = NULL;
    SPK_CHECK(st, matrix_new(ctx, &m));
    SPK_CHECK(st, spk_csr_copy(&in, &m->A, e));
    m->nin = nnz;
    if (!spk_csr_is_sorted(&m->A)) {
        /* keep input position -> stored position for spk_matrix_update_values */
        perm = spk_malloc((size_t)nnz, sizeof(int), "sort permutation", e);
        map = spk_malloc((size_t)nnz, sizeof(int), "entry map", e);
        if (!perm || !map) {
            st = SPK_ERR_NOMEM;
            goto cleanup;
        }
        SPK_CHECK(st, spk_csr_sort(&m->A, perm, e));
        int *dup = spk_malloc((size_t)nnz, sizeof(int), "entry map", e);
        if (!dup) {
            st = SPK_ERR_NOMEM;
            goto cleanup;
        }
        spk_csr_sum_duplicates(&m->A, dup);
        for (int k = 0; k < nnz; k++) map[perm[k]] = dup[k];
        free(dup);
        m->map = map;
        map = NULL;
    }
    *A = m;
    m = NULL;
cleanup:
    free(perm);
    free(map);
    spk_matrix_destroy(m);
    return st;
}

int spk_matrix_read(spk_context *ctx, const char *path, spk_matrix **A)
{
    if (!ctx) return SPK_ERR_INVALID_ARG;
    spk_err *e = &ctx->err;
    spk_err_clear(e);
    if (!path || !A) return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_matrix_read: NULL argument");
    *A = NULL;
    spk_matrix *m = NULL;
    SPK_TRY(matrix_new(ctx, &m));
    int st = spk_mm_read_csr(path, &m->A, NULL, e);
    if (st) {
        spk_matrix_destroy(m);
        return st;
    }
    m->nin = m->A.nnz;
    *A = m;
    return SPK_OK;
}

int spk_matrix_write(const spk_matrix *A, const char *path)
{
    if (!A) return SPK_ERR_INVALID_ARG;
    spk_err *e = &A->ctx->err;
    spk_err_clear(e);
    return spk_mm_write_csr(path, &A->A, 0, "written by spk " SPK_STR(SPK_VERSION_MAJOR) "."
                            SPK_STR(SPK_VERSION_MINOR), e);
}

int spk_matrix_update_values(spk_matrix *A, const double *val)
{
    if (!A) return SPK_ERR_INVALID_ARG;
    spk_err *e = &A->ctx->err;
    spk_err_clear(e);
    if (!val && A->nin > 0)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_matrix_update_values: val is NULL");
    for (int k = 0; k < A->nin; k++)
        if (!isfinite(val[k]))
            return spk_err_set(e, SPK_ERR_INVALID_MATRIX,
                               "spk_matrix_update_values: value %d is %g; values must be finite", k,
                               val[k]);
    if (A->map) {
        memset(A->A.val, 0, (size_t)A->A.nnz * sizeof(double));
        for (int k = 0; k < A->nin; k++) A->A.val[A->map[k]] += val[k];
    } else if (A->nin > 0) {
        memcpy(A->A.val, val, (size_t)A->nin * sizeof(double));
    }
    A->version++;
    return SPK_OK;
}

int spk_matrix_csr(const spk_matrix *A, int *nrows, int *ncols, int *nnz, const int **rowptr,
                   const int **colind, const double **val)
{
    if (!A) return SPK_ERR_INVALID_ARG;
    if (nrows) *nrows = A->A.nrows;
    if (ncols) *ncols = A->A.ncols;
    if (nnz) *nnz = A->A.nnz;
    if (rowptr) *rowptr = A->A.rowptr;
    if (colind) *colind = A->A.colind;
    if (val) *val = A->A.val;
    return SPK_OK;
}

int spk_matrix_get_info(const spk_matrix *A, spk_matrix_info *info)
{
    if (!A || !info) return SPK_ERR_INVALID_ARG;
    spk_err *e = &A->ctx->err;
    const spk_csr *C = &A->A;
    memset(info, 0, sizeof *info);
    info->nrows = C->nrows;
    info->ncols = C->ncols;
    info->nnz = C->nnz;
    SPK_TRY(spk_csr_symmetry(C, 1e-12, &info->pattern_symmetric, &info->value_symmetric, e));
    int n = C->nrows < C->ncols ? C->nrows : C->ncols;
    int *pos = spk_malloc((size_t)n, sizeof(int), "diagonal positions", e);
    if (!pos) return SPK_ERR_NOMEM;
    spk_csr sq = *C;
    sq.nrows = n; /* diagonal of the leading square part */
    info->missing_diagonal = spk_csr_diag_pos(&sq, pos);
    free(pos);
    info->positive_diagonal = 0;
    if (C->nrows == C->ncols) SPK_TRY(positive_diagonal(C, &info->positive_diagonal, e));
    info->diag_dominant_rows = spk_csr_diag_dominant_rows(C);
    spk_csr_rowstats s;
    spk_csr_row_stats(C, &s);
    info->empty_rows = s.empty;
    info->row_min = s.min;
    info->row_max = s.max;
    info->row_mean = s.mean;
    info->row_std = s.std;
    return SPK_OK;
}

int spk_matrix_multiply(const spk_matrix *A, const double *x, double *y)
{
    if (!A || (!x && A->A.ncols) || (!y && A->A.nrows)) return SPK_ERR_INVALID_ARG;
    spk_csr_spmv(&A->A, 1.0, x, 0.0, y);
    return SPK_OK;
}

void spk_matrix_destroy(spk_matrix *A)
{
    if (!A) return;
    spk_csr_free(&A->A);
    free(A->map);
    free(A);
}

/* ---- vectors -------------------------------------------------------------- */

int spk_vector_read(spk_context *ctx, const char *path, int *n, double **v)
{
    if (!ctx) return SPK_ERR_INVALID_ARG;
    spk_err *e = &ctx->err;
    spk_err_clear(e);
    if (!path || !n || !v) return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_vector_read: NULL argument");
    int r, c;
    double *d;
    SPK_TRY(spk_mm_read_dense(path, &r, &c, &d, e));
    if (r != 1 && c != 1) {
        free(d);
        return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "%s: holds a %d x %d matrix, not a vector",
                           path, r, c);
    }
    *n = r * c;
    *v = d;
    return SPK_OK;
}

int spk_vector_write(spk_context *ctx, const char *path, int n, const double *v)
{
    if (!ctx) return SPK_ERR_INVALID_ARG;
    spk_err *e = &ctx->err;
    spk_err_clear(e);
    if (!path || n < 0 || (n > 0 && !v))
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_vector_write: bad argument");
    return spk_mm_write_dense(path, n, 1, v, NULL, e);
}

/* ---- solvers -------------------------------------------------------------- */

void spk_options_default(spk_options *o)
{
    spk_options_fill_defaults(o); /* the options' table (options.c and each component's keys) */
}

/* Every value in its key's range and each component's combinations, named by field. */
static int check_options(const spk_options *o, spk_err *e)
{
    return spk_options_validate(o, "spk_options.", e);
}

/* The SpMV backend options of the solver options. */
static void spmv_opts_of(const spk_options *o, spk_spmv_opts *so)
{
    memset(so, 0, sizeof *so);
    so->hmec_parts = o->hmec_parts;
    so->tile_te = o->tile_te;
    so->tile_th = o->tile_th;
    so->tile_defer_nnz = o->tile_defer_nnz;
    so->sell_c = o->sell_c;
    so->sell_sigma = o->sell_sigma;
    so->bcsr_block = o->bcsr_block;
}

/* SPK_PRECOND_SWEEPS_AUTO on the GPU: the most sweeps per triangular solve,
 * and the bound on the sweeps' relative residual on a probe (spk_precond_opts
 * .sweeps_check, precond/devsweep.c): the fewest sweeps from 2 that meet it,
 * exact solves where none does.  Chosen from host runs over the SuiteSparse
 * matrices of the test collection and generated problems (docs/precond-
 * sweeps.md): every one within 1.25x of the exact solves' iterations. */
#define GPU_SWEEPS 16
#define GPU_SWEEPS_CHECK_IC0 0.02
#define GPU_SWEEPS_CHECK_ILU0 0.05
/* ... and beyond SPK_DEV_SMALL_ROWS rows fewer sweeps where the preconditioner
 * they apply stays close to the exact one (spk_precond_opts.sweeps_rho): for
 * CG the iterations grow by at most sqrt((1 + rho) / (1 - rho)) = 1.22x at
 * 0.2; BiCGStab has no such root, so (1 + rho) / (1 - rho) = 1.22 at 0.1.
 * Measured on the H100 (docs/benchmarks.md): convdiff3d-7:128 and -7:160
 * take 1.27x and 1.37x the recipe's iterations with the 4 and 3 sweeps 0.2
 * would allow, 1.17x and 1.15x with the 5 that 0.1 takes (float iterates;
 * 1.11x at 8). */
#define GPU_SWEEPS_RHO_IC0 0.2
#define GPU_SWEEPS_RHO_ILU0 0.1

/* Create (or recreate) the preconditioner of kind s->pkind. */
static int setup_precond(spk_solver *s)
{
    spk_exec *e = s->ctx->exec;
    if (s->k.M_ops) s->k.M_ops->destroy(s->k.M);
    s->k.M_ops = NULL;
    s->k.M = NULL;
    const struct spk_precond_ops *ops;
    /* IC(0)/ILU(0) applied by sweeps or approximate inverses: "ic0-sweeps", "ilu0-isai", ... */
    const int factor = s->pkind == SPK_PRECOND_ILU0 || s->pkind == SPK_PRECOND_IC0;
    int sweeps = s->opts.precond_sweeps;
    s->popts.sweeps_check = 0;
    s->popts.sweeps_rho = 0;
    /* the block iterations (fused.c) will apply M, in one block (1: the
     * sweeps compare the block's ways) or in a cluster (2: their sweeps) */
    const spk_csr *W = work_matrix(s);
    s->popts.block = 0;
    if (s->opts.vector_ops == SPK_VECTOR_BLOCK && !spk_exec_is_host(e) && W->nrows <= SPK_BLOCK_ROWS)
        s->popts.block = W->nnz <= SPK_BLOCK_NNZ_PREC_MAX ? 1 : W->nnz <= SPK_BLOCK_CLUSTER_NNZ_PREC_MAX ? 2 : 0;
    s->popts.sweeps_float = s->opts.precond_precision == SPK_PRECISION_FLOAT;
    if (sweeps == SPK_PRECOND_SWEEPS_AUTO) { /* the GPU's device-resident sweeps, checked */
        sweeps = spk_exec_is_host(e) || s->opts.precond_isai ? 0 : GPU_SWEEPS;
        if (sweeps) s->popts.sweeps_check = s->pkind == SPK_PRECOND_IC0 ? GPU_SWEEPS_CHECK_IC0 : GPU_SWEEPS_CHECK_ILU0;
        if (sweeps) s->popts.sweeps_rho = s->pkind == SPK_PRECOND_IC0 ? GPU_SWEEPS_RHO_IC0 : GPU_SWEEPS_RHO_ILU0;
        if (sweeps && s->opts.precond_precision == SPK_PRECISION_AUTO) s->popts.sweeps_float = 1;
    }
    if (sweeps > 0) s->popts.sweeps = sweeps;
    const char *how = !factor ? "" : s->opts.precond_isai ? "-isai" : sweeps > 0 ? "-sweeps" : "";
    char name[32];
    snprintf(name, sizeof name, "%s%s", spk_precond_kind_name(s->pkind), how);
    SPK_TRY(spk_precond_find(name, e, &ops, e->err));
    if (s->dA && ops->create_dev)
        SPK_TRY(ops->create_dev(e, work_matrix(s), s->dA, &s->popts, &s->k.M));
    else
        SPK_TRY(ops->create(e, work_matrix(s), &s->popts, &s->k.M));
    s->k.M_ops = ops;
    return SPK_OK;
}

/* A factorization failure of the reordered matrix names its row there: add
 * which row of A that is. */
static int with_original_row(spk_solver *s, int st)
{
    spk_err *e = &s->ctx->err;
    const char *p = s->perm && st == SPK_ERR_ZERO_PIVOT ? strstr(e->msg, "at row ") : NULL;
    int r;
    if (!p || sscanf(p + 7, "%d", &r) != 1 || r < 0 || r >= s->PA.nrows) return st;
    char why[sizeof e->msg];
    snprintf(why, sizeof why, "%s", e->msg);
    return spk_err_set(e, st, "%.900s (rows counted in the reordered matrix: its row %d is row %d of A)", why, r,
                       s->perm[r]);
}

/* spk_options.race: on the GPU, with SPK_PRECOND_AUTO resolved to IC(0)
 * for CG, on a system the block iterations take without a preconditioner
 * (at most SPK_BLOCK_ROWS rows and SPK_BLOCK_CLUSTER_NNZ_MAX entries), not
 * reordered, without a history or a monitor (which would see two solves). */
static int race_applies(const spk_solver *s, spk_precond_kind asked)
{
    const spk_csr *A = work_matrix(s);
    const spk_exec *ex = s->ctx->exec;
    return s->opts.race && asked == SPK_PRECOND_AUTO && s->kind == SPK_SOLVER_CG && s->pkind == SPK_PRECOND_IC0 &&
           !spk_exec_is_host(ex) && ex->ops->krylov && ex->ops->krylov->side_run &&
           s->opts.vector_ops == SPK_VECTOR_BLOCK && A->nrows <= SPK_BLOCK_ROWS &&
           A->nnz <= SPK_BLOCK_CLUSTER_NNZ_MAX && !s->perm && !s->opts.keep_history && !s->opts.monitor;
}

static int precond_setup(spk_solver *s);

/* Resolve AUTO, check the matrix fits the method, build SpMV and preconditioner. */
static int solver_setup_with(spk_solver *s, spk_solver_kind kind, spk_precond_kind pkind)
{
    const spk_precond_kind pkind_asked = pkind;
    spk_err *e = &s->ctx->err;
    spk_exec *ex = s->ctx->exec;
    const spk_csr *A = work_matrix(s);
    int need_sym = kind == SPK_SOLVER_AUTO || kind == SPK_SOLVER_CG || pkind == SPK_PRECOND_IC0;
    int sym = 0, posdiag = 0, stencil = 0;
    double t = spk_time_now();
#ifdef SPK_HAVE_CUDA
    if (s->dA && (need_sym || pkind == SPK_PRECOND_AUTO)) {
        SPK_TRY(spk_cuda_csr_symmetry(ex, s->dA, 1e-12, NULL, &sym, &posdiag, &stencil));
        need_sym = 0;
    }
#endif
    if (need_sym) {
        SPK_TRY(spk_csr_symmetry(A, 1e-12, NULL, &sym, e));
        if (kind == SPK_SOLVER_AUTO) SPK_TRY(positive_diagonal(A, &posdiag, e));
    }
    if (kind == SPK_SOLVER_AUTO) kind = sym && posdiag ? SPK_SOLVER_CG : SPK_SOLVER_BICGSTAB;
    /* AUTO: IC(0) for CG, ILU(0) for BiCGStab; on the GPU none for a matrix
     * shaped like a Laplacian (spk_csr_stencil_like), where they cut the
     * iterations 2-3x (7- and 27-point Poisson, upwind convection-diffusion,
     * gr_30_30) and their apply costs more than that: measured on the H100,
     * CG/BiCGStab without a preconditioner took 0.55-0.77x the time to
     * solution of IC(0)/ILU(0) there (docs/benchmarks.md) */
    if (pkind == SPK_PRECOND_AUTO && s->dA && stencil) pkind = SPK_PRECOND_NONE;
    if (pkind == SPK_PRECOND_AUTO || pkind == SPK_PRECOND_FACTOR)
        pkind = kind == SPK_SOLVER_CG ? SPK_PRECOND_IC0 : SPK_PRECOND_ILU0;
    if (!sym && (kind == SPK_SOLVER_CG || pkind == SPK_PRECOND_IC0))
        return spk_err_set(e, SPK_ERR_INVALID_MATRIX,
                           "%s needs a symmetric matrix and this one is not symmetric; use "
                           "BiCGStab with ILU(0)",
                           kind == SPK_SOLVER_CG ? "CG" : "IC(0)");
    s->kind = kind;
    s->pkind = pkind;
    s->t_split[1] = spk_time_now() - t;

    t = spk_time_now();
    spk_spmv_opts so;
    spmv_opts_of(&s->opts, &so);
    const struct spk_spmv_ops *aops;
    SPK_TRY(spk_spmv_find(s->opts.format, ex, &aops, e));
    if (s->dA && aops->create_dev)
        SPK_TRY(aops->create_dev(ex, A, s->dA, &so, &s->k.A));
    else
        SPK_TRY(aops->create(ex, A, &so, &s->k.A));
    s->k.A_ops = aops;
    SPK_TRY(ex->ops->sync(ex));
    s->t_split[2] = spk_time_now() - t;

    s->racing = race_applies(s, pkind_asked);
    s->deferred = s->racing;
    if (s->deferred) return SPK_OK; /* the first solve builds the preconditioner */
    return precond_setup(s);
}

/* Build the preconditioner of kind s->pkind (SPK_SOLVER_AUTO: BiCGStab +
 * ILU(0) where IC(0) fails even with shifts); into s->t_split[3]. */
static int precond_setup(spk_solver *s)
{
    spk_err *e = &s->ctx->err;
    spk_exec *ex = s->ctx->exec;
    const double t = spk_time_now();
    s->deferred = 0;
    int st = with_original_row(s, setup_precond(s));
    if (st == SPK_ERR_ZERO_PIVOT && s->auto_kind && s->auto_precond && s->popts.allow_shift &&
        s->pkind == SPK_PRECOND_IC0) {
        /* IC(0) failed even with shifts: A is unlikely SPD; use BiCGStab + ILU(0).  Without
         * shifting the caller asked to see the pivot failure, so it is reported instead. */
        s->kind = SPK_SOLVER_BICGSTAB;
        s->pkind = SPK_PRECOND_ILU0;
        st = with_original_row(s, setup_precond(s));
    }
    if (st == SPK_ERR_ZERO_PIVOT && s->pkind == SPK_PRECOND_IC0) {
        char why[sizeof e->msg];
        snprintf(why, sizeof why, "%s", e->msg);
        return spk_err_set(e, st, "%.900s; the matrix is probably not positive definite: use BiCGStab "
                                  "with ILU(0) (--solver bicgstab)", why);
    }
    if (!st) st = ex->ops->sync(ex);
    s->t_split[3] = spk_time_now() - t;
    return st;
}

/* The setup; on the GPU the matrix is uploaded once and the checks, the
 * format and the preconditioner are built from that copy where they can. */
static int solver_setup(spk_solver *s, spk_solver_kind kind, spk_precond_kind pkind)
{
    spk_err *e = &s->ctx->err;
    const spk_csr *A = work_matrix(s);
    double t0 = spk_time_now();
    if (A->nrows != A->ncols)
        return spk_err_set(e, SPK_ERR_INVALID_MATRIX,
                           "the matrix is %d x %d: a linear system needs a square matrix",
                           A->nrows, A->ncols);
    int st = SPK_OK;
    memset(s->t_split, 0, sizeof s->t_split);
#ifdef SPK_HAVE_CUDA
    spk_csr dA;
    if (spk_exec_is_cuda(s->ctx->exec)) {
        SPK_TRY(spk_cuda_csr_upload(s->ctx->exec, A, &dA, "the matrix"));
        s->dA = &dA;
        s->t_split[0] = spk_time_now() - t0;
    }
#endif
    st = solver_setup_with(s, kind, pkind);
#ifdef SPK_HAVE_CUDA
    if (s->dA && !st && s->opts.vector_ops == SPK_VECTOR_BLOCK && A->nrows <= SPK_BLOCK_ROWS &&
        A->nnz <= SPK_BLOCK_CLUSTER_NNZ_MAX) {
        spk_cuda_csr_free(&s->blockA); /* a new setup's copy replaces the old one */
        s->blockA = dA;
        s->k.dA = &s->blockA;
        s->k.lanes_light[0] = spk_block_lanes(A->nrows, A->rowptr, 1);
        s->k.lanes_light[1] = spk_block_lanes(A->nrows, A->rowptr, SPK_BLOCK_CLUSTER_MAX);
    } else if (s->dA) {
        spk_cuda_csr_free(&dA);
    }
    s->dA = NULL;
#endif
    if (st) return st;
    s->version = s->M->version;
    s->t_setup = spk_time_now() - t0;
    return SPK_OK;
}

/* SPK_REORDER_(BLOCK_)MULTICOLOR: color A + A^T (rows or blocks of rows),
 * order the rows by color, build P A P^T. */
static int reorder_setup(spk_solver *s)
{
    spk_err *e = &s->ctx->err;
    const spk_csr *A = &s->M->A;
    const int n = A->nrows;
    if (A->nrows != A->ncols) return SPK_OK; /* solver_setup reports it */
    int st = SPK_OK;
    int *blk = spk_malloc((size_t)n, sizeof(int), "row blocks", e);
    int *color = spk_malloc((size_t)n, sizeof(int), "row colors", e);
    s->perm = spk_malloc((size_t)n, sizeof(int), "row permutation", e);
    s->pmap = spk_malloc((size_t)A->nnz, sizeof(int), "row permutation map", e);
    s->pb = spk_malloc((size_t)n, sizeof(double), "reordered right-hand side", e);
    s->px = spk_malloc((size_t)n, sizeof(double), "reordered solution", e);
    if (!blk || !color || !s->perm || !s->pmap || !s->pb || !s->px) {
        st = SPK_ERR_NOMEM;
        goto cleanup;
    }
    /* row multicoloring is block multicoloring with blocks of one row */
    const int block = s->opts.reorder == SPK_REORDER_MULTICOLOR ? 1
                      : s->opts.reorder_block > 0 ? s->opts.reorder_block : SPK_REORDER_BLOCK_DEFAULT;
    int nblocks;
    SPK_CHECK(st, spk_csr_block_multicolor(A, block, blk, color, &nblocks, &s->ncolors, s->perm, e));
    SPK_CHECK(st, spk_csr_permute(A, s->perm, &s->PA, s->pmap, e));
cleanup:
    free(color);
    free(blk);
    return st;
}

int spk_solver_create(spk_context *ctx, spk_matrix *A, spk_solver_kind solver,
                      spk_precond_kind precond, const spk_options *opts, spk_solver **out)
{
    if (!ctx) return SPK_ERR_INVALID_ARG;
    spk_err *e = &ctx->err;
    spk_err_clear(e);
    if (!A || !out) return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_solver_create: NULL argument");
    *out = NULL;
    if (A->ctx != ctx)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "the matrix belongs to another context");
    if (solver < SPK_SOLVER_AUTO || solver > SPK_SOLVER_BICGSTAB)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "unknown solver kind %d", (int)solver);
    if (precond < SPK_PRECOND_AUTO || precond > SPK_PRECOND_FACTOR)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "unknown preconditioner kind %d", (int)precond);
    spk_solver *s = calloc(1, sizeof *s);
    if (!s) return spk_err_set(e, SPK_ERR_NOMEM, "out of host memory (solver)");
    s->ctx = ctx;
    s->M = A;
    if (opts)
        s->opts = *opts;
    else
        spk_options_default(&s->opts);
    if (s->opts.format) {
        if (strlen(s->opts.format) >= sizeof s->format_name) {
            free(s);
            return spk_err_set(e, SPK_ERR_NOT_FOUND, "unknown SpMV format '%.40s...' (name too long)",
                               opts->format);
        }
        snprintf(s->format_name, sizeof s->format_name, "%s", s->opts.format);
        s->opts.format = s->format_name;
    }
    s->auto_kind = solver == SPK_SOLVER_AUTO;
    s->auto_precond = precond == SPK_PRECOND_AUTO || precond == SPK_PRECOND_FACTOR;
    int st;
    SPK_CHECK(st, check_options(&s->opts, e));
    s->popts.allow_shift = s->opts.allow_shift;
    s->popts.shift_init = s->opts.shift_init;
    s->popts.shift_max = s->opts.shift_max;
    snprintf(s->popts.format, sizeof s->popts.format, "%s", s->opts.format ? s->opts.format : "");
    spmv_opts_of(&s->opts, &s->popts.spmv);
    SPK_CHECK(st, spk_krylov_init(&s->k, ctx->exec, A->A.nrows, s->opts.maxit, s->opts.keep_history));
    if (s->opts.reorder != SPK_REORDER_NONE) SPK_CHECK(st, reorder_setup(s));
    SPK_CHECK(st, solver_setup(s, solver, precond));
    if (!spk_exec_is_host(ctx->exec)) {
        SPK_CHECK(st, spk_exec_alloc_vec(ctx->exec, A->A.nrows, &s->b));
        SPK_CHECK(st, spk_exec_alloc_vec(ctx->exec, A->A.nrows, &s->x));
    }
    *out = s;
    s = NULL;
cleanup:
    spk_solver_destroy(s);
    return st;
}

/* New matrix values since setup: update the SpMV storage and refactor. */
static int solver_refresh(spk_solver *s)
{
    double t0 = spk_time_now();
    if (s->perm)
        for (int k = 0; k < s->PA.nnz; k++) s->PA.val[k] = s->M->A.val[s->pmap[k]];
    const spk_csr *A = work_matrix(s);
    spk_exec *ex = s->ctx->exec;
    if (s->k.A_ops->update) {
        SPK_TRY(s->k.A_ops->update(s->k.A, A));
    } else {
        spk_spmv_opts so;
        spmv_opts_of(&s->opts, &so);
        s->k.A_ops->destroy(s->k.A);
        s->k.A = NULL;
        SPK_TRY(s->k.A_ops->create(ex, A, &so, &s->k.A));
    }
    if (!s->deferred) SPK_TRY(with_original_row(s, s->k.M_ops->refactor(s->k.M, A)));
#ifdef SPK_HAVE_CUDA
    if (s->k.dA)
        SPK_TRY(spk_cuda_upload(ex, s->blockA.val, A->val, (size_t)A->nnz * sizeof(double), "the matrix's new values"));
#endif
    s->version = s->M->version;
    s->t_setup = spk_time_now() - t0;
    return SPK_OK;
}

/* Status and message for a finished solve. */
static int outcome(spk_solver *s, const spk_result *r)
{
    spk_err *e = &s->ctx->err;
    const char *m = spk_solver_method(s);
    switch (r->reason) {
    case SPK_CONVERGED_RTOL:
    case SPK_CONVERGED_ATOL:
    case SPK_CONVERGED_ZERO_RHS: return SPK_OK;
    case SPK_DIVERGED_MAXIT:
        return spk_err_set(e, SPK_ERR_NOT_CONVERGED,
                           "%s did not converge in %d iterations: relative residual %.3e, rtol %.1e",
                           m, r->iterations, r->relres, s->opts.rtol);
    case SPK_DIVERGED_DTOL:
        return spk_err_set(e, SPK_ERR_NOT_CONVERGED,
                           "%s diverged at iteration %d: relative residual %.3e, above dtol %.1e "
                           "times the larger of ||b|| and the initial residual",
                           m, r->iterations, r->relres, s->opts.dtol);
    case SPK_BREAKDOWN_INDEFINITE:
        return spk_err_set(e, SPK_ERR_INDEFINITE,
                           "CG broke down at iteration %d: p'Ap <= 0, so the matrix is not positive "
                           "definite; use BiCGStab (--solver bicgstab)",
                           r->iterations + 1);
    case SPK_BREAKDOWN_PRECOND:
        return spk_err_set(e, SPK_ERR_INDEFINITE,
                           "CG broke down at iteration %d: r'z <= 0, so the preconditioner (%s) is "
                           "not positive definite",
                           r->iterations + 1, spk_solver_precond(s));
    case SPK_INVALID_INPUT:
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "the right-hand side or the initial guess "
                                                   "contains NaN or Inf");
    case SPK_BREAKDOWN_RHO:
    case SPK_BREAKDOWN_R0V:
    case SPK_BREAKDOWN_OMEGA:
        return spk_err_set(e, SPK_ERR_BREAKDOWN,
                           "%s stopped at iteration %d: %s%s; the system is probably singular or "
                           "nearly so (no solution, or b outside the range of A)",
                           m, r->iterations, spk_reason_name(r->reason),
                           r->restarts ? ", also after restarting" : "");
    default:
        return spk_err_set(e, SPK_ERR_BREAKDOWN, "%s stopped at iteration %d: %s", m,
                           r->iterations, spk_reason_name(r->reason));
    }
}

/* The preconditioner the first solve builds (spk_solver.deferred), from
 * the copy of A the block iterations keep; its seconds added to s->t_setup
 * (the setup this solve reports: the solver's or a refactorization's). */
static int deferred_setup(spk_solver *s)
{
    const double t = spk_time_now();
#ifdef SPK_HAVE_CUDA
    s->dA = s->blockA.rowptr ? &s->blockA : NULL;
#endif
    const int st = precond_setup(s);
    s->dA = NULL;
    s->t_setup += spk_time_now() - t;
    /* not built (a failure, or stopped for the race's answer): the next
     * solve builds it again, and reports a failure where it repeats (a
     * getter called first must not leave a solver without it) */
    if (st) s->deferred = 1;
    return st;
}

/* The race's sides' work vectors (spk_krylov_init), made once. */
static void race_free(spk_solver *s)
{
    for (int w = 0; w < SPK_RACE_SIDES; w++)
        if (s->race.side[w].k.e) spk_krylov_free(&s->race.side[w].k);
    s->race_init = 0;
}

/* Start the CGs alongside this solve (spk_solver.race) from the executor
 * copies b, x0; NULL where none started. */
static spk_race *race_start(spk_solver *s, const double *db, const double *dx, int *st)
{
    spk_race *rc = &s->race;
    spk_exec *ex = s->ctx->exec;
    *st = SPK_OK;
    if (!s->racing || !s->b || s->kind != SPK_SOLVER_CG) return NULL;
    if (!s->race_init) {
        for (int w = 0; w < SPK_RACE_SIDES && !*st; w++) *st = spk_krylov_init(&rc->side[w].k, ex, s->k.n, 0, 0);
#ifdef SPK_HAVE_CUDA
        if (!*st && s->deferred) *st = spk_precond_sweeps_cuda_warm(ex, work_matrix(s), &s->popts);
#endif
        s->race_init = 1;
        if (*st) {
            race_free(s);
            return NULL;
        }
    }
    for (int w = 0; w < SPK_RACE_SIDES; w++) {
        spk_krylov *k = &rc->side[w].k;
        k->A_ops = s->k.A_ops; /* a refactorization may have rebuilt the format */
        k->A = s->k.A;
        k->dA = s->k.dA;
        memcpy(k->lanes_light, s->k.lanes_light, sizeof k->lanes_light);
    }
    /* side 1: CG with Jacobi (where a diagonal entry is not positive it breaks
     * down or converges all the same: its tests keep a wrong answer out) */
    rc->sides = s->opts.race == 2 ? 1 : SPK_RACE_SIDES;
    rc->side[1].jacobi = 1;
    *st = spk_race_start(rc, &s->k, db, dx, &s->opts);
    return !*st && spk_race_running(rc) ? rc : NULL;
}

/* spk_precond_opts.stop during the race: has a CG alongside answered? */
static int race_answered(void *arg)
{
    int won = 0;
    return spk_race_poll((spk_race *)arg, &won) == SPK_OK && won;
}

/* One run of the configured method from the executor copies b, x. */
static int run_method(spk_solver *s, const double *b, double *x, spk_result *r)
{
    if (s->kind == SPK_SOLVER_CG) return spk_cg(&s->k, b, x, &s->opts, r);
    return spk_bicgstab(&s->k, b, x, &s->opts, r);
}

int spk_solve(spk_solver *s, const double *b, double *x, spk_result *res)
{
    if (!s) return SPK_ERR_INVALID_ARG;
    spk_context *ctx = s->ctx;
    spk_err *e = &ctx->err;
    spk_exec *ex = ctx->exec;
    spk_err_clear(e);
    spk_result r;
    memset(&r, 0, sizeof r);
    double t0 = spk_time_now(), t_setup = 0;
    int n = s->M->A.nrows, st;
    size_t bytes = (size_t)n * sizeof(double);
    spk_race *rc = NULL;
    int alongside = 0; /* the answer is the CG alongside's (spk_options.race) */
    if (!b || !x) return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_solve: b and x are required");
    double *const xout = x;
    if (s->perm) { /* solve P A P^T (P x) = P b */
        for (int i = 0; i < n; i++) {
            s->pb[i] = b[s->perm[i]];
            s->px[i] = x[s->perm[i]];
        }
        b = s->pb;
        x = s->px;
    }
    if (s->version != s->M->version) {
        SPK_TRY(solver_refresh(s));
        t_setup = s->t_setup;
    }
    const double *db = b;
    double *dx = x;
    if (s->b) {
        SPK_TRY(ex->ops->upload(ex, s->b, b, bytes));
        SPK_TRY(ex->ops->upload(ex, s->x, x, bytes));
        db = s->b;
        dx = s->x;
    }
    /* x0 for a restart with BiCGStab if CG finds A indefinite: with device
     * vectors the host's x is x0 until the final download; in place (the
     * host's vectors) a copy.  (A fresh copy of a 4M-row x0 took about 13 ms
     * of a 160^3 Poisson solve on the H100's host, most of it page faults.) */
    const double *x0 = NULL;
    double *x0_copy = NULL;
    if (s->auto_kind && s->kind == SPK_SOLVER_CG) {
        if (s->b) {
            x0 = x;
        } else {
            x0 = x0_copy = spk_malloc((size_t)n, sizeof(double), "initial guess copy", e);
            if (!x0_copy) return SPK_ERR_NOMEM;
            memcpy(x0_copy, x, bytes);
        }
    }
    /* the race: CGs alongside, from before the deferred preconditioner is
     * built; the first to converge answers */
    rc = race_start(s, db, dx, &st);
    if (st) goto cleanup;
    if (s->deferred) {
        if (rc) { /* the build ends early where a CG alongside has answered */
            s->popts.stop = race_answered;
            s->popts.stop_arg = rc;
#ifdef SPK_HAVE_CUDA
            s->popts.stop_dev = spk_exec_cuda_side_over(ex, &s->popts.stop_race);
#endif
        }
        st = deferred_setup(s);
        s->popts.stop = NULL;
        s->popts.stop_arg = NULL;
        s->popts.stop_dev = NULL;
        /* stopped on the device's flag: the side that set it ends within an
         * iteration */
        if (st == SPK_PRECOND_STOPPED && rc) {
            const int ss = spk_race_settle(rc);
            if (ss) {
                st = ss;
                goto cleanup;
            }
        }
        if (st == SPK_PRECOND_STOPPED) {
            if (rc && rc->winner >= 0) {
                st = SPK_OK; /* not built: the next solve builds it */
            } else { /* no side won after all (their ends' tests are the host's): built whole */
                st = deferred_setup(s);
                if (st == SPK_PRECOND_STOPPED)
                    st = spk_err_set(e, SPK_ERR_INTERNAL, "the preconditioner's build stopped early");
            }
        }
        if (st) goto cleanup;
        t_setup = s->t_setup;
    }
    if (rc) SPK_CHECK(st, spk_race_poll(rc, &alongside));
    s->k.race = rc;
    if (!alongside) SPK_CHECK(st, run_method(s, db, dx, &r));
    alongside = rc && rc->winner >= 0;
    if (!alongside && x0 && (r.reason == SPK_BREAKDOWN_INDEFINITE || r.reason == SPK_BREAKDOWN_PRECOND)) {
        spk_result first = r;
        s->kind = SPK_SOLVER_BICGSTAB;
        s->pkind = SPK_PRECOND_ILU0;
        double t1 = spk_time_now();
        SPK_CHECK(st, with_original_row(s, setup_precond(s)));
        t_setup += spk_time_now() - t1;
        SPK_CHECK(st, ex->ops->upload(ex, dx, x0, bytes));
        memset(&r, 0, sizeof r);
        SPK_CHECK(st, run_method(s, db, dx, &r));
        alongside = rc && rc->winner >= 0;
        r.switched = !alongside;
        r.t_spmv += first.t_spmv;
        r.t_precond += first.t_precond;
        r.t_vector += first.t_vector;
        r.t_sync += first.t_sync;
    }
    s->k.race = NULL;
    int on_host = 0; /* the answer alongside is in x already */
    if (rc) {
        if (alongside) {
            SPK_CHECK(st, spk_race_result(rc, db, dx, s->b ? x : NULL, &on_host, &r));
        } else {
            SPK_CHECK(st, spk_race_stop(rc)); /* a win of its found now comes too late */
        }
        r.race = alongside ? 2 + rc->winner : 1;
    }
    if (s->b && !on_host) SPK_CHECK(st, ex->ops->download(ex, x, s->x, bytes));
    if (s->perm)
        for (int i = 0; i < n; i++) xout[s->perm[i]] = x[i];
    r.shift = !alongside && s->k.M_ops && s->k.M_ops->shift ? s->k.M_ops->shift(s->k.M) : 0.0;
    r.t_setup = t_setup > 0 ? t_setup : s->t_setup;
    r.t_setup_upload = s->t_split[0];
    r.t_setup_check = s->t_split[1];
    r.t_setup_format = s->t_split[2];
    r.t_setup_precond = s->t_split[3];
    r.t_total = spk_time_now() - t0;
    st = outcome(s, &r);
cleanup:
    s->k.race = NULL;
    s->k.begun.on = 0; /* a start made for the race and not taken (the CG alongside answered first) */
    if (st && rc) spk_race_stop(rc); /* after a failure: the error already set is the one to report */
    free(x0_copy);
    if (res) *res = r;
    return st;
}

const char *spk_solver_method(const spk_solver *s)
{
    return s ? spk_solver_kind_name(s->kind) : "";
}

/* Before a solve has built a deferred preconditioner (the race), its kind
 * only: building it here would take from the first solve the time the CG
 * alongside runs in. */
const char *spk_solver_precond(const spk_solver *s)
{
    if (s && s->deferred) return spk_precond_kind_name(s->pkind);
    if (!s || !s->k.M_ops) return "";
    return s->k.M_ops->describe ? s->k.M_ops->describe(s->k.M) : s->k.M_ops->name;
}

int spk_solver_precond_sweeps(const spk_solver *s)
{
    return s && s->k.M_ops && s->k.M_ops->sweeps ? s->k.M_ops->sweeps(s->k.M) : 0;
}

const char *spk_solver_format(const spk_solver *s)
{
    return s && s->k.A_ops ? s->k.A_ops->name : "";
}

const char *spk_solver_format_detail(const spk_solver *s)
{
    if (!s || !s->k.A_ops) return "";
    spk_spmv_stats st;
    s->k.A_ops->stats(s->k.A, &st);
    snprintf(((spk_solver *)s)->format_detail, sizeof s->format_detail, "%s", st.detail);
    return s->format_detail;
}

int spk_solver_colors(const spk_solver *s)
{
    return s && s->perm ? s->ncolors : 0;
}

int spk_solver_levels(const spk_solver *s, int *lower, int *upper, int *natural_lower, int *natural_upper)
{
    if (!s) return SPK_ERR_INVALID_ARG;
    int *out[4] = {lower, upper, natural_lower, natural_upper};
    for (int q = 0; q < 4; q++) {
        if (!out[q]) continue;
        *out[q] = spk_csr_tri_levels(q < 2 ? work_matrix(s) : &s->M->A, q % 2);
        if (*out[q] < 0) return spk_err_set(&s->ctx->err, SPK_ERR_NOMEM, "out of host memory (levels)");
    }
    return SPK_OK;
}

void spk_solver_destroy(spk_solver *s)
{
    if (!s) return;
    spk_csr_free(&s->PA);
    free(s->perm);
    free(s->pmap);
    free(s->pb);
    free(s->px);
    spk_exec *ex = s->ctx->exec;
    if (s->k.A_ops) s->k.A_ops->destroy(s->k.A);
    if (s->k.M_ops) s->k.M_ops->destroy(s->k.M);
    if (s->k.e) spk_krylov_free(&s->k);
    if (s->race_init) {
        spk_race_stop(&s->race);
        race_free(s);
    }
#ifdef SPK_HAVE_CUDA
    spk_cuda_csr_free(&s->blockA);
#endif
    if (s->b) ex->ops->free(ex, s->b);
    if (s->x) ex->ops->free(ex, s->x);
    free(s);
}

/* setup.c -- a solver's setup (include/spk.h, spk_solver_create): AUTO
 * resolved, the matrix checked, the SpMV format and the preconditioner
 * built (on the GPU from one upload of the matrix), the reordering;
 * refactorization on new values; the getters and destruction. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/api_impl.h"
#ifdef SPK_HAVE_CUDA
#include "core/exec_cuda.h"
#endif

/* SPK_PRECOND_SWEEPS_AUTO on the GPU: the most sweeps per triangular solve,
 * and the bound on the sweeps' relative residual on a probe (spk_precond_opts
 * .sweeps_check, precond/devsweep.c): the fewest sweeps from 2 that meet it,
 * exact solves where none does (the choice of these values:
 * docs/notes/precond-sweeps.md). */
#define GPU_SWEEPS 16
#define GPU_SWEEPS_CHECK_IC0 0.02
#define GPU_SWEEPS_CHECK_ILU0 0.05
/* ... and beyond SPK_DEV_SMALL_ROWS rows fewer sweeps where the preconditioner
 * they apply stays close to the exact one (spk_precond_opts.sweeps_rho): for
 * CG the iterations grow by at most sqrt((1 + rho) / (1 - rho)) = 1.22x at
 * 0.2; BiCGStab has no such root, so (1 + rho) / (1 - rho) = 1.22 at 0.1
 * (BiCGStab's iterations grew more at 0.2: docs/notes/benchmarks-log.md). */
#define GPU_SWEEPS_RHO_IC0 0.2
#define GPU_SWEEPS_RHO_ILU0 0.1

/* The preconditioner's table entry for kind s->pkind and the options
 * (IC(0)/ILU(0) applied by sweeps or approximate inverses: "ic0-sweeps",
 * "ilu0-isai", ...), its options set in s->popts. */
int spk_solver_precond_ops(spk_solver *s, const struct spk_precond_ops **ops)
{
    spk_exec *e = s->ctx->exec;
    const int factor = s->pkind == SPK_PRECOND_ILU0 || s->pkind == SPK_PRECOND_IC0;
    int sweeps = s->opts.precond_sweeps;
    s->popts.sweeps_check = 0;
    s->popts.sweeps_rho = 0;
    /* the block iterations (fused.c) will apply M, in one block (1: the
     * sweeps compare the block's ways) or in a cluster (2: their sweeps) */
    const spk_csr *W = spk_solver_work(s);
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
    return spk_precond_find(name, e, ops, e->err);
}

/* Create (or recreate) the preconditioner of kind s->pkind. */
int spk_solver_make_precond(spk_solver *s)
{
    spk_exec *e = s->ctx->exec;
    if (s->k.M_ops) s->k.M_ops->destroy(s->k.M);
    s->k.M_ops = NULL;
    s->k.M = NULL;
    const struct spk_precond_ops *ops;
    SPK_TRY(spk_solver_precond_ops(s, &ops));
    /* spk_options.pivot: ILU(0) or Jacobi of a nonsymmetric method built on the rows a matching
     * permuted, always (on) or where they meet a zero pivot or diagonal entry (auto) */
    const int can_pivot = s->opts.pivot != SPK_PIVOT_OFF && s->kind != SPK_SOLVER_CG && !s->perm &&
                          (s->pkind == SPK_PRECOND_ILU0 || s->pkind == SPK_PRECOND_JACOBI);
    int st;
    if (can_pivot && s->opts.pivot == SPK_PIVOT_ON)
        st = spk_precond_pivot(e, spk_solver_work(s), ops, &s->popts, &ops, &s->k.M);
    else if (s->dA && ops->create_dev)
        st = ops->create_dev(e, spk_solver_work(s), s->dA, &s->popts, &s->k.M);
    else
        st = ops->create(e, spk_solver_work(s), &s->popts, &s->k.M);
    if (st == SPK_ERR_ZERO_PIVOT && can_pivot && s->opts.pivot == SPK_PIVOT_AUTO) {
        char first[SPK_ERR_MSG_MAX];
        snprintf(first, sizeof first, "%s", e->err->msg);
        spk_err_clear(e->err);
        st = spk_precond_pivot(e, spk_solver_work(s), ops, &s->popts, &ops, &s->k.M);
        if (st == SPK_ERR_ZERO_PIVOT) spk_err_prefix(e->err, "after static pivoting (without it: %.300s)", first);
    }
    SPK_TRY(st);
    s->k.M_ops = ops;
    return SPK_OK;
}

/* The race's sides' work vectors (spk_krylov_init), freed. */
void spk_solver_race_free(spk_solver *s)
{
    for (int w = 0; w < SPK_RACE_SIDES; w++)
        if (s->race.side[w].k.e) spk_krylov_free(&s->race.side[w].k);
    s->race_init = 0;
}

/* A factorization failure of the reordered matrix names its row there: add
 * which row of A that is. */
int spk_solver_original_row(spk_solver *s, int st)
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
    const spk_csr *A = spk_solver_work(s);
    const spk_exec *ex = s->ctx->exec;
    return s->opts.race && asked == SPK_PRECOND_AUTO && s->kind == SPK_SOLVER_CG && s->pkind == SPK_PRECOND_IC0 &&
           spk_race_cuda_can(ex) &&
           s->opts.vector_ops == SPK_VECTOR_BLOCK && A->nrows <= SPK_BLOCK_ROWS &&
           A->nnz <= SPK_BLOCK_CLUSTER_NNZ_MAX && !s->perm && !s->opts.keep_history && !s->opts.monitor &&
           !s->opts.iterate;
}

static int precond_setup(spk_solver *s);

/* spk_options.probe: the default's preconditioner (SPK_PRECOND_AUTO) is
 * chosen by measuring the first solve (probe.c), where the race does not
 * run and nobody watches the iterations (a history or a monitor would see
 * several runs). */
static int probe_applies(const spk_solver *s, spk_precond_kind asked)
{
    return s->opts.probe && asked == SPK_PRECOND_AUTO && !s->opts.keep_history && !s->opts.monitor &&
           !s->opts.iterate;
}

/* The probe's cheap preconditioner: Jacobi where every diagonal entry is
 * stored and nonzero (positive for CG) and they are not all equal (where
 * they are, Jacobi only scales), else none.  dg: what the device's pass over
 * A found (nonzero, all equal, positive), or NULL: a pass on the host. */
static int cheap_precond(const spk_csr *A, spk_solver_kind kind, const int *dg, spk_precond_kind *out, spk_err *e)
{
    int jacobi = 1, varies = 0;
    if (dg) {
        jacobi = dg[0] && (kind != SPK_SOLVER_CG || dg[2]);
        varies = !dg[1];
    } else {
        double *d = spk_malloc((size_t)A->nrows + 1, sizeof(double), "the diagonal", e);
        if (!d) return SPK_ERR_NOMEM;
        jacobi = spk_csr_diagonal(A, d) == 0;
        for (int i = 0; i < A->nrows && jacobi; i++) {
            jacobi = d[i] != 0 && isfinite(d[i]) && !(kind == SPK_SOLVER_CG && d[i] < 0);
            varies |= d[i] != d[0];
        }
        free(d);
    }
    *out = jacobi && varies ? SPK_PRECOND_JACOBI : SPK_PRECOND_NONE;
    return SPK_OK;
}

/* Resolve AUTO, check the matrix fits the method, build SpMV and preconditioner. */
static int solver_setup_with(spk_solver *s, spk_solver_kind kind, spk_precond_kind pkind)
{
    const spk_precond_kind pkind_asked = pkind;
    s->pasked = pkind;
    spk_err *e = &s->ctx->err;
    spk_exec *ex = s->ctx->exec;
    const spk_csr *A = spk_solver_work(s);
    int need_sym = kind == SPK_SOLVER_AUTO || kind == SPK_SOLVER_CG || pkind == SPK_PRECOND_IC0;
    int sym = 0, posdiag = 0, stencil = 0, dg[3] = {0, 0, 0}, have_dg = 0; /* dg: as cheap_precond reads it */
    double t = spk_time_now();
#ifdef SPK_HAVE_CUDA
    if (s->dA && (need_sym || pkind == SPK_PRECOND_AUTO)) {
        SPK_TRY(spk_cuda_csr_symmetry(ex, s->dA, 1e-12, NULL, &sym, &posdiag, &stencil, &dg[0], &dg[1]));
        dg[2] = posdiag;
        have_dg = 1;
        need_sym = 0;
    }
#endif
    if (need_sym) {
        SPK_TRY(spk_csr_symmetry(A, 1e-12, NULL, &sym, e));
        if (kind == SPK_SOLVER_AUTO) SPK_TRY(spk_matrix_positive_diagonal(A, &posdiag, e));
    }
    if (kind == SPK_SOLVER_AUTO) kind = sym && posdiag ? SPK_SOLVER_CG : SPK_SOLVER_BICGSTAB;
    /* AUTO: IC(0) for CG, ILU(0) for BiCGStab; on the GPU none for a matrix
     * shaped like a Laplacian (spk_csr_stencil_like), where they cut the
     * iterations less than their apply costs (docs/benchmarks.md) */
    const int probe = probe_applies(s, pkind);
    if (pkind == SPK_PRECOND_AUTO && s->dA && stencil && !probe) pkind = SPK_PRECOND_NONE;
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
    spk_spmv_opts_of(&s->opts, &so);
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
    memset(&s->probe, 0, sizeof s->probe);
    if (probe) { /* the cheap preconditioner first; the first solve measures (probe.c) */
        s->probe.on = 1;
        s->probe.strong = s->pkind;
        SPK_TRY(cheap_precond(A, s->kind, have_dg ? dg : NULL, &s->probe.cheap, e));
        s->probe.cheap_kind = s->kind;
        s->pkind = s->probe.cheap;
    }
    return precond_setup(s);
}

int spk_solver_use_precond(spk_solver *s, spk_solver_kind kind, spk_precond_kind pkind, double *secs)
{
    const double t = spk_time_now();
    s->kind = kind;
    s->pkind = pkind;
#ifdef SPK_HAVE_CUDA
    s->dA = s->blockA.rowptr ? &s->blockA : NULL;
#endif
    const int st = precond_setup(s);
    s->dA = NULL;
    *secs = spk_time_now() - t;
    return st;
}

/* Build the preconditioner of kind s->pkind (SPK_SOLVER_AUTO: BiCGStab +
 * ILU(0) where IC(0) fails even with shifts); into s->t_split[3]. */
static int precond_setup(spk_solver *s)
{
    spk_err *e = &s->ctx->err;
    spk_exec *ex = s->ctx->exec;
    const double t = spk_time_now();
    s->deferred = 0;
    int st = spk_solver_original_row(s, spk_solver_make_precond(s));
    if (st == SPK_ERR_ZERO_PIVOT && s->auto_kind && s->auto_precond && s->popts.allow_shift &&
        s->pkind == SPK_PRECOND_IC0) {
        /* IC(0) failed even with shifts: A is unlikely SPD; use BiCGStab + ILU(0).  Without
         * shifting the caller asked to see the pivot failure, so it is reported instead. */
        s->kind = SPK_SOLVER_BICGSTAB;
        s->pkind = SPK_PRECOND_ILU0;
        st = spk_solver_original_row(s, spk_solver_make_precond(s));
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
    const spk_csr *A = spk_solver_work(s);
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

static int solver_create(spk_context *ctx, spk_matrix *A, spk_solver_kind solver,
                         spk_precond_kind precond, const spk_options *opts, spk_solver **out)
{
    spk_err *e = &ctx->err;
    spk_err_clear(e);
    if (!A || !out) return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_solver_create: NULL argument");
    *out = NULL;
    if (A->ctx != ctx)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "the matrix belongs to another context");
    if (solver < SPK_SOLVER_AUTO || solver > SPK_SOLVER_COCG)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "unknown solver kind %d", (int)solver);
    if (solver == SPK_SOLVER_COCG && !A->complex)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "cocg is for complex symmetric matrices; this one is real "
                           "(cg for a symmetric positive definite one)");
    if (precond < SPK_PRECOND_AUTO || precond > SPK_PRECOND_USER)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "unknown preconditioner kind %d", (int)precond);
    const spk_options *o = opts;
    spk_options defaults;
    if (!o) {
        spk_options_default(&defaults);
        o = &defaults;
    }
    if (precond == SPK_PRECOND_USER && !o->precond_apply)
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "SPK_PRECOND_USER needs spk_options.precond_apply (spk_options_set_precond)");
    if (precond == SPK_PRECOND_USER && o->reorder != SPK_REORDER_NONE)
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "reorder orders the rows for the factorizations; the caller's preconditioner "
                           "works in the caller's order: use reorder none with SPK_PRECOND_USER");
    spk_solver *s = calloc(1, sizeof *s);
    if (!s) return spk_err_set(e, SPK_ERR_NOMEM, "out of host memory (solver)");
    s->ctx = ctx;
    s->M = A;
    spk_context_hold(ctx);
    spk_matrix_hold(A);
    s->opts = *o;
    /* the caller's preconditioner waits for its copies on the GPU: fused steps, not graphs */
    if (precond == SPK_PRECOND_USER && s->opts.vector_ops > SPK_VECTOR_FUSED) s->opts.vector_ops = SPK_VECTOR_FUSED;
    if (s->opts.format) {
        if (strlen(s->opts.format) >= sizeof s->format_name) {
            spk_solver_destroy(s);
            return spk_err_set(e, SPK_ERR_NOT_FOUND, "unknown SpMV format '%.40s...' (name too long)",
                               s->opts.format);
        }
        snprintf(s->format_name, sizeof s->format_name, "%s", s->opts.format);
        s->opts.format = s->format_name;
    }
    s->auto_kind = solver == SPK_SOLVER_AUTO;
    s->auto_precond = precond == SPK_PRECOND_AUTO || precond == SPK_PRECOND_FACTOR;
    int st;
    SPK_CHECK(st, spk_options_validate(&s->opts, "spk_options.", e));
    if (A->complex) {
        SPK_CHECK(st, spk_zsolver_setup(s, solver, precond));
        *out = s;
        return SPK_OK;
    }
    spk_precond_opts_of(&s->opts, &s->popts);
    SPK_CHECK(st, spk_krylov_init(&s->k, ctx->exec, A->A.nrows, s->opts.maxit, s->opts.keep_history));
    if (s->opts.reorder != SPK_REORDER_NONE) SPK_CHECK(st, reorder_setup(s));
    SPK_CHECK(st, spk_solver_pivot_check(s, solver, precond));
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

int spk_solver_create(spk_context *ctx, spk_matrix *A, spk_solver_kind solver,
                      spk_precond_kind precond, const spk_options *opts, spk_solver **out)
{
    if (!ctx) return SPK_ERR_INVALID_ARG;
    const int threads = spk_threads_enter(ctx);
    const int st = solver_create(ctx, A, solver, precond, opts, out);
    spk_threads_leave(ctx, threads);
    return st;
}

/* New matrix values since setup: update the SpMV storage and refactor. */
int spk_solver_refresh(spk_solver *s)
{
    double t0 = spk_time_now();
    if (s->perm)
        for (int k = 0; k < s->PA.nnz; k++) s->PA.val[k] = s->M->A.val[s->pmap[k]];
    const spk_csr *A = spk_solver_work(s);
    spk_exec *ex = s->ctx->exec;
    if (s->k.A_ops->update) {
        SPK_TRY(s->k.A_ops->update(s->k.A, A));
    } else {
        spk_spmv_opts so;
        spk_spmv_opts_of(&s->opts, &so);
        s->k.A_ops->destroy(s->k.A);
        s->k.A = NULL;
        SPK_TRY(s->k.A_ops->create(ex, A, &so, &s->k.A));
    }
    if (!s->deferred) SPK_TRY(spk_solver_original_row(s, s->k.M_ops->refactor(s->k.M, A)));
#ifdef SPK_HAVE_CUDA
    if (s->k.dA)
        SPK_TRY(spk_cuda_upload(ex, s->blockA.val, A->val, (size_t)A->nnz * sizeof(double), "the matrix's new values"));
#endif
    s->version = s->M->version;
    s->t_setup = spk_time_now() - t0;
    return SPK_OK;
}

/* The preconditioner the first solve builds (spk_solver.deferred), from
 * the copy of A the block iterations keep; its seconds added to s->t_setup
 * (the setup this solve reports: the solver's or a refactorization's). */
int spk_solver_deferred_setup(spk_solver *s)
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

const char *spk_solver_method(const spk_solver *s)
{
    if (s && s->z) return spk_zsolver_method(s);
    return s ? spk_solver_kind_name(s->kind) : "";
}

/* Before a solve has built a deferred preconditioner (the race), its kind
 * only: building it here would take from the first solve the time the CG
 * alongside runs in. */
const char *spk_solver_precond(const spk_solver *s)
{
    if (s && s->z) return spk_zsolver_precond(s);
    if (s && s->deferred) return spk_precond_kind_name(s->pkind);
    if (!s || !s->k.M_ops) return "";
    return s->k.M_ops->describe ? s->k.M_ops->describe(s->k.M) : s->k.M_ops->name;
}

int spk_solver_precond_sweeps(const spk_solver *s)
{
    return s && s->k.M_ops && s->k.M_ops->sweeps ? s->k.M_ops->sweeps(s->k.M) : 0;
}

/* How the factor in use was computed; 0 where no built preconditioner tells. */
static int factor_info_of(const spk_solver *s, spk_precond_factor_info *in)
{
    memset(in, 0, sizeof *in);
    return s && !s->deferred && s->k.M_ops && s->k.M_ops->factor_info && !s->k.M_ops->factor_info(s->k.M, in);
}

const char *spk_solver_factorization(const spk_solver *s)
{
    spk_precond_factor_info in;
    if (!factor_info_of(s, &in)) return "";
    char *out = ((spk_solver *)s)->factorization;
    const size_t len = sizeof s->factorization;
    if (in.iterative)
        snprintf(out, len, "by %d sweeps, relative residual %.2g", in.sweeps, in.residual);
    else if (in.fallback)
        snprintf(out, len, "exact (%d sweeps left the residual at %.2g, above factor-tol)", in.sweeps, in.residual);
    else
        snprintf(out, len, "exact");
    return out;
}

int spk_solver_factor_phases(const spk_solver *s, int cap, double *ms, const char **names)
{
    static const char *const label[SPK_SETUP_PHASES] = SPK_SETUP_PHASE_NAMES;
    spk_precond_factor_info in;
    if (!factor_info_of(s, &in)) return 0;
    int any = 0;
    for (int i = 0; i < SPK_SETUP_PHASES; i++) any |= in.phase_ms[i] > 0;
    if (!any) return 0;
    const int k = cap < SPK_SETUP_PHASES ? (cap > 0 ? cap : 0) : SPK_SETUP_PHASES;
    for (int i = 0; i < k; i++) {
        if (ms) ms[i] = in.phase_ms[i];
        if (names) names[i] = label[i];
    }
    return k;
}

const char *spk_solver_format(const spk_solver *s)
{
    if (s && s->z) return spk_zsolver_format(s);
    return s && s->k.A_ops ? s->k.A_ops->name : "";
}

const char *spk_solver_format_detail(const spk_solver *s)
{
    if (s && s->z) return spk_zsolver_format(s);
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
        *out[q] = spk_csr_tri_levels(q < 2 ? spk_solver_work(s) : &s->M->A, q % 2);
        if (*out[q] < 0) return spk_err_set(&s->ctx->err, SPK_ERR_NOMEM, "out of host memory (levels)");
    }
    return SPK_OK;
}

void spk_solver_destroy(spk_solver *s)
{
    if (!s) return;
    spk_zsolver_free(s);
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
        spk_solver_race_free(s);
    }
#ifdef SPK_HAVE_CUDA
    spk_cuda_csr_free(&s->blockA);
#endif
    if (s->probe.xs) ex->ops->free(ex, s->probe.xs);
    if (s->b) ex->ops->free(ex, s->b);
    if (s->x) ex->ops->free(ex, s->x);
    spk_matrix *M = s->M;
    spk_context *ctx = s->ctx;
    free(s);
    spk_matrix_drop(M); /* the matrix, then its context, where they were destroyed before */
    spk_context_drop(ctx);
}

/* devsweep.c -- "ic0-sweeps" and "ilu0-sweeps" on the GPU, resident on the
 * device from the matrix to the applied preconditioner.
 *
 * The host variants (sweep.c) factorize on the host and upload the factor;
 * for a large matrix that host pass costs more than the whole solve.  Here
 * every step runs on the device, from A's CSR arrays in device memory (the
 * solver uploads A once and shares it with the SpMV format, create_dev; the
 * plain create uploads it itself):
 *
 *   pattern   F = A with the diagonal present (IC(0): its lower triangle), by
 *             a count, a scan and a fill (devfactor.cu); the values are kept
 *             apart (v0) for the retries of the shift policy;
 *   numeric   the same IC(0) / ILU(0) as the host's (ic0.c, ilu0.c: the same
 *             formulas, pivot test and shift policy, factor.h), computed by a
 *             synchronization-free kernel, one warp per row: the factor
 *             equals the host's to rounding and a failure names the same row;
 *   apply     each triangular solve T x = b replaced by K Jacobi sweeps
 *             x_{j+1} = D^-1 (b - S x_j) from x_0 = D^-1 b (T = D + S): ILU(0)
 *             unit L then U; IC(0) L, then L^T from a transposed copy of F
 *             (cusparseCsr2cscEx2 after each good factorization); a kernel
 *             per sweep on sliced copies of the triangles (or F itself), or
 *             on small systems all sweeps in one block's kernel; where the
 *             check asks for exact solves, or (up to 4096 rows) they cost
 *             about as much as the sweeps, exact solves in one block or by
 *             cusparseSpSV.  Which of these runs is chosen by timing each
 *             one's apply, replayed from a CUDA graph (devsweep_mode.c).
 *
 * The operator equals the host "ic0-sweeps" / "ilu0-sweeps" with the same K
 * to rounding (for IC(0) it is symmetric positive definite for every K, see
 * sweep.c).  The SpMV format option of the host variant does not apply: the
 * sweeps read F directly.  Refactoring with new values rebuilds everything
 * from the new matrix (an upload, the pattern, the factorization).
 *
 * Small matrices (up to HOST_BUILD_NNZ entries) are built on the host
 * instead, factor, transpose, sliced copies and check, and uploaded in one
 * copy (devsweep_host.c): there the device build costs its launches and
 * waits, not its arithmetic.
 *
 * The steps are in the files devsweep.h lists; this one holds the ops table. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda_module.h"
#include "devsweep.h"
#include "parfactor.h"

/* destroy: every allocation, whichever build made it. */
static void dev_destroy(void *impl)
{
    dev_pc *p = impl;
    if (!p) return;
    if (p->pool) { /* built on the host: one allocation holds them */
        spk_cuda_free(p->e, p->pool);
        p->frp = p->fci = p->dpos = p->tcp = p->tri = NULL;
        p->v = p->tv = p->idiag = p->x0 = p->x1 = p->y = NULL;
        for (int t = 0; t < 2; t++) {
            p->ssp[t] = p->scol[t] = NULL;
            p->sval[t] = NULL;
        }
    }
    if (p->dpool || p->tpool) { /* built on the device: two allocations hold most of them */
        spk_cuda_free(p->e, p->dpool);
        spk_cuda_free(p->e, p->tpool);
        p->fci = p->dpos = p->ctl = p->tcp = p->tri = p->dptr = p->dep = p->indeg = NULL;
        p->order = p->order_buf = p->done = NULL;
        p->v0 = p->v = p->adiag = p->piv = p->idiag = p->x0 = p->x1 = p->y = p->tv = NULL;
        p->missing = p->flag = NULL;
        p->sw[0] = p->sw[1] = p->sw[2] = p->sw[3] = p->spart = p->snorm = NULL;
    }
    void *dev[] = {p->frp, p->fci,  p->dpos, p->v0,  p->v,   p->adiag, p->missing, p->flag, p->dptr, p->dep, p->indeg, p->order, p->done, p->ctl,
                   p->piv, p->idiag, p->tcp, p->tri, p->tv, p->tbuf, p->scan, p->ssp[0], p->ssp[1], p->scol[0], p->scol[1], p->sval[0], p->sval[1],  p->x0,      p->x1,   p->y, p->lmax};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) spk_cuda_free(p->e, dev[i]);
    spk_spsv_pair_free(&p->sp);
    spk_devsweep_iter_release(p);
    free(p);
}

/* Small systems are built on the host (HOST_BUILD_NNZ): on the device the
 * build costs its launches and waits (some 70 for the check alone) more
 * than its arithmetic, which the host does in less time (devsweep_host.c). */
#define HOST_BUILD_NNZ 32768

/* Is the factor of A built on the host (spk_precond_opts.build)? */
static int built_on_host(const spk_csr *A, const spk_precond_opts *o)
{
    return o->build == 1 || (o->build != 2 && A->nnz <= HOST_BUILD_NNZ);
}

/* The build's phase marks: created (make), or read into info.phase_ms and
 * destroyed.  Timing is a report only: a mark that cannot be made or read
 * leaves its phases at 0.  Only pairs of recorded marks are read: a build
 * that the race stopped never records its later marks, and an event never
 * recorded is not one cudaEventElapsedTime may be given. */
static void phase_events(dev_pc *p, int make)
{
    const int last = SPK_SETUP_PHASES;
    if (make) {
        p->marked = 0;
        for (int i = 0; i <= last; i++)
            if (cudaEventCreate(&p->mark[i]) != cudaSuccess) p->mark[i] = NULL;
        (void)cudaGetLastError();
        return;
    }
    int top = -1; /* the last recorded mark: waiting on it waits on every earlier one */
    for (int i = 0; i <= last; i++)
        if (p->marked & (1u << i)) top = i;
    const int ended = top > 0 && cudaEventSynchronize(p->mark[top]) == cudaSuccess;
    for (int i = 0; ended && i < top; i++) {
        float ms = 0;
        if ((p->marked & (1u << i)) && (p->marked & (1u << (i + 1))) &&
            cudaEventElapsedTime(&ms, p->mark[i], p->mark[i + 1]) == cudaSuccess)
            p->info.phase_ms[i] = ms;
    }
    for (int i = 0; i <= last; i++)
        if (p->mark[i]) cudaEventDestroy(p->mark[i]);
    memset(p->mark, 0, sizeof p->mark);
    p->marked = 0;
    (void)cudaGetLastError();
}

/* create_dev (precond.h): the arguments checked, the build on the host or
 * the device (built_on_host), then how apply runs. */
static int dev_create_dev(spk_exec *e, const spk_csr *A, const spk_csr *dA, const spk_precond_opts *o, int ic,
                          void **impl)
{
    const spk_factor_kind *kind = ic ? &spk_ic0_kind : &spk_ilu0_kind;
    if (!impl || !e) return e ? spk_err_set(e->err, SPK_ERR_INVALID_ARG, "%s sweeps: impl is NULL", kind->label)
                              : SPK_ERR_INVALID_ARG;
    *impl = NULL;
    spk_err *err = e->err;
    if (!spk_exec_is_cuda(e))
        return spk_err_set(err, SPK_ERR_INVALID_ARG, "%s sweeps: the GPU preconditioner was given the '%s' executor",
                           kind->label, e->ops->name);
    if (!A || !dA) return spk_err_set(err, SPK_ERR_INVALID_ARG, "%s sweeps: the matrix is NULL", kind->label);
    if (A->nrows != A->ncols)
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX, "%s: the matrix is %d x %d; a square matrix is required",
                           kind->label, A->nrows, A->ncols);
    if ((long long)A->nnz + A->nrows > INT_MAX)
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX,
                           "%s: the matrix with its diagonal has more than %d entries, beyond the 32-bit index "
                           "limit",
                           kind->label, INT_MAX);
    spk_precond_opts def;
    if (!o) {
        spk_precond_opts_default(&def);
        o = &def;
    }
    if (o->sweeps < 1 || o->sweeps > 1000)
        return spk_err_set(err, SPK_ERR_INVALID_ARG,
                           "%s sweeps: the number of sweeps per triangular solve must be in [1, 1000] (got %d)",
                           kind->label, o->sweeps);
    if (o->allow_shift && !(o->shift_init > 0 && isfinite(o->shift_init) && o->shift_max >= o->shift_init &&
                            isfinite(o->shift_max)))
        return spk_err_set(err, SPK_ERR_INVALID_ARG,
                           "%s: shift_init must be a finite number > 0 and shift_max finite and >= shift_init "
                           "(got %g and %g)",
                           kind->label, o->shift_init, o->shift_max);
    if (o->factorization < SPK_FACTORIZATION_AUTO || o->factorization > SPK_FACTORIZATION_ITERATIVE ||
        o->factor_sweeps < 1 || o->factor_sweeps > SPK_FACTOR_SWEEPS_MAX || !(o->factor_tol >= 0 && o->factor_tol < 1))
        return spk_err_set(err, SPK_ERR_INVALID_ARG,
                           "%s: factorization must be auto, exact or iterative (got %d), factor_sweeps in [1, %d] "
                           "(got %d) and factor_tol in [0, 1) (got %g)",
                           kind->label, o->factorization, SPK_FACTOR_SWEEPS_MAX, o->factor_sweeps, o->factor_tol);
    dev_pc *p = calloc(1, sizeof *p);
    if (!p) return spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (%s sweeps)", kind->label);
    p->e = e;
    p->n = A->nrows;
    p->ic = ic;
    p->k = o->sweeps;
    p->single = o->sweeps_float;
    p->opts = *o;
    spk_exec_cuda_handles(e, &p->s, NULL, &p->h);
    /* small: the host builds it (a refactor comes here again with the new values) */
    const int host = built_on_host(A, o);
    if (!host) phase_events(p, 1);
    int st = host ? spk_devsweep_host_build(p, A) : spk_devsweep_build(p, dA);
    if (!st && stopped(p)) st = SPK_PRECOND_STOPPED;
    if (!st) st = host ? spk_devsweep_settle(p) : spk_devsweep_run(p);
    if (!host) phase_events(p, 0);
    p->opts.stop = NULL; /* for this build only */
    p->opts.stop_arg = NULL;
    p->opts.stop_dev = NULL;
    /* the factorization's own arrays are not needed after it */
    spk_devsweep_iter_release(p);
    spk_cuda_free(p->e, p->tpool);
    spk_cuda_free(p->e, p->scan);
    p->tpool = NULL;
    p->dptr = p->dep = p->indeg = p->order = p->order_buf = p->done = NULL;
    p->sw[0] = p->sw[1] = p->sw[2] = p->sw[3] = p->spart = p->snorm = NULL;
    p->scan = NULL;
    if (st) {
        dev_destroy(p);
        return st;
    }
    *impl = p;
    return SPK_OK;
}

/* create: A's arrays uploaded for the build, then released. */
static int dev_create(spk_exec *e, const spk_csr *A, const spk_precond_opts *o, int ic, void **impl)
{
    if (!e || !A || !spk_exec_is_cuda(e)) return dev_create_dev(e, A, NULL, o, ic, impl); /* its messages */
    spk_csr dA;
    int st = spk_cuda_csr_upload(e, A, &dA, "the matrix for the preconditioner");
    if (!st) st = dev_create_dev(e, A, &dA, o, ic, impl);
    spk_cuda_csr_free(&dA);
    return st;
}

static int dev_apply(void *impl, const double *r, double *z)
{
    dev_pc *p = impl;
    if (!p || !r || !z) return SPK_ERR_INVALID_ARG;
    if (!p->valid)
        return spk_err_set(p->e->err, SPK_ERR_ZERO_PIVOT, "%s: no valid factorization to apply (the last refactor failed)",
                           host_kind(p)->label);
    if (p->n == 0) return SPK_OK;
    return spk_devsweep_apply_mode(p, p->mode, r, z);
}

static int dev_sweeps(const void *impl)
{
    const dev_pc *p = impl;
    return p && !p->exact ? p->k : 0;
}

static const char *dev_describe(const void *impl)
{
    const dev_pc *p = impl;
    return p && p->what[0] ? p->what : "";
}

/* New values: everything again from the new matrix, in place of the old. */
static int dev_refactor(void *impl, const spk_csr *A)
{
    dev_pc *p = impl;
    if (!p) return SPK_ERR_INVALID_ARG;
    spk_err *err = p->e->err;
    const char *lb = host_kind(p)->label;
    if (!A) return spk_err_set(err, SPK_ERR_INVALID_ARG, "%s: the matrix is NULL", lb);
    if (A->nrows != p->n || A->ncols != p->n)
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX,
                           "%s: the new matrix is %d x %d, but the preconditioner was set up for %d x %d", lb,
                           A->nrows, A->ncols, p->n, p->n);
    void *fresh = NULL;
    p->valid = 0;
    SPK_TRY(dev_create(p->e, A, &p->opts, p->ic, &fresh));
    dev_pc *q = fresh;
    dev_pc keep = *p;
    *p = *q;
    *q = keep;
    dev_destroy(q);
    return SPK_OK;
}

/* How the factor was computed (precond.h, factor_info). */
static int dev_factor_info(const void *impl, spk_precond_factor_info *out)
{
    const dev_pc *p = impl;
    if (!p || !out) return SPK_ERR_INVALID_ARG;
    *out = p->info;
    return SPK_OK;
}

static double dev_shift(const void *impl)
{
    const dev_pc *p = impl;
    return p ? p->alpha : 0.0;
}

static int ic0_create(spk_exec *e, const spk_csr *A, const spk_precond_opts *o, void **impl)
{
    return dev_create(e, A, o, 1, impl);
}

static int ilu0_create(spk_exec *e, const spk_csr *A, const spk_precond_opts *o, void **impl)
{
    return dev_create(e, A, o, 0, impl);
}

static int ic0_create_dev(spk_exec *e, const spk_csr *A, const spk_csr *dA, const spk_precond_opts *o, void **impl)
{
    return dev_create_dev(e, A, dA, o, 1, impl);
}

static int ilu0_create_dev(spk_exec *e, const spk_csr *A, const spk_csr *dA, const spk_precond_opts *o, void **impl)
{
    return dev_create_dev(e, A, dA, o, 0, impl);
}

/* The apply as one block runs it (precond.h, block): the sweeps, on the
 * sliced copies (the same result to the bit) or, without them, on the
 * factor as stored (the same to rounding); exact solves where one block's
 * solves were timed the faster way (where cusparseSpSV was faster, a
 * block's solves cost more than the launches they save). */
static int dev_block(const void *impl, spk_block_prec *out)
{
    const dev_pc *p = impl;
    memset(out, 0, sizeof *out);
    if (!p || !p->valid || p->n < 1 || p->n > SPK_BLOCK_ROWS || p->lean) return 0;
    out->y = p->y;
    for (int t = 0; t < 2; t++) out->tri[t] = tri_of(p, t);
    if (p->mode == APPLY_SMALL_SOLVE) {
        out->kind = SPK_BLOCK_SOLVE;
        out->shared_bytes = (unsigned)((size_t)p->n * sizeof(double));
        return 1;
    }
    if (p->exact || p->k < 1) return 0;
    out->kind = p->scol[0] && p->scol[1] ? SPK_BLOCK_SWEEPS : SPK_BLOCK_SWEEPS_CSR;
    out->wide = p->longest > SPK_DEV_LONG_ROW;
    out->k = p->k;
    out->single = p->single;
    for (int t = 0; t < 2; t++) {
        out->sp[t] = p->ssp[t];
        out->scol[t] = p->scol[t];
        out->sval[t] = p->sval[t];
        out->id[t] = out->tri[t].id;
    }
    out->shared_bytes = (unsigned)(2 * (size_t)p->n * sizeof(double));
    return 1;
}

/* warm (precond.h): the kernels of devfactor.cu's module, and, where the
 * factor of A with options o is built on the device, cuSPARSE's transpose
 * kernels, by a transpose of a 2 x 2 factor; once per device in a process
 * (a kernel once loaded stays loaded). */
#define WARM_DEVICES 64
static int dev_warm(spk_exec *e, const spk_csr *A, const spk_precond_opts *o)
{
    static int warm[WARM_DEVICES]; /* 1: done on that device */
    int dev = 0, done = 0;
    SPK_CUDA_TRY(e->err, spk_module_preload(spk_devfactor_probe(), &done));
    if (built_on_host(A, o)) return SPK_OK;
    SPK_CUDA_TRY(e->err, cudaGetDevice(&dev));
    if (dev >= 0 && dev < WARM_DEVICES && __atomic_load_n(&warm[dev], __ATOMIC_ACQUIRE)) return SPK_OK;
    static const int rp[3] = {0, 2, 3}, ci[3] = {0, 1, 1};
    static const double v[3] = {2, -1, 2};
    cudaStream_t s;
    cusparseHandle_t h;
    spk_exec_cuda_handles(e, &s, NULL, &h);
    void *d = NULL, *buf = NULL;
    const size_t bytes = 2 * (3 * sizeof(int) + 3 * sizeof(int) + 3 * sizeof(double));
    SPK_TRY(spk_cuda_alloc(e, bytes, "a 2 x 2 transpose", &d));
    int *drp = d, *dci = drp + 3, *tcp = dci + 3, *tri = tcp + 3;
    double *dv = (double *)(tri + 3), *tv = dv + 3;
    size_t need = 0;
    int st = spk_cuda_check(e->err, cudaMemcpyAsync(drp, rp, sizeof rp, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync");
    if (!st) st = spk_cuda_check(e->err, cudaMemcpyAsync(dci, ci, sizeof ci, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync");
    if (!st) st = spk_cuda_check(e->err, cudaMemcpyAsync(dv, v, sizeof v, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync");
    if (!st)
        st = spk_cusparse_check(e->err, cusparseCsr2cscEx2_bufferSize(h, 2, 2, 3, dv, drp, dci, tv, tcp, tri, CUDA_R_64F,
                                                                      CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                                                      CUSPARSE_CSR2CSC_ALG1, &need),
                                "cusparseCsr2cscEx2_bufferSize");
    if (!st) st = spk_cuda_alloc(e, need ? need : 1, "a 2 x 2 transpose", &buf);
    if (!st)
        st = spk_cusparse_check(e->err, cusparseCsr2cscEx2(h, 2, 2, 3, dv, drp, dci, tv, tcp, tri, CUDA_R_64F,
                                                           CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                                           CUSPARSE_CSR2CSC_ALG1, buf),
                                "cusparseCsr2cscEx2");
    if (!st) st = spk_cuda_check(e->err, cudaStreamSynchronize(s), "cudaStreamSynchronize");
    spk_cuda_free(e, buf);
    spk_cuda_free(e, d);
    if (!st && dev >= 0 && dev < WARM_DEVICES) __atomic_store_n(&warm[dev], 1, __ATOMIC_RELEASE);
    return st;
}

const struct spk_precond_ops spk_precond_ic0_sweeps_cuda = {
    "ic0-sweeps", "cuda", ic0_create, dev_apply, dev_refactor, dev_destroy, dev_shift, dev_describe, ic0_create_dev,
    dev_block, dev_sweeps, dev_warm, dev_factor_info,
};
const struct spk_precond_ops spk_precond_ilu0_sweeps_cuda = {
    "ilu0-sweeps", "cuda", ilu0_create, dev_apply, dev_refactor, dev_destroy, dev_shift, dev_describe,
    ilu0_create_dev, dev_block, dev_sweeps, dev_warm, dev_factor_info,
};

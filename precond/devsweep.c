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
 *             one's apply, replayed from a CUDA graph (pick_mode).
 *
 * The operator equals the host "ic0-sweeps" / "ilu0-sweeps" with the same K
 * to rounding (for IC(0) it is symmetric positive definite for every K, see
 * sweep.c).  The SpMV format option of the host variant does not apply: the
 * sweeps read F directly.  Refactoring with new values rebuilds everything
 * from the new matrix (an upload, the pattern, the factorization).
 *
 * Small matrices (up to HOST_BUILD_NNZ entries) are built on the host
 * instead, factor, transpose, sliced copies and check, and uploaded in one
 * copy (host_build): there the device build costs its launches and waits,
 * not its arithmetic. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/exec_cuda.h"
#include "devfactor.h"
#include "factor.h"
#include "spsv.h"

typedef struct dev_pc {
    spk_exec *e;
    cudaStream_t s;
    cusparseHandle_t h;
    int n, nnz, ic, k;         /* nnz of F; ic: IC(0); k sweeps per triangle */
    int tpr[2];                /* threads per row of each triangle's sweeps */
    int group;                 /* lanes per row of the factorization */
    spk_precond_opts opts;
    int *frp, *fci, *dpos;     /* F */
    double *v0, *v;            /* A's values in F's pattern, and the factor */
    double *adiag;
    unsigned char *missing, *flag;
    int *ctl;                  /* ctl[0]: ticket, ctl[1]: first failing row, ctl[2]: queue tail */
    int *dptr, *dep, *indeg;   /* the rows' dependencies, for the order (freed after it) */
    int *order, *done;         /* the factorization's order and done flags (freed after the shift policy) */
    void *scan;                /* scan workspace of the build */
    double *piv, *idiag;
    int *tcp, *tri;            /* IC(0): L^T in CSR (F transposed) */
    double *tv;
    void *tbuf;
    size_t tbuf_bytes;
    double *x0, *x1, *y;       /* sweep vectors */
    int *ssp[2], *scol[2];     /* each triangle's strict part as sliced ELL (NULL: the sweeps read F) */
    void *sval[2];
    int single;                /* the sliced copies hold float values */
    int lean;                  /* the sliced copies are lean (slice; devfactor.h, spk_dev_lean_sweep) */
    int narrow[2];             /* ... with 16-bit column offsets */
    int wide[2];               /* ... a sweep's thread per row (else per two rows) */
    double idmax[2];           /* ... max |d_i| of each triangle's D^-1 (1: D = I) */
    unsigned long long *lmax;  /* ... max |r| and max |y| of an apply (float iterates' scales) */
    int small_ok;              /* the sweeps can run as one block's kernel (spk_dev_small_apply) */
    int longest;               /* the most entries in a row of a triangle's strict part (host_build; -1: not known) */
    int mode;                  /* how apply runs (APPLY_*), chosen by time where the choice is free */
    double alpha;
    int valid;
    int exact;                 /* 1: exact solves (cusparseSpSV on F), the sweeps' check failed */
    double check;              /* the check's result: the sweeps' last update over the result */
    spk_spsv_pair sp;          /* exact: the solves */
    void *pool;                /* built on the host (host_build): every array above in one allocation */
    void *dpool, *tpool;       /* built on the device (build): the factor's arrays, and the
                                  factorization's own (freed after it) */
    double *sw[4], *spart, *snorm; /* ... in tpool: the check's and the test's vectors and norms */
    char what[64];             /* describe() */
} dev_pc;

/* The ways to apply the preconditioner: K sweeps a kernel each, or in one
 * block's kernel (equal to the bit); exact solves in one block, or by
 * cusparseSpSV (equal to rounding). */
enum { APPLY_SWEEPS, APPLY_SMALL_SWEEPS, APPLY_SMALL_SOLVE, APPLY_SPSV };

static const spk_factor_kind *host_kind(const dev_pc *p)
{
    return p->ic ? &spk_ic0_kind : &spk_ilu0_kind;
}

/* Where the sweeps of triangle t (0: L, 1: U or L^T) read F: row i's strict
 * entries are at [beg[i] + boff, end[i] + eoff) of col and val, and id is
 * D^-1 (NULL: D = I). */
typedef spk_dev_tri tri_view;

/* The arrays of a factor (on the device, or their host copies). */
typedef struct fac_arrays {
    const int *frp, *fci, *dpos, *tcp, *tri;
    const double *v, *tv, *idiag;
} fac_arrays;

static tri_view tri_at(int ic, int t, const fac_arrays *a)
{
    tri_view v;
    if (t == 0) { /* IC(0): L = [S D] by rows; ILU(0): unit L below dpos */
        v.beg = a->frp, v.boff = 0, v.col = a->fci, v.val = a->v;
        v.end = ic ? a->frp + 1 : a->dpos, v.eoff = ic ? -1 : 0;
        v.id = ic ? a->idiag : NULL;
    } else if (ic) { /* L^T: its rows are L's columns, the diagonal first */
        v.beg = a->tcp, v.boff = 1, v.end = a->tcp + 1, v.eoff = 0, v.col = a->tri, v.val = a->tv, v.id = a->idiag;
    } else { /* U after dpos */
        v.beg = a->dpos, v.boff = 1, v.end = a->frp + 1, v.eoff = 0, v.col = a->fci, v.val = a->v, v.id = a->idiag;
    }
    return v;
}

static tri_view tri_of(const dev_pc *p, int t)
{
    const fac_arrays a = {p->frp, p->fci, p->dpos, p->tcp, p->tri, p->v, p->tv, p->idiag};
    return tri_at(p->ic, t, &a);
}

static void dev_destroy(void *impl)
{
    dev_pc *p = impl;
    if (!p) return;
    if (p->pool) { /* host_build: one allocation holds them */
        spk_cuda_free(p->e, p->pool);
        p->frp = p->fci = p->dpos = p->tcp = p->tri = NULL;
        p->v = p->tv = p->idiag = p->x0 = p->x1 = p->y = NULL;
        for (int t = 0; t < 2; t++) {
            p->ssp[t] = p->scol[t] = NULL;
            p->sval[t] = NULL;
        }
    }
    if (p->dpool || p->tpool) { /* build: two allocations hold most of them */
        spk_cuda_free(p->e, p->dpool);
        spk_cuda_free(p->e, p->tpool);
        p->fci = p->dpos = p->ctl = p->tcp = p->tri = p->dptr = p->dep = p->indeg = p->order = p->done = NULL;
        p->v0 = p->v = p->adiag = p->piv = p->idiag = p->x0 = p->x1 = p->y = p->tv = NULL;
        p->missing = p->flag = NULL;
        p->sw[0] = p->sw[1] = p->sw[2] = p->sw[3] = p->spart = p->snorm = NULL;
    }
    void *dev[] = {p->frp, p->fci,  p->dpos, p->v0,  p->v,   p->adiag, p->missing, p->flag, p->dptr, p->dep, p->indeg, p->order, p->done, p->ctl,
                   p->piv, p->idiag, p->tcp, p->tri, p->tv, p->tbuf, p->scan, p->ssp[0], p->ssp[1], p->scol[0], p->scol[1], p->sval[0], p->sval[1],  p->x0,      p->x1,   p->y, p->lmax};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) spk_cuda_free(p->e, dev[i]);
    spk_spsv_pair_free(&p->sp);
    free(p);
}

/* Bytes of an array of m elements of size sz, rounded up for alignment. */
static size_t span(size_t m, size_t sz)
{
    return (m * sz + 255) / 256 * 256;
}

/* Threads per row of a sweep: a power of two near the average row length. */
static int threads_for(double avg)
{
    int t = 1;
    while (t < 32 && 2 * t <= avg) t *= 2;
    return t;
}

/* Up to this many rows the factorization runs in row order: every row is
 * then in the groups in flight at once, and the computed order costs a
 * step per level of the dependency graph (many on matrices with long
 * chains).  Beyond, on 3D grids, row order lets the groups in flight wait
 * on each other's chains. */
#define ROW_ORDER_ROWS 65536

#define CHECK_KMAX 64                      /* the most sweeps the check tries (check) */
#define SCRATCH_NORMS (2 * CHECK_KMAX + 1) /* the most norms it reads back at once */

/* The pattern and values of F from dA, and every buffer. */
static int build(dev_pc *p, const spk_csr *dA)
{
    spk_exec *e = p->e;
    spk_err *err = e->err;
    const int n = p->n;
    const size_t nb = (size_t)n;
    size_t tb = 0;
    SPK_TRY(spk_cuda_alloc(e, (nb + 1) * sizeof(int), "the factor's row pointers", (void **)&p->frp));
    SPK_CUDA_TRY(err, spk_dev_pattern_temp(n, &tb));
    SPK_TRY(spk_cuda_alloc(e, tb ? tb : 1, "the factor's pattern workspace", &p->scan));
    SPK_CUDA_TRY(err, spk_dev_pattern_rows(p->s, n, p->ic, dA->rowptr, dA->colind, p->frp, p->scan, tb));
    int nnz = 0;
    SPK_CUDA_TRY(err, cudaMemcpyAsync(&nnz, p->frp + n, sizeof(int), cudaMemcpyDeviceToHost, p->s));
    SPK_CUDA_TRY(err, cudaStreamSynchronize(p->s));
    p->nnz = nnz;
    /* the factor's arrays in one allocation (dpool); the factorization's
     * own and the check's and the test's scratch in another (tpool, freed
     * after them): not 30 allocations and frees, each a call, and each
     * cudaFree waiting for the device.  Peak memory during the setup grows
     * by the dependency lists and the order, which were freed early. */
    const int ordered = n > ROW_ORDER_ROWS, ic = p->ic && n > 0;
    const size_t dn = (size_t)nnz, nstrict = (size_t)(nnz - n > 0 ? nnz - n : 1);
    size_t off = 0, o_fci, o_v0, o_v, o_dpos, o_adiag, o_miss, o_flag, o_ctl, o_piv, o_id, o_x0, o_x1, o_y;
    size_t o_tcp = 0, o_tri = 0, o_tv = 0;
    o_fci = off, off += span(dn, sizeof(int));
    o_v0 = off, off += span(dn, sizeof(double));
    o_v = off, off += span(dn, sizeof(double));
    o_dpos = off, off += span(nb, sizeof(int));
    o_adiag = off, off += span(nb, sizeof(double));
    o_miss = off, off += span(nb, 1);
    o_flag = off, off += span(nb, 1);
    o_ctl = off, off += span(3, sizeof(int));
    o_piv = off, off += span(nb, sizeof(double));
    o_id = off, off += span(nb, sizeof(double));
    o_x0 = off, off += span(nb, sizeof(double));
    o_x1 = off, off += span(nb, sizeof(double));
    o_y = off, off += span(nb, sizeof(double));
    if (ic) {
        o_tcp = off, off += span(nb + 1, sizeof(int));
        o_tri = off, off += span(dn, sizeof(int));
        o_tv = off, off += span(dn, sizeof(double));
    }
    SPK_TRY(spk_cuda_alloc(e, off, "the preconditioner's factor", &p->dpool));
    unsigned char *d = p->dpool;
    p->fci = (int *)(d + o_fci), p->v0 = (double *)(d + o_v0), p->v = (double *)(d + o_v);
    p->dpos = (int *)(d + o_dpos), p->adiag = (double *)(d + o_adiag);
    p->missing = d + o_miss, p->flag = d + o_flag, p->ctl = (int *)(d + o_ctl);
    p->piv = (double *)(d + o_piv), p->idiag = (double *)(d + o_id);
    p->x0 = (double *)(d + o_x0), p->x1 = (double *)(d + o_x1), p->y = (double *)(d + o_y);
    if (ic) p->tcp = (int *)(d + o_tcp), p->tri = (int *)(d + o_tri), p->tv = (double *)(d + o_tv);
    size_t toff = 0, o_done, o_dptr = 0, o_dep = 0, o_indeg = 0, o_order = 0;
    o_done = toff, toff += span(nb, sizeof(int));
    if (ordered) {
        o_dptr = toff, toff += span(nb + 1, sizeof(int));
        o_dep = toff, toff += span(nstrict, sizeof(int)); /* F's strictly lower entries: at most nnz - n */
        o_indeg = toff, toff += span(nb, sizeof(int));
        o_order = toff, toff += span(nb, sizeof(int));
    }
    /* the check's and the test's scratch (scratch_get) */
    const size_t nparts = (size_t)spk_dev_norm_parts(n), o_sw = toff;
    toff += 4 * span(nb, sizeof(double));
    const size_t o_spart = toff;
    toff += span(SCRATCH_NORMS * nparts, sizeof(double));
    const size_t o_snorm = toff;
    toff += span(SCRATCH_NORMS, sizeof(double));
    SPK_TRY(spk_cuda_alloc(e, toff, "the factorization's work space", &p->tpool));
    unsigned char *tp = p->tpool;
    p->done = (int *)(tp + o_done);
    for (int i = 0; i < 4; i++) p->sw[i] = (double *)(tp + o_sw + (size_t)i * span(nb, sizeof(double)));
    p->spart = (double *)(tp + o_spart);
    p->snorm = (double *)(tp + o_snorm);
    SPK_CUDA_TRY(err, spk_dev_pattern_fill(p->s, n, p->ic, dA->rowptr, dA->colind, dA->val, p->frp, p->fci, p->v0,
                                           p->dpos, p->adiag, p->missing));
    if (ordered) { /* the factorization's order, from the rows' dependencies */
        p->dptr = (int *)(tp + o_dptr), p->dep = (int *)(tp + o_dep), p->indeg = (int *)(tp + o_indeg);
        p->order = (int *)(tp + o_order);
        SPK_CUDA_TRY(err, spk_dev_deps(p->s, n, p->ic, p->frp, p->fci, p->dpos, p->dptr, p->dep, p->indeg, p->scan, tb));
        SPK_CUDA_TRY(err, spk_dev_order(p->s, n, p->ic, p->frp, p->dpos, p->dptr, p->dep, p->indeg, p->order, p->ctl));
    }
    if (ic) {
        SPK_CUSPARSE_TRY(err, cusparseCsr2cscEx2_bufferSize(p->h, n, n, nnz, p->v, p->frp, p->fci, p->tv, p->tcp,
                                                            p->tri, CUDA_R_64F, CUSPARSE_ACTION_NUMERIC,
                                                            CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1,
                                                            &p->tbuf_bytes));
        SPK_TRY(spk_cuda_alloc(e, p->tbuf_bytes ? p->tbuf_bytes : 1, "the transpose workspace", &p->tbuf));
    }
    /* strict triangles: IC(0) both nnz - n; ILU(0) about half of nnz - n each */
    const double strict = n > 0 ? (double)(nnz - n) / n : 0;
    p->tpr[0] = p->tpr[1] = threads_for(p->ic ? strict : strict / 2);
    /* lanes per row of the factorization: 4, 8 from about six entries per
     * row of the triangle (of 2, 4 and 8, the faster by timing) */
    p->group = (p->ic ? strict : strict / 2) >= 6 ? 8 : 4;
    return SPK_OK;
}

/* Factorize A + alpha*diag(A): 0, -1 with the failure, SPK_PRECOND_STOPPED
 * (opts.stop_dev), or an error. */
static int numeric(dev_pc *p, double alpha, spk_factor_fail *fail)
{
    spk_err *err = p->e->err;
    const int n = p->n;
    if (n == 0) return 0;
    int ctl[3] = {0, INT_MAX, 0};
    SPK_CUDA_TRY(err, cudaMemcpyAsync(p->v, p->v0, (size_t)p->nnz * sizeof(double), cudaMemcpyDeviceToDevice, p->s));
    SPK_CUDA_TRY(err, cudaMemsetAsync(p->flag, 0, (size_t)n, p->s));
    SPK_CUDA_TRY(err, cudaMemcpyAsync(p->ctl, ctl, sizeof ctl, cudaMemcpyHostToDevice, p->s));
    SPK_CUDA_TRY(err, spk_dev_factor(p->s, n, p->ic, p->group, p->frp, p->fci, p->dpos, p->v, alpha, p->order,
                                     p->done, p->ctl, p->piv, p->idiag, p->flag, p->opts.stop_dev,
                                     p->opts.stop_value));
    SPK_CUDA_TRY(err, cudaMemcpyAsync(ctl, p->ctl, sizeof ctl, cudaMemcpyDeviceToHost, p->s));
    SPK_CUDA_TRY(err, cudaStreamSynchronize(p->s));
    if (ctl[2]) return SPK_PRECOND_STOPPED; /* ended early by opts.stop_dev: no factor */
    if (ctl[1] == INT_MAX) return 0;
    const int row = ctl[1];
    double pv = 0;
    unsigned char fl = 0;
    SPK_CUDA_TRY(err, cudaMemcpyAsync(&pv, p->piv + row, sizeof pv, cudaMemcpyDeviceToHost, p->s));
    SPK_CUDA_TRY(err, cudaMemcpyAsync(&fl, p->flag + row, 1, cudaMemcpyDeviceToHost, p->s));
    SPK_CUDA_TRY(err, cudaStreamSynchronize(p->s));
    fail->row = row;
    fail->pivot = pv;
    fail->overflow = fl == 2;
    return -1;
}

/* A host copy of what the failure message and the hopeless test read:
 * the pattern, the diagonal positions and A's diagonal (failures only). */
static int shadow_of(const dev_pc *p, spk_factor **out)
{
    spk_err *err = p->e->err;
    const int n = p->n;
    spk_factor *f = spk_calloc(1, sizeof *f, "factorization report", err);
    if (!f) return SPK_ERR_NOMEM;
    f->kind = host_kind(p);
    f->exec = p->e;
    f->opts = p->opts;
    f->n = n;
    int st = spk_csr_alloc(&f->F, n, n, p->nnz, err);
    f->diag = spk_malloc((size_t)n, sizeof(int), "diagonal positions", err);
    f->adiag = spk_malloc((size_t)n, sizeof(double), "diagonal of A", err);
    f->missing = spk_malloc((size_t)n, 1, "diagonal flags", err);
    if (!st && (!f->diag || !f->adiag || !f->missing)) st = SPK_ERR_NOMEM;
    spk_exec *e = p->e;
    if (!st) st = e->ops->download(e, f->F.rowptr, p->frp, ((size_t)n + 1) * sizeof(int));
    if (!st) st = e->ops->download(e, f->F.colind, p->fci, (size_t)p->nnz * sizeof(int));
    if (!st) st = e->ops->download(e, f->diag, p->dpos, (size_t)n * sizeof(int));
    if (!st) st = e->ops->download(e, f->adiag, p->adiag, (size_t)n * sizeof(double));
    if (!st) st = e->ops->download(e, f->missing, p->missing, (size_t)n);
    if (st) {
        spk_factor_free(f);
        return st;
    }
    *out = f;
    return SPK_OK;
}

/* The transposed factor for the L^T sweeps (IC(0)). */
static int transpose(dev_pc *p)
{
    if (!p->ic || p->n == 0) return SPK_OK;
    SPK_CUSPARSE_TRY(p->e->err, cusparseCsr2cscEx2(p->h, p->n, p->n, p->nnz, p->v, p->frp, p->fci, p->tv, p->tcp,
                                                   p->tri, CUDA_R_64F, CUSPARSE_ACTION_NUMERIC,
                                                   CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, p->tbuf));
    return SPK_OK;
}

static int slice(dev_pc *p);
static int sweep_once(dev_pc *p, int t, const double *b, const double *x, double *out);

/* The sweeps' check (opts.sweeps_check = tau > 0): for a positive probe b
 * (components in [0.5, 1.5): the slow case, where the terms of the series
 * share a sign and do not cancel), the relative residual of K sweeps on
 * each triangle,
 *     r_t(K) = ||b - T_t x_K|| / ||b|| = ||D_t (x_{K+1} - x_K)|| / ||b||,
 * and K = the smallest in [SWEEPS_MIN, opts.sweeps] with max_t r_t(K) <= tau;
 * none: exact solves.  tau is the solver's (solver/api.c), chosen so that
 * the sweeps' iterations stay close to the exact solves'. */
#define SWEEPS_MIN 2

/* The partial sums of ||D_t (x_{j+1} - x_j)||^2 for j = 1 .. kmax of
 * triangle t into part + (j - 1) * parts: kmax + 1 sweeps from x_0 = D^-1 b,
 * nothing read back. */
static int sweep_residuals(dev_pc *p, int t, const double *b, int kmax, double *part, int parts)
{
    spk_err *err = p->e->err;
    const int n = p->n;
    const tri_view v = tri_of(p, t);
    double *buf[3] = {p->x0, p->x1, p->y};
    const double *x = NULL;
    for (int j = 0; j <= kmax; j++) {
        double *dst = buf[j % 3];
        SPK_TRY(sweep_once(p, t, b, x, dst));
        if (j > 0)
            SPK_CUDA_TRY(err, spk_dev_scaled_norm_part(p->s, n, v.id, dst, x, part + (size_t)(j - 1) * parts));
        x = dst;
    }
    return SPK_OK;
}

/* nvec vectors of n doubles and the partial sums of up to `norms` norms
 * (spk_dev_norm_parts(n) each) with room for their results: the build's
 * scratch while the factorization's allocation lives (*owned = 0), else
 * allocated here (*owned = 1: scratch_put frees them). */
static int scratch_get(dev_pc *p, int nvec, int norms, double **w, double **part, double **nrm, int *owned)
{
    const int n = p->n;
    *owned = !p->sw[0] || norms > SCRATCH_NORMS;
    *part = *nrm = NULL;
    for (int i = 0; i < nvec; i++) w[i] = *owned ? NULL : p->sw[i];
    if (!*owned) {
        *part = p->spart;
        *nrm = p->snorm;
        return SPK_OK;
    }
    int st = SPK_OK;
    for (int i = 0; i < nvec && !st; i++) st = spk_exec_alloc_vec(p->e, n, &w[i]);
    if (!st && norms > 0)
        st = spk_cuda_alloc(p->e, (size_t)norms * spk_dev_norm_parts(n) * sizeof(double), "the sweeps' check",
                            (void **)part);
    if (!st && norms > 0) st = spk_cuda_alloc(p->e, (size_t)norms * sizeof(double), "the sweeps' check", (void **)nrm);
    return st;
}

static void scratch_put(dev_pc *p, int nvec, double **w, double *part, double *nrm, int owned)
{
    if (!owned) return;
    for (int i = 0; i < nvec; i++)
        if (w[i]) p->e->ops->free(p->e, w[i]);
    spk_cuda_free(p->e, part);
    spk_cuda_free(p->e, nrm);
}

static int apply_mode(dev_pc *p, int mode, const double *r, double *z);

/* The device time of one apply in `mode` (ms), replayed from a CUDA graph
 * as the solver's iterations replay it (a one-kernel mode: launched as it
 * is, recording it would cost more than its runs): the mean of two runs
 * after a first, or the first alone where it passes `budget` (a slower
 * candidate costs no more setup than that); INFINITY where the apply
 * cannot be recorded. */
static int time_mode(dev_pc *p, int mode, const double *b, double *z, double budget, double *ms)
{
    spk_err *err = p->e->err;
    cudaGraphExec_t ge = NULL;
    cudaEvent_t ev[2] = {NULL, NULL};
    *ms = INFINITY;
    cudaError_t c = cudaSuccess;
    if (mode != APPLY_SMALL_SWEEPS && mode != APPLY_SMALL_SOLVE) { /* recorded; one kernel is launched as it is */
        cudaGraph_t g = NULL;
        SPK_CUDA_TRY(err, cudaStreamBeginCapture(p->s, cudaStreamCaptureModeThreadLocal));
        const int st = apply_mode(p, mode, b, z);
        const cudaError_t ce = cudaStreamEndCapture(p->s, &g);
        if (st || ce != cudaSuccess || !g) { /* not recordable: not a candidate */
            (void)cudaGetLastError();
            if (g) cudaGraphDestroy(g);
            spk_err_clear(err);
            return SPK_OK;
        }
        c = cudaGraphInstantiate(&ge, g, 0);
        cudaGraphDestroy(g);
    }
    int st = SPK_OK;
    float t = 0;
    if (c == cudaSuccess) c = cudaEventCreate(&ev[0]);
    if (c == cudaSuccess) c = cudaEventCreate(&ev[1]);
    for (int pass = 0; pass < 2 && c == cudaSuccess && !st; pass++) {
        const int reps = pass ? 2 : 1;
        c = cudaEventRecord(ev[0], p->s);
        for (int i = 0; i < reps && c == cudaSuccess && !st; i++) {
            if (ge)
                c = cudaGraphLaunch(ge, p->s);
            else
                st = apply_mode(p, mode, b, z);
        }
        if (c == cudaSuccess && !st) c = cudaEventRecord(ev[1], p->s);
        if (c == cudaSuccess && !st) c = cudaEventSynchronize(ev[1]);
        if (c == cudaSuccess && !st) c = cudaEventElapsedTime(&t, ev[0], ev[1]);
        if (c == cudaSuccess && !st) *ms = t / reps;
        if (c == cudaSuccess && !st && !pass && *ms > budget) break;
    }
    if (ge) cudaGraphExecDestroy(ge);
    for (int i = 0; i < 2; i++)
        if (ev[i]) cudaEventDestroy(ev[i]);
    SPK_TRY(st);
    return spk_cuda_check(err, c, "timing the preconditioner's apply");
}

/* How apply runs, by time: of the sweeps, one kernel per sweep or one
 * block's kernel (the same result); exact solves in one block (fewer
 * iterations) where they cost at most EXACT_OVER_SWEEPS times the sweeps
 * plus EXACT_OVER_SWEEPS_MS (small against the rest of an iteration, and
 * the sweeps may take more iterations than exact solves, sweeps_check);
 * where the check asked for exact solves, one block's or cusparseSpSV, the
 * faster.  Where the solver's block iterations will apply M (opts.block),
 * only what one block runs is weighed: its sweeps (as stored where there
 * are no sliced copies), or its exact solves where the check asks for them
 * or they cost at most EXACT_OVER_SWEEPS times the sweeps.  Exact solves
 * that are taken only below such a bar are timed with the bar as budget:
 * one run where the first is over it (the first run of a kernel whose data
 * the previous candidate left in L2 is close to the next ones). */
#define EXACT_OVER_SWEEPS 1.1
#define EXACT_OVER_SWEEPS_MS 0.003
static int pick_mode(dev_pc *p)
{
    const char *lb = p->ic ? "ic0" : "ilu0";
    spk_err *err = p->e->err;
    const int n = p->n, can_solve = n > 0 && n <= SPK_DEV_SOLVE_ROWS;
    /* one block's solves, as a cheaper way than the sweeps: timed up to
     * 4096 rows (beyond, the sweeps are faster) */
    const int can_time_solve = n > 0 && n <= 4096;
    /* ... where the check asks for exact solves, against cusparseSpSV:
     * timed up to 8192 rows (beyond, cusparseSpSV is faster), where one
     * costs no more setup than a few SpSVs */
    const int can_time_exact = n > 0 && n <= 8192 && can_solve;
    const int forced = p->opts.dev_apply - 1;
    /* the block iterations will apply M (opts.block): only one block's ways
     * matter, timed on x0 and x1, which they do not touch */
    const int free_choice = !(forced >= APPLY_SWEEPS && forced <= APPLY_SPSV);
    const int in_block = p->opts.block == 1 && free_choice && n > 0 && n <= SPK_DEV_SMALL_ROWS;
    /* the sweeps taken as they are, untimed: where a cluster of blocks will
     * apply them (opts.block = 2: it sweeps the copies itself, whatever the
     * mode; timing the ways it does not use would only add setup), and a
     * large system's, with no other way to time them against (timing them
     * would only add setup) */
    const int in_cluster = p->opts.block == 2 && n > 0 && n <= SPK_DEV_SMALL_ROWS;
    if (free_choice && !p->exact &&
        (in_cluster || (!in_block && !p->small_ok && !(can_time_solve && p->opts.sweeps_check > 0)))) {
        p->mode = APPLY_SWEEPS;
        snprintf(p->what, sizeof p->what, "%s-sweeps", lb);
        return SPK_OK;
    }
    double *b = NULL, *z = NULL;
    int owned = 0;
    if (in_block) {
        b = p->x0;
        z = p->x1;
        SPK_CUDA_TRY(err, spk_dev_probe(p->s, n, b));
    } else if (n > 0) {
        double *w[2] = {NULL, NULL}, *unused = NULL;
        int st = scratch_get(p, 2, 0, w, &unused, &unused, &owned);
        b = w[0];
        z = w[1];
        if (!st) st = spk_cuda_check(err, spk_dev_probe(p->s, n, b), "spk_dev_probe");
        if (st) {
            scratch_put(p, 2, w, NULL, NULL, owned);
            return st;
        }
    }
    int st = SPK_OK;
    double t_solve = INFINITY;
    if (forced >= APPLY_SWEEPS && forced <= APPLY_SPSV) { /* where it applies */
        p->mode = p->exact && n > 0 ? APPLY_SPSV : APPLY_SWEEPS;
        if (forced == APPLY_SMALL_SWEEPS && p->small_ok && !p->exact) {
            st = spk_cuda_check(err, spk_dev_small_init(n), "spk_dev_small_init");
            p->mode = forced;
        } else if (forced == APPLY_SMALL_SOLVE && can_solve) {
            st = spk_cuda_check(err, spk_dev_small_solve_init(n), "spk_dev_small_solve_init");
            p->mode = forced;
        } else if (forced == APPLY_SPSV && n > 0) {
            p->mode = forced;
        }
        p->exact = p->mode == APPLY_SMALL_SOLVE || p->mode == APPLY_SPSV;
        if (!st && p->mode == APPLY_SPSV) {
            if (!p->sp.e) st = spk_spsv_pair_init(p->e, &p->sp, n, p->nnz, p->ic, p->frp, p->fci, p->v);
            if (!st) st = spk_spsv_pair_ready(&p->sp);
        }
    } else if (in_block && p->exact) {
        /* the check asked for exact solves: one block's (cusparseSpSV's won
         * only on systems beyond the block iterations' limits) */
        p->mode = APPLY_SMALL_SOLVE;
        st = spk_cuda_check(err, spk_dev_small_solve_init(n), "spk_dev_small_solve_init");
    } else if (in_block && !p->small_ok) {
        p->mode = APPLY_SWEEPS; /* the block sweeps the factor as stored */
    } else if (in_block) {
        /* one block's sweeps, or one block's exact solves where they cost
         * at most 1.1x as much (the rest of a block iteration is cheap, so
         * no margin is added) */
        double t_small = INFINITY;
        p->mode = APPLY_SMALL_SWEEPS;
        st = spk_cuda_check(err, spk_dev_small_init(n), "spk_dev_small_init");
        if (!st) st = time_mode(p, APPLY_SMALL_SWEEPS, b, z, INFINITY, &t_small);
        if (!st && can_time_solve && p->opts.sweeps_check > 0) {
            st = spk_cuda_check(err, spk_dev_small_solve_init(n), "spk_dev_small_solve_init");
            if (!st) st = time_mode(p, APPLY_SMALL_SOLVE, b, z, EXACT_OVER_SWEEPS * t_small, &t_solve);
            if (!st && t_solve <= EXACT_OVER_SWEEPS * t_small) {
                p->mode = APPLY_SMALL_SOLVE;
                p->exact = 1;
            }
        }
    } else if (!p->exact) {
        double t = INFINITY, t_small = INFINITY;
        p->mode = APPLY_SWEEPS;
        if (n > 0) st = time_mode(p, APPLY_SWEEPS, b, z, INFINITY, &t);
        if (!st && p->small_ok) {
            st = spk_cuda_check(err, spk_dev_small_init(n), "spk_dev_small_init");
            if (!st) st = time_mode(p, APPLY_SMALL_SWEEPS, b, z, 2 * t, &t_small);
            if (!st && t_small < t) {
                p->mode = APPLY_SMALL_SWEEPS;
                t = t_small;
            }
        }
        const double t_max = EXACT_OVER_SWEEPS * t + EXACT_OVER_SWEEPS_MS;
        if (!st && can_time_solve && p->opts.sweeps_check > 0) {
            st = spk_cuda_check(err, spk_dev_small_solve_init(n), "spk_dev_small_solve_init");
            if (!st) st = time_mode(p, APPLY_SMALL_SOLVE, b, z, t_max, &t_solve);
            if (!st && t_solve <= t_max) {
                p->mode = APPLY_SMALL_SOLVE;
                p->exact = 1;
            }
        }
    } else {
        double t = INFINITY;
        p->mode = APPLY_SPSV;
        if (!p->sp.e) st = spk_spsv_pair_init(p->e, &p->sp, n, p->nnz, p->ic, p->frp, p->fci, p->v);
        if (!st) st = spk_spsv_pair_ready(&p->sp);
        /* one block's solves first: where they win (the cases worth timing)
         * cusparseSpSV's slower first run ends its timing */
        if (!st && can_time_exact) st = spk_cuda_check(err, spk_dev_small_solve_init(n), "spk_dev_small_solve_init");
        if (!st && can_time_exact) st = time_mode(p, APPLY_SMALL_SOLVE, b, z, INFINITY, &t_solve);
        if (!st && can_time_exact) st = time_mode(p, APPLY_SPSV, b, z, 2 * t_solve, &t);
        if (!st && t_solve < t) p->mode = APPLY_SMALL_SOLVE;
    }
    if (!in_block) {
        double *w[2] = {b, z};
        scratch_put(p, 2, w, NULL, NULL, owned);
    }
    SPK_TRY(st);
    snprintf(p->what, sizeof p->what, "%s-%s", lb, p->exact ? "dev" : "sweeps");
    return SPK_OK;
}

/* One K of the check: r0, r1 the triangles' ||D_t (x_{K+1} - x_K)||, nb =
 * ||b||; 1 (K taken: p->k, p->exact = 0) when max_t r_t(K) passes. */
static int check_k(dev_pc *p, int k, double r0, double r1, double nb)
{
    const double rt[2] = {r0, r1};
    double rk = 0;
    for (int t = 0; t < 2; t++) {
        const double x = isfinite(rt[t]) ? rt[t] / nb : INFINITY;
        if (!(x <= rk)) rk = x;
    }
    if (rk < p->check) p->check = rk;
    if (!(rk <= p->opts.sweeps_check)) return 0;
    p->exact = 0;
    p->k = k;
    p->check = rk;
    return 1;
}

/* The check's bound must suit its worst case, and so asks for more sweeps
 * than most systems need: one probe vector cannot tell a matrix whose slow
 * components the probe misses (localized ones) from one it measures well.
 * What decides the iterations is the preconditioner as an operator: for
 * CG, with the eigenvalues of M_K^-1 M in [1 - rho, 1 + rho], kappa(M_K^-1
 * A) <= kappa(M^-1 A) (1 + rho) / (1 - rho), so the iterations grow by at
 * most the root of that factor (1.22x at rho = 0.2).
 * So beyond SPK_DEV_SMALL_ROWS rows, where the sweeps are most of an
 * iteration (opts.sweeps_rho = theta > 0), rho of K sweeps is estimated by
 * the power method on E = I - M_K^-1 M from the positive probe: K passes
 * where every one of RHO_STEPS steps grows ||v|| by at most theta (the
 * later steps find what the probe misses).  A K below the check's that
 * passes, the fewest where the growth falls with K, replaces it (the
 * solver's theta: 0.2 for IC(0), 0.1 for ILU(0), solver/api.c).
 * M v = L (U v) on the sweeps' own copies: T x = D (x + G x), with -G x a
 * sweep of b = 0. */
#define RHO_STEPS 6

/* ||x|| read back (part, norm: spk_dev_norm_parts(n) and 1 doubles). */
static int dev_norm(dev_pc *p, const double *x, double *part, double *norm, double *out)
{
    spk_err *err = p->e->err;
    SPK_CUDA_TRY(err, spk_dev_scaled_norm_part(p->s, p->n, NULL, x, NULL, part));
    SPK_CUDA_TRY(err, spk_dev_norm_finish(p->s, 1, spk_dev_norm_parts(p->n), part, norm));
    SPK_CUDA_TRY(err, cudaMemcpyAsync(out, norm, sizeof *out, cudaMemcpyDeviceToHost, p->s));
    return spk_cuda_check(err, cudaStreamSynchronize(p->s), "cudaStreamSynchronize");
}

/* *ok = 1 when K = k passes the test above, M_K^-1 applied as apply
 * applies it; w[0] the probe on entry (then E^j of it), w[1], w[2] scratch,
 * w[3] zeros. */
static int rho_passes(dev_pc *p, int k, double *const w[4], double *part, double *norm, int *ok)
{
    spk_err *err = p->e->err;
    const int n = p->n, keep = p->k;
    const double *id[2] = {tri_of(p, 0).id, tri_of(p, 1).id};
    double *v = w[0], *t1 = w[1], *t2 = w[2];
    const double *zero = w[3];
    double prev = 0, now = 0;
    *ok = 0;
    p->k = k;
    int st = dev_norm(p, v, part, norm, &prev);
    for (int j = 0; j < RHO_STEPS && !st; j++) {
        st = sweep_once(p, 1, zero, v, t1); /* t1 = -G_U v */
        if (!st) st = spk_cuda_check(err, spk_dev_sub_scaled(p->s, n, id[1], v, t1, t1), "spk_dev_sub_scaled");
        if (!st) st = sweep_once(p, 0, zero, t1, t2);
        if (!st) st = spk_cuda_check(err, spk_dev_sub_scaled(p->s, n, id[0], t1, t2, t2), "spk_dev_sub_scaled");
        if (!st) st = apply_mode(p, APPLY_SWEEPS, t2, t2); /* t2 = M v, then M_K^-1 M v */
        if (!st) st = spk_cuda_check(err, spk_dev_sub_scaled(p->s, n, NULL, v, t2, v), "spk_dev_sub_scaled");
        if (!st) st = dev_norm(p, v, part, norm, &now);
        if (st || !(now <= p->opts.sweeps_rho * prev)) break;
        if (j == RHO_STEPS - 1) *ok = 1;
        prev = now;
    }
    p->k = keep;
    return st;
}

/* After the check took p->k sweeps: the fewest that pass the test above. */
static int fewer_sweeps(dev_pc *p)
{
    spk_err *err = p->e->err;
    const int n = p->n;
    double *w[4] = {NULL, NULL, NULL, NULL}, *part = NULL, *norm = NULL;
    int owned = 0;
    int st = scratch_get(p, 4, 1, w, &part, &norm, &owned);
    if (!st) st = spk_cuda_check(err, cudaMemsetAsync(w[3], 0, (size_t)n * sizeof(double), p->s), "cudaMemsetAsync");
    /* by bisection in [SWEEPS_MIN, K - 1] (the growth falls with K): two or
     * three K tested, a failing one mostly in its first steps */
    int lo = SWEEPS_MIN, hi = p->k - 1;
    while (lo <= hi && !st) {
        const int mid = (lo + hi) / 2;
        int ok = 0;
        st = spk_cuda_check(err, spk_dev_probe(p->s, n, w[0]), "spk_dev_probe");
        if (!st) st = rho_passes(p, mid, w, part, norm, &ok);
        if (!st && ok) p->k = mid;
        if (ok)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    scratch_put(p, 4, w, part, norm, owned);
    return st;
}

/* Is the build no longer wanted (spk_precond_opts.stop)? */
static int stopped(const dev_pc *p)
{
    return p->opts.stop && p->opts.stop(p->opts.stop_arg);
}
#define STOP_POINT(p)                                                      \
    do {                                                                   \
        if (stopped(p)) return SPK_PRECOND_STOPPED;                        \
    } while (0)

static int check(dev_pc *p);

/* Sweeps, or (sweeps_check > 0) K by the check above (and fewer by the test
 * after it), or exact solves. */
static int choose(dev_pc *p)
{
    if (!p->pool) SPK_TRY(check(p));
    STOP_POINT(p);
    if (p->opts.sweeps_check > 0 && !p->exact && p->opts.sweeps_rho > 0 && p->n > SPK_DEV_SMALL_ROWS &&
        p->k > SWEEPS_MIN) {
        SPK_TRY(fewer_sweeps(p));
        STOP_POINT(p);
    }
    return pick_mode(p);
}

/* The check above on the device (host_build runs it on the host). */
static int check(dev_pc *p)
{
    spk_err *err = p->e->err;
    p->exact = 0;
    p->check = 0;
    if (p->opts.sweeps_check > 0 && p->n > 0) {
        enum { KMAX = CHECK_KMAX };
        const int kmax = p->opts.sweeps < KMAX ? p->opts.sweeps : KMAX;
        const int parts = spk_dev_norm_parts(p->n), m = 2 * kmax + 1; /* both triangles, then ||b|| */
        double *b = NULL, *part = NULL, *norms = NULL, r[2 * KMAX + 1];
        int owned = 0;
        int st = scratch_get(p, 1, m, &b, &part, &norms, &owned);
        if (!st) st = spk_cuda_check(err, spk_dev_probe(p->s, p->n, b), "spk_dev_probe");
        for (int t = 0; t < 2 && !st; t++) st = sweep_residuals(p, t, b, kmax, part + (size_t)t * kmax * parts, parts);
        if (!st)
            st = spk_cuda_check(err, spk_dev_scaled_norm_part(p->s, p->n, NULL, b, NULL, part + (size_t)2 * kmax * parts),
                                "spk_dev_scaled_norm_part");
        if (!st) st = spk_cuda_check(err, spk_dev_norm_finish(p->s, m, parts, part, norms), "spk_dev_norm_finish");
        if (!st)
            st = spk_cuda_check(err, cudaMemcpyAsync(r, norms, (size_t)m * sizeof(double), cudaMemcpyDeviceToHost, p->s),
                                "cudaMemcpyAsync");
        if (!st) st = spk_cuda_check(err, cudaStreamSynchronize(p->s), "cudaStreamSynchronize");
        scratch_put(p, 1, &b, part, norms, owned);
        SPK_TRY(st);
        const double nb = r[2 * kmax];
        p->exact = 1;
        p->check = INFINITY;
        for (int k = SWEEPS_MIN < kmax ? SWEEPS_MIN : kmax; k <= kmax; k++)
            if (check_k(p, k, r[k - 1], r[kmax + k - 1], nb)) break;
    }
    return SPK_OK;
}

/* After a good factorization: how to apply it (choose), then ready. */
static int settle(dev_pc *p)
{
    SPK_TRY(choose(p));
    if (p->exact) /* the solves read F */
        for (int t = 0; t < 2; t++) {
            p->lean = 0;
            if (!p->pool) {
                spk_cuda_free(p->e, p->scol[t]);
                spk_cuda_free(p->e, p->sval[t]);
            }
            p->scol[t] = NULL;
            p->sval[t] = NULL;
        }
    p->valid = 1;
    return SPK_OK;
}

/* The shift policy of spk_factor_run (factor.h) on the device. */
static int run(dev_pc *p)
{
    spk_factor_fail first = {0, 0, 0}, last = {0, 0, 0};
    const spk_factor_kind *k = host_kind(p);
    p->valid = 0;
    p->alpha = 0;
    int r = numeric(p, 0.0, &first);
    if (r > 0) return r;
    STOP_POINT(p);
    double alpha = p->opts.shift_init;
    int tries = 0, hopeless = 0, st;
    spk_factor *sh = NULL;
    if (r < 0) {
        SPK_TRY(shadow_of(p, &sh));
        hopeless = k->hopeless(sh, first.row);
        if (!p->opts.allow_shift || hopeless) {
            st = spk_factor_report(sh, &first, hopeless, 0, 0, &first, 0);
            spk_factor_free(sh);
            return st;
        }
        for (;;) {
            tries++;
            r = numeric(p, alpha, &last);
            if (r > 0 || stopped(p)) {
                spk_factor_free(sh);
                return r > 0 ? r : SPK_PRECOND_STOPPED;
            }
            if (r == 0) break;
            hopeless = k->hopeless(sh, last.row);
            if (hopeless || alpha >= p->opts.shift_max) break;
            alpha = 2 * alpha < p->opts.shift_max ? 2 * alpha : p->opts.shift_max;
        }
        if (r != 0) {
            st = r > 0 ? r : spk_factor_report(sh, &first, 0, tries, alpha, &last, hopeless);
            spk_factor_free(sh);
            return st;
        }
        spk_factor_free(sh);
        p->alpha = alpha;
    }
    SPK_TRY(transpose(p));
    STOP_POINT(p);
    SPK_TRY(slice(p));
    STOP_POINT(p);
    return settle(p);
}

/* Small systems are built on the host (HOST_BUILD_NNZ): on the device the
 * build costs its launches and waits (some 70 for the check alone) more
 * than its arithmetic, which the host does in less time.  The host's
 * factor (ic0.c / ilu0.c: the same formulas, pivot test and shift policy,
 * so the same factor to rounding and the same failure messages), its
 * transpose, the sliced copies (the layout of spk_dev_sell_fill) and the
 * check (the same probe, sweeps and norms) are made here, then every array
 * goes up in one copy to one allocation. */
#define HOST_BUILD_NNZ 32768

/* Is the factor of A built on the host (spk_precond_opts.build)? */
static int built_on_host(const spk_csr *A, const spk_precond_opts *o)
{
    return o->build == 1 || (o->build != 2 && A->nnz <= HOST_BUILD_NNZ);
}
/* the most entries, padding included, of the sliced copies one block's
 * apply reads (slice) */
#define SMALL_ENTRIES 65536

/* A triangle's strict part as the host check sweeps it: sliced (sp, scol,
 * sval in float when single) or as stored (v). */
typedef struct host_tri {
    tri_view v;
    const int *sp, *scol;
    const void *sval;
    int single;
} host_tri;

/* One sweep of spk_dev_sell_sweep / spk_dev_sweep on the host: out = D^-1
 * (b - S x), x NULL: x = D^-1 b. */
static void host_sweep(int n, const host_tri *h, const double *b, const double *x, double *out)
{
    const double *id = h->v.id;
    for (int i = 0; i < n; i++) {
        double s = 0;
        if (h->sp) {
            const int s0 = h->sp[i / SPK_DEV_SLICE], base = s0 + i % SPK_DEV_SLICE;
            const int w = (h->sp[i / SPK_DEV_SLICE + 1] - s0) / SPK_DEV_SLICE;
            for (int q = 0; q < w; q++) {
                const int at = base + q * SPK_DEV_SLICE, c = h->scol[at];
                const double a = h->single ? (double)((const float *)h->sval)[at] : ((const double *)h->sval)[at];
                s += a * (x ? x[c] : id ? id[c] * b[c] : b[c]);
            }
        } else {
            for (int q = h->v.beg[i] + h->v.boff, e = h->v.end[i] + h->v.eoff; q < e; q++) {
                const int c = h->v.col[q];
                s += h->v.val[q] * (x ? x[c] : id ? id[c] * b[c] : b[c]);
            }
        }
        const double r = b[i] - s;
        out[i] = id ? r * id[i] : r;
    }
}

/* The check of choose() on the host: the probe of spk_dev_probe, sweeps on
 * both triangles side by side, K from SWEEPS_MIN up until one passes (each
 * K needs K + 1 sweeps).  0, or SPK_ERR_NOMEM. */
static int host_check(dev_pc *p, const host_tri h[2])
{
    const int n = p->n, kmax = p->opts.sweeps < CHECK_KMAX ? p->opts.sweeps : CHECK_KMAX;
    /* the probe, then per triangle two iterates */
    double *buf = malloc((size_t)5 * n * sizeof(double));
    if (!buf) return spk_err_set(p->e->err, SPK_ERR_NOMEM, "out of host memory (the sweeps' check)");
    double *b = buf, *xs[2][2] = {{buf + n, buf + 2 * (size_t)n}, {buf + 3 * (size_t)n, buf + 4 * (size_t)n}};
    double nb = 0;
    for (int i = 0; i < n; i++) {
        unsigned hsh = (unsigned)i * 2654435761u;
        hsh ^= hsh >> 15;
        hsh *= 2246822519u;
        hsh ^= hsh >> 13;
        b[i] = 0.5 + ((hsh >> 8) & 0xffff) * (1.0 / 65536.0);
        nb += b[i] * b[i];
    }
    nb = sqrt(nb);
    p->exact = 1;
    p->check = INFINITY;
    const int kfirst = SWEEPS_MIN < kmax ? SWEEPS_MIN : kmax;
    double r[2] = {0, 0};
    for (int t = 0; t < 2; t++) host_sweep(n, &h[t], b, NULL, xs[t][0]); /* x_1 */
    for (int k = 1; k <= kmax; k++) {
        if (stopped(p)) { /* up to 2 x 16 sweeps on the host: a build no longer wanted ends here */
            free(buf);
            return SPK_PRECOND_STOPPED;
        }
        for (int t = 0; t < 2; t++) { /* x_{k+1} from x_k, and ||D (x_{k+1} - x_k)|| */
            const double *x = xs[t][(k - 1) & 1], *id = h[t].v.id;
            double *nx = xs[t][k & 1], s = 0;
            host_sweep(n, &h[t], b, x, nx);
            for (int i = 0; i < n; i++) {
                double d = nx[i] - x[i];
                if (id) d /= id[i];
                s += d * d;
            }
            r[t] = sqrt(s);
        }
        if (k >= kfirst && check_k(p, k, r[0], r[1], nb)) break;
    }
    free(buf);
    return SPK_OK;
}

/* The length of row i of triangle t's strict part (tri_at), from F and,
 * for L^T, the counts of L's columns (cnt, diagonal included). */
static int strict_len(const dev_pc *p, const spk_factor *f, const int *cnt, int t, int i)
{
    const int *rp = f->F.rowptr, *dg = f->diag;
    if (p->ic) return t == 0 ? rp[i + 1] - rp[i] - 1 : cnt[i] - 1;
    return t == 0 ? dg[i] - rp[i] : rp[i + 1] - dg[i] - 1;
}

static int host_build(dev_pc *p, const spk_csr *A)
{
    spk_exec *e = p->e;
    spk_err *err = e->err;
    spk_factor_kind kind = *host_kind(p);
    kind.any_exec = 1; /* the host's numeric for the GPU's preconditioner */
    spk_factor *f = NULL;
    unsigned char *stage = NULL;
    int *cnt = NULL, *sp[2] = {NULL, NULL};
    int st = spk_factor_setup(e, A, &p->opts, &kind, &f);
    if (!st) st = spk_factor_run(f, A);
    if (!st && stopped(p)) st = SPK_PRECOND_STOPPED;
    if (st) goto done;
    const int n = p->n, nnz = f->F.nnz, ns = spk_dev_sell_slices(n), ic = p->ic;
    const size_t nb = (size_t)n;
    p->nnz = nnz;
    p->alpha = f->alpha;
    cnt = calloc(nb + 1, sizeof(int));
    sp[0] = malloc(((size_t)ns + 1) * sizeof(int));
    sp[1] = malloc(((size_t)ns + 1) * sizeof(int));
    if (!cnt || !sp[0] || !sp[1]) {
        st = spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (%s)", kind.label);
        goto done;
    }
    if (ic)
        for (int k = 0; k < nnz; k++) cnt[f->F.colind[k]]++;
    /* the slices' widths, as spk_dev_sell_pattern sets them */
    int total[2] = {0, 0}, widest = 0; /* the longest row, and so the widest slice */
    for (int t = 0; t < 2; t++) {
        sp[t][0] = 0;
        for (int s = 0; s < ns; s++) {
            int w = 0;
            for (int i = s * SPK_DEV_SLICE; i < n && i < (s + 1) * SPK_DEV_SLICE; i++) {
                const int len = strict_len(p, f, cnt, t, i);
                if (len > w) w = len;
            }
            sp[t][s + 1] = sp[t][s] + w * SPK_DEV_SLICE;
            if (w > widest) widest = w;
        }
        total[t] = sp[t][ns];
    }
    const double strict = (ic ? 2.0 : 1.0) * ((double)nnz - n);
    const int sliced = n > 0 && (double)total[0] + total[1] <= 1.5 * strict + 64;
    p->longest = widest;
    p->small_ok = sliced && n <= SPK_DEV_SMALL_ROWS && (double)total[0] + total[1] <= SMALL_ENTRIES;
    const size_t vb = p->single ? sizeof(float) : sizeof(double);
    /* the layout: offsets into the one allocation (the vectors last: not copied) */
    size_t off = 0, o_frp, o_fci, o_dpos, o_v, o_id, o_tcp = 0, o_tri = 0, o_tv = 0, o_sp[2] = {0, 0},
                    o_sc[2] = {0, 0}, o_sv[2] = {0, 0}, o_vec;
    o_frp = off, off += span(nb + 1, sizeof(int));
    o_fci = off, off += span((size_t)nnz, sizeof(int));
    o_dpos = off, off += span(nb, sizeof(int));
    o_v = off, off += span((size_t)nnz, sizeof(double));
    o_id = off, off += span(nb, sizeof(double));
    if (ic) {
        o_tcp = off, off += span(nb + 1, sizeof(int));
        o_tri = off, off += span((size_t)nnz, sizeof(int));
        o_tv = off, off += span((size_t)nnz, sizeof(double));
    }
    for (int t = 0; t < 2 && sliced; t++) {
        o_sp[t] = off, off += span((size_t)ns + 1, sizeof(int));
        o_sc[t] = off, off += span((size_t)total[t], sizeof(int));
        o_sv[t] = off, off += span((size_t)total[t], vb);
    }
    o_vec = off, off += 3 * span(nb, sizeof(double));
    stage = malloc(o_vec ? o_vec : 1);
    if (!stage) {
        st = spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (%s: %zu bytes)", kind.label, o_vec);
        goto done;
    }
    int *h_frp = (int *)(stage + o_frp), *h_fci = (int *)(stage + o_fci), *h_dpos = (int *)(stage + o_dpos);
    double *h_v = (double *)(stage + o_v), *h_id = (double *)(stage + o_id);
    int *h_tcp = ic ? (int *)(stage + o_tcp) : NULL, *h_tri = ic ? (int *)(stage + o_tri) : NULL;
    double *h_tv = ic ? (double *)(stage + o_tv) : NULL;
    memcpy(h_frp, f->F.rowptr, (nb + 1) * sizeof(int));
    memcpy(h_fci, f->F.colind, (size_t)nnz * sizeof(int));
    memcpy(h_dpos, f->diag, nb * sizeof(int));
    memcpy(h_v, f->F.val, (size_t)nnz * sizeof(double));
    memcpy(h_id, f->idiag, nb * sizeof(double));
    if (ic) { /* L^T by rows: L's columns in row order, so each row's columns ascend, the diagonal first */
        h_tcp[0] = 0;
        for (int i = 0; i < n; i++) h_tcp[i + 1] = h_tcp[i] + cnt[i];
        for (int i = 0; i < n; i++) cnt[i] = h_tcp[i];
        for (int i = 0; i < n; i++)
            for (int k = h_frp[i]; k < h_frp[i + 1]; k++) {
                const int at = cnt[h_fci[k]]++;
                h_tri[at] = i;
                h_tv[at] = h_v[k];
            }
    }
    const fac_arrays ha = {h_frp, h_fci, h_dpos, h_tcp, h_tri, h_v, h_tv, h_id};
    host_tri ht[2];
    for (int t = 0; t < 2; t++) {
        memset(&ht[t], 0, sizeof ht[t]);
        ht[t].v = tri_at(ic, t, &ha);
    }
    if (sliced) { /* the layout of spk_dev_sell_fill: padded with zeros at the row's own column */
        for (int t = 0; t < 2; t++) {
            int *hs = (int *)(stage + o_sp[t]), *hc = (int *)(stage + o_sc[t]);
            void *hv = stage + o_sv[t];
            memcpy(hs, sp[t], ((size_t)ns + 1) * sizeof(int));
            const tri_view v = ht[t].v;
            for (int i = 0; i < n; i++) {
                const int base = hs[i / SPK_DEV_SLICE] + i % SPK_DEV_SLICE;
                const int w = (hs[i / SPK_DEV_SLICE + 1] - hs[i / SPK_DEV_SLICE]) / SPK_DEV_SLICE;
                const int b = v.beg[i] + v.boff, len = v.end[i] + v.eoff - b;
                for (int q = 0; q < w; q++) {
                    const int at = base + q * SPK_DEV_SLICE;
                    const double a = q < len ? v.val[b + q] : 0.0;
                    hc[at] = q < len ? v.col[b + q] : i;
                    if (p->single)
                        ((float *)hv)[at] = (float)a;
                    else
                        ((double *)hv)[at] = a;
                }
            }
            ht[t].sp = hs, ht[t].scol = hc, ht[t].sval = hv, ht[t].single = p->single;
        }
    } else if (p->single) { /* the sweeps read F, its values rounded to float (slice) */
        for (int k = 0; k < nnz; k++) h_v[k] = (double)(float)h_v[k];
        for (int k = 0; ic && k < nnz; k++) h_tv[k] = (double)(float)h_tv[k];
    }
    p->exact = 0;
    p->check = 0;
    if (p->opts.sweeps_check > 0 && n > 0 && (st = host_check(p, ht)) != SPK_OK) goto done;
    st = spk_cuda_alloc(e, off, "the preconditioner's factor", &p->pool);
    if (!st && o_vec)
        st = spk_cuda_check(err, cudaMemcpyAsync(p->pool, stage, o_vec, cudaMemcpyHostToDevice, p->s), "cudaMemcpyAsync");
    if (!st) st = spk_cuda_check(err, cudaStreamSynchronize(p->s), "cudaStreamSynchronize");
    if (st) goto done;
    unsigned char *d = p->pool;
    p->frp = (int *)(d + o_frp), p->fci = (int *)(d + o_fci), p->dpos = (int *)(d + o_dpos);
    p->v = (double *)(d + o_v), p->idiag = (double *)(d + o_id);
    if (ic) p->tcp = (int *)(d + o_tcp), p->tri = (int *)(d + o_tri), p->tv = (double *)(d + o_tv);
    for (int t = 0; t < 2 && sliced; t++)
        p->ssp[t] = (int *)(d + o_sp[t]), p->scol[t] = (int *)(d + o_sc[t]), p->sval[t] = d + o_sv[t];
    p->x0 = (double *)(d + o_vec);
    p->x1 = (double *)(d + o_vec + span(nb, sizeof(double)));
    p->y = (double *)(d + o_vec + 2 * span(nb, sizeof(double)));
    /* the strict parts' threads per row, as build() sets them */
    const double per = n > 0 ? (double)(nnz - n) / n : 0;
    p->tpr[0] = p->tpr[1] = threads_for(ic ? per : per / 2);
done:
    free(stage);
    free(cnt);
    free(sp[0]);
    free(sp[1]);
    spk_factor_free(f);
    return st;
}

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
    int st = host ? host_build(p, A) : build(p, dA);
    if (!st && stopped(p)) st = SPK_PRECOND_STOPPED;
    if (!st) st = host ? settle(p) : run(p);
    p->opts.stop = NULL; /* for this build only */
    p->opts.stop_arg = NULL;
    p->opts.stop_dev = NULL;
    /* the factorization's own arrays are not needed after it */
    spk_cuda_free(p->e, p->tpool);
    spk_cuda_free(p->e, p->scan);
    p->tpool = NULL;
    p->dptr = p->dep = p->indeg = p->order = p->done = NULL;
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

/* Rows of at most this many entries on average (the sliced copy's, padding
 * included) are swept two to a thread, whose loads are then in flight
 * together; longer rows a thread each. */
#define LEAN_SHORT_ROWS 8

/* Sliced ELL copies of both triangles' strict parts (after each good
 * factorization), unless their padding would pass half the entries again:
 * then the sweeps read F, whose values are then rounded to float in place
 * where float values are asked for (exact solves, if the check then asks
 * for them, use those too). */
static int slice(dev_pc *p)
{
    spk_exec *e = p->e;
    spk_err *err = e->err;
    const int n = p->n, ns = spk_dev_sell_slices(n);
    p->small_ok = 0;
    p->lean = 0;
    p->longest = -1; /* built on the device (beyond HOST_BUILD_NNZ entries, unless asked): the kernels for
                        long rows are not asked for */
    for (int t = 0; t < 2; t++) {
        spk_cuda_free(p->e, p->scol[t]);
        spk_cuda_free(p->e, p->sval[t]);
        p->scol[t] = NULL;
        p->sval[t] = NULL;
    }
    if (n == 0) return SPK_OK;
    size_t tb = 0;
    SPK_CUDA_TRY(err, spk_dev_pattern_temp(ns, &tb));
    void *temp = NULL;
    SPK_TRY(spk_cuda_alloc(e, tb ? tb : 1, "the sliced factor's workspace", &temp));
    /* lean copies where nothing but the kernel-per-sweep apply and the
     * check read them: more rows than one block's sweeps and the block
     * iterations take */
    const int lean = n > SPK_DEV_SMALL_ROWS && n > SPK_BLOCK_ROWS;
    int total[2] = {0, 0}, span[2] = {0, 0}, st = SPK_OK;
    unsigned long long idm = 0;
    if (lean && !p->lmax)
        st = spk_cuda_alloc(e, 2 * sizeof(unsigned long long), "the sweeps' scales", (void **)&p->lmax);
    if (lean && !st) {
        st = spk_cuda_check(err, cudaMemsetAsync(p->lmax, 0, sizeof(unsigned long long), p->s), "cudaMemsetAsync");
        if (!st) st = spk_cuda_check(err, spk_dev_absmax(p->s, n, p->idiag, p->lmax), "spk_dev_absmax");
        if (!st)
            st = spk_cuda_check(err, cudaMemcpyAsync(&idm, p->lmax, sizeof idm, cudaMemcpyDeviceToHost, p->s),
                                "cudaMemcpyAsync");
    }
    for (int t = 0; t < 2 && !st; t++) {
        if (!p->ssp[t])
            st = spk_cuda_alloc(e, ((size_t)ns + 1) * sizeof(int), "the sliced factor's slices", (void **)&p->ssp[t]);
        const tri_view v = tri_of(p, t);
        if (!st)
            st = spk_cuda_check(err, spk_dev_sell_pattern(p->s, n, v.beg, v.boff, v.end, v.eoff, p->ssp[t], temp, tb),
                                "spk_dev_sell_pattern");
        if (!st)
            st = spk_cuda_check(err, cudaMemcpyAsync(total + t, p->ssp[t] + ns, sizeof(int), cudaMemcpyDeviceToHost,
                                                     p->s), "cudaMemcpyAsync");
        /* the span, in the scales' second word (free until the first apply) */
        if (lean && !st)
            st = spk_cuda_check(err, spk_dev_tri_span(p->s, n, v.beg, v.boff, v.end, v.eoff, v.col,
                                                      (int *)(p->lmax + 1)), "spk_dev_tri_span");
        if (lean && !st)
            st = spk_cuda_check(err, cudaMemcpyAsync(span + t, p->lmax + 1, sizeof(int), cudaMemcpyDeviceToHost,
                                                     p->s), "cudaMemcpyAsync");
    }
    if (!st) st = spk_cuda_check(err, cudaStreamSynchronize(p->s), "cudaStreamSynchronize");
    spk_cuda_free(p->e, temp);
    SPK_TRY(st);
    /* the triangles' strict entries: IC(0) L's twice (L and L^T), ILU(0) F's off the diagonal */
    const double strict = (p->ic ? 2.0 : 1.0) * ((double)p->nnz - n);
    if ((double)total[0] + total[1] > 1.5 * strict + 64) {
        if (p->single) {
            SPK_CUDA_TRY(err, spk_dev_round_float(p->s, p->nnz, p->v));
            if (p->ic) SPK_CUDA_TRY(err, spk_dev_round_float(p->s, p->nnz, p->tv));
        }
        return SPK_OK;
    }
    /* small factors: the whole apply in one block, whose iterates stay in
     * shared memory and factor in its cache between sweeps (at most 64k
     * entries with padding: 512 KiB in float, 768 in double) */
    p->small_ok = n <= SPK_DEV_SMALL_ROWS && (double)total[0] + total[1] <= SMALL_ENTRIES;
    const size_t vb = p->single ? sizeof(float) : sizeof(double);
    p->lean = lean;
    for (int t = 0; t < 2; t++) {
        const tri_view v = tri_of(p, t);
        const size_t m = total[t] > 0 ? (size_t)total[t] : 1;
        p->narrow[t] = lean && span[t] <= 32767;
        p->wide[t] = (double)total[t] > LEAN_SHORT_ROWS * n;
        double dm = 1;
        if (lean && v.id) memcpy(&dm, &idm, sizeof dm);
        p->idmax[t] = dm > 0 && isfinite(dm) ? dm : 1;
        const size_t cb = p->narrow[t] ? sizeof(short) : sizeof(int);
        SPK_TRY(spk_cuda_alloc(e, m * cb, "the sliced factor's columns", (void **)&p->scol[t]));
        SPK_TRY(spk_cuda_alloc(e, m * vb, "the sliced factor's values", &p->sval[t]));
        if (lean)
            SPK_CUDA_TRY(err, spk_dev_lean_fill(p->s, n, v.beg, v.boff, v.end, v.eoff, v.col, v.val, v.id, p->ssp[t],
                                                p->scol[t], p->narrow[t], p->sval[t], p->single));
        else
            SPK_CUDA_TRY(err, spk_dev_sell_fill(p->s, n, v.beg, v.boff, v.end, v.eoff, v.col, v.val, p->ssp[t],
                                                p->scol[t], p->sval[t], p->single));
    }
    return SPK_OK;
}

/* One sweep on triangle t: out = D^-1 (b - S x) (x NULL: x = D^-1 b). */
static int sweep_once(dev_pc *p, int t, const double *b, const double *x, double *out)
{
    spk_err *err = p->e->err;
    const int n = p->n;
    const tri_view v = tri_of(p, t);
    if (p->scol[t] && p->lean)
        SPK_CUDA_TRY(err, spk_dev_lean_sweep(p->s, n, p->wide[t], p->ssp[t], p->scol[t], p->narrow[t], p->sval[t],
                                             p->single, 0, 0, v.id, b, NULL, 1.0, NULL, x, out, 1, NULL));
    else if (p->scol[t])
        SPK_CUDA_TRY(err, spk_dev_sell_sweep(p->s, n, p->ssp[t], p->scol[t], p->sval[t], p->single, v.id, b, x, out));
    else
        SPK_CUDA_TRY(err, spk_dev_sweep(p->s, n, p->tpr[t], v.beg, v.boff, v.end, v.eoff, v.col, v.val, v.id, b, x,
                                        out));
    return SPK_OK;
}

/* K sweeps on triangle t's lean copy in float (single): the iterates x0
 * (as floats) and x1, c = D^-1 b in x0's second half, all scaled by the
 * power of two of lmax[t] (max |b|: lean_apply raises lmax[0] for r, L's
 * last sweep lmax[1] for y). */
static int lean_tri(dev_pc *p, int t, const double *b, double *out)
{
    spk_err *err = p->e->err;
    const int n = p->n, k = p->k;
    const tri_view v = tri_of(p, t);
    float *xa = (float *)p->x0, *cv = xa + n, *xb = (float *)p->x1;
    const float *x = NULL;
    for (int j = 0; j < k; j++) {
        const int last = j == k - 1;
        float *dst = j % 2 ? xb : xa;
        void *to = last ? (void *)out : (void *)dst;
        unsigned long long *omax = last && t == 0 ? p->lmax + 1 : NULL;
        SPK_CUDA_TRY(err, spk_dev_lean_sweep(p->s, n, p->wide[t], p->ssp[t], p->scol[t], p->narrow[t], p->sval[t], 1, 1,
                                             !last, v.id, b, p->lmax + t, p->idmax[t], k > 1 ? cv : NULL, x, to, last,
                                             omax));
        x = dst;
    }
    return SPK_OK;
}

static int lean_apply(dev_pc *p, const double *r, double *z)
{
    spk_err *err = p->e->err;
    SPK_CUDA_TRY(err, cudaMemsetAsync(p->lmax, 0, 2 * sizeof(unsigned long long), p->s));
    SPK_CUDA_TRY(err, spk_dev_absmax(p->s, p->n, r, p->lmax));
    SPK_TRY(lean_tri(p, 0, r, p->y));
    return lean_tri(p, 1, p->y, z); /* z may be r: r is no longer read */
}

/* K sweeps on triangle t (0: L, 1: U or L^T) for right-hand side b into out. */
static int tri_apply(dev_pc *p, int t, const double *b, double *out)
{
    const double *x = NULL;
    for (int j = 0; j < p->k; j++) {
        double *dst = j == p->k - 1 ? out : (j % 2 ? p->x1 : p->x0);
        SPK_TRY(sweep_once(p, t, b, x, dst));
        x = dst;
    }
    return SPK_OK;
}

static int apply_mode(dev_pc *p, int mode, const double *r, double *z)
{
    spk_err *err = p->e->err;
    const int *sp[2] = {p->ssp[0], p->ssp[1]}, *sc[2] = {p->scol[0], p->scol[1]};
    const void *sv[2] = {p->sval[0], p->sval[1]};
    const double *id[2] = {tri_of(p, 0).id, tri_of(p, 1).id};
    switch (mode) {
    case APPLY_SMALL_SOLVE:
        SPK_CUDA_TRY(err, spk_dev_small_solve(p->s, p->n, tri_of(p, 0), tri_of(p, 1), r, p->y, z));
        return SPK_OK;
    case APPLY_SPSV: return spk_spsv_pair_solve(&p->sp, r, z);
    case APPLY_SMALL_SWEEPS:
        SPK_CUDA_TRY(err, spk_dev_small_apply(p->s, p->n, p->k, p->single, sp, sc, sv, id, r, p->y, z));
        return SPK_OK;
    default:
        if (p->lean && p->single) return lean_apply(p, r, z); /* lean: both sliced copies exist */
        SPK_TRY(tri_apply(p, 0, r, p->y));
        return tri_apply(p, 1, p->y, z); /* z may be r: r is no longer read */
    }
}

static int dev_apply(void *impl, const double *r, double *z)
{
    dev_pc *p = impl;
    if (!p || !r || !z) return SPK_ERR_INVALID_ARG;
    if (!p->valid)
        return spk_err_set(p->e->err, SPK_ERR_ZERO_PIVOT, "%s: no valid factorization to apply (the last refactor failed)",
                           host_kind(p)->label);
    if (p->n == 0) return SPK_OK;
    return apply_mode(p, p->mode, r, z);
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

/* warm (precond.h): cuSPARSE's transpose kernels, by a transpose of a 2 x
 * 2 factor; only where the factor of A with options o is built on the
 * device, and once per device in a process (a kernel once loaded stays
 * loaded). */
#define WARM_DEVICES 64
static int dev_warm(spk_exec *e, const spk_csr *A, const spk_precond_opts *o)
{
    static int warm[WARM_DEVICES]; /* 1: done on that device */
    int dev = 0;
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
    dev_block, dev_sweeps, dev_warm,
};
const struct spk_precond_ops spk_precond_ilu0_sweeps_cuda = {
    "ilu0-sweeps", "cuda", ilu0_create, dev_apply, dev_refactor, dev_destroy, dev_shift, dev_describe,
    ilu0_create_dev, dev_block, dev_sweeps, dev_warm,
};

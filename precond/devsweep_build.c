/* devsweep_build.c -- the GPU sweeps' build on the device (devsweep.h),
 * from A's CSR arrays in device memory: F's pattern and every buffer in two
 * allocations, the numeric factorization with the host's shift policy
 * (factor.h), its failures reported as the host reports them, and the
 * transposed factor for IC(0)'s L^T; then the sliced copies
 * (devsweep_slice.c) and how apply runs (devsweep_mode.c). */
#include <limits.h>

#include "devsweep.h"

/* Up to this many rows the factorization runs in row order: every row is
 * then in the groups in flight at once, and the computed order costs a
 * step per level of the dependency graph (many on matrices with long
 * chains).  Beyond, on 3D grids, row order lets the groups in flight wait
 * on each other's chains. */
#define ROW_ORDER_ROWS 65536

/* The exact factorization's order, from the rows' dependencies (beyond
 * ROW_ORDER_ROWS; below, p->order stays NULL: row order). */
static int dependency_order(dev_pc *p)
{
    spk_err *err = p->e->err;
    const int n = p->n;
    if (!p->order_buf || p->order) return SPK_OK;
    size_t tb = 0;
    SPK_CUDA_TRY(err, spk_dev_pattern_temp(n, &tb));
    SPK_CUDA_TRY(err, spk_dev_deps(p->s, n, p->ic, p->frp, p->fci, p->dpos, p->dptr, p->dep, p->indeg, p->scan, tb));
    SPK_CUDA_TRY(err, spk_dev_order(p->s, n, p->ic, p->frp, p->dpos, p->dptr, p->dep, p->indeg, p->order_buf, p->ctl));
    p->order = p->order_buf;
    return SPK_OK;
}

/* The pattern and values of F from dA, and every buffer. */
int spk_devsweep_build(dev_pc *p, const spk_csr *dA)
{
    spk_exec *e = p->e;
    spk_err *err = e->err;
    const int n = p->n;
    const size_t nb = (size_t)n;
    size_t tb = 0;
    phase_mark(p, 0);
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
    /* the check's and the test's scratch (spk_devsweep_scratch_get) */
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
    phase_mark(p, 1);
    SPK_TRY(spk_devsweep_iter_prepare(p)); /* exact or by sweeps (auto: sweeps) */
    if (ordered) {
        p->dptr = (int *)(tp + o_dptr), p->dep = (int *)(tp + o_dep), p->indeg = (int *)(tp + o_indeg);
        p->order_buf = (int *)(tp + o_order);
    }
    if (!p->info.iterative) SPK_TRY(dependency_order(p));
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
    phase_mark(p, 2);
    return SPK_OK;
}

/* Factorize A + alpha*diag(A): 0, -1 with the failure, SPK_PRECOND_STOPPED
 * (opts.stop_dev), or an error. */
static int numeric(dev_pc *p, double alpha, spk_factor_fail *fail)
{
    spk_err *err = p->e->err;
    const int n = p->n;
    if (n == 0) return 0;
    if (p->ipool) { /* by sweeps, at every alpha of the shift policy (as parfactor.c) */
        p->info.iterative = 1;
        p->info.fallback = 0;
        const int r = spk_devsweep_iter_numeric(p, alpha, fail);
        if (r == SPK_PRECOND_STOPPED) return r;
        const int met = p->info.sweeps < p->opts.factor_sweeps || p->info.residual <= p->opts.factor_tol;
        if (r > 0 || met || p->opts.factor_tol == 0) return r;
        /* not converged, whatever its pivots say: a factor of unknown quality; the exact one at this
         * alpha instead, as parfactor.c (a bad pivot of diverged sweeps is no reason to shift) */
        p->info.iterative = 0;
        p->info.fallback = 1;
        SPK_TRY(dependency_order(p));
    }
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
    return spk_devsweep_failure(p, ctl[1], fail);
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

/* The shift policy of spk_factor_run (factor.h) on the device, then the
 * transpose, the sliced copies and spk_devsweep_settle. */
int spk_devsweep_run(dev_pc *p)
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
    phase_mark(p, 3);
    SPK_TRY(transpose(p));
    STOP_POINT(p);
    SPK_TRY(spk_devsweep_slice(p));
    STOP_POINT(p);
    phase_mark(p, 4);
    return spk_devsweep_settle(p);
}

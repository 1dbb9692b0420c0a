/* devsweep_iter.c -- the GPU sweeps' factorization by fixed-point sweeps
 * (parfactor.h; kernels in devfactor_iter.cuh), the alternative to the
 * dependency-order kernel of devsweep_build.c: the choice (factorization:
 * exact, or iterative, which auto is on the device), its work space in one
 * allocation (ipool, freed after the factorization), and one factorization
 * of A + alpha*diag(A) with the outcome of devsweep_build.c's numeric (a
 * bad pivot's row and value). */
#include <limits.h>

#include "devsweep.h"
#include "parfactor.h"

/* ILU(0)'s F by columns with each entry's position in F: cuSPARSE's
 * transpose of the positions as values (exact in double), in v and v1
 * (free until the factorization). */
static int column_index(dev_pc *p)
{
    spk_err *err = p->e->err;
    size_t bytes = 0;
    void *buf = NULL;
    SPK_CUDA_TRY(err, spk_dev_iter_index(p->s, p->nnz, p->v1, NULL, NULL, 0));
    SPK_CUSPARSE_TRY(err, cusparseCsr2cscEx2_bufferSize(p->h, p->n, p->n, p->nnz, p->v1, p->frp, p->fci, p->v,
                                                        p->ucp, p->urow, CUDA_R_64F, CUSPARSE_ACTION_NUMERIC,
                                                        CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &bytes));
    SPK_TRY(spk_cuda_alloc(p->e, bytes ? bytes : 1, "the factor's column index workspace", &buf));
    int st = spk_cusparse_check(err,
                                cusparseCsr2cscEx2(p->h, p->n, p->n, p->nnz, p->v1, p->frp, p->fci, p->v, p->ucp,
                                                   p->urow, CUDA_R_64F, CUSPARSE_ACTION_NUMERIC,
                                                   CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, buf),
                                "cusparseCsr2cscEx2");
    if (!st) st = spk_cuda_check(err, spk_dev_iter_index(p->s, p->nnz, NULL, p->v, p->upos, 1), "spk_dev_iter_index");
    /* the transpose reads buf while it runs: wait before freeing it */
    if (!st) st = spk_cuda_check(err, cudaStreamSynchronize(p->s), "cudaStreamSynchronize");
    spk_cuda_free(p->e, buf);
    return st;
}

/* Lanes per row of a sweep: each lane takes entries of the row. */
static int sweep_group(const dev_pc *p)
{
    const double avg = p->n > 0 ? (double)p->nnz / p->n : 0;
    return avg > 24 ? 32 : avg > 6 ? 8 : 4;
}

/* Rows of F with more entries than this are long: a sweep takes their
 * entries a thread each, not a lane group for the row (one row far longer
 * than the rest would alone outlast the sweep).  Long: more than 4 times
 * F's average row, and more than 64 (below that a group's share is short
 * at any average). */
static int long_min(const dev_pc *p)
{
    const double t = p->n > 0 ? 4.0 * p->nnz / p->n : 0;
    return t > 64 ? (t < INT_MAX / 2 ? (int)t : INT_MAX / 2) : 64;
}

/* The long rows' chunks into ichunk (capacity spk_dev_iter_chunks), their
 * count read back into nchunk. */
static int long_rows(dev_pc *p)
{
    spk_err *err = p->e->err;
    size_t bytes = 0;
    void *buf = NULL;
    SPK_CUDA_TRY(err, spk_dev_iter_long_temp(p->n, &bytes));
    const size_t cnt_bytes = span((size_t)p->n + 1, sizeof(int));
    SPK_TRY(spk_cuda_alloc(p->e, cnt_bytes + bytes, "the long rows' scan workspace", &buf));
    int *cnt = (int *)buf;
    void *temp = (unsigned char *)buf + cnt_bytes;
    int st = spk_cuda_check(err, spk_dev_iter_long(p->s, p->n, p->frp, p->lmin, cnt, temp, bytes, p->ichunk),
                            "spk_dev_iter_long");
    if (!st)
        st = spk_cuda_check(err, cudaMemcpyAsync(&p->nchunk, cnt + p->n, sizeof(int), cudaMemcpyDeviceToHost, p->s),
                            "cudaMemcpyAsync");
    /* the kernels read buf while they run: wait before freeing it */
    if (!st) st = spk_cuda_check(err, cudaStreamSynchronize(p->s), "cudaStreamSynchronize");
    spk_cuda_free(p->e, buf);
    return st;
}

int spk_devsweep_iter_prepare(dev_pc *p)
{
    /* auto is the sweeps on the device: their setup was below the exact factorization's, or
     * within a few per cent where they miss factor-tol and the exact one follows, at any depth
     * (decided on the train half of bench/corpus.txt; docs/notes/default-choice.md) */
    p->info.iterative = p->opts.factorization != SPK_FACTORIZATION_EXACT;
    if (!p->info.iterative || p->n == 0) return SPK_OK;
    p->lmin = long_min(p);
    p->nchunk = 0;
    const size_t nb = (size_t)p->n, dn = (size_t)p->nnz, chunks = (size_t)spk_dev_iter_chunks(p->nnz, p->lmin);
    const size_t parts = (size_t)spk_dev_iter_parts(p->n, sweep_group(p)) + chunks;
    size_t off = 0, o_v1, o_w, o_part, o_chg, o_ctl, o_res, o_chunk, o_ucp = 0, o_urow = 0, o_upos = 0;
    o_v1 = off, off += span(dn, sizeof(double));
    o_w = off, off += span(nb, sizeof(double));
    o_part = off, off += span(parts, sizeof(double));
    o_chg = off, off += span(parts, sizeof(int));
    o_ctl = off, off += span(3, sizeof(int));
    o_res = off, off += span(2, sizeof(double));
    o_chunk = off, off += span(2 * chunks, sizeof(int));
    if (!p->ic) {
        o_ucp = off, off += span(nb + 1, sizeof(int));
        o_urow = off, off += span(dn, sizeof(int));
        o_upos = off, off += span(dn, sizeof(int));
    }
    SPK_TRY(spk_cuda_alloc(p->e, off, "the iterative factorization's work space", &p->ipool));
    unsigned char *d = p->ipool;
    p->v1 = (double *)(d + o_v1), p->iw = (double *)(d + o_w), p->ipart = (double *)(d + o_part);
    p->ichg = (int *)(d + o_chg), p->ictl = (int *)(d + o_ctl), p->ires = (double *)(d + o_res);
    p->ichunk = (int *)(d + o_chunk);
    if (!p->ic) {
        p->ucp = (int *)(d + o_ucp), p->urow = (int *)(d + o_urow), p->upos = (int *)(d + o_upos);
        SPK_TRY(column_index(p));
    }
    return long_rows(p);
}

void spk_devsweep_iter_release(dev_pc *p)
{
    spk_cuda_free(p->e, p->ipool);
    p->ipool = NULL;
    p->v1 = p->iw = p->ipart = p->ires = NULL;
    p->ucp = p->urow = p->upos = p->ictl = p->ichg = p->ichunk = NULL;
    p->nchunk = 0;
}

int spk_devsweep_iter_numeric(dev_pc *p, double alpha, spk_factor_fail *fail)
{
    spk_err *err = p->e->err;
    const int n = p->n;
    if (n == 0) return 0;
    if (!p->ipool) return spk_err_set(err, SPK_ERR_INTERNAL, "%s: no iterative work space", host_kind(p)->label);
    int ctl[3] = {0, INT_MAX, 0}, ictl[3] = {0, 0, 0};
    double res[2] = {0, 0};
    const spk_dev_iter it = {.n = n,          .nnz = p->nnz,       .ic = p->ic,       .group = sweep_group(p),
                             .lmin = p->lmin,  .nchunk = p->nchunk, .rp = p->frp,      .ci = p->fci,
                             .dpos = p->dpos,  .ucp = p->ucp,       .urow = p->urow,   .upos = p->upos,
                             .chunk = p->ichunk, .a0 = p->v0,       .w = p->iw,        .v = p->v,
                             .v1 = p->v1,      .piv = p->piv,       .idiag = p->idiag, .part = p->ipart,
                             .res = p->ires,   .chg = p->ichg,      .flag = p->flag,   .ctl = p->ictl,
                             .fctl = p->ctl,   .stop = p->opts.stop_dev, .stop_value = p->opts.stop_value};
    SPK_CUDA_TRY(err, cudaMemsetAsync(p->flag, 0, (size_t)n, p->s));
    SPK_CUDA_TRY(err, cudaMemcpyAsync(p->ctl, ctl, sizeof ctl, cudaMemcpyHostToDevice, p->s));
    SPK_CUDA_TRY(err, spk_dev_iter_factor(p->s, &it, alpha, p->opts.factor_sweeps, p->opts.factor_tol));
    SPK_CUDA_TRY(err, cudaMemcpyAsync(ctl, p->ctl, sizeof ctl, cudaMemcpyDeviceToHost, p->s));
    SPK_CUDA_TRY(err, cudaMemcpyAsync(ictl, p->ictl, sizeof ictl, cudaMemcpyDeviceToHost, p->s));
    SPK_CUDA_TRY(err, cudaMemcpyAsync(res, p->ires, sizeof res, cudaMemcpyDeviceToHost, p->s));
    SPK_CUDA_TRY(err, cudaStreamSynchronize(p->s));
    p->info.sweeps = ictl[0];
    p->info.residual = res[1];
    if (ictl[2]) return SPK_PRECOND_STOPPED; /* ended early by opts.stop_dev: no factor */
    if (ctl[1] == INT_MAX) return 0;
    return spk_devsweep_failure(p, ctl[1], fail);
}

int spk_devsweep_failure(dev_pc *p, int row, spk_factor_fail *fail)
{
    spk_err *err = p->e->err;
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

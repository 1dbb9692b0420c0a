/* block.c -- the block engine's host side (block.h): whether a solve can
 * run its iterations in one block or a cluster, the job's fixed parts, the
 * reads handed out one by one, the phases by the kernel's shares. */
#include <string.h>

#include "solver/engine/block.h"

int spk_block_lanes(int n, const int *rp, int blocks)
{
    enum { T = 1024, WARPS = T / 32 }; /* kSmallBlock (precond/devtri.cuh) */
    if (n < 1 || !rp || blocks < 1 || blocks > SPK_BLOCK_CLUSTER_MAX) return 0;
    long long cost[SPK_BLOCK_CLUSTER_MAX * WARPS];
    long long best_cost = -1;
    int best = 0;
    for (int g = 2; g <= 32; g *= 2) {
        const int groups = T / g, all = blocks * groups, per_warp = 32 / g;
        memset(cost, 0, sizeof cost);
        long long worst = 0;
        for (int base = 0; base < n; base += all)
            for (int b = 0; b < blocks; b++)
                for (int w = 0; w < WARPS; w++) {
                    const int first = base + b * groups + w * per_warp;
                    if (first >= n) break;
                    int longest = 0;
                    for (int i = first; i < first + per_warp && i < n; i++)
                        if (rp[i + 1] - rp[i] > longest) longest = rp[i + 1] - rp[i];
                    const int loads = (longest + g - 1) / g;
                    long long *c = &cost[b * WARPS + w];
                    *c += 1 + (loads + 1) / 2;
                    if (*c > worst) worst = *c;
                }
        if (best_cost < 0 || worst < best_cost) {
            best_cost = worst;
            best = g;
        }
    }
    return best;
}

void spk_block_open(spk_krylov *k, const spk_options *o, int method, const double *b, double *x,
                    const spk_result *res, double bnorm, spk_blockrun *br)
{
    memset(br, 0, sizeof *br);
    const int ident = spk_krylov_identity(k);
    if (o->vector_ops != SPK_VECTOR_BLOCK || !spk_block_runs_on(k->e) || !k->dA || k->n < 1 || k->n > SPK_BLOCK_ROWS) return;
    if (o->iterate) return; /* the iterate callback reads x after every iteration */
    spk_block_job *j = &br->job;
    if (!ident && (!k->M_ops->block || !k->M_ops->block(k->M, &j->M))) return;
    /* Jacobi costs a product per entry of a vector: the limits without M */
    const int light = ident || j->M.kind == SPK_BLOCK_DIAG;
    if (k->dA->nnz > (light ? SPK_BLOCK_CLUSTER_NNZ_MAX : SPK_BLOCK_CLUSTER_NNZ_PREC_MAX)) return;
    j->cluster = 1;
    if (k->dA->nnz > (light ? SPK_BLOCK_NNZ_MAX : SPK_BLOCK_NNZ_PREC_MAX)) {
        if (!ident && j->M.kind == SPK_BLOCK_SOLVE) return;
        j->cluster = SPK_BLOCK_CLUSTER_MAX;
    }
    j->method = method;
    j->n = k->n;
    j->rp = k->dA->rowptr;
    j->ci = k->dA->colind;
    j->val = k->dA->val;
    /* lanes a row: 2^k >= the mean row length; for CG without a
     * preconditioner or with Jacobi, the model's (spk_block_lanes).  Not for
     * BiCGStab, whose iterations another order of each row's additions
     * moves, nor with IC(0), whose factor in shared memory leaves less L1
     * (docs/benchmarks.md). */
    const double mean = (double)k->dA->nnz / k->n;
    j->lanes = 1;
    while (j->lanes < 32 && j->lanes < mean) j->lanes *= 2;
    const int model = k->lanes_light[j->cluster > 1];
    if (method == SPK_BLOCK_CG && light && model > 0) j->lanes = model;
    j->x = x;
    j->b = b; /* the answer's true residual from the kernel (block_finish) */
    for (int i = 0; i < 7; i++) j->v[i] = k->w[i];
    j->maxit = o->maxit;
    /* the host's stopping test (solver/control.h) */
    j->stop = spk_stop_of(o->rtol, o->atol, o->dtol, bnorm, res->rnorm0);
    br->on = 1;
}

/* The launch's reads are back: its time to the phases by its shares, then
 * the first read into h. */
static int block_take(spk_krylov *k, spk_result *res, spk_clock *c, spk_blockrun *br, double *h)
{
    br->pending = 0;
    br->tt = br->reads[3 * br->count];
    SPK_TRY(spk_fused_times(k, res, c));
    const double dt = res->t_vector - br->before;
    res->t_vector = br->before + dt * br->share[SPK_PHASE_VECTOR];
    res->t_spmv += dt * br->share[SPK_PHASE_SPMV];
    res->t_precond += dt * br->share[SPK_PHASE_PRECOND];
    res->block_iterations += br->job.method == SPK_BLOCK_CG ? br->count : (br->count + 1) / 2;
    res->block_cluster = br->job.cluster;
    br->next = 0;
    memcpy(h, br->reads + 3 * br->next++, 3 * sizeof(double));
    return SPK_OK;
}

int spk_block_read(spk_krylov *k, spk_result *res, spk_clock *c, spk_blockrun *br, const int *slot, int it,
                   int left, double rnorm, const spk_block_watch *w, double *h)
{
    if (br->next < br->count) {
        memcpy(h, br->reads + 3 * br->next++, 3 * sizeof(double));
        return SPK_OK;
    }
    spk_block_job *j = &br->job;
    memcpy(j->slot, slot, sizeof j->slot);
    j->it = it;
    j->iters = left < SPK_BLOCK_ITERS ? left : SPK_BLOCK_ITERS;
    j->rnorm = rnorm;
    br->before = res->t_vector;
    SPK_TRY(spk_block_cuda_run(k->e, j, w, br->reads, &br->count, br->share));
    br->pending = br->count == 0;
    br->next = 0;
    return br->pending ? SPK_OK : block_take(k, res, c, br, h);
}

int spk_block_rest(spk_krylov *k, spk_result *res, spk_clock *c, spk_blockrun *br, const spk_block_watch *w,
                   double *h)
{
    SPK_TRY(spk_block_cuda_rest(k->e, w, br->reads, &br->count, br->share));
    br->pending = br->count == 0;
    return br->pending ? SPK_OK : block_take(k, res, c, br, h);
}

int spk_block_done(spk_krylov *k, const spk_blockrun *br, int it)
{
    if (!br->on || br->next == br->count) return SPK_OK;
    return spk_err_set(k->e->err, SPK_ERR_INTERNAL,
                       "the block iterations ran past the host's stopping test (iteration %d, %d reads left)", it,
                       br->count - br->next);
}

int spk_block_finish(spk_krylov *k, const spk_blockrun *br, const double *b, const double *x, double *t,
                     spk_result *res, double bnorm)
{
    const int given = br->on && br->count > 0 && br->next == br->count && isfinite(br->tt) && br->tt > 1e-290 &&
                      res->reason != SPK_INVALID_INPUT && res->reason != SPK_CONVERGED_ZERO_RHS;
    return given ? spk_krylov_finished(res, sqrt(br->tt), bnorm) : spk_fused_finish(k, b, x, t, res, bnorm);
}


#ifndef SPK_HAVE_CUDA
/* A build without CUDA runs no block iterations (spk_block_open never
 * turns them on, so the launches are never asked for). */
int spk_block_runs_on(const spk_exec *e)
{
    (void)e;
    return 0;
}

int spk_block_cuda_run(spk_exec *e, spk_block_job *job, const spk_block_watch *w, double *reads, int *count,
                       double *share)
{
    (void)job, (void)w, (void)reads, (void)share;
    *count = 0;
    return spk_err_set(e->err, SPK_ERR_INTERNAL, "block iterations asked of a build without CUDA");
}

int spk_block_cuda_rest(spk_exec *e, const spk_block_watch *w, double *reads, int *count, double *share)
{
    (void)w, (void)reads, (void)share;
    *count = 0;
    return spk_err_set(e->err, SPK_ERR_INTERNAL, "block iterations asked of a build without CUDA");
}
#endif

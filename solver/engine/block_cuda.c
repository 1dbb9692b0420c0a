/* block_cuda.c -- the block engine's launches on the CUDA executor
 * (block.h): the kernel on the executor's stream, marked as vector work,
 * then its reads, count and cycles in one transfer.  A cluster larger than
 * the device runs is made smaller (down to one block before sm_90: the same
 * iterations, slower).  Its buffers are kept with the executor. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/exec_cuda.h"
#include "solver/engine/block.h"
#include "solver/engine/block_kernels.h"

#define BLOCK_READS (2 * SPK_BLOCK_ITERS)
#define BLOCK_BYTES (3 * BLOCK_READS * sizeof(double) + SPK_PHASES * sizeof(long long) + 2 * sizeof(double))

/* Per executor: reads, count and cycles in one device buffer and its
 * pinned copy, and what the launch whose reads are pending asked. */
typedef struct block_state {
    void *blk, *hblk;
    cudaEvent_t blk_read;    /* after the copy of the reads, where a race runs alongside */
    int blk_iters;           /* the iterations the launch whose reads are pending was asked */
    int blk_race;            /* ...and whether it runs alongside a race (the wait ends on either) */
    int blk_true;            /* ...and whether its kernel gives the true residual's t't */
    unsigned blk_shared;     /* dynamic shared memory the block kernels are allowed */
    double *blk_scratch;     /* a cluster's sweeps' iterates: 2 SPK_BLOCK_ROWS doubles */
    int cluster_max;         /* the most blocks of a cluster here (0: not asked yet) */
} block_state;

static const char block_key = 0;

static void block_state_free(void *p)
{
    block_state *b = p;
    if (!b) return;
    cudaFree(b->blk);
    cudaFree(b->blk_scratch);
    if (b->hblk) cudaFreeHost(b->hblk);
    if (b->blk_read) cudaEventDestroy(b->blk_read);
    free(b);
}

static block_state *state_of(spk_exec *e)
{
    return spk_exec_state(e, &block_key, sizeof(block_state), block_state_free, "the block iterations' state", NULL);
}

int spk_block_runs_on(const spk_exec *e)
{
    return spk_exec_is_cuda(e);
}

int spk_block_cuda_run(spk_exec *e, spk_block_job *asked, const spk_block_watch *w, double *reads, int *count,
                       double *share)
{
    *count = 0;
    block_state *k = state_of(e);
    if (!k) return e->err->code ? e->err->code : SPK_ERR_NOMEM;
    cudaStream_t s;
    spk_slot_dev d;
    SPK_TRY(spk_exec_cuda_slot_dev(e, &d));
    spk_exec_cuda_handles(e, &s, NULL, NULL);
    if (asked->iters > SPK_BLOCK_ITERS || asked->n > SPK_BLOCK_ROWS || asked->cluster < 1 ||
        asked->cluster > SPK_BLOCK_CLUSTER_MAX || (asked->cluster > 1 && asked->M.kind == SPK_BLOCK_SOLVE))
        return spk_err_set(e->err, SPK_ERR_INTERNAL,
                           "block iterations: %d iterations of %d rows in %d blocks asked, at most %d of %d in %d",
                           asked->iters, asked->n, asked->cluster, SPK_BLOCK_ITERS, SPK_BLOCK_ROWS,
                           SPK_BLOCK_CLUSTER_MAX);
    spk_block_job jb = *asked, *job = &jb;
    SPK_CUDA_TRY(e->err, spk_block_cluster_fit(&k->cluster_max, &job->cluster));
    asked->cluster = job->cluster;
    if (job->cluster > 1) {
        if (!k->blk_scratch)
            SPK_TRY(spk_cuda_alloc(e, 2 * (size_t)SPK_BLOCK_ROWS * sizeof(double), "the cluster's sweep iterates",
                                   (void **)&k->blk_scratch));
        job->scratch = k->blk_scratch;
    }
    if (!k->blk) SPK_TRY(spk_cuda_alloc(e, BLOCK_BYTES, "the block iterations' reads", &k->blk));
    if (!k->hblk) SPK_CUDA_TRY(e->err, cudaHostAlloc(&k->hblk, BLOCK_BYTES, cudaHostAllocDefault));
    const unsigned bytes = job->M.kind == SPK_BLOCK_IDENTITY || job->cluster > 1 ? 0 : job->M.shared_bytes;
    if (bytes > k->blk_shared) {
        SPK_CUDA_TRY(e->err, spk_block_allow(bytes));
        k->blk_shared = bytes;
    }
    double *dreads = k->blk;
    long long *dcyc = (long long *)(dreads + 3 * BLOCK_READS);
    int *dcount = (int *)(dcyc + SPK_PHASES);
    /* the true residual's t't after the count (spk_block_cuda_rest) */
    job->true_rr = job->b ? (double *)(dcyc + SPK_PHASES) + 1 : NULL;
    k->blk_true = job->b != NULL;
    job->ring = 0;
    job->over = NULL;
    job->signal = 0;
    if (w && w->over && job->method == SPK_BLOCK_CG) { /* stop once a side of the race has converged */
        job->over = w->over;
        job->race = w->race;
    }
    if (job->over && !k->blk_read) SPK_CUDA_TRY(e->err, cudaEventCreateWithFlags(&k->blk_read, cudaEventDisableTiming));
    SPK_CUDA_TRY(e->err, spk_block_run(s, job, d.slots, dreads, dcount, dcyc));
    SPK_TRY(e->ops->async->mark(e, SPK_PHASE_VECTOR));
    SPK_CUDA_TRY(e->err, cudaMemcpyAsync(k->hblk, k->blk, BLOCK_BYTES, cudaMemcpyDeviceToHost, s));
    if (job->over) SPK_CUDA_TRY(e->err, cudaEventRecord(k->blk_read, s));
    k->blk_iters = job->iters;
    k->blk_race = job->over != NULL;
    return spk_block_cuda_rest(e, w, reads, count, share);
}

/* The reads of the last launch.  Where it runs alongside a race, whichever
 * ends first: the reads, or a side (*count = 0, the reads still pending).
 * A side that converged has set the race's flag, on which these iterations
 * stop within one of theirs; but their reads are then not wanted, and the
 * answer need not wait for that iteration and their readback. */
int spk_block_cuda_rest(spk_exec *e, const spk_block_watch *w, double *reads, int *count, double *share)
{
    *count = 0;
    block_state *k = state_of(e);
    if (!k) return e->err->code ? e->err->code : SPK_ERR_NOMEM;
    cudaStream_t s;
    spk_exec_cuda_handles(e, &s, NULL, NULL);
    while (k->blk_race) {
        cudaError_t q = cudaEventQuery(k->blk_read);
        if (q == cudaSuccess) break;
        if (q != cudaErrorNotReady) SPK_CUDA_TRY(e->err, q);
        int ended = 0;
        if (w && w->ended) SPK_TRY(w->ended(w->arg, &ended));
        if (ended) return SPK_OK;
    }
    if (!k->blk_race) SPK_CUDA_TRY(e->err, cudaStreamSynchronize(s));
    const double *hr = k->hblk;
    const long long *hc = (const long long *)(hr + 3 * BLOCK_READS);
    const int c = *(const int *)(hc + SPK_PHASES);
    if (c < 1 || c > 2 * k->blk_iters)
        return spk_err_set(e->err, SPK_ERR_INTERNAL, "block iterations: %d reads back for %d iterations", c,
                           k->blk_iters);
    memcpy(reads, hr, 3 * (size_t)c * sizeof(double));
    reads[3 * c] = k->blk_true ? ((const double *)(hc + SPK_PHASES))[1] : NAN;
    *count = c;
    double total = 0;
    for (int p = 0; p < SPK_PHASES; p++) total += (double)hc[p];
    for (int p = 0; p < SPK_PHASES; p++) share[p] = total > 0 ? (double)hc[p] / total : p == SPK_PHASE_VECTOR;
    return SPK_OK;
}

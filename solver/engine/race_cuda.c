/* race_cuda.c -- the race's sides on the CUDA executor (race.h): each CG
 * side on a stream of its own, started when the executor's queued work is
 * done, its scalars, last read, cycles and count in one device buffer (and
 * a pinned copy); in device memory the flag the first to converge sets to
 * the race's number (`over`, never reset: each race has a number of its
 * own), which the host also writes, through the executor's stream, to stop
 * them (read by the kernels every iteration, it stays in device memory: from
 * mapped host memory a read costs a small system's iteration).  While any
 * side runs, the executor's frees are held (cudaFree would wait for it).
 * Kept with the executor. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda_kernels.h"
#include "core/cuda_module.h"
#include "core/exec_cuda.h"
#include "solver/engine/block_kernels.h"
#include "solver/engine/race.h"
#include "solver/engine/step_kernels.h"

typedef struct side_job {
    cudaStream_t stream;
    cudaEvent_t go, start, end;
    void *dbuf, *hbuf;
    int running, iters;
} side_job;
typedef struct side_state {
    spk_exec *e;
    side_job job[SPK_RACE_SIDES];
    int *over;                 /* device memory */
    int *race;                 /* pinned: the number of the race running or last run */
    int ended;                 /* the host has written *race to *over since the race began */
    int loaded;                /* 1: the kernels preloaded; -1: they cannot be (no side runs) */
    int holding;               /* the executor's frees are held */
    int cluster_max;           /* the most blocks of a cluster here (0: not asked yet) */
    int ready;                 /* made whole (side_of) */
} side_state;
#define SIDE_READS 0                                   /* in doubles */
#define SIDE_SLOTS 3
#define SIDE_CYCLES (SIDE_SLOTS + SPK_EXEC_SLOTS)      /* SPK_PHASES long longs */
#define SIDE_COUNT (SIDE_CYCLES + SPK_PHASES)          /* an int: count */
#define SIDE_TRUE (SIDE_COUNT + 1)                     /* t't of the true residual (spk_block_job.true_rr) */
#define SIDE_BYTES ((SIDE_TRUE + 1) * sizeof(double))

static const char side_key = 0;

/* Is a side running? */
static int side_busy(const side_state *sd)
{
    for (int w = 0; sd && w < SPK_RACE_SIDES; w++)
        if (sd->job[w].running) return 1;
    return 0;
}

/* With the executor: sides still running are stopped (the flag written)
 * and waited for before their memory goes. */
static void side_free(void *p)
{
    side_state *sd = p;
    if (!sd) return;
    if (side_busy(sd) && sd->over && sd->race) {
        cudaStream_t es;
        spk_exec_cuda_handles(sd->e, &es, NULL, NULL);
        cudaMemcpyAsync(sd->over, sd->race, sizeof(int), cudaMemcpyHostToDevice, es);
    }
    for (int w = 0; w < SPK_RACE_SIDES; w++) {
        side_job *jb = &sd->job[w];
        if (jb->running) cudaStreamSynchronize(jb->stream);
        jb->running = 0;
    }
    if (sd->holding) spk_exec_cuda_hold_frees(sd->e, 0);
    for (int w = 0; w < SPK_RACE_SIDES; w++) {
        side_job *jb = &sd->job[w];
        if (jb->go) cudaEventDestroy(jb->go);
        if (jb->start) cudaEventDestroy(jb->start);
        if (jb->end) cudaEventDestroy(jb->end);
        cudaFree(jb->dbuf);
        if (jb->hbuf) cudaFreeHost(jb->hbuf);
        if (jb->stream) cudaStreamDestroy(jb->stream);
    }
    if (sd->race) cudaFreeHost(sd->race);
    cudaFree(sd->over);
    free(sd);
}

int spk_race_cuda_can(const spk_exec *e)
{
    return spk_exec_is_cuda(e);
}

const int *spk_race_cuda_flag(const spk_exec *e, int *race)
{
    const side_state *sd = e && spk_exec_is_cuda(e) ? spk_exec_attached(e, &side_key) : NULL;
    *race = sd && sd->race ? *sd->race : 0;
    return side_busy(sd) ? sd->over : NULL;
}

/* Has any side ended (the wait of a block launch, block.h)? */
static int any_ended(void *arg, int *yes)
{
    side_state *sd = arg;
    *yes = 0;
    for (int w = 0; w < SPK_RACE_SIDES; w++) {
        if (!sd->job[w].running) continue;
        const cudaError_t q = cudaEventQuery(sd->job[w].end);
        if (q == cudaSuccess) {
            *yes = 1;
            return SPK_OK;
        }
        if (q != cudaErrorNotReady) SPK_CUDA_TRY(sd->e->err, q);
    }
    return SPK_OK;
}

const spk_block_watch *spk_race_cuda_watch(spk_exec *e, spk_block_watch *w)
{
    side_state *sd = e && spk_exec_is_cuda(e) ? spk_exec_attached(e, &side_key) : NULL;
    if (!side_busy(sd)) return NULL;
    w->over = sd->over;
    w->race = *sd->race;
    w->ended = any_ended;
    w->arg = sd;
    return w;
}

/* The sides' state, made at the first; freed with the executor, also
 * when made in part. */
static side_state *side_of(spk_exec *e)
{
    int made = 0;
    side_state *sd = spk_exec_state(e, &side_key, sizeof(side_state), side_free, "the race's sides", &made);
    if (!sd || (!made && sd->ready)) return sd;
    if (!made) {
        spk_err_set(e->err, SPK_ERR_DEVICE, "the race's sides could not be set up on this device");
        return NULL;
    }
    sd->e = e;
    int st;
    for (int w = 0; w < SPK_RACE_SIDES; w++) {
        side_job *jb = &sd->job[w];
        SPK_CUDA_CHECK(st, e->err, cudaStreamCreateWithFlags(&jb->stream, cudaStreamNonBlocking));
        SPK_CUDA_CHECK(st, e->err, cudaEventCreateWithFlags(&jb->go, cudaEventDisableTiming));
        SPK_CUDA_CHECK(st, e->err, cudaEventCreate(&jb->start));
        SPK_CUDA_CHECK(st, e->err, cudaEventCreate(&jb->end));
        SPK_CHECK(st, spk_cuda_alloc(e, SIDE_BYTES, "a side's scalars", &jb->dbuf));
        SPK_CUDA_CHECK(st, e->err, cudaHostAlloc(&jb->hbuf, SIDE_BYTES, cudaHostAllocDefault));
    }
    SPK_CUDA_CHECK(st, e->err, cudaHostAlloc((void **)&sd->race, sizeof(int), cudaHostAllocDefault));
    *sd->race = 0;
    SPK_CHECK(st, spk_cuda_alloc(e, sizeof(int), "the race's flag", (void **)&sd->over));
    SPK_CUDA_CHECK(st, e->err, cudaMemset(sd->over, 0, sizeof(int)));
    sd->ready = 1;
    return sd;
cleanup:
    return NULL;
}

int spk_race_cuda_run(spk_exec *e, int which, spk_block_job *job)
{
    if (which < 0 || which >= SPK_RACE_SIDES || job->method != SPK_BLOCK_CG ||
        (job->M.kind != SPK_BLOCK_IDENTITY && job->M.kind != SPK_BLOCK_DIAG) || job->ring != 1 || job->iters < 1 ||
        job->n > SPK_BLOCK_ROWS || job->cluster < 1 || job->cluster > SPK_BLOCK_CLUSTER_MAX)
        return spk_err_set(e->err, SPK_ERR_INTERNAL,
                           "the race's side %d (of %d): CG without a preconditioner or with Jacobi, one read kept, "
                           "at most %d rows",
                           which, SPK_RACE_SIDES, SPK_BLOCK_ROWS);
    side_state *sd = side_of(e);
    if (!sd) return e->err->code ? e->err->code : SPK_ERR_DEVICE;
    side_job *jb = &sd->job[which];
    if (jb->running) return spk_err_set(e->err, SPK_ERR_INTERNAL, "the race's side %d is already running", which);
    /* the kernels a solve may launch first, loaded before the side runs
     * (the preconditioner's own: its table's warm, solver/solve_race.c) */
    if (!sd->loaded) {
        const void *probe[] = {spk_block_kernels_probe(), spk_step_kernels_probe(), spk_slot_kernels_probe(),
                               spk_cuda_kernels_probe()};
        sd->loaded = 1;
        for (size_t i = 0; i < sizeof probe / sizeof probe[0] && sd->loaded == 1; i++) {
            int done = 0;
            SPK_CUDA_TRY(e->err, spk_module_preload(probe[i], &done));
            if (!done) sd->loaded = -1;
        }
    }
    if (sd->loaded < 0) { /* a first load during the job would wait for it */
        job->cluster = 0;
        return SPK_OK;
    }
    SPK_CUDA_TRY(e->err, spk_block_cluster_fit(&sd->cluster_max, &job->cluster));
    /* no job runs: a new race, a new number (never 0, the flag's first
     * value; the pinned copy is read by a copy queued before this, done by
     * now: the last race's jobs have ended) */
    if (!side_busy(sd)) {
        *sd->race = *sd->race == INT_MAX ? 1 : *sd->race + 1;
        sd->ended = 0;
    }
    cudaStream_t es;
    spk_exec_cuda_handles(e, &es, NULL, NULL);
    double *d = jb->dbuf;
    job->over = sd->over;
    job->race = *sd->race;
    job->signal = 1;
    job->scratch = NULL; /* no sweeps: no sweeps' iterates */
    job->true_rr = d + SIDE_TRUE;
    cudaStream_t s = jb->stream;
    if (job->x0 && job->r0) /* one launch for both, before anything later on the stream may change them */
        SPK_CUDA_TRY(e->err, spk_cuda_copy2(es, job->n, job->x0, job->x, job->r0, job->v[0]));
    SPK_CUDA_TRY(e->err, cudaEventRecord(jb->go, es));
    SPK_CUDA_TRY(e->err, cudaStreamWaitEvent(s, jb->go, 0));
    SPK_CUDA_TRY(e->err, cudaEventRecord(jb->start, s));
    /* the kernel writes the count at its end: no reset before it */
    SPK_CUDA_TRY(e->err, spk_block_run(s, job, d + SIDE_SLOTS, d + SIDE_READS, (int *)(d + SIDE_COUNT),
                                       (long long *)(d + SIDE_CYCLES)));
    SPK_CUDA_TRY(e->err, cudaEventRecord(jb->end, s));
    if (!sd->holding) { /* cudaFree would wait for the sides: frees wait for them instead */
        spk_exec_cuda_hold_frees(e, 1);
        sd->holding = 1;
    }
    jb->running = 1;
    jb->iters = job->iters;
    return SPK_OK;
}

int spk_race_cuda_poll(spk_exec *e, int which, int *ended)
{
    const side_state *sd = spk_exec_attached(e, &side_key);
    *ended = 1;
    if (!sd || which < 0 || which >= SPK_RACE_SIDES || !sd->job[which].running) return SPK_OK;
    const cudaError_t q = cudaEventQuery(sd->job[which].end);
    if (q == cudaErrorNotReady) {
        *ended = 0;
        return SPK_OK;
    }
    SPK_CUDA_TRY(e->err, q);
    return SPK_OK;
}

int spk_race_cuda_end(spk_exec *e, int which, double last[4], int *count, double *seconds, double *share)
{
    side_state *sd = spk_exec_attached(e, &side_key);
    if (!sd || which < 0 || which >= SPK_RACE_SIDES || !sd->job[which].running)
        return spk_err_set(e->err, SPK_ERR_INTERNAL, "no job alongside %d to end", which);
    side_job *jb = &sd->job[which];
    /* still running: the race's flag set through the executor's stream (its
     * work, the solve's, is done: the copy runs at once), which ends every
     * job of the race within an iteration */
    if (!sd->ended && cudaEventQuery(jb->end) == cudaErrorNotReady) {
        cudaStream_t es;
        spk_exec_cuda_handles(e, &es, NULL, NULL);
        SPK_CUDA_TRY(e->err, cudaMemcpyAsync(sd->over, sd->race, sizeof(int), cudaMemcpyHostToDevice, es));
        sd->ended = 1;
    }
    int st = SPK_OK;
    if (!last) { /* its answer is not wanted: the wait alone (a copy back costs a readback) */
        SPK_CUDA_CHECK(st, e->err, cudaEventSynchronize(jb->end));
        goto cleanup;
    }
    SPK_CUDA_CHECK(st, e->err, cudaMemcpyAsync(jb->hbuf, jb->dbuf, SIDE_BYTES, cudaMemcpyDeviceToHost, jb->stream));
    SPK_CUDA_CHECK(st, e->err, cudaStreamSynchronize(jb->stream));
    float ms = 0;
    SPK_CUDA_CHECK(st, e->err, cudaEventElapsedTime(&ms, jb->start, jb->end));
    const double *h = jb->hbuf;
    const long long *cyc = (const long long *)(h + SIDE_CYCLES);
    const int *hc = (const int *)(h + SIDE_COUNT);
    if (hc[0] < 1 || hc[0] > jb->iters) {
        st = spk_err_set(e->err, SPK_ERR_INTERNAL, "the race's side %d: %d iterations back for at most %d", which,
                         hc[0], jb->iters);
        goto cleanup;
    }
    memcpy(last, h + SIDE_READS, 3 * sizeof(double));
    last[3] = h[SIDE_TRUE];
    *count = hc[0];
    *seconds = 1e-3 * ms;
    double total = 0;
    for (int p = 0; p < SPK_PHASES; p++) total += (double)cyc[p];
    for (int p = 0; p < SPK_PHASES; p++) share[p] = total > 0 ? (double)cyc[p] / total : p == SPK_PHASE_VECTOR;
cleanup:
    jb->running = 0;
    if (!side_busy(sd) && sd->holding) {
        spk_exec_cuda_hold_frees(e, 0);
        sd->holding = 0;
    }
    return st;
}

int spk_race_cuda_download(spk_exec *e, int which, double *host, const double *dev, int n)
{
    const side_state *sd = spk_exec_attached(e, &side_key);
    if (!sd || which < 0 || which >= SPK_RACE_SIDES || sd->job[which].running || n < 0)
        return spk_err_set(e->err, SPK_ERR_INTERNAL, "no ended job alongside %d to copy from", which);
    cudaStream_t s = sd->job[which].stream;
    SPK_CUDA_TRY(e->err, cudaMemcpyAsync(host, dev, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost, s));
    SPK_CUDA_TRY(e->err, cudaStreamSynchronize(s));
    return SPK_OK;
}


/* exec_cuda_async.c -- the CUDA executor's scalars (exec.h,
 * spk_exec_async_ops): slots in device memory written by reductions
 * (slot_kernels.cu) and read back in one transfer, phase marks as events,
 * and graphs recorded from the stream. */
#include "exec_cuda_impl.h"

#include <stdlib.h>

#define impl_of spk_cuda_impl

/* The state, made on first use; NULL after an error (message set). */
static async_state *kstate(spk_exec *e)
{
    cuda_impl *c = impl_of(e);
    if (c->as) return c->as;
    async_state *k = calloc(1, sizeof *k);
    if (!k) {
        spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (Krylov state)");
        return NULL;
    }
    int st;
    SPK_CHECK(st, spk_cuda_alloc(e, SPK_EXEC_SLOTS * sizeof(double), "the Krylov scalars", (void **)&k->d.slots));
    SPK_CHECK(st, spk_cuda_alloc(e, 2 * SPK_SLOT_MAX_BLOCKS * sizeof(double), "the reduction block sums",
                                 (void **)&k->d.part));
    SPK_CHECK(st, spk_cuda_alloc(e, sizeof(unsigned), "the reduction ticket", (void **)&k->d.ticket));
    SPK_CUDA_CHECK(st, e->err, cudaMemsetAsync(k->d.ticket, 0, sizeof(unsigned), c->stream));
    SPK_CUDA_CHECK(st, e->err, cudaMemsetAsync(k->d.slots, 0, SPK_EXEC_SLOTS * sizeof(double), c->stream));
    SPK_CUDA_CHECK(st, e->err, cudaHostAlloc((void **)&k->hslots, SPK_EXEC_SLOTS * sizeof(double),
                                             cudaHostAllocDefault));
    for (int i = 0; i < ASYNC_EVENTS; i++) SPK_CUDA_CHECK(st, e->err, cudaEventCreate(&k->ev[i]));
    c->as = k;
    return k;
cleanup:
    spk_cuda_async_free(k);
    return NULL;
}

#define KS(e, k)                                   \
    async_state *k = kstate(e);                   \
    if (!k) return (e)->err->code ? (e)->err->code : SPK_ERR_DEVICE
#define KLAUNCH(e, call) SPK_CUDA_TRY((e)->err, call)

static int ck_dot(spk_exec *e, int n, const double *x, const double *y, int o)
{
    KS(e, k);
    KLAUNCH(e, spk_slot_dot(impl_of(e)->stream, &k->d, n, x, y, o));
    return SPK_OK;
}

static int ck_dot2(spk_exec *e, int n, const double *x, const double *y, int o1, int o2)
{
    KS(e, k);
    KLAUNCH(e, spk_slot_dot2(impl_of(e)->stream, &k->d, n, x, y, o1, o2));
    return SPK_OK;
}

static int ck_set(spk_exec *e, int o, double v)
{
    KS(e, k);
    KLAUNCH(e, spk_slot_set(impl_of(e)->stream, k->d.slots, o, v));
    return SPK_OK;
}

static int ck_read(spk_exec *e, const int *which, int count, double *host)
{
    KS(e, k);
    cudaStream_t s = impl_of(e)->stream;
    SPK_CUDA_TRY(e->err, cudaMemcpyAsync(k->hslots, k->d.slots, SPK_EXEC_SLOTS * sizeof(double),
                                         cudaMemcpyDeviceToHost, s));
    if (k->cap) return SPK_OK; /* recorded: read_wait gives the values after the graph ran */
    SPK_CUDA_TRY(e->err, cudaStreamSynchronize(s));
    for (int i = 0; i < count; i++) host[i] = k->hslots[which[i]];
    return SPK_OK;
}

/* Wait for the last of nev recorded events, then add the time from each
 * to the next to acc[] of the next one's tag (tags < 0: to none). */
static int events_add(spk_exec *e, const cudaEvent_t *ev, const int *tag, int nev, double *acc)
{
    SPK_CUDA_TRY(e->err, cudaEventSynchronize(ev[nev - 1]));
    for (int i = 1; i < nev; i++) {
        if (tag[i] < 0) continue;
        float ms = 0;
        SPK_CUDA_TRY(e->err, cudaEventElapsedTime(&ms, ev[i - 1], ev[i]));
        acc[tag[i]] += ms * 1e-3;
    }
    return SPK_OK;
}

/* Add the times of the recorded marks to k->acc; the last mark becomes ev[0]. */
static int marks_add(spk_exec *e, async_state *k)
{
    if (k->nev == 0) return SPK_OK;
    SPK_TRY(events_add(e, k->ev, k->tag, k->nev, k->acc));
    cudaEvent_t last = k->ev[k->nev - 1];
    k->ev[k->nev - 1] = k->ev[0];
    k->ev[0] = last;
    k->tag[0] = -1;
    k->nev = 1;
    return SPK_OK;
}

static int graph_marks_add(spk_exec *e, async_state *k);

static int ck_mark(spk_exec *e, int ph)
{
    KS(e, k);
    if (k->cap) { /* an event node of the graph */
        cuda_graph *g = k->cap;
        if (!g->timed) return SPK_OK;
        if (ph < 0 || g->nev == GRAPH_EVENTS)
            return spk_err_set(e->err, SPK_ERR_INTERNAL, "a graph of fused steps holds %s",
                               ph < 0 ? "a starting mark" : "too many marks");
        SPK_CUDA_TRY(e->err, cudaEventRecordWithFlags(g->ev[g->nev], impl_of(e)->stream, cudaEventRecordExternal));
        g->tag[g->nev++] = ph < SPK_PHASES ? ph : -1;
        return SPK_OK;
    }
    if (k->nev == ASYNC_EVENTS) SPK_TRY(marks_add(e, k)); /* full: wait for what is queued */
    if (ph < 0) { /* a new starting point: what was marked before it and not
                     collected belongs to no one (a previous solve's tail) */
        SPK_TRY(graph_marks_add(e, k));
        SPK_TRY(marks_add(e, k));
        for (int p = 0; p < SPK_PHASES; p++) k->acc[p] = 0;
        k->nev = 0;
    }
    SPK_CUDA_TRY(e->err, cudaEventRecord(k->ev[k->nev], impl_of(e)->stream));
    k->tag[k->nev++] = ph < SPK_PHASES ? ph : -1;
    return SPK_OK;
}

/* Add the marks of the graph launched last to k->acc (waits for it). */
static int graph_marks_add(spk_exec *e, async_state *k)
{
    cuda_graph *g = k->ran;
    k->ran = NULL;
    if (!g || !g->timed) return SPK_OK;
    return events_add(e, g->ev, g->tag, g->nev, k->acc);
}

static int ck_collect(spk_exec *e, double *seconds)
{
    KS(e, k);
    SPK_TRY(graph_marks_add(e, k));
    SPK_TRY(marks_add(e, k));
    for (int p = 0; p < SPK_PHASES; p++) {
        seconds[p] += k->acc[p];
        k->acc[p] = 0;
    }
    return SPK_OK;
}

static void graph_free(void *graph)
{
    cuda_graph *g = graph;
    if (!g) return;
    if (g->exec) cudaGraphExecDestroy(g->exec);
    for (int i = 0; i < GRAPH_EVENTS; i++)
        if (g->ev[i]) cudaEventDestroy(g->ev[i]);
    free(g);
}

static int ck_capture(spk_exec *e, int timed)
{
    KS(e, k);
    if (k->cap) return spk_err_set(e->err, SPK_ERR_INTERNAL, "a graph of fused steps is already being recorded");
    cuda_graph *g = calloc(1, sizeof *g);
    if (!g) return spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (a graph of fused steps)");
    cudaStream_t s = impl_of(e)->stream;
    cudaError_t ce = cudaSuccess;
    for (int i = 0; i < GRAPH_EVENTS && ce == cudaSuccess; i++) ce = cudaEventCreate(&g->ev[i]);
    if (ce == cudaSuccess) ce = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    if (ce == cudaSuccess && timed) {
        ce = cudaEventRecordWithFlags(g->ev[0], s, cudaEventRecordExternal);
        if (ce != cudaSuccess) { /* end the capture it began */
            cudaGraph_t dropped = NULL;
            cudaStreamEndCapture(s, &dropped);
            if (dropped) cudaGraphDestroy(dropped);
        }
    }
    if (ce != cudaSuccess) {
        graph_free(g);
        return spk_cuda_check(e->err, ce, "recording a graph of fused steps");
    }
    g->tag[0] = -1;
    g->nev = 1;
    g->timed = timed;
    k->cap = g;
    return SPK_OK;
}

static int ck_end_capture(spk_exec *e, void **graph)
{
    *graph = NULL;
    KS(e, k);
    cuda_graph *g = k->cap;
    if (!g) return spk_err_set(e->err, SPK_ERR_INTERNAL, "no graph of fused steps is being recorded");
    k->cap = NULL;
    cudaGraph_t cg = NULL;
    cudaError_t ce = cudaStreamEndCapture(impl_of(e)->stream, &cg);
    if (ce == cudaSuccess && !cg) ce = cudaErrorStreamCaptureInvalidated;
    if (ce == cudaSuccess) ce = cudaGraphInstantiate(&g->exec, cg, 0);
    if (cg) cudaGraphDestroy(cg);
    if (ce != cudaSuccess) {
        cudaGetLastError(); /* a failed recording leaves no sticky error */
        graph_free(g);
        return spk_cuda_check(e->err, ce, "recording a graph of fused steps");
    }
    *graph = g;
    return SPK_OK;
}

static int ck_launch(spk_exec *e, void *graph)
{
    KS(e, k);
    cuda_graph *g = graph;
    cudaStream_t s = impl_of(e)->stream;
    /* the marks before it, now (a driver launches right after a read: nothing waits) */
    SPK_TRY(graph_marks_add(e, k));
    SPK_TRY(marks_add(e, k));
    SPK_CUDA_TRY(e->err, cudaGraphLaunch(g->exec, s));
    k->ran = g;
    /* the next marks start where the graph ends, not before it */
    SPK_CUDA_TRY(e->err, cudaEventRecord(k->ev[0], s));
    k->tag[0] = -1;
    k->nev = 1;
    return SPK_OK;
}

static int ck_read_wait(spk_exec *e, const int *which, int count, double *host)
{
    KS(e, k);
    SPK_CUDA_TRY(e->err, cudaStreamSynchronize(impl_of(e)->stream));
    for (int i = 0; i < count; i++) host[i] = k->hslots[which[i]];
    return SPK_OK;
}

static double *ck_slots(spk_exec *e)
{
    async_state *k = kstate(e);
    return k ? k->d.slots : NULL;
}

int spk_exec_cuda_slot_dev(spk_exec *e, spk_slot_dev *d)
{
    KS(e, k);
    *d = k->d;
    return SPK_OK;
}

void spk_cuda_async_free(async_state *k)
{
    if (!k) return;
    for (int i = 0; i < ASYNC_EVENTS; i++)
        if (k->ev[i]) cudaEventDestroy(k->ev[i]);
    cudaFree(k->d.slots);
    cudaFree(k->d.part);
    cudaFree(k->d.ticket);
    if (k->hslots) cudaFreeHost(k->hslots);
    free(k);
}

const struct spk_exec_async_ops spk_cuda_async_ops = {
    ck_dot,    ck_dot2,        ck_set,    ck_read,      ck_slots,   ck_mark, ck_collect,
    ck_capture, ck_end_capture, ck_launch, ck_read_wait, graph_free,
};

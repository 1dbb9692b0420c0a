/* cuda_timing.c -- timing on the CUDA executor's stream (core/timing.c
 * dispatches here): device facts, event timers behind a hold, the copy
 * bandwidth and the floors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_kernels.h"
#include "exec_cuda.h"
#include "timing.h"

static cudaStream_t stream_of(const spk_exec *e)
{
    cudaStream_t s = NULL;
    spk_exec_cuda_handles(e, &s, NULL, NULL);
    return s;
}


size_t spk_cuda_l2_bytes(const spk_exec *e)
{
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, spk_exec_cuda_device(e)) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return v > 0 ? (size_t)v : 0;
}

void spk_cuda_device_name(const spk_exec *e, char *buf, size_t len)
{
    struct cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, spk_exec_cuda_device(e)) != cudaSuccess) {
        cudaGetLastError();
        snprintf(buf, len, "CUDA device %d", spk_exec_cuda_device(e));
        return;
    }
    snprintf(buf, len, "%s", p.name);
}

/* A timed batch runs behind spk_cuda_hold: the host queues the whole batch
 * and the closing event while the stream is held, then releases it, so the
 * events measure the GPU running the calls back to back and not the rate at
 * which the host launches them (which, for products of a few microseconds,
 * is the slower of the two and jitters by tens of per cent).  The hold gives
 * up by itself after HOLD_TIMEOUT_NS, far more than queueing a batch takes,
 * should the host block while queueing (a full launch queue, or a tool that
 * serializes launches). */
#define HOLD_TIMEOUT_NS 10000000ULL

typedef struct cuda_timer {
    cudaEvent_t a, b;
    void *flush;
    size_t flush_bytes;
    int round;
    int *release, *release_dev; /* pinned, mapped: the host's release of the hold */
} cuda_timer;

void spk_cuda_timer_destroy(void *timer)
{
    cuda_timer *t = timer;
    if (!t) return;
    if (t->a) cudaEventDestroy(t->a);
    if (t->b) cudaEventDestroy(t->b);
    if (t->release) cudaFreeHost(t->release);
    cudaFree(t->flush);
    free(t);
}

int spk_cuda_timer_create(spk_exec *e, int flush, void **timer)
{
    *timer = NULL;
    cuda_timer *t = calloc(1, sizeof *t);
    if (!t) return spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (timer)");
    int st;
    SPK_CUDA_CHECK(st, e->err, cudaEventCreate(&t->a));
    SPK_CUDA_CHECK(st, e->err, cudaEventCreate(&t->b));
    SPK_CUDA_CHECK(st, e->err, cudaHostAlloc((void **)&t->release, sizeof(int), cudaHostAllocMapped));
    SPK_CUDA_CHECK(st, e->err, cudaHostGetDevicePointer((void **)&t->release_dev, t->release, 0));
    if (flush) {
        size_t l2 = spk_cuda_l2_bytes(e);
        t->flush_bytes = 2 * (l2 ? l2 : (size_t)64 << 20);
        SPK_CHECK(st, spk_cuda_alloc(e, t->flush_bytes, "the buffer that flushes the L2 cache", &t->flush));
    }
    *timer = t;
    return SPK_OK;
cleanup:
    spk_cuda_timer_destroy(t);
    return st;
}

int spk_cuda_timer_call(spk_exec *e, void *timer, int (*fn)(void *arg), void *arg, int flush, int batch,
                        double *seconds)
{
    cuda_timer *t = timer;
    cudaStream_t s = stream_of(e);
    int st = SPK_OK;
    __atomic_store_n(t->release, 0, __ATOMIC_SEQ_CST);
    SPK_CUDA_TRY(e->err, spk_cuda_hold(s, t->release_dev, HOLD_TIMEOUT_NS));
    if (flush && t->flush) SPK_CUDA_CHECK(st, e->err, cudaMemsetAsync(t->flush, ++t->round & 0xff, t->flush_bytes, s));
    SPK_CUDA_CHECK(st, e->err, cudaEventRecord(t->a, s));
    for (int k = 0; k < batch; k++) SPK_CHECK(st, fn(arg));
    SPK_CUDA_CHECK(st, e->err, cudaEventRecord(t->b, s));
cleanup:
    __atomic_store_n(t->release, 1, __ATOMIC_SEQ_CST); /* also on an error: the hold must not outlive the call */
    if (st) return st;
    SPK_CUDA_TRY(e->err, cudaEventSynchronize(t->b));
    float ms = 0;
    SPK_CUDA_TRY(e->err, cudaEventElapsedTime(&ms, t->a, t->b));
    *seconds = ms * 1e-3 / batch;
    return SPK_OK;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

int spk_cuda_copy_bandwidth(spk_exec *e, double *gbs)
{
    const size_t bytes = (size_t)256 << 20;
    void *a = NULL, *b = NULL;
    cudaEvent_t ea = NULL, eb = NULL;
    cudaStream_t s = stream_of(e);
    float v[12];
    int st;
    SPK_CHECK(st, spk_cuda_alloc(e, bytes, "the copy bandwidth buffers", &a));
    SPK_CHECK(st, spk_cuda_alloc(e, bytes, "the copy bandwidth buffers", &b));
    SPK_CUDA_CHECK(st, e->err, cudaMemsetAsync(a, 1, bytes, s));
    SPK_CUDA_CHECK(st, e->err, cudaEventCreate(&ea));
    SPK_CUDA_CHECK(st, e->err, cudaEventCreate(&eb));
    for (int k = 0; k < 12; k++) {
        SPK_CUDA_CHECK(st, e->err, cudaEventRecord(ea, s));
        SPK_CUDA_CHECK(st, e->err, cudaMemcpyAsync(k % 2 ? a : b, k % 2 ? b : a, bytes, cudaMemcpyDeviceToDevice, s));
        SPK_CUDA_CHECK(st, e->err, cudaEventRecord(eb, s));
        SPK_CUDA_CHECK(st, e->err, cudaEventSynchronize(eb));
        SPK_CUDA_CHECK(st, e->err, cudaEventElapsedTime(&v[k], ea, eb));
    }
    qsort(v + 2, 10, sizeof(float), cmp_float);
    *gbs = 2.0 * (double)bytes / (0.5e-3 * (v[6] + v[7])) / 1e9;
cleanup:
    if (ea) cudaEventDestroy(ea);
    if (eb) cudaEventDestroy(eb);
    cudaFree(a);
    cudaFree(b);
    return st;
}

/* ---- floors (timing.h) --------------------------------------------------- */

static int floor_empty(void *arg)
{
    spk_exec *e = arg;
    return spk_cuda_check(e->err, spk_cuda_empty(stream_of(e)), "spk_cuda_empty");
}

typedef struct floor_graph {
    spk_exec *e;
    cudaGraphExec_t g;
} floor_graph;

static int floor_graph_launch(void *arg)
{
    floor_graph *fg = arg;
    return spk_cuda_check(fg->e->err, cudaGraphLaunch(fg->g, stream_of(fg->e)), "cudaGraphLaunch");
}

static int cmp_double_(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double_);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#define FLOOR_GRAPH_KERNELS 32
#define FLOOR_UPLOAD_BYTES ((size_t)256 << 20)

int spk_cuda_floors(spk_exec *e, spk_floors *f)
{
    spk_err *err = e->err;
    cudaStream_t s = stream_of(e);
    void *timer = NULL, *dbuf = NULL;
    double *dv = NULL, *pin = NULL, v[201];
    char *hpage = NULL, *hpin = NULL;
    cudaGraph_t graph = NULL;
    floor_graph fg = {e, NULL};
    int st = SPK_OK, registered = 0;
    memset(f, 0, sizeof *f);
    SPK_CHECK(st, spk_cuda_timer_create(e, 0, &timer));
    for (int k = 0; k < 16; k++) SPK_CHECK(st, floor_empty(e)); /* module loaded, stream warm */
    SPK_CUDA_CHECK(st, err, cudaStreamSynchronize(s));
    /* GPU time per kernel, back to back */
    for (int r = 0; r < 31; r++) SPK_CHECK(st, spk_cuda_timer_call(e, timer, floor_empty, e, 0, 256, &v[r]));
    f->launch_us = median_of(v, 31) * 1e6;
    /* host time to queue one */
    for (int r = 0; r < 31; r++) {
        double t0 = spk_time_now();
        for (int k = 0; k < 200; k++) SPK_CHECK(st, floor_empty(e));
        v[r] = (spk_time_now() - t0) / 200;
        SPK_CUDA_CHECK(st, err, cudaStreamSynchronize(s));
    }
    f->issue_us = median_of(v, 31) * 1e6;
    /* a kernel and a synchronize; and with an 8-byte readback */
    SPK_CHECK(st, spk_cuda_alloc(e, sizeof(double), "a floor scalar", (void **)&dv));
    SPK_CUDA_CHECK(st, err, cudaMemsetAsync(dv, 0, sizeof(double), s));
    SPK_CUDA_CHECK(st, err, cudaHostAlloc((void **)&pin, sizeof(double), cudaHostAllocDefault));
    for (int r = 0; r < 201; r++) {
        double t0 = spk_time_now();
        SPK_CHECK(st, floor_empty(e));
        SPK_CUDA_CHECK(st, err, cudaStreamSynchronize(s));
        v[r] = spk_time_now() - t0;
    }
    f->sync_us = median_of(v, 201) * 1e6;
    for (int r = 0; r < 201; r++) {
        double t0 = spk_time_now();
        SPK_CHECK(st, floor_empty(e));
        SPK_CUDA_CHECK(st, err, cudaMemcpyAsync(pin, dv, sizeof(double), cudaMemcpyDeviceToHost, s));
        SPK_CUDA_CHECK(st, err, cudaStreamSynchronize(s));
        v[r] = spk_time_now() - t0;
    }
    f->readback_us = median_of(v, 201) * 1e6;
    /* a graph of empty kernels, replayed back to back */
    SPK_CUDA_CHECK(st, err, cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int k = 0; k < FLOOR_GRAPH_KERNELS; k++) {
        cudaError_t ce = spk_cuda_empty(s);
        if (ce != cudaSuccess) {
            cudaStreamEndCapture(s, &graph);
            st = spk_cuda_check(err, ce, "spk_cuda_empty (graph capture)");
            goto cleanup;
        }
    }
    SPK_CUDA_CHECK(st, err, cudaStreamEndCapture(s, &graph));
    SPK_CUDA_CHECK(st, err, cudaGraphInstantiate(&fg.g, graph, 0));
    for (int k = 0; k < 3; k++) SPK_CHECK(st, floor_graph_launch(&fg));
    SPK_CUDA_CHECK(st, err, cudaStreamSynchronize(s));
    for (int r = 0; r < 31; r++) SPK_CHECK(st, spk_cuda_timer_call(e, timer, floor_graph_launch, &fg, 0, 8, &v[r]));
    f->graph_us = median_of(v, 31) * 1e6 / FLOOR_GRAPH_KERNELS;
    /* uploads of 256 MiB: pageable, pinned, pinned for the copy */
    SPK_CHECK(st, spk_cuda_alloc(e, FLOOR_UPLOAD_BYTES, "the upload floor buffer", &dbuf));
    if (!(hpage = malloc(FLOOR_UPLOAD_BYTES))) {
        st = spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (upload floor buffer)");
        goto cleanup;
    }
    memset(hpage, 1, FLOOR_UPLOAD_BYTES);
    SPK_CUDA_CHECK(st, err, cudaHostAlloc((void **)&hpin, FLOOR_UPLOAD_BYTES, cudaHostAllocDefault));
    memset(hpin, 1, FLOOR_UPLOAD_BYTES);
    for (int which = 0; which < 3; which++) {
        for (int r = 0; r < 5; r++) {
            double t0 = spk_time_now();
            if (which == 2) {
                SPK_CUDA_CHECK(st, err, cudaHostRegister(hpage, FLOOR_UPLOAD_BYTES, cudaHostRegisterDefault));
                registered = 1;
            }
            SPK_CUDA_CHECK(st, err, cudaMemcpyAsync(dbuf, which == 1 ? hpin : hpage, FLOOR_UPLOAD_BYTES,
                                                    cudaMemcpyHostToDevice, s));
            SPK_CUDA_CHECK(st, err, cudaStreamSynchronize(s));
            if (which == 2) {
                registered = 0;
                SPK_CUDA_CHECK(st, err, cudaHostUnregister(hpage));
            }
            v[r] = (double)FLOOR_UPLOAD_BYTES / (spk_time_now() - t0) / 1e9;
        }
        double gbs = median_of(v, 5);
        if (which == 0) f->upload_pageable_gbs = gbs;
        if (which == 1) f->upload_pinned_gbs = gbs;
        if (which == 2) f->upload_register_gbs = gbs;
    }
cleanup:
    if (registered) cudaHostUnregister(hpage);
    if (fg.g) cudaGraphExecDestroy(fg.g);
    if (graph) cudaGraphDestroy(graph);
    spk_cuda_timer_destroy(timer);
    cudaFree(dv);
    cudaFree(dbuf);
    if (pin) cudaFreeHost(pin);
    if (hpin) cudaFreeHost(hpin);
    free(hpage);
    return st;
}

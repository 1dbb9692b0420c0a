/* timing.c -- see timing.h.  The host side is here; the GPU side (events,
 * L2 size, device-to-device copies) is in exec_cuda.c. */
#define _GNU_SOURCE 1 /* sysconf cache sizes */
#include "timing.h"
#include "parallel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef SPK_HAVE_CUDA
#include "exec_cuda.h"
#endif

struct spk_timer {
    spk_exec *e;
    unsigned char *flush;  /* host: buffer written before a flushed call */
    size_t flush_bytes;
    void *dev;             /* GPU: events and flush buffer (exec_cuda.c) */
};

size_t spk_exec_cache_bytes(const spk_exec *e)
{
#ifdef SPK_HAVE_CUDA
    if (spk_exec_is_cuda(e)) return spk_cuda_l2_bytes(e);
#endif
    (void)e;
    long b = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    b = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
    if (b <= 0) b = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return b > 0 ? (size_t)b : 0;
}

void spk_exec_device_name(const spk_exec *e, char *buf, size_t len)
{
#ifdef SPK_HAVE_CUDA
    if (spk_exec_is_cuda(e)) {
        spk_cuda_device_name(e, buf, len);
        return;
    }
#endif
    (void)e;
    snprintf(buf, len, "host CPU");
}

int spk_timer_create(spk_exec *e, int flush, spk_timer **out)
{
    *out = NULL;
    spk_timer *t = calloc(1, sizeof *t);
    if (!t) return spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (timer)");
    t->e = e;
    int st = SPK_OK;
#ifdef SPK_HAVE_CUDA
    if (spk_exec_is_cuda(e)) {
        st = spk_cuda_timer_create(e, flush, &t->dev);
        if (st) {
            free(t);
            return st;
        }
        *out = t;
        return SPK_OK;
    }
#endif
    if (flush) {
        size_t c = spk_exec_cache_bytes(e);
        t->flush_bytes = 2 * (c ? c : (size_t)32 << 20);
        t->flush = malloc(t->flush_bytes);
        if (!t->flush) st = spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (%zu bytes to flush the caches)",
                                        t->flush_bytes);
    }
    if (st) {
        free(t);
        return st;
    }
    *out = t;
    return SPK_OK;
}

void spk_timer_destroy(spk_timer *t)
{
    if (!t) return;
#ifdef SPK_HAVE_CUDA
    if (t->dev) spk_cuda_timer_destroy(t->dev);
#endif
    free(t->flush);
    free(t);
}

int spk_timer_call(spk_timer *t, int (*fn)(void *arg), void *arg, int flush, int batch, double *seconds)
{
    if (batch < 1 || (flush && batch != 1))
        return spk_err_set(t->e->err, SPK_ERR_INVALID_ARG, "timer: batch %d (1 when the caches are flushed)", batch);
#ifdef SPK_HAVE_CUDA
    if (t->dev) return spk_cuda_timer_call(t->e, t->dev, fn, arg, flush, batch, seconds);
#endif
    if (flush && t->flush) {
        static unsigned char round;
        memset(t->flush, ++round, t->flush_bytes);
    }
    double t0 = spk_time_now();
    for (int k = 0; k < batch; k++) SPK_TRY(fn(arg));
    *seconds = (spk_time_now() - t0) / batch;
    return SPK_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int spk_timer_median(spk_timer *t, int (*fn)(void *arg), void *arg, int flush, int warmup, int min_samples,
                     int max_samples, double min_seconds, double *median, int *calls, int *batch)
{
    double s;
    for (int w = 0; w < warmup; w++) SPK_TRY(spk_timer_call(t, fn, arg, flush, 1, &s));
    int k = 1;
    if (!flush) { /* the batch: as many calls as one takes to fill SPK_TIMER_BATCH_S */
        SPK_TRY(spk_timer_call(t, fn, arg, 0, 1, &s));
        if (s < SPK_TIMER_BATCH_S) k = s > SPK_TIMER_BATCH_S / 1024 ? (int)ceil(SPK_TIMER_BATCH_S / s) : 1024;
    }
    if (batch) *batch = k;
    if (min_samples < 1) min_samples = 1;
    if (max_samples < min_samples) max_samples = min_samples;
    size_t cap = (size_t)min_samples < 1024 ? 1024 : (size_t)min_samples;
    double *v = malloc(cap * sizeof(double));
    if (!v) return spk_err_set(t->e->err, SPK_ERR_NOMEM, "out of host memory (timings)");
    int n = 0, st = SPK_OK;
    const double t0 = spk_time_now();
    while (n < max_samples && (n < min_samples || spk_time_now() - t0 < min_seconds)) {
        if ((size_t)n == cap) {
            double *w = realloc(v, 2 * cap * sizeof(double));
            if (!w) break; /* enough samples already */
            v = w;
            cap *= 2;
        }
        if ((st = spk_timer_call(t, fn, arg, flush, k, &v[n]))) break;
        n++;
    }
    if (!st) {
        qsort(v, (size_t)n, sizeof(double), cmp_double);
        *median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
        if (calls) *calls = n * k;
    }
    free(v);
    return st;
}

static volatile unsigned copy_sink; /* keeps the host copies from being optimized away */

int spk_exec_copy_bandwidth(spk_exec *e, double *gbs)
{
#ifdef SPK_HAVE_CUDA
    if (spk_exec_is_cuda(e)) return spk_cuda_copy_bandwidth(e, gbs);
#endif
    const size_t bytes = (size_t)256 << 20; /* beyond any host cache; the copy on every thread */
    char *a = malloc(bytes), *b = malloc(bytes);
    if (!a || !b) {
        free(a);
        free(b);
        return spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (copy bandwidth buffers)");
    }
    memset(a, 1, bytes);
    memset(b, 2, bytes);
    double v[12];
    for (int k = 0; k < 12; k++) {
        double t0 = spk_time_now();
        spk_host_copy((int)(bytes / sizeof(double)), (const double *)(k % 2 ? b : a), (double *)(k % 2 ? a : b));
        v[k] = spk_time_now() - t0;
        copy_sink += (unsigned char)a[(size_t)k * 4099 % bytes]; /* the copies are used */
    }
    qsort(v + 2, 10, sizeof(double), cmp_double);
    *gbs = 2.0 * (double)bytes / (0.5 * (v[6] + v[7])) / 1e9;
    free(a);
    free(b);
    return SPK_OK;
}

/* ---- floors ---------------------------------------------------------------- */

static volatile int floor_sink;
static void floor_nop(void)
{
    floor_sink++;
}
static void (*volatile floor_call)(void) = floor_nop;

/* Median seconds per call of floor_call over `reps` samples of `per` calls. */
static double host_call_seconds(int reps, int per)
{
    double v[64];
    if (reps > 64) reps = 64;
    for (int r = 0; r < reps; r++) {
        double t0 = spk_time_now();
        for (int k = 0; k < per; k++) floor_call();
        v[r] = (spk_time_now() - t0) / per;
    }
    qsort(v, (size_t)reps, sizeof(double), cmp_double);
    return v[reps / 2];
}

int spk_exec_floors(spk_exec *e, spk_floors *f)
{
    memset(f, 0, sizeof *f);
#ifdef SPK_HAVE_CUDA
    if (spk_exec_is_cuda(e)) return spk_cuda_floors(e, f);
#endif
    f->launch_us = f->issue_us = host_call_seconds(31, 10000) * 1e6;
    f->sync_us = f->readback_us = f->launch_us;
    /* an upload on the host is a memcpy: the copy bandwidth, whose bytes count twice (read + write) */
    double gbs = 0;
    SPK_TRY(spk_exec_copy_bandwidth(e, &gbs));
    f->upload_pageable_gbs = f->upload_pinned_gbs = f->upload_register_gbs = gbs / 2;
    return SPK_OK;
}

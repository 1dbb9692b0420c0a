/* timing.h -- timing work on an executor, for `spk bench` and the "auto"
 * format: one call at a time, CUDA events on the executor's stream on the
 * GPU (wall clock on the host), optionally after evicting the caches; the
 * copy bandwidth the results are compared with; the cache size that decides
 * whether a matrix is measured from cache or from memory. */
#ifndef SPK_CORE_TIMING_H
#define SPK_CORE_TIMING_H

#include <stddef.h>

#include "exec.h"

typedef struct spk_timer spk_timer;

/* A timer for e.  With flush, it holds a buffer of twice the cache size
 * (spk_exec_cache_bytes) that it writes before each flushed call. */
int spk_timer_create(spk_exec *e, int flush, spk_timer **t);
/* Seconds per call of `batch` calls fn(arg) made back to back between one
 * pair of timestamps (the work they queue on the executor's stream
 * included), after evicting the caches when flush (then batch must be 1);
 * fn returns a status. */
int spk_timer_call(spk_timer *t, int (*fn)(void *arg), void *arg, int flush, int batch, double *seconds);
/* The median time of a call fn(arg), after `warmup` untimed calls.  With
 * flush, each call is timed alone after evicting the caches.  Without, calls
 * are timed in batches of back-to-back calls, as a solver issues them: one
 * call is timed, and the batch is as many calls as take SPK_TIMER_BATCH_S
 * (at most 1024); each sample is a batch's time per call, so the launch
 * latency of one call and the jitter of the timestamps are spread over the
 * batch.  On the GPU the batch is queued while the stream is held and then
 * released (exec_cuda.c), so a sample is the GPU's time for the calls run
 * back to back, not the host's launch rate.  Samples: at least min_samples,
 * more while less than min_seconds of wall time has passed since the first
 * (flushes and synchronisation included), at most max_samples.  *calls gets how many calls were timed,
 * *batch (may be NULL) the batch size. */
#define SPK_TIMER_BATCH_S 50e-6
int spk_timer_median(spk_timer *t, int (*fn)(void *arg), void *arg, int flush, int warmup, int min_samples,
                     int max_samples, double min_seconds, double *median, int *calls, int *batch);
void spk_timer_destroy(spk_timer *t);

/* Copy bandwidth of e in GB/s, bytes read + written: device-to-device
 * cudaMemcpy of 256 MiB on the GPU, memcpy of 64 MiB on the host; median of
 * 10 after 2 warm-ups. */
int spk_exec_copy_bandwidth(spk_exec *e, double *gbs);
/* The fixed costs of an executor: the floor under a solver's step, and how
 * fast a matrix reaches it.  On the GPU (times in microseconds, medians):
 *   launch_us    GPU time per empty kernel, 256 run back to back behind a
 *                hold (as spk_timer_median times a batch);
 *   issue_us     host time to queue one empty kernel (1000 queued);
 *   sync_us      host wall time of one empty kernel and a stream
 *                synchronize: the floor of every step that waits for the GPU;
 *   readback_us  the same with an 8-byte copy to pinned host memory before
 *                the synchronize: a reduction's result reaching the host, as
 *                in every iteration of a host-driven Krylov loop;
 *   graph_us     GPU time per kernel of a CUDA graph of 32 empty kernels,
 *                replayed;
 *   upload       host-to-device copies of 256 MiB, in GB/s: from pageable
 *                (malloc'd) memory, from pinned (cudaMallocHost) memory, and
 *                from malloc'd memory pinned for the copy (cudaHostRegister,
 *                copy, cudaHostUnregister, all timed).
 * On the host: launch, issue, sync and readback are a call through a
 * function pointer, graph_us is 0 and the uploads are a memcpy: half of
 * spk_exec_copy_bandwidth, which counts bytes read and written. */
typedef struct spk_floors {
    double launch_us, issue_us, sync_us, readback_us, graph_us;
    double upload_pageable_gbs, upload_pinned_gbs, upload_register_gbs;
} spk_floors;
int spk_exec_floors(spk_exec *e, spk_floors *f);

/* The last-level cache in bytes (the GPU's L2; the host's L3 or L2 when the
 * system reports it, else 0). */
size_t spk_exec_cache_bytes(const spk_exec *e);
/* The device's name ("NVIDIA H100 80GB HBM3", or "host CPU"). */
void spk_exec_device_name(const spk_exec *e, char *buf, size_t len);

#endif

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
/* Seconds of one call fn(arg) (the work it queues on the executor's stream
 * included), after evicting the caches when flush; fn returns a status. */
int spk_timer_call(spk_timer *t, int (*fn)(void *arg), void *arg, int flush, double *seconds);
/* The median of calls fn(arg), each timed alone: at least min_calls, and
 * more while less than min_seconds of wall time has passed since the first
 * (flushes and synchronisation included), at most max_calls; after `warmup`
 * untimed calls.  *calls gets how many were timed. */
int spk_timer_median(spk_timer *t, int (*fn)(void *arg), void *arg, int flush, int warmup, int min_calls,
                     int max_calls, double min_seconds, double *median, int *calls);
void spk_timer_destroy(spk_timer *t);

/* Copy bandwidth of e in GB/s, bytes read + written: device-to-device
 * cudaMemcpy of 256 MiB on the GPU, memcpy of 64 MiB on the host; median of
 * 10 after 2 warm-ups. */
int spk_exec_copy_bandwidth(spk_exec *e, double *gbs);
/* The last-level cache in bytes (the GPU's L2; the host's L3 or L2 when the
 * system reports it, else 0). */
size_t spk_exec_cache_bytes(const spk_exec *e);
/* The device's name ("NVIDIA H100 80GB HBM3", or "host CPU"). */
void spk_exec_device_name(const spk_exec *e, char *buf, size_t len);

#endif

/* kernel_timeline.c -- a CUPTI injection library that records when every
 * kernel, copy and memset of a process ran on the GPU and, optionally, every
 * CUDA runtime call on the host, on one clock, for finding where the GPU
 * waits (scripts/timeline.py reads the file):
 *
 *   CUDA_INJECTION64_PATH=libspk_kernel_timeline.so SPK_TIMELINE=FILE \
 *       [SPK_TIMELINE_API=1] prog ...
 *
 * One line per record, "kind,start_ns,end_ns,name": K a kernel, C a copy
 * (name copy<kind>_<bytes>: 1 host to device, 2 device to host, 8 device to
 * device), S a memset (memset_<bytes>), R a runtime call (its name).  Records
 * come from CUPTI's activity buffers, written when a buffer fills and at
 * exit.  Tracing the runtime calls slows them by a few microseconds each;
 * the GPU's records are what the hardware saw. */
#define _POSIX_C_SOURCE 200809L
#include <cupti.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int InitializeInjection(void);

#define BUFFER_BYTES ((size_t)8 << 20)

static FILE *out;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, BUFFER_BYTES);
    *size = *buffer ? BUFFER_BYTES : 0;
    *max_records = 0;
}

static void write_record(const CUpti_Activity *r)
{
    switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)r;
        fprintf(out, "K,%llu,%llu,%s\n", (unsigned long long)k->start, (unsigned long long)k->end,
                k->name ? k->name : "?");
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)r;
        fprintf(out, "C,%llu,%llu,copy%u_%llu\n", (unsigned long long)m->start, (unsigned long long)m->end,
                (unsigned)m->copyKind, (unsigned long long)m->bytes);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)r;
        fprintf(out, "S,%llu,%llu,memset_%llu\n", (unsigned long long)m->start, (unsigned long long)m->end,
                (unsigned long long)m->bytes);
        break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME: {
        const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *)r;
        const char *name = NULL;
        if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid, &name) != CUPTI_SUCCESS) name = NULL;
        fprintf(out, "R,%llu,%llu,%s\n", (unsigned long long)a->start, (unsigned long long)a->end,
                name ? name : "?");
        break;
    }
    default: break;
    }
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    (void)ctx;
    (void)stream;
    (void)size;
    CUpti_Activity *r = NULL;
    pthread_mutex_lock(&lock);
    while (out && cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) write_record(r);
    pthread_mutex_unlock(&lock);
    free(buffer);
}

static void finish(void)
{
    cuptiActivityFlushAll(1);
    pthread_mutex_lock(&lock);
    if (out) fclose(out);
    out = NULL;
    pthread_mutex_unlock(&lock);
}

int InitializeInjection(void)
{
    const char *path = getenv("SPK_TIMELINE");
    if (!path || !*path) {
        fprintf(stderr, "kernel_timeline: set SPK_TIMELINE to the file to write\n");
        return 0;
    }
    out = fopen(path, "w");
    if (!out) {
        fprintf(stderr, "kernel_timeline: cannot write %s\n", path);
        return 0;
    }
    if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS) {
        fprintf(stderr, "kernel_timeline: cuptiActivityRegisterCallbacks failed\n");
        fclose(out);
        out = NULL;
        return 0;
    }
    const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                        CUPTI_ACTIVITY_KIND_MEMSET};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (cuptiActivityEnable(kinds[i]) != CUPTI_SUCCESS)
            fprintf(stderr, "kernel_timeline: activity kind %d not traced\n", (int)kinds[i]);
    const char *api = getenv("SPK_TIMELINE_API");
    if (api && *api && *api != '0' && cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME) != CUPTI_SUCCESS)
        fprintf(stderr, "kernel_timeline: runtime calls not traced\n");
    atexit(finish);
    return 1;
}

/* kernel_trace.c -- a CUPTI injection library that records the name of every
 * CUDA kernel a process launches, for the kernel-coverage check of
 * scripts/gpu-check.sh (step "kernels"): every kernel compiled into spk must
 * be launched by the GPU tests, so every kernel runs under compute-sanitizer.
 *
 *   CUDA_INJECTION64_PATH=libspk_kernel_trace.so SPK_KERNEL_TRACE=DIR prog ...
 *
 * The CUDA driver loads the library at the first CUDA call and runs
 * InitializeInjection(); each launch through the runtime or the driver API
 * reports its (mangled) symbol name; at exit the distinct names are written
 * one per line to DIR/kernels.PID (standard error without SPK_KERNEL_TRACE). */
#define _POSIX_C_SOURCE 200809L
#include <cupti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int InitializeInjection(void);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char **names;
static int count, cap;

static void record(const char *name)
{
    if (!name || !*name) return;
    pthread_mutex_lock(&lock);
    int seen = 0;
    for (int i = 0; i < count && !seen; i++) seen = strcmp(names[i], name) == 0;
    if (!seen) {
        if (count == cap) {
            int ncap = cap ? 2 * cap : 64;
            char **n = realloc(names, (size_t)ncap * sizeof *n);
            if (n) {
                names = n;
                cap = ncap;
            }
        }
        if (count < cap) {
            char *copy = strdup(name);
            if (copy) names[count++] = copy;
        }
    }
    pthread_mutex_unlock(&lock);
}

static void CUPTIAPI on_launch(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void *data)
{
    (void)user;
    (void)domain;
    (void)id;
    const CUpti_CallbackData *d = data;
    if (d->callbackSite == CUPTI_API_ENTER) record(d->symbolName);
}

static void write_names(void)
{
    const char *dir = getenv("SPK_KERNEL_TRACE");
    FILE *f = stderr;
    char path[4096];
    if (dir && *dir) {
        snprintf(path, sizeof path, "%s/kernels.%ld", dir, (long)getpid());
        f = fopen(path, "w");
        if (!f) {
            fprintf(stderr, "kernel_trace: cannot write %s\n", path);
            return;
        }
    }
    pthread_mutex_lock(&lock);
    for (int i = 0; i < count; i++) fprintf(f, "%s\n", names[i]);
    pthread_mutex_unlock(&lock);
    if (f != stderr) fclose(f);
}

int InitializeInjection(void)
{
    static const CUpti_CallbackId runtime[] = {
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    };
    static const CUpti_CallbackId driver[] = {
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    };
    CUpti_SubscriberHandle sub;
    if (cuptiSubscribe(&sub, (CUpti_CallbackFunc)on_launch, NULL) != CUPTI_SUCCESS) {
        fprintf(stderr, "kernel_trace: cuptiSubscribe failed\n");
        return 0;
    }
    for (size_t i = 0; i < sizeof runtime / sizeof *runtime; i++)
        cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, runtime[i]);
    for (size_t i = 0; i < sizeof driver / sizeof *driver; i++)
        cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, driver[i]);
    atexit(write_names);
    return 1;
}

/* device.h -- run a test on the host, or, compiled with SPK_TEST_CUDA, the
 * same test through the CUDA executor (exit 77 when no GPU can be used, so
 * CTest reports it skipped).  Vectors move through the executor's
 * upload/download, so one test source serves both devices. */
#ifndef SPK_TESTS_DEVICE_H
#define SPK_TESTS_DEVICE_H

#include "check.h"
#include "core/exec.h"
#include "spk.h"
#ifdef SPK_TEST_CUDA
#include "core/exec_cuda.h"
#endif

#ifdef SPK_TEST_CUDA
#define TEST_DEVICE SPK_DEVICE_CUDA
#define TEST_DEVICE_NAME "cuda"
#define TEST_FORMAT "cusparse"
#define TEST_DEFAULT_FORMAT "auto"     /* the solver's default */
#define TEST_AUTO_FORMAT "auto"        /* what the name "auto" finds */
#else
#define TEST_DEVICE SPK_DEVICE_HOST
#define TEST_DEVICE_NAME "host"
#define TEST_FORMAT "csr"
#define TEST_DEFAULT_FORMAT "csr"
#define TEST_AUTO_FORMAT "csr"
#endif

/* The executor under test (SKIP when the GPU is not usable). */
static inline spk_exec *test_exec(spk_err *err)
{
    spk_exec *e = NULL;
#ifdef SPK_TEST_CUDA
    const char *why = NULL;
    if (!spk_cuda_available(&why)) SKIP("no usable CUDA device: %s", why);
    if (spk_exec_cuda_create(err, &e)) {
        fprintf(stderr, "%s\n", err->msg);
        exit(1);
    }
#else
    if (spk_exec_host_create(err, &e)) exit(1);
#endif
    return e;
}

/* A context on the device under test (SKIP when the GPU is not usable). */
static inline spk_context *test_context(void)
{
    spk_context *ctx = NULL;
    int st = spk_context_create(&ctx, TEST_DEVICE);
    if (st == SPK_ERR_DEVICE) SKIP("no usable CUDA device");
    if (st) {
        fprintf(stderr, "spk_context_create: %s\n", spk_status_name(st));
        exit(1);
    }
    return ctx;
}

/* A copy of n host doubles on e (n may be 0). */
static inline double *to_dev(spk_exec *e, const double *h, int n)
{
    double *d = NULL;
    if (spk_exec_alloc_vec(e, n, &d)) return NULL;
    if (n > 0 && e->ops->upload(e, d, h, (size_t)n * sizeof(double))) return NULL;
    return d;
}

/* h = d (n doubles from e). */
static inline int from_dev(spk_exec *e, double *h, const double *d, int n)
{
    return n > 0 ? e->ops->download(e, h, d, (size_t)n * sizeof(double)) : 0;
}

#endif

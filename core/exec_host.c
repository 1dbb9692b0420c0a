/* exec_host.c -- the host executor: vectors in host memory, BLAS-1 as loops.
 * Each operation states its memory traffic in doubles moved per entry. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "csr.h"
#include "exec.h"

static int host_alloc(spk_exec *e, size_t bytes, void **p)
{
    *p = malloc(bytes ? bytes : 1);
    if (!*p) return spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (%zu bytes)", bytes);
    return SPK_OK;
}

static void host_free(spk_exec *e, void *p)
{
    (void)e;
    free(p);
}

static int host_memcpy(spk_exec *e, void *dst, const void *src, size_t bytes)
{
    (void)e;
    if (bytes && dst != src) memmove(dst, src, bytes);
    return SPK_OK;
}

/* Sum of x[i]*y[i] with four independent partial sums (breaks the add latency chain). */
static double dot4(int n, const double *x, const double *y)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += x[i] * y[i];
        s1 += x[i + 1] * y[i + 1];
        s2 += x[i + 2] * y[i + 2];
        s3 += x[i + 3] * y[i + 3];
    }
    for (; i < n; i++) s0 += x[i] * y[i];
    return (s0 + s1) + (s2 + s3);
}

/* *out = x'y  (2 reads) */
static int host_dot(spk_exec *e, int n, const double *x, const double *y, double *out)
{
    (void)e;
    *out = dot4(n, x, y);
    return SPK_OK;
}

/* *out = ||x||_2 (1 read); rescaled in a second pass only when the plain sum
 * of squares overflows or underflows */
static int host_nrm2(spk_exec *e, int n, const double *x, double *out)
{
    (void)e;
    double s = dot4(n, x, x);
    if (s != 0 && isfinite(s) && s > 1e-290) {
        *out = sqrt(s);
        return SPK_OK;
    }
    double scale = 0;
    for (int i = 0; i < n; i++) scale = fmax(scale, fabs(x[i]));
    if (scale == 0 || !isfinite(scale)) {
        *out = isnan(s) || isnan(scale) ? NAN : scale; /* zero vector, Inf, or NaN */
        return SPK_OK;
    }
    double t = 0, inv = 1.0 / scale;
    for (int i = 0; i < n; i++) t += (x[i] * inv) * (x[i] * inv);
    *out = scale * sqrt(t);
    return SPK_OK;
}

/* y = a*x + y  (2 reads, 1 write) */
static int host_axpy(spk_exec *e, int n, double a, const double *x, double *y)
{
    (void)e;
    for (int i = 0; i < n; i++) y[i] += a * x[i];
    return SPK_OK;
}

/* y = a*x + b*y; b == 0 does not read y  (2 reads, 1 write) */
static int host_axpby(spk_exec *e, int n, double a, const double *x, double b, double *y)
{
    (void)e;
    if (b == 0.0)
        for (int i = 0; i < n; i++) y[i] = a * x[i];
    else
        for (int i = 0; i < n; i++) y[i] = a * x[i] + b * y[i];
    return SPK_OK;
}

/* x = a*x  (1 read, 1 write) */
static int host_scal(spk_exec *e, int n, double a, double *x)
{
    (void)e;
    for (int i = 0; i < n; i++) x[i] *= a;
    return SPK_OK;
}

/* y = x  (1 read, 1 write) */
static int host_copy(spk_exec *e, int n, const double *x, double *y)
{
    (void)e;
    if (n > 0 && x != y) memmove(y, x, (size_t)n * sizeof(double));
    return SPK_OK;
}

/* x[i] = a  (1 write) */
static int host_fill(spk_exec *e, int n, double a, double *x)
{
    (void)e;
    for (int i = 0; i < n; i++) x[i] = a;
    return SPK_OK;
}

static int host_sync(spk_exec *e)
{
    (void)e;
    return SPK_OK;
}

static void host_destroy(spk_exec *e)
{
    free(e);
}

static const struct spk_exec_ops host_ops = {
    "host",    host_alloc, host_free, host_memcpy, host_memcpy, host_dot,  host_nrm2,
    host_axpy, host_axpby, host_scal, host_copy,   host_fill,   host_sync, host_destroy,
};

int spk_exec_host_create(spk_err *err, spk_exec **e)
{
    *e = calloc(1, sizeof **e);
    if (!*e) return spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (executor)");
    (*e)->ops = &host_ops;
    (*e)->err = err;
    return SPK_OK;
}

void spk_exec_destroy(spk_exec *e)
{
    if (e) e->ops->destroy(e);
}

int spk_exec_is_host(const spk_exec *e)
{
    return e && e->ops == &host_ops;
}

int spk_exec_alloc_vec(spk_exec *e, int n, double **p)
{
    return e->ops->alloc(e, (size_t)(n > 0 ? n : 1) * sizeof(double), (void **)p);
}

double spk_time_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* exec_host.c -- the host executor: vectors in host memory, BLAS-1 as loops.
 * Each operation states its memory traffic in doubles moved per entry. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "csr.h"
#include "exec.h"
#include "host_sum.h"

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

/* *out = x'y  (2 reads) */
static int host_dot(spk_exec *e, int n, const double *x, const double *y, double *out)
{
    (void)e;
    *out = spk_host_dot(n, x, y);
    return SPK_OK;
}

/* *out = ||x||_2 (1 read); rescaled in a second pass only when the plain sum
 * of squares overflows or underflows */
static int host_nrm2(spk_exec *e, int n, const double *x, double *out)
{
    (void)e;
    double s = spk_host_dot(n, x, x);
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
    int ex = 0; /* by the power of two of the largest entry: exact, where 1/scale overflows for a subnormal one */
    frexp(scale, &ex);
    double t = 0;
    for (int i = 0; i < n; i++) t += ldexp(x[i], -ex) * ldexp(x[i], -ex);
    *out = ldexp(sqrt(t), ex);
    return SPK_OK;
}

/* y = a*x + y  (2 reads, 1 write) */
static int host_axpy(spk_exec *e, int n, double a, const double *x, double *y)
{
    (void)e;
    SPK_OMP(omp parallel for schedule(static) if (n >= SPK_PAR_MIN))
    for (int i = 0; i < n; i++) y[i] += a * x[i];
    return SPK_OK;
}

/* y = a*x + b*y; b == 0 does not read y  (2 reads, 1 write) */
static int host_axpby(spk_exec *e, int n, double a, const double *x, double b, double *y)
{
    (void)e;
    if (b == 0.0) {
        SPK_OMP(omp parallel for schedule(static) if (n >= SPK_PAR_MIN))
        for (int i = 0; i < n; i++) y[i] = a * x[i];
    } else {
        SPK_OMP(omp parallel for schedule(static) if (n >= SPK_PAR_MIN))
        for (int i = 0; i < n; i++) y[i] = a * x[i] + b * y[i];
    }
    return SPK_OK;
}

/* x = a*x  (1 read, 1 write) */
static int host_scal(spk_exec *e, int n, double a, double *x)
{
    (void)e;
    SPK_OMP(omp parallel for schedule(static) if (n >= SPK_PAR_MIN))
    for (int i = 0; i < n; i++) x[i] *= a;
    return SPK_OK;
}

/* y = x  (1 read, 1 write) */
static int host_copy(spk_exec *e, int n, const double *x, double *y)
{
    (void)e;
    spk_host_copy(n, x, y);
    return SPK_OK;
}

/* x[i] = a  (1 write) */
static int host_fill(spk_exec *e, int n, double a, double *x)
{
    (void)e;
    SPK_OMP(omp parallel for schedule(static) if (n >= SPK_PAR_MIN))
    for (int i = 0; i < n; i++) x[i] = a;
    return SPK_OK;
}

static int host_sync(spk_exec *e)
{
    (void)e;
    return SPK_OK;
}

/* ---- scalars on the executor (exec.h): reductions in spk_host_dot's order ---- */

typedef struct host_state {
    double s[SPK_EXEC_SLOTS]; /* the scalar slots */
    double last;              /* wall clock of the last mark */
    double acc[SPK_PHASES];   /* phase seconds since the last collect */
} host_state;

static double *slots(spk_exec *e)
{
    return ((host_state *)e->impl)->s;
}

static int hk_dot(spk_exec *e, int n, const double *x, const double *y, int o)
{
    slots(e)[o] = spk_host_dot(n, x, y);
    return SPK_OK;
}

static int hk_dot2(spk_exec *e, int n, const double *x, const double *y, int o1, int o2)
{
    double *s = slots(e);
#define DOT2_(i, a, b)          \
    do {                        \
        a += x[i] * x[i];       \
        b += x[i] * y[i];       \
    } while (0)
    SPK_REDUCE4(n, DOT2_, s[o1], s[o2]);
#undef DOT2_
    return SPK_OK;
}

static int hk_set(spk_exec *e, int o, double v)
{
    slots(e)[o] = v;
    return SPK_OK;
}

static int hk_read(spk_exec *e, const int *which, int count, double *host)
{
    for (int i = 0; i < count; i++) host[i] = slots(e)[which[i]];
    return SPK_OK;
}

static int hk_mark(spk_exec *e, int ph)
{
    host_state *h = e->impl;
    const double now = spk_time_now();
    if (ph >= 0 && ph < SPK_PHASES) h->acc[ph] += now - h->last;
    if (ph < 0) /* a new starting point: what was not collected is dropped */
        for (int p = 0; p < SPK_PHASES; p++) h->acc[p] = 0;
    h->last = now;
    return SPK_OK;
}

static int hk_collect(spk_exec *e, double *seconds)
{
    host_state *h = e->impl;
    for (int p = 0; p < SPK_PHASES; p++) {
        seconds[p] += h->acc[p];
        h->acc[p] = 0;
    }
    return SPK_OK;
}

static const struct spk_exec_async_ops host_async = {
    hk_dot, hk_dot2, hk_set, hk_read, slots, hk_mark, hk_collect,
    NULL,   NULL,    NULL,   NULL,    NULL, /* no graphs */
};

static void host_destroy(spk_exec *e)
{
    if (!e) return;
    free(e->impl);
    free(e);
}

/* h[i] = V_i'w, each in spk_host_dot's order (the bits of k dots) */
static int host_mdot(spk_exec *e, int n, int k, const double *V, size_t ld, const double *w, double *h)
{
    (void)e;
    for (int i = 0; i < k; i++) h[i] = spk_host_dot(n, V + (size_t)i * ld, w);
    return SPK_OK;
}

/* w += sum_i a[i] V_i, each entry in i order (the bits of k axpys), one pass over w */
static int host_maxpy(spk_exec *e, int n, int k, const double *a, const double *V, size_t ld, double *w)
{
    (void)e;
    SPK_OMP(omp parallel for schedule(static) if ((long long)n * k >= SPK_PAR_MIN))
    for (int r = 0; r < n; r++) {
        double t = w[r];
        for (int i = 0; i < k; i++) t += a[i] * V[(size_t)i * ld + r];
        w[r] = t;
    }
    return SPK_OK;
}

static const struct spk_exec_ops host_ops = {
    "host",    host_alloc, host_free, host_memcpy, host_memcpy, host_dot,  host_nrm2,    host_axpy,
    host_axpby, host_scal, host_copy, host_fill,   host_sync,   host_destroy, &host_async, host_mdot, host_maxpy,
};

int spk_exec_host_create(spk_err *err, spk_exec **e)
{
    *e = calloc(1, sizeof **e);
    host_state *h = calloc(1, sizeof *h);
    if (!*e || !h) {
        free(*e);
        free(h);
        *e = NULL;
        return spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (executor)");
    }
    (*e)->impl = h;
    (*e)->ops = &host_ops;
    (*e)->err = err;
    return SPK_OK;
}

/* The host executor, or one built on it that keeps its vectors in host
 * memory (the MPI executor, mpi/exec_mpi.c, is named "host" too). */
int spk_exec_is_host(const spk_exec *e)
{
    return e && e->ops && (e->ops == &host_ops || strcmp(e->ops->name, "host") == 0);
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

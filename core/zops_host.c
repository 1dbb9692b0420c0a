/* zops_host.c -- complex BLAS-1 on the host executor, and the table an
 * executor's complex operations come from.
 *
 * Vectors hold n complex entries as 2n doubles (re, im).  The dot products
 * sum by entry in the blocked order of host_sum.h (the real part into one
 * set of partial sums, the imaginary part into the other, in one pass), so
 * they give the same bits for any thread count; the updates compute each
 * entry on one thread in a fixed order. */
#include <string.h>

#include "host_sum.h"
#include "zops.h"

/* Complex entries per threaded loop: each moves 2 doubles per vector. */
#define ZPAR_MIN (SPK_PAR_MIN / 2)

/* out = sum c(x_i) y_i, c the conjugate (conj) or the identity; c = -1 in
 * the sums flips the sign of x's imaginary part exactly */
static void z_dot(int n, const double *x, const double *y, double *out, int conj)
{
    const double c = conj ? 1.0 : -1.0;
    double re, im;
#define ZDOT_(i, s, t)                                                         \
    do {                                                                       \
        const double xr_ = x[2 * (size_t)(i)], xi_ = c * x[2 * (size_t)(i) + 1]; \
        const double yr_ = y[2 * (size_t)(i)], yi_ = y[2 * (size_t)(i) + 1];  \
        s += xr_ * yr_ + xi_ * yi_;                                            \
        t += xr_ * yi_ - xi_ * yr_;                                            \
    } while (0)
    SPK_REDUCE4(n, ZDOT_, re, im);
#undef ZDOT_
    out[0] = re;
    out[1] = im;
}

/* out = x^H y */
static int z_dotc(spk_exec *e, int n, const double *x, const double *y, double *out)
{
    (void)e;
    z_dot(n, x, y, out, 1);
    return SPK_OK;
}

/* out = x^T y (no conjugate) */
static int z_dotu(spk_exec *e, int n, const double *x, const double *y, double *out)
{
    (void)e;
    z_dot(n, x, y, out, 0);
    return SPK_OK;
}

/* y = a x + y */
static int z_axpy(spk_exec *e, int n, const double *a, const double *x, double *y)
{
    (void)e;
    const double ar = a[0], ai = a[1];
    SPK_OMP(omp parallel for schedule(static) if (n >= ZPAR_MIN))
    for (int i = 0; i < n; i++) {
        const double xr = x[2 * (size_t)i], xi = x[2 * (size_t)i + 1];
        y[2 * (size_t)i] += ar * xr - ai * xi;
        y[2 * (size_t)i + 1] += ar * xi + ai * xr;
    }
    return SPK_OK;
}

/* y = a x + b y; b = 0 does not read y (it may hold NaN) */
static int z_axpby(spk_exec *e, int n, const double *a, const double *x, const double *b, double *y)
{
    (void)e;
    const double ar = a[0], ai = a[1], br = b[0], bi = b[1];
    if (br == 0 && bi == 0) {
        SPK_OMP(omp parallel for schedule(static) if (n >= ZPAR_MIN))
        for (int i = 0; i < n; i++) {
            const double xr = x[2 * (size_t)i], xi = x[2 * (size_t)i + 1];
            y[2 * (size_t)i] = ar * xr - ai * xi;
            y[2 * (size_t)i + 1] = ar * xi + ai * xr;
        }
        return SPK_OK;
    }
    SPK_OMP(omp parallel for schedule(static) if (n >= ZPAR_MIN))
    for (int i = 0; i < n; i++) {
        const double xr = x[2 * (size_t)i], xi = x[2 * (size_t)i + 1];
        const double yr = y[2 * (size_t)i], yi = y[2 * (size_t)i + 1];
        y[2 * (size_t)i] = (ar * xr - ai * xi) + (br * yr - bi * yi);
        y[2 * (size_t)i + 1] = (ar * xi + ai * xr) + (br * yi + bi * yr);
    }
    return SPK_OK;
}

/* z = d .* x (z may be x: each entry is read before it is written) */
static int z_mul(spk_exec *e, int n, const double *d, const double *x, double *z)
{
    (void)e;
    SPK_OMP(omp parallel for schedule(static) if (n >= ZPAR_MIN))
    for (int i = 0; i < n; i++) {
        const double dr = d[2 * (size_t)i], di = d[2 * (size_t)i + 1];
        const double xr = x[2 * (size_t)i], xi = x[2 * (size_t)i + 1];
        z[2 * (size_t)i] = dr * xr - di * xi;
        z[2 * (size_t)i + 1] = dr * xi + di * xr;
    }
    return SPK_OK;
}

static const spk_zops host_zops = {z_dotc, z_dotu, z_axpy, z_axpby, z_mul};

const spk_zops *spk_zops_host(void)
{
    return &host_zops;
}

/* The host executor keeps scalar slots (async); an executor built on it
 * whose reductions are global (the MPI one, also named "host") has none, and
 * the host's local dot products would be wrong there: it gets NULL. */
const spk_zops *spk_zops_get(const spk_exec *e)
{
    if (!e || !e->ops) return NULL;
    if (spk_exec_is_host(e)) return e->ops->async ? &host_zops : NULL;
#ifdef SPK_HAVE_CUDA
    if (e->ops->name && strcmp(e->ops->name, "cuda") == 0) return spk_zops_cuda();
#endif
    return NULL;
}

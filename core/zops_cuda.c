/* zops_cuda.c -- the GPU's complex BLAS-1 (core/zops.h): the dots by cuBLAS
 * (zdotc, zdotu: results to the host), the updates by the kernels of
 * zops_kernels.cu on the executor's stream. */
#include <cuComplex.h>

#include "cuda_libs.h"
#include "exec_cuda_impl.h"
#include "zops.h"
#include "zops_kernels.h"

static int zdot(spk_exec *e, int n, const double *x, const double *y, double *out, int conj)
{
    cuda_impl *c = spk_cuda_impl(e);
    cuDoubleComplex r = make_cuDoubleComplex(0, 0);
    if (n > 0) {
        if (conj)
            SPK_CUBLAS_TRY(e->err, cublasZdotc(c->blas, n, (const cuDoubleComplex *)x, 1,
                                               (const cuDoubleComplex *)y, 1, &r));
        else
            SPK_CUBLAS_TRY(e->err, cublasZdotu(c->blas, n, (const cuDoubleComplex *)x, 1,
                                               (const cuDoubleComplex *)y, 1, &r));
    }
    out[0] = cuCreal(r);
    out[1] = cuCimag(r);
    return SPK_OK;
}

static int zdotc(spk_exec *e, int n, const double *x, const double *y, double *out)
{
    return zdot(e, n, x, y, out, 1);
}

static int zdotu(spk_exec *e, int n, const double *x, const double *y, double *out)
{
    return zdot(e, n, x, y, out, 0);
}

static int zaxpby(spk_exec *e, int n, const double *a, const double *x, const double *b, double *y)
{
    const int bzero = b[0] == 0 && b[1] == 0;
    SPK_CUDA_TRY(e->err, spk_cuda_zaxpby(spk_cuda_impl(e)->stream, n, a[0], a[1], x, b[0], b[1], bzero, y));
    return SPK_OK;
}

static int zaxpy(spk_exec *e, int n, const double *a, const double *x, double *y)
{
    static const double one[2] = {1, 0};
    return zaxpby(e, n, a, x, one, y);
}

static int zmul(spk_exec *e, int n, const double *d, const double *x, double *z)
{
    SPK_CUDA_TRY(e->err, spk_cuda_zmul(spk_cuda_impl(e)->stream, n, d, x, z));
    return SPK_OK;
}

static const spk_zops cuda_zops = {zdotc, zdotu, zaxpy, zaxpby, zmul};

const spk_zops *spk_zops_cuda(void)
{
    return &cuda_zops;
}

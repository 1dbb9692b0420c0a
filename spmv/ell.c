/* ell.c -- the "ell" format (HIP kernels blog; survey): rows padded to the
 * longest row, column-major so that consecutive threads (rows) read
 * consecutive addresses.  Padding repeats the row's last real column (column
 * 0 for an empty row) with value 0, so it reads x at a valid index and adds 0.
 * Refused (padding bound, format.h) when the longest row is far above the
 * average.  Traffic per product: 12*width*rows + 8*cols + 8*rows bytes. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/parallel.h"
#include "ell.h"
#ifdef SPK_HAVE_CUDA
#include "core/exec_cuda.h"
#include "devbuild.h"
#endif

/* The scalars of E for width (and the refusals), shared by host and device builds. */
static int ell_plan(const spk_csr *A, int width, const char *name, spk_fmt_ell *E, spk_err *err)
{
    const int n = A->nrows;
    size_t stored = (size_t)width * (size_t)n, real = 0;
    for (int i = 0; i < n; i++) {
        int len = A->rowptr[i + 1] - A->rowptr[i];
        real += (size_t)(len < width ? len : width);
    }
    SPK_TRY(spk_format_check_stored(name, stored, (size_t)A->nnz, n, NULL, err));
    E->nrows = n;
    E->ncols = A->ncols;
    E->nnz = (int)real;
    E->width = width;
    return SPK_OK;
}

int spk_ell_fill(const spk_csr *A, int width, const char *name, spk_fmt_ell *E, spk_err *err)
{
    const int n = A->nrows;
    SPK_TRY(ell_plan(A, width, name, E, err));
    size_t stored = (size_t)width * (size_t)n;
    E->colind = spk_malloc(stored, sizeof(int), "ELL column indices", err);
    E->val = spk_malloc(stored, sizeof(double), "ELL values", err);
    if (!E->colind || !E->val) return SPK_ERR_NOMEM;
    for (int i = 0; i < n; i++) {
        int b = A->rowptr[i], len = A->rowptr[i + 1] - b;
        int pad = len > 0 && width > 0 ? A->colind[b + (len < width ? len : width) - 1] : 0; /* width 0: unused */
        for (int k = 0; k < width; k++) {
            size_t q = (size_t)k * n + i;
            if (k < len) {
                E->colind[q] = A->colind[b + k];
                E->val[q] = A->val[b + k];
            } else {
                E->colind[q] = pad;
                E->val[q] = 0.0;
            }
        }
    }
    return SPK_OK;
}

int spk_ell_arrays(spk_fmt_ell *E, spk_format_array *l)
{
    size_t stored = (size_t)E->width * (size_t)E->nrows;
    l[0] = (spk_format_array){(void **)&E->colind, stored * sizeof(int), 0};
    l[1] = (spk_format_array){(void **)&E->val, stored * sizeof(double), 1};
    return 2;
}

/* y = alpha*E*x + beta*y, row by row in the kernel's order */
void spk_ell_ref(const spk_fmt_ell *E, double alpha, const double *x, double beta, double *y)
{
    const int n = E->nrows;
    SPK_OMP(omp parallel for schedule(static) if (n >= SPK_PAR_MIN / 8))
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int k = 0; k < E->width; k++) {
            size_t q = (size_t)k * n + i;
            s += E->val[q] * x[E->colind[q]];
        }
        y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
    }
}

static int ell_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    (void)o;
    int width = 0;
    for (int i = 0; i < A->nrows; i++)
        if (A->rowptr[i + 1] - A->rowptr[i] > width) width = A->rowptr[i + 1] - A->rowptr[i];
    return spk_ell_fill(A, width, "ell", fmt, err);
}

static int ell_arrays(void *fmt, spk_format_array *l)
{
    return spk_ell_arrays(fmt, l);
}

static void ell_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    spk_ell_ref(fmt, alpha, x, beta, y);
}

static void ell_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_ell *E = fmt;
    size_t stored = (size_t)E->width * (size_t)E->nrows;
    snprintf(buf, len, "ELL, width %d, %zu stored entries for %d nonzeros (%.2fx)", E->width, stored,
             E->nnz, E->nnz > 0 ? (double)stored / E->nnz : 0.0);
}

#ifdef SPK_HAVE_CUDA
int spk_ell_build_dev(spk_exec *e, const spk_csr *A, const spk_csr *dA, int width, const char *name, spk_fmt_ell *E)
{
    SPK_TRY(ell_plan(A, width, name, E, e->err));
    size_t stored = (size_t)width * (size_t)A->nrows;
    SPK_TRY(spk_cuda_alloc(e, stored * sizeof(int), "ELL column indices", (void **)&E->colind));
    SPK_TRY(spk_cuda_alloc(e, stored * sizeof(double), "ELL values", (void **)&E->val));
    cudaStream_t s;
    spk_exec_cuda_handles(e, &s, NULL, NULL);
    return spk_cuda_check(e->err,
                          spk_dev_ell_fill(s, A->nrows, width, dA->rowptr, dA->colind, dA->val, E->colind, E->val),
                          "the ELL build kernel");
}

static int ell_build(spk_exec *e, const spk_csr *A, const spk_csr *dA, const spk_spmv_opts *o, void *fmt)
{
    (void)o;
    int width = 0;
    for (int i = 0; i < A->nrows; i++)
        if (A->rowptr[i + 1] - A->rowptr[i] > width) width = A->rowptr[i + 1] - A->rowptr[i];
    return spk_ell_build_dev(e, A, dA, width, "ell", fmt);
}
#endif

static const spk_format ell_format = {
    "ell", "ELLPACK, column-major", sizeof(spk_fmt_ell), ell_convert, ell_arrays, ell_ref,
    SPK_FORMAT_LAUNCH(spk_ell_launch), ell_describe, SPK_FORMAT_BUILD(ell_build),
};

SPK_FORMAT_BACKENDS(ell, "ell", "ELLPACK, column-major, padded to the longest row", ell_format)

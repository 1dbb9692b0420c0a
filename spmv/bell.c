/* bell.c -- the "bell" format (blocked ELL of the HIP kernels blog): each
 * group of 32 rows is padded only to its own longest row, so one long row
 * costs one warp's padding instead of the whole matrix's.  Padding repeats
 * the row's last real column (0 for an empty row) with value 0.
 * Traffic per product: 12*stored + 4*groups + 8*cols + 8*rows bytes. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/parallel.h"
#include "bell.h"
#ifdef SPK_HAVE_CUDA
#include "core/exec_cuda.h"
#include "devbuild.h"
#endif

/* The scalars of B and its group pointers, from the group widths in
 * gptr[1..G] (gptr[g + 1] = the longest row of group g): gptr becomes the
 * offsets, with the index-limit and padding refusals.  Shared by the host
 * conversion and the device build, which finds the widths on the GPU. */
static int bell_offsets(const spk_csr *A, spk_fmt_bell *B, int *gptr, spk_err *err)
{
    const int n = A->nrows, G = (n + SPK_BELL_ROWS - 1) / SPK_BELL_ROWS;
    B->nrows = n;
    B->ncols = A->ncols;
    B->nnz = A->nnz;
    B->ngroups = G;
    B->wmax = 0;
    size_t stored = 0;
    gptr[0] = 0;
    for (int g = 0; g < G; g++) {
        const int w = gptr[g + 1];
        B->wmax = w > B->wmax ? w : B->wmax;
        stored += (size_t)w * SPK_BELL_ROWS;
        if (stored > (size_t)INT_MAX)
            return spk_err_set(err, SPK_ERR_UNSUPPORTED,
                               "format 'bell' refused: more than %d stored entries (32-bit index limit)",
                               INT_MAX);
        gptr[g + 1] = (int)stored;
    }
    SPK_TRY(spk_format_check_padding("bell", stored, (size_t)A->nnz, n, err));
    B->stored = (int)stored;
    return SPK_OK;
}

/* The same from A's row pointers on the host. */
static int bell_plan(const spk_csr *A, spk_fmt_bell *B, int *gptr, spk_err *err)
{
    const int n = A->nrows, G = (n + SPK_BELL_ROWS - 1) / SPK_BELL_ROWS;
    for (int g = 0; g < G; g++) {
        int w = 0;
        for (int i = g * SPK_BELL_ROWS; i < n && i < (g + 1) * SPK_BELL_ROWS; i++)
            if (A->rowptr[i + 1] - A->rowptr[i] > w) w = A->rowptr[i + 1] - A->rowptr[i];
        gptr[g + 1] = w;
    }
    return bell_offsets(A, B, gptr, err);
}

static int bell_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    (void)o;
    spk_fmt_bell *B = fmt;
    const int n = A->nrows, G = (n + SPK_BELL_ROWS - 1) / SPK_BELL_ROWS;
    B->gptr = spk_malloc((size_t)G + 1, sizeof(int), "blocked ELL group pointers", err);
    if (!B->gptr) return SPK_ERR_NOMEM;
    SPK_TRY(bell_plan(A, B, B->gptr, err));
    size_t stored = (size_t)B->stored;
    B->colind = spk_malloc(stored, sizeof(int), "blocked ELL column indices", err);
    B->val = spk_malloc(stored, sizeof(double), "blocked ELL values", err);
    if (!B->colind || !B->val) return SPK_ERR_NOMEM;
    for (int g = 0; g < G; g++) {
        const int w = (B->gptr[g + 1] - B->gptr[g]) / SPK_BELL_ROWS;
        for (int r = 0; r < SPK_BELL_ROWS; r++) {
            const int i = g * SPK_BELL_ROWS + r;
            const int b = i < n ? A->rowptr[i] : 0, len = i < n ? A->rowptr[i + 1] - b : 0;
            const int pad = len > 0 ? A->colind[b + len - 1] : 0;
            for (int k = 0; k < w; k++) {
                size_t q = (size_t)B->gptr[g] + (size_t)k * SPK_BELL_ROWS + r;
                B->colind[q] = k < len ? A->colind[b + k] : pad;
                B->val[q] = k < len ? A->val[b + k] : 0.0;
            }
        }
    }
    return SPK_OK;
}

static int bell_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_bell *B = fmt; /* may hold device pointers: read only the counts */
    size_t stored = (size_t)B->stored;
    l[0] = (spk_format_array){(void **)&B->gptr, ((size_t)B->ngroups + 1) * sizeof(int), 0};
    l[1] = (spk_format_array){(void **)&B->colind, stored * sizeof(int), 0};
    l[2] = (spk_format_array){(void **)&B->val, stored * sizeof(double), 1};
    return 3;
}

/* y = alpha*A*x + beta*y, group by group as the kernel's warps do */
static void bell_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    const spk_fmt_bell *B = fmt;
    SPK_OMP(omp parallel for schedule(static) if (B->nrows >= SPK_PAR_MIN / 8))
    for (int i = 0; i < B->nrows; i++) {
        const int g = i / SPK_BELL_ROWS, r = i % SPK_BELL_ROWS;
        const int w = (B->gptr[g + 1] - B->gptr[g]) / SPK_BELL_ROWS;
        double s = 0;
        for (int k = 0; k < w; k++) {
            size_t q = (size_t)B->gptr[g] + (size_t)k * SPK_BELL_ROWS + r;
            s += B->val[q] * x[B->colind[q]];
        }
        y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
    }
}

static void bell_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_bell *B = fmt; /* scalars only: also a device struct */
    size_t stored = (size_t)B->stored;
    snprintf(buf, len, "blocked ELL, %d groups of %d rows, widest %d, %zu stored entries for %d nonzeros (%.2fx)",
             B->ngroups, SPK_BELL_ROWS, B->wmax, stored, B->nnz, B->nnz > 0 ? (double)stored / B->nnz : 0.0);
}

#ifdef SPK_HAVE_CUDA
/* On the device: the group widths by a kernel (a host pass over every row
 * pointer would outweigh the fill at large row counts), their prefix sums
 * and the refusals on the host (G values), the slots by the fill kernel. */
static int bell_build(spk_exec *e, const spk_csr *A, const spk_csr *dA, const spk_spmv_opts *o, void *fmt)
{
    (void)o;
    spk_fmt_bell *B = fmt;
    const int G = (A->nrows + SPK_BELL_ROWS - 1) / SPK_BELL_ROWS;
    int *gptr = spk_malloc((size_t)G + 1, sizeof(int), "blocked ELL group pointers", e->err), st;
    if (!gptr) return SPK_ERR_NOMEM;
    cudaStream_t s;
    spk_exec_cuda_handles(e, &s, NULL, NULL);
    SPK_CHECK(st, spk_cuda_alloc(e, ((size_t)G + 1) * sizeof(int), "blocked ELL group pointers", (void **)&B->gptr));
    SPK_CHECK(st, spk_cuda_check(e->err, spk_dev_bell_widths(s, A->nrows, G, dA->rowptr, B->gptr + 1),
                                 "the blocked ELL width kernel"));
    if (G > 0) SPK_CHECK(st, e->ops->download(e, gptr + 1, B->gptr + 1, (size_t)G * sizeof(int)));
    SPK_CHECK(st, bell_offsets(A, B, gptr, e->err));
    SPK_CHECK(st, spk_cuda_upload(e, B->gptr, gptr, ((size_t)G + 1) * sizeof(int), "blocked ELL group pointers"));
    SPK_CHECK(st, spk_cuda_alloc(e, (size_t)B->stored * sizeof(int), "blocked ELL column indices", (void **)&B->colind));
    SPK_CHECK(st, spk_cuda_alloc(e, (size_t)B->stored * sizeof(double), "blocked ELL values", (void **)&B->val));
    st = spk_cuda_check(e->err,
                        spk_dev_bell_fill(s, A->nrows, G, B->gptr, dA->rowptr, dA->colind, dA->val, B->colind, B->val),
                        "the blocked ELL build kernel");
cleanup:
    free(gptr);
    return st;
}
#endif

static const spk_format bell_format = {
    "bell", "blocked ELL", sizeof(spk_fmt_bell), bell_convert, bell_arrays, bell_ref,
    SPK_FORMAT_LAUNCH(spk_bell_launch), bell_describe, SPK_FORMAT_BUILD(bell_build),
};

SPK_FORMAT_BACKENDS(bell, "bell", "blocked ELL, one width per group of 32 rows", bell_format)

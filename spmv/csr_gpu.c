/* csr_gpu.c -- the "csr-scalar" and "csr-vector" formats (HIP kernels blog):
 * CSR arrays; scalar uses one thread per row, vector a group of T threads per
 * row, T the largest power of two <= the average row length, at most 32,
 * whose partial sums meet in a shuffle reduction.  The host reference forms
 * the same T partial sums and adds them in the same tree order.
 * Traffic per product: 12*nnz + 4*(rows+1) + 8*cols + 8*rows bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parallel.h"
#include "csr_gpu.h"
#ifdef SPK_HAVE_CUDA
#include "core/exec_cuda.h"
#endif

static int csr_convert_with(const spk_csr *A, int threads, spk_fmt_csr *F, spk_err *err)
{
    F->nrows = A->nrows;
    F->ncols = A->ncols;
    F->nnz = A->nnz;
    F->threads = threads;
    F->rowptr = spk_malloc((size_t)A->nrows + 1, sizeof(int), "CSR row pointers", err);
    F->colind = spk_malloc((size_t)A->nnz, sizeof(int), "CSR column indices", err);
    F->val = spk_malloc((size_t)A->nnz, sizeof(double), "CSR values", err);
    if (!F->rowptr || !F->colind || !F->val) return SPK_ERR_NOMEM;
    memcpy(F->rowptr, A->rowptr, ((size_t)A->nrows + 1) * sizeof(int));
    memcpy(F->colind, A->colind, (size_t)A->nnz * sizeof(int));
    memcpy(F->val, A->val, (size_t)A->nnz * sizeof(double));
    return SPK_OK;
}

static int scalar_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    (void)o;
    return csr_convert_with(A, 1, fmt, err);
}

static int vector_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    (void)o;
    return csr_convert_with(A, spk_format_lanes(A), fmt, err);
}

static int csr_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_csr *F = fmt;
    l[0] = (spk_format_array){(void **)&F->rowptr, ((size_t)F->nrows + 1) * sizeof(int), 0};
    l[1] = (spk_format_array){(void **)&F->colind, (size_t)F->nnz * sizeof(int), 0};
    l[2] = (spk_format_array){(void **)&F->val, (size_t)F->nnz * sizeof(double), 1};
    return 3;
}

/* y = alpha*A*x + beta*y with the kernel's T partial sums per row */
static void csr_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    const spk_fmt_csr *F = fmt;
    SPK_OMP(omp parallel for schedule(guided) if (F->nrows >= SPK_PAR_MIN / 8))
    for (int i = 0; i < F->nrows; i++) {
        double s = spk_format_lane_sum(F->colind, F->val, F->rowptr[i], F->rowptr[i + 1], x, F->threads);
        y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
    }
}

static void csr_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_csr *F = fmt;
    snprintf(buf, len, "CSR, %d thread%s per row", F->threads, F->threads == 1 ? "" : "s");
}

#ifdef SPK_HAVE_CUDA
/* On the device: copies of the uploaded CSR arrays. */
static int csr_build_with(spk_exec *e, const spk_csr *A, const spk_csr *dA, int threads, spk_fmt_csr *F)
{
    cudaStream_t s;
    spk_exec_cuda_handles(e, &s, NULL, NULL);
    F->nrows = A->nrows;
    F->ncols = A->ncols;
    F->nnz = A->nnz;
    F->threads = threads;
    size_t rp = ((size_t)A->nrows + 1) * sizeof(int), ci = (size_t)A->nnz * sizeof(int),
           va = (size_t)A->nnz * sizeof(double);
    SPK_TRY(spk_cuda_alloc(e, rp, "CSR row pointers", (void **)&F->rowptr));
    SPK_TRY(spk_cuda_alloc(e, ci, "CSR column indices", (void **)&F->colind));
    SPK_TRY(spk_cuda_alloc(e, va, "CSR values", (void **)&F->val));
    SPK_CUDA_TRY(e->err, cudaMemcpyAsync(F->rowptr, dA->rowptr, rp, cudaMemcpyDeviceToDevice, s));
    if (ci) SPK_CUDA_TRY(e->err, cudaMemcpyAsync(F->colind, dA->colind, ci, cudaMemcpyDeviceToDevice, s));
    if (va) SPK_CUDA_TRY(e->err, cudaMemcpyAsync(F->val, dA->val, va, cudaMemcpyDeviceToDevice, s));
    return SPK_OK;
}

static int scalar_build(spk_exec *e, const spk_csr *A, const spk_csr *dA, const spk_spmv_opts *o, void *fmt)
{
    (void)o;
    return csr_build_with(e, A, dA, 1, fmt);
}

static int vector_build(spk_exec *e, const spk_csr *A, const spk_csr *dA, const spk_spmv_opts *o, void *fmt)
{
    (void)o;
    return csr_build_with(e, A, dA, spk_format_lanes(A), fmt);
}
#endif

static const spk_format csr_scalar_format = {
    "csr-scalar", "CSR, one thread per row", sizeof(spk_fmt_csr), scalar_convert, csr_arrays,
    csr_ref, SPK_FORMAT_LAUNCH(spk_csr_gpu_launch), csr_describe, SPK_FORMAT_BUILD(scalar_build),
};
static const spk_format csr_vector_format = {
    "csr-vector", "CSR, T threads per row", sizeof(spk_fmt_csr), vector_convert, csr_arrays,
    csr_ref, SPK_FORMAT_LAUNCH(spk_csr_gpu_launch), csr_describe, SPK_FORMAT_BUILD(vector_build),
};

SPK_FORMAT_BACKENDS(csr_scalar, "csr-scalar", "CSR, one thread per row", csr_scalar_format)
SPK_FORMAT_BACKENDS(csr_vector, "csr-vector",
                    "CSR, 2^k <= avg row length threads per row (<= 32), shuffle reduction",
                    csr_vector_format)

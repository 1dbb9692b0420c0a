/* cusparse.c -- the "cusparse" SpMV backend: cusparseSpMV on CSR (CSR_ALG1,
 * 32-bit indices, double), the baseline every other GPU format is measured
 * against.  The workspace is sized at create; cusparseSpMV_preprocess runs
 * once on the first product (with that call's vectors) and again after new
 * values.  Traffic per call: 12*nnz + 4*(rows+1) + 8*cols + 8*rows bytes
 * (+8*rows when beta != 0).  In single precision (spk_spmv_opts.precision)
 * the values are uploaded as float and cusparseSpMV runs in CUDA_R_32F
 * (values, vectors and compute type): 8*nnz + 4*(rows+1) + 4*cols + 4*rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/exec_cuda.h"
#include "format.h"

typedef struct cusp {
    spk_exec *e;
    cusparseHandle_t h;
    int nrows, ncols, nnz;
    int single;           /* values, vectors and compute in float */
    cudaDataType_t type;  /* CUDA_R_64F or CUDA_R_32F */
    int *rowptr, *colind;
    void *val;
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t x, y;
    void *buffer;
    size_t buffer_bytes;
    int preprocessed;
    double setup, upload; /* seconds: create(), and the upload inside it */
} cusp;

static void cusp_destroy(void *impl)
{
    cusp *c = impl;
    if (!c) return;
    if (c->A) cusparseDestroySpMat(c->A);
    if (c->x) cusparseDestroyDnVec(c->x);
    if (c->y) cusparseDestroyDnVec(c->y);
    cudaFree(c->rowptr);
    cudaFree(c->colind);
    cudaFree(c->val);
    cudaFree(c->buffer);
    free(c);
}

/* From A on the host, or (dA not NULL, double only) from its arrays already on the device. */
static int cusp_make(spk_exec *e, const spk_csr *A, const spk_csr *dA, int single, void **impl)
{
    double t0 = spk_time_now();
    spk_err *err = e->err;
    *impl = NULL;
    if (!spk_exec_is_cuda(e))
        return spk_err_set(err, SPK_ERR_NOT_FOUND, "format 'cusparse' needs the CUDA executor");
    cusp *c = calloc(1, sizeof *c);
    if (!c) return spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (cusparse backend)");
    int st;
    c->e = e;
    c->nrows = A->nrows;
    c->ncols = A->ncols;
    c->nnz = A->nnz;
    c->single = single;
    c->type = single ? CUDA_R_32F : CUDA_R_64F;
    spk_exec_cuda_handles(e, NULL, NULL, &c->h);
    size_t rp = ((size_t)A->nrows + 1) * sizeof(int), ci = (size_t)A->nnz * sizeof(int),
           va = (size_t)A->nnz * (single ? sizeof(float) : sizeof(double));
    SPK_CHECK(st, spk_cuda_alloc(e, rp, "the CSR row pointers", (void **)&c->rowptr));
    SPK_CHECK(st, spk_cuda_alloc(e, ci, "the CSR column indices", (void **)&c->colind));
    SPK_CHECK(st, spk_cuda_alloc(e, va, "the CSR values", (void **)&c->val));
    if (dA && !single) {
        cudaStream_t s;
        spk_exec_cuda_handles(e, &s, NULL, NULL);
        SPK_CUDA_CHECK(st, err, cudaMemcpyAsync(c->rowptr, dA->rowptr, rp, cudaMemcpyDeviceToDevice, s));
        if (ci) SPK_CUDA_CHECK(st, err, cudaMemcpyAsync(c->colind, dA->colind, ci, cudaMemcpyDeviceToDevice, s));
        if (va) SPK_CUDA_CHECK(st, err, cudaMemcpyAsync(c->val, dA->val, va, cudaMemcpyDeviceToDevice, s));
    } else {
        const double tu = spk_time_now();
        SPK_CHECK(st, spk_cuda_upload(e, c->rowptr, A->rowptr, rp, "CSR row pointers"));
        SPK_CHECK(st, spk_cuda_upload(e, c->colind, A->colind, ci, "CSR column indices"));
        SPK_CHECK(st, spk_format_upload_values(e, c->val, A->val, (size_t)A->nnz, single, "CSR values"));
        c->upload = spk_time_now() - tu;
    }
    if (c->nnz > 0 && c->nrows > 0 && c->ncols > 0) {
        double one = 1.0, zero = 0.0;
        float onef = 1.0f, zerof = 0.0f;
        SPK_CUSPARSE_CHECK(st, err, cusparseCreateCsr(&c->A, c->nrows, c->ncols, c->nnz, c->rowptr,
                                                      c->colind, c->val, CUSPARSE_INDEX_32I,
                                                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                                      c->type));
        /* vector descriptors: the pointers are set on every call */
        SPK_CUSPARSE_CHECK(st, err, cusparseCreateDnVec(&c->x, c->ncols, c->val, c->type));
        SPK_CUSPARSE_CHECK(st, err, cusparseCreateDnVec(&c->y, c->nrows, c->val, c->type));
        SPK_CUSPARSE_CHECK(st, err, cusparseSpMV_bufferSize(c->h, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                            single ? (void *)&onef : (void *)&one, c->A, c->x,
                                                            single ? (void *)&zerof : (void *)&zero, c->y,
                                                            c->type, CUSPARSE_SPMV_CSR_ALG1,
                                                            &c->buffer_bytes));
        SPK_CHECK(st, spk_cuda_alloc(e, c->buffer_bytes, "the cuSPARSE SpMV workspace", &c->buffer));
    }
    c->setup = spk_time_now() - t0;
    *impl = c;
    return SPK_OK;
cleanup:
    cusp_destroy(c);
    return st;
}

static int single_of(const spk_spmv_opts *o)
{
    return o && o->precision == SPK_SPMV_FLOAT;
}

static int cusp_create(spk_exec *e, const spk_csr *A, const spk_spmv_opts *o, void **impl)
{
    return cusp_make(e, A, NULL, single_of(o), impl);
}

static int cusp_create_dev(spk_exec *e, const spk_csr *A, const spk_csr *dA, const spk_spmv_opts *o, void **impl)
{
    return cusp_make(e, A, dA, single_of(o), impl);
}

/* y = alpha*A*x + beta*y; alpha and beta point to the instance's type */
static int cusp_spmv(cusp *c, const void *alpha, const void *x, const void *beta, void *y)
{
    spk_err *err = c->e->err;
    SPK_CUSPARSE_TRY(err, cusparseDnVecSetValues(c->x, (void *)x));
    SPK_CUSPARSE_TRY(err, cusparseDnVecSetValues(c->y, y));
    if (!c->preprocessed) {
        SPK_CUSPARSE_TRY(err, cusparseSpMV_preprocess(c->h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, c->A, c->x,
                                                      beta, c->y, c->type, CUSPARSE_SPMV_CSR_ALG1, c->buffer));
        c->preprocessed = 1;
    }
    SPK_CUSPARSE_TRY(err, cusparseSpMV(c->h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, c->A, c->x, beta, c->y,
                                       c->type, CUSPARSE_SPMV_CSR_ALG1, c->buffer));
    return SPK_OK;
}

static int cusp_apply(void *impl, double alpha, const double *x, double beta, double *y)
{
    cusp *c = impl;
    if (c->single) return spk_spmv_wrong_precision(c->e, "cusparse", 1);
    if (!c->A) return spk_format_scale_y(c->e, c->nrows, 0, beta, y); /* no entries */
    return cusp_spmv(c, &alpha, x, &beta, y);
}

static int cusp_apply_float(void *impl, float alpha, const float *x, float beta, float *y)
{
    cusp *c = impl;
    if (!c->single) return spk_spmv_wrong_precision(c->e, "cusparse", 0);
    if (!c->A) return spk_format_scale_y(c->e, c->nrows, 1, beta, y); /* no entries */
    return cusp_spmv(c, &alpha, x, &beta, y);
}

/* New values with the same pattern: upload them; preprocess again on the next call. */
static int cusp_update(void *impl, const spk_csr *A)
{
    cusp *c = impl;
    if (A->nnz != c->nnz || A->nrows != c->nrows)
        return spk_err_set(c->e->err, SPK_ERR_INVALID_MATRIX,
                           "cusparse: new values for a different pattern (%d x %d, %d entries; "
                           "was %d x %d, %d)",
                           A->nrows, A->ncols, A->nnz, c->nrows, c->ncols, c->nnz);
    SPK_TRY(spk_format_upload_values(c->e, c->val, A->val, (size_t)A->nnz, c->single, "CSR values"));
    c->preprocessed = 0;
    return SPK_OK;
}

static void cusp_stats(const void *impl, spk_spmv_stats *s)
{
    const cusp *c = impl;
    memset(s, 0, sizeof *s);
    s->bytes = ((size_t)c->nrows + 1) * sizeof(int) +
               (size_t)c->nnz * (sizeof(int) + (c->single ? sizeof(float) : sizeof(double))) + c->buffer_bytes;
    s->setup_seconds = c->setup;
    s->upload_seconds = c->upload;
    snprintf(s->detail, sizeof s->detail, "cusparseSpMV CSR_ALG1%s, workspace %zu bytes",
             c->single ? " in float (CUDA_R_32F)" : "", c->buffer_bytes);
}

const struct spk_spmv_ops spk_spmv_cusparse = {
    "cusparse", "cuda", "cuSPARSE CSR (cusparseSpMV, CSR_ALG1)", cusp_create, cusp_apply, cusp_update,
    cusp_destroy, cusp_stats, cusp_create_dev, cusp_apply_float,
};

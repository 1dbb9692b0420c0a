/* zspmv_cuda.c -- the complex product on the GPU: "cusparse" (cusparseSpMV
 * on CSR in CUDA_C_64F, CSR_ALG1) and "csr-vector" (spk's CSR kernel of
 * csr_gpu.cu instantiated for complex values; threads per row as the real
 * csr-vector chooses them). */
#include <stdlib.h>
#include <string.h>

#include "core/exec_cuda.h"
#include "csr_gpu.h"
#include "format.h"
#include "zspmv_impl.h"

typedef struct zdev {
    spk_fmt_csr F;           /* device arrays (F.val: 2*nnz doubles) */
    cusparseHandle_t h;
    cudaStream_t stream;
    cusparseSpMatDescr_t A;  /* cusparse only */
    cusparseDnVecDescr_t x, y;
    void *buffer;
    size_t buffer_bytes;
    int preprocessed;
} zdev;

static void zdev_destroy(spk_zspmv *s)
{
    zdev *d = s->dev;
    if (!d) return;
    if (d->A) cusparseDestroySpMat(d->A);
    if (d->x) cusparseDestroyDnVec(d->x);
    if (d->y) cusparseDestroyDnVec(d->y);
    spk_cuda_free(s->e, d->F.rowptr);
    spk_cuda_free(s->e, d->F.colind);
    spk_cuda_free(s->e, d->F.val);
    spk_cuda_free(s->e, d->buffer);
    free(d);
    s->dev = NULL;
}

static int zdev_update(spk_zspmv *s, const spk_zcsr *A)
{
    zdev *d = s->dev;
    if (A->nnz != d->F.nnz || A->nrows != d->F.nrows)
        return spk_err_set(s->e->err, SPK_ERR_INVALID_MATRIX,
                           "%s: new values for a different pattern (%d rows, %d entries; was %d, %d)", s->name,
                           A->nrows, A->nnz, d->F.nrows, d->F.nnz);
    SPK_TRY(spk_cuda_upload(s->e, d->F.val, A->val, (size_t)A->nnz * 2 * sizeof(double), "complex CSR values"));
    d->preprocessed = 0;
    return SPK_OK;
}

static int vector_apply(spk_zspmv *s, const double *x, double *y)
{
    zdev *d = s->dev;
    SPK_CUDA_TRY(s->e->err, spk_csr_gpu_launch_complex(&d->F, d->stream, x, y));
    return SPK_OK;
}

static int cusparse_apply(spk_zspmv *s, const double *x, double *y)
{
    zdev *d = s->dev;
    spk_err *err = s->e->err;
    if (!d->A) return cudaMemsetAsync(y, 0, (size_t)s->nrows * 2 * sizeof(double), d->stream) == cudaSuccess
                          ? SPK_OK
                          : spk_err_set(err, SPK_ERR_DEVICE, "cudaMemsetAsync of a complex product failed");
    const cuDoubleComplex one = {1, 0}, zero = {0, 0};
    SPK_CUSPARSE_TRY(err, cusparseDnVecSetValues(d->x, (void *)x));
    SPK_CUSPARSE_TRY(err, cusparseDnVecSetValues(d->y, y));
    if (!d->preprocessed) {
        SPK_CUSPARSE_TRY(err, cusparseSpMV_preprocess(d->h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d->A, d->x,
                                                      &zero, d->y, CUDA_C_64F, CUSPARSE_SPMV_CSR_ALG1,
                                                      d->buffer));
        d->preprocessed = 1;
    }
    SPK_CUSPARSE_TRY(err, cusparseSpMV(d->h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d->A, d->x, &zero, d->y,
                                       CUDA_C_64F, CUSPARSE_SPMV_CSR_ALG1, d->buffer));
    return SPK_OK;
}

/* cuSPARSE's descriptors and workspace over the uploaded arrays. */
static int cusparse_prepare(spk_zspmv *s, zdev *d)
{
    spk_err *err = s->e->err;
    if (d->F.nnz == 0 || s->nrows == 0 || s->ncols == 0) return SPK_OK;
    const cuDoubleComplex one = {1, 0}, zero = {0, 0};
    SPK_CUSPARSE_TRY(err, cusparseCreateCsr(&d->A, s->nrows, s->ncols, d->F.nnz, d->F.rowptr, d->F.colind,
                                            d->F.val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                            CUSPARSE_INDEX_BASE_ZERO, CUDA_C_64F));
    SPK_CUSPARSE_TRY(err, cusparseCreateDnVec(&d->x, s->ncols, d->F.val, CUDA_C_64F));
    SPK_CUSPARSE_TRY(err, cusparseCreateDnVec(&d->y, s->nrows, d->F.val, CUDA_C_64F));
    SPK_CUSPARSE_TRY(err, cusparseSpMV_bufferSize(d->h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d->A, d->x, &zero,
                                                  d->y, CUDA_C_64F, CUSPARSE_SPMV_CSR_ALG1, &d->buffer_bytes));
    return spk_cuda_alloc(s->e, d->buffer_bytes ? d->buffer_bytes : 1, "the complex SpMV workspace", &d->buffer);
}

int spk_zspmv_cuda_init(spk_zspmv *s, const spk_zcsr *A, const char *format)
{
    const int vector = format && !strcmp(format, "csr-vector");
    if (format && strcmp(format, "auto") && strcmp(format, "cusparse") && !vector)
        return spk_err_set(s->e->err, SPK_ERR_NOT_FOUND, "complex format '%s' is unknown on the GPU (choices: %s)",
                           format, spk_zspmv_formats(s->e));
    zdev *d = calloc(1, sizeof *d);
    if (!d) return spk_err_set(s->e->err, SPK_ERR_NOMEM, "out of host memory (complex SpMV)");
    s->dev = d;
    s->destroy = zdev_destroy;
    s->update = zdev_update;
    s->apply = vector ? vector_apply : cusparse_apply;
    s->name = vector ? "csr-vector" : "cusparse";
    spk_exec_cuda_handles(s->e, &d->stream, NULL, &d->h);
    spk_csr pattern = {A->nrows, A->ncols, A->nnz, A->rowptr, A->colind, NULL};
    d->F = (spk_fmt_csr){A->nrows, A->ncols, A->nnz, spk_format_lanes(&pattern), NULL, NULL, NULL};
    const size_t rp = ((size_t)A->nrows + 1) * sizeof(int), ci = (size_t)A->nnz * sizeof(int);
    SPK_TRY(spk_cuda_alloc(s->e, rp, "the complex CSR row pointers", (void **)&d->F.rowptr));
    SPK_TRY(spk_cuda_alloc(s->e, ci ? ci : 1, "the complex CSR column indices", (void **)&d->F.colind));
    SPK_TRY(spk_cuda_alloc(s->e, A->nnz ? (size_t)A->nnz * 2 * sizeof(double) : 1, "the complex CSR values", (void **)&d->F.val));
    SPK_TRY(spk_cuda_upload(s->e, d->F.rowptr, A->rowptr, rp, "complex CSR row pointers"));
    SPK_TRY(spk_cuda_upload(s->e, d->F.colind, A->colind, ci, "complex CSR column indices"));
    SPK_TRY(zdev_update(s, A));
    return vector ? SPK_OK : cusparse_prepare(s, d);
}

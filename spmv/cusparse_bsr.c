/* cusparse_bsr.c -- the "cusparse-bsr" SpMV backend: cuSPARSE's generic
 * cusparseSpMV on a BSR matrix (cusparseCreateBsr, CUSPARSE_SPMV_BSR_ALG1,
 * 32-bit indices, double), the blocked baseline the TileSpMV paper compares
 * with.  The BSR arrays are those of "bcsr" (bcsr.h, built by
 * spk_bcsr_build: b x b blocks from --bcsr-block, 0: 4, each block
 * column-major, so the descriptor says CUSPARSE_ORDER_COL), refused beyond
 * the same padding bound, and uploaded.
 *
 * cuSPARSE sees a matrix of mb*b rows and nb*b columns (mb = ceil(rows / b),
 * nb = ceil(cols / b)): its x must hold nb*b entries and its y mb*b.  When
 * the columns are not a multiple of b, x is copied on each product into
 * xpad (nb*b entries, its tail zeroed at create); when the rows are not,
 * the product goes into ypad (mb*b entries) and its first rows are copied
 * back to y, after y was copied into ypad where beta != 0 (beta == 0: y is
 * not read).  These copies are asynchronous on the executor's stream, so a
 * product still records into a CUDA graph.  The workspace is sized at
 * create; cusparseSpMV_preprocess runs once on the first product and again
 * after new values, as in the "cusparse" backend.
 *
 * b = 1: 1 x 1 blocks are CSR's entries, and the same three arrays are
 * CSR's arrays; cuSPARSE documents BSR products (bsrmv) for block sizes
 * above 1 only, so that matrix is described with cusparseCreateCsr and
 * multiplied with CUSPARSE_SPMV_CSR_ALG1.
 *
 * Device storage (stats' bytes): 4 * (mb + 1) + 4 * nblocks
 * + 8 * b * b * nblocks bytes of BSR arrays, + 8 * nb * b bytes of xpad when
 * cols % b != 0, + 8 * mb * b bytes of ypad when rows % b != 0; the
 * cuSPARSE workspace, which cuSPARSE sizes, is given in the description.
 * Single precision (spk_spmv_opts.precision): the values, xpad and ypad in
 * float (4 bytes where the above says 8) and cusparseSpMV in CUDA_R_32F. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcsr.h"
#include "core/exec_cuda.h"
#include "format.h"

typedef struct cbsr {
    spk_exec *e;
    cusparseHandle_t h;
    cudaStream_t s;
    int nrows, ncols, nnz;
    int b, mb, nb, nblocks;
    int *browptr, *bcolind;
    void *val;
    void *xpad, *ypad;   /* NULL where cols (rows) are a multiple of b */
    int single;          /* values, vectors and compute in float */
    cudaDataType_t type; /* CUDA_R_64F or CUDA_R_32F */
    size_t vsz;          /* bytes per value: 8 or 4 */
    cusparseSpMatDescr_t A;
    cusparseSpMVAlg_t alg; /* BSR_ALG1; CSR_ALG1 for b = 1 (CSR arrays) */
    cusparseDnVecDescr_t x, y;
    void *buffer;
    size_t buffer_bytes;
    int preprocessed;
    double setup, upload; /* seconds: create(), and the upload inside it */
} cbsr;

static void cbsr_destroy(void *impl)
{
    cbsr *c = impl;
    if (!c) return;
    if (c->A) cusparseDestroySpMat(c->A);
    if (c->x) cusparseDestroyDnVec(c->x);
    if (c->y) cusparseDestroyDnVec(c->y);
    cudaFree(c->browptr);
    cudaFree(c->bcolind);
    cudaFree(c->val);
    cudaFree(c->xpad);
    cudaFree(c->ypad);
    cudaFree(c->buffer);
    free(c);
}

static void bcsr_host_free(spk_fmt_bcsr *H)
{
    free(H->browptr);
    free(H->bcolind);
    free(H->val);
    memset(H, 0, sizeof *H);
}

/* A zeroed device vector of n values for cuSPARSE's padded x or y. */
static int padded_vector(cbsr *c, int n, const char *what, void **p)
{
    SPK_TRY(spk_cuda_alloc(c->e, (size_t)n * c->vsz, what, p));
    SPK_CUDA_TRY(c->e->err, cudaMemsetAsync(*p, 0, (size_t)n * c->vsz, c->s));
    return SPK_OK;
}

static int cbsr_create(spk_exec *e, const spk_csr *A, const spk_spmv_opts *o, void **impl)
{
    double t0 = spk_time_now();
    spk_err *err = e->err;
    *impl = NULL;
    if (!spk_exec_is_cuda(e))
        return spk_err_set(err, SPK_ERR_NOT_FOUND, "format 'cusparse-bsr' needs the CUDA executor");
    spk_fmt_bcsr H;
    memset(&H, 0, sizeof H);
    int st = spk_bcsr_build(A, spk_bcsr_block(o), "cusparse-bsr", &H, err);
    if (st) {
        bcsr_host_free(&H);
        return st;
    }
    cbsr *c = calloc(1, sizeof *c);
    if (!c) {
        bcsr_host_free(&H);
        return spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (cusparse-bsr backend)");
    }
    c->e = e;
    c->nrows = A->nrows;
    c->ncols = A->ncols;
    c->nnz = A->nnz;
    c->b = H.b;
    c->mb = H.mb;
    c->nb = H.nb;
    c->nblocks = H.nblocks;
    c->single = o && o->precision == SPK_SPMV_FLOAT;
    c->type = c->single ? CUDA_R_32F : CUDA_R_64F;
    c->vsz = c->single ? sizeof(float) : sizeof(double);
    spk_exec_cuda_handles(e, &c->s, NULL, &c->h);
    const size_t bb = (size_t)c->b * (size_t)c->b;
    const size_t rp = ((size_t)c->mb + 1) * sizeof(int), ci = (size_t)c->nblocks * sizeof(int),
                 va = (size_t)c->nblocks * bb * c->vsz;
    SPK_CHECK(st, spk_cuda_alloc(e, rp, "the BSR block row pointers", (void **)&c->browptr));
    SPK_CHECK(st, spk_cuda_alloc(e, ci, "the BSR block column indices", (void **)&c->bcolind));
    SPK_CHECK(st, spk_cuda_alloc(e, va, "the BSR values", (void **)&c->val));
    const double tu = spk_time_now();
    SPK_CHECK(st, spk_cuda_upload(e, c->browptr, H.browptr, rp, "BSR block row pointers"));
    SPK_CHECK(st, spk_cuda_upload(e, c->bcolind, H.bcolind, ci, "BSR block column indices"));
    SPK_CHECK(st, spk_format_upload_values(e, c->val, H.val, (size_t)c->nblocks * bb, c->single, "BSR values"));
    c->upload = spk_time_now() - tu;
    bcsr_host_free(&H);
    /* cuSPARSE reads nb*b entries of x and writes mb*b of y */
    if (c->ncols % c->b) SPK_CHECK(st, padded_vector(c, c->nb * c->b, "the padded x of cusparse-bsr", &c->xpad));
    if (c->nrows % c->b) SPK_CHECK(st, padded_vector(c, c->mb * c->b, "the padded y of cusparse-bsr", &c->ypad));
    if (c->nblocks > 0) {
        double one = 1.0, zero = 0.0;
        float onef = 1.0f, zerof = 0.0f;
        if (c->b == 1) {
            c->alg = CUSPARSE_SPMV_CSR_ALG1;
            SPK_CUSPARSE_CHECK(st, err, cusparseCreateCsr(&c->A, c->nrows, c->ncols, c->nblocks, c->browptr,
                                                          c->bcolind, c->val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                                          CUSPARSE_INDEX_BASE_ZERO, c->type));
        } else {
            c->alg = CUSPARSE_SPMV_BSR_ALG1;
            SPK_CUSPARSE_CHECK(st, err, cusparseCreateBsr(&c->A, c->mb, c->nb, c->nblocks, c->b, c->b, c->browptr,
                                                          c->bcolind, c->val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                                          CUSPARSE_INDEX_BASE_ZERO, c->type, CUSPARSE_ORDER_COL));
        }
        /* vector descriptors: the pointers are set on every call */
        SPK_CUSPARSE_CHECK(st, err, cusparseCreateDnVec(&c->x, (int64_t)c->nb * c->b, c->val, c->type));
        SPK_CUSPARSE_CHECK(st, err, cusparseCreateDnVec(&c->y, (int64_t)c->mb * c->b, c->val, c->type));
        SPK_CUSPARSE_CHECK(st, err, cusparseSpMV_bufferSize(c->h, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                            c->single ? (void *)&onef : (void *)&one, c->A, c->x,
                                                            c->single ? (void *)&zerof : (void *)&zero, c->y,
                                                            c->type, c->alg, &c->buffer_bytes));
        SPK_CHECK(st, spk_cuda_alloc(e, c->buffer_bytes, "the cuSPARSE BSR SpMV workspace", &c->buffer));
    }
    /* the zeroed padding is in place before create returns */
    SPK_CUDA_CHECK(st, err, cudaStreamSynchronize(c->s));
    c->setup = spk_time_now() - t0;
    *impl = c;
    return SPK_OK;
cleanup:
    bcsr_host_free(&H);
    cbsr_destroy(c);
    return st;
}

/* y = alpha*A*x + beta*y, alpha and beta pointing to the instance's type
 * (beta_zero: beta is 0, y not read) */
static int cbsr_spmv(cbsr *c, const void *alpha, const void *x, const void *beta, int beta_zero, void *y)
{
    spk_err *err = c->e->err;
    const void *xp = x;
    void *yp = y;
    if (c->xpad) { /* x's n entries, then the zero tail */
        SPK_CUDA_TRY(err, cudaMemcpyAsync(c->xpad, x, (size_t)c->ncols * c->vsz, cudaMemcpyDeviceToDevice, c->s));
        xp = c->xpad;
    }
    if (c->ypad) {
        if (!beta_zero)
            SPK_CUDA_TRY(err, cudaMemcpyAsync(c->ypad, y, (size_t)c->nrows * c->vsz, cudaMemcpyDeviceToDevice, c->s));
        yp = c->ypad;
    }
    SPK_CUSPARSE_TRY(err, cusparseDnVecSetValues(c->x, (void *)xp));
    SPK_CUSPARSE_TRY(err, cusparseDnVecSetValues(c->y, yp));
    if (!c->preprocessed) {
        SPK_CUSPARSE_TRY(err, cusparseSpMV_preprocess(c->h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, c->A, c->x,
                                                      beta, c->y, c->type, c->alg, c->buffer));
        c->preprocessed = 1;
    }
    SPK_CUSPARSE_TRY(err, cusparseSpMV(c->h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, c->A, c->x, beta, c->y,
                                       c->type, c->alg, c->buffer));
    if (c->ypad)
        SPK_CUDA_TRY(err, cudaMemcpyAsync(y, c->ypad, (size_t)c->nrows * c->vsz, cudaMemcpyDeviceToDevice, c->s));
    return SPK_OK;
}

static int cbsr_apply(void *impl, double alpha, const double *x, double beta, double *y)
{
    cbsr *c = impl;
    if (c->single) return spk_spmv_wrong_precision(c->e, "cusparse-bsr", 1);
    if (!c->A) return spk_format_scale_y(c->e, c->nrows, 0, beta, y); /* no entries */
    return cbsr_spmv(c, &alpha, x, &beta, beta == 0.0, y);
}

static int cbsr_apply_float(void *impl, float alpha, const float *x, float beta, float *y)
{
    cbsr *c = impl;
    if (!c->single) return spk_spmv_wrong_precision(c->e, "cusparse-bsr", 0);
    if (!c->A) return spk_format_scale_y(c->e, c->nrows, 1, beta, y); /* no entries */
    return cbsr_spmv(c, &alpha, x, &beta, beta == 0.0f, y);
}

/* New values with the same pattern: the blocks built again, their values
 * uploaded; preprocess again on the next call. */
static int cbsr_update(void *impl, const spk_csr *A)
{
    cbsr *c = impl;
    spk_err *err = c->e->err;
    if (A->nnz != c->nnz || A->nrows != c->nrows || A->ncols != c->ncols)
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX,
                           "cusparse-bsr: new values for a different pattern (%d x %d, %d entries; "
                           "was %d x %d, %d)",
                           A->nrows, A->ncols, A->nnz, c->nrows, c->ncols, c->nnz);
    spk_fmt_bcsr H;
    memset(&H, 0, sizeof H);
    int st = spk_bcsr_build(A, c->b, "cusparse-bsr", &H, err);
    if (!st && H.nblocks != c->nblocks)
        st = spk_err_set(err, SPK_ERR_INVALID_MATRIX,
                         "cusparse-bsr: new values for a different pattern (%d blocks, was %d)", H.nblocks,
                         c->nblocks);
    if (!st)
        st = spk_format_upload_values(c->e, c->val, H.val, (size_t)H.nblocks * (size_t)H.b * (size_t)H.b,
                                      c->single, "BSR values");
    bcsr_host_free(&H);
    if (!st) c->preprocessed = 0;
    return st;
}

static void cbsr_stats(const void *impl, spk_spmv_stats *s)
{
    const cbsr *c = impl;
    memset(s, 0, sizeof *s);
    const size_t stored = (size_t)c->nblocks * (size_t)c->b * (size_t)c->b;
    s->bytes = ((size_t)c->mb + 1) * sizeof(int) + (size_t)c->nblocks * sizeof(int) + stored * c->vsz +
               (c->xpad ? (size_t)c->nb * (size_t)c->b * c->vsz : 0) +
               (c->ypad ? (size_t)c->mb * (size_t)c->b * c->vsz : 0);
    s->setup_seconds = c->setup;
    s->upload_seconds = c->upload;
    snprintf(s->detail, sizeof s->detail,
             "cusparseSpMV %s%s, %dx%d blocks: %d block rows, %d blocks, %zu stored entries for %d nonzeros "
             "(%.2fx)%s%s, workspace %zu bytes",
             c->b == 1 ? "CSR_ALG1" : "BSR_ALG1", c->single ? " in float" : "", c->b, c->b, c->mb, c->nblocks, stored, c->nnz,
             c->nnz > 0 ? (double)stored / c->nnz : 0.0, c->xpad ? ", padded x" : "", c->ypad ? ", padded y" : "", c->buffer_bytes);
}

const struct spk_spmv_ops spk_spmv_cusparse_bsr = {
    "cusparse-bsr", "cuda", "cuSPARSE BSR (cusparseSpMV, BSR_ALG1; b x b blocks as bcsr, --bcsr-block)",
    cbsr_create, cbsr_apply, cbsr_update, cbsr_destroy, cbsr_stats, NULL, cbsr_apply_float,
};

/* cusparse_sell.c -- the "cusparse-sell" SpMV backend: cusparseSpMV
 * (SELL_ALG1, 32-bit indices, double) on cuSPARSE's sliced ELL, the
 * baseline for the "sell" format.  The rows stay in their order (cuSPARSE's
 * sliced ELL has no permutation, so no sigma sorting): slice s holds rows
 * s*C .. s*C + C - 1, padded to its longest row and stored column-major
 * inside the slice (entry k of local row r at sliceOffsets[s] + k*C + r).
 * Every slice, the last one included, has the stride C, since cuSPARSE
 * derives a slice's width as its offsets' difference over C; padding has
 * column -1 and value 0, as cuSPARSE expects.  The arrays are built on the
 * host and uploaded; the workspace is sized at create.
 *
 * C = sell_c (0: 32).  Storage (the device arrays): 4 * (nslices + 1) bytes
 * of slice offsets + 12 * padded bytes of column indices and values, with
 * nslices = ceil(nrows / C) and padded = C * (the sum of the slices'
 * widths); the workspace (reported in stats' detail) comes on top.  Refused
 * (SPK_ERR_UNSUPPORTED, before anything is allocated) beyond the padding
 * bound (format.h) or 2^31 - 1 stored entries.
 *
 * Single precision (spk_spmv_opts.precision): the values uploaded as float
 * and cusparseSpMV in CUDA_R_32F; 8 * padded bytes of columns and values. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/exec_cuda.h"
#include "format.h"
#include "spmv.h"

typedef struct cusell {
    spk_exec *e;
    cusparseHandle_t h;
    int nrows, ncols, nnz;
    int c, nslices, padded; /* rows per slice, ceil(nrows / c), entries stored (padding included) */
    int *slice_off, *colind;
    void *val;
    int single;          /* values, vectors and compute in float */
    cudaDataType_t type; /* CUDA_R_64F or CUDA_R_32F */
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t x, y;
    void *buffer;
    size_t buffer_bytes;
    double setup, upload; /* seconds: create(), and the upload inside it */
} cusell;

/* The slices of A for slice size c: their count and the entries stored,
 * checked against the padding bound and the 32-bit index limit. */
static int cusell_plan(const spk_csr *A, int c, int *nslices, int *padded, spk_err *err)
{
    const int m = A->nrows;
    const int ns = (int)(((long long)m + c - 1) / c);
    size_t total = 0;
    for (int s = 0; s < ns; s++) {
        int width = 0;
        for (long long i = (long long)s * c; i < (long long)(s + 1) * c && i < m; i++)
            if (A->rowptr[i + 1] - A->rowptr[i] > width) width = A->rowptr[i + 1] - A->rowptr[i];
        total += (size_t)c * (size_t)width;
    }
    SPK_TRY(spk_format_check_padding("cusparse-sell", total, (size_t)A->nnz, m, err));
    if (total > (size_t)INT_MAX)
        return spk_err_set(err, SPK_ERR_UNSUPPORTED,
                           "format 'cusparse-sell' refused: %zu stored entries exceed the 32-bit index limit", total);
    *nslices = ns;
    *padded = (int)total;
    return SPK_OK;
}

/* Fill the host arrays for slice size c (off: nslices + 1 entries; colind
 * and val: the padded size).  colind NULL: the values only (new values,
 * same pattern). */
static void cusell_fill(const spk_csr *A, int c, int nslices, int *off, int *colind, double *val)
{
    const int m = A->nrows;
    off[0] = 0;
    for (int s = 0; s < nslices; s++) {
        const int first = s * c; /* < m: fits */
        int width = 0;
        for (int r = 0; r < c && first + r < m; r++)
            if (A->rowptr[first + r + 1] - A->rowptr[first + r] > width)
                width = A->rowptr[first + r + 1] - A->rowptr[first + r];
        const size_t base = (size_t)off[s];
        for (int r = 0; r < c; r++) {
            int b = 0, len = 0; /* a position beyond the rows: all padding */
            if (first + r < m) {
                b = A->rowptr[first + r];
                len = A->rowptr[first + r + 1] - b;
            }
            for (int k = 0; k < width; k++) {
                const size_t q = base + (size_t)k * c + r;
                if (colind) colind[q] = k < len ? A->colind[b + k] : -1;
                val[q] = k < len ? A->val[b + k] : 0.0;
            }
        }
        off[s + 1] = (int)(base + (size_t)c * width);
    }
}

static void cusell_destroy(void *impl)
{
    cusell *c = impl;
    if (!c) return;
    if (c->A) cusparseDestroySpMat(c->A);
    if (c->x) cusparseDestroyDnVec(c->x);
    if (c->y) cusparseDestroyDnVec(c->y);
    cudaFree(c->slice_off);
    cudaFree(c->colind);
    cudaFree(c->val);
    cudaFree(c->buffer);
    free(c);
}

static int cusell_create(spk_exec *e, const spk_csr *A, const spk_spmv_opts *o, void **impl)
{
    double t0 = spk_time_now();
    spk_err *err = e->err;
    *impl = NULL;
    if (!spk_exec_is_cuda(e))
        return spk_err_set(err, SPK_ERR_NOT_FOUND, "format 'cusparse-sell' needs the CUDA executor");
    const int cs = o ? o->sell_c : 0;
    if (cs < 0)
        return spk_err_set(err, SPK_ERR_INVALID_ARG, "format 'cusparse-sell': sell_c %d must not be negative", cs);
    int nslices = 0, padded = 0;
    SPK_TRY(cusell_plan(A, cs ? cs : 32, &nslices, &padded, err));
    cusell *c = calloc(1, sizeof *c);
    int *hoff = spk_malloc((size_t)nslices + 1, sizeof(int), "sliced ELL offsets", err);
    int *hcol = spk_malloc((size_t)padded, sizeof(int), "sliced ELL column indices", err);
    double *hval = spk_malloc((size_t)padded, sizeof(double), "sliced ELL values", err);
    int st = SPK_OK;
    if (!c || !hoff || !hcol || !hval) {
        /* spk_malloc has set the message for its arrays */
        if (!c) st = spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (cusparse-sell backend)");
        free(c);
        free(hoff);
        free(hcol);
        free(hval);
        return st ? st : SPK_ERR_NOMEM;
    }
    c->e = e;
    c->nrows = A->nrows;
    c->ncols = A->ncols;
    c->nnz = A->nnz;
    c->c = cs ? cs : 32;
    c->nslices = nslices;
    c->padded = padded;
    c->single = o && o->precision == SPK_SPMV_FLOAT;
    c->type = c->single ? CUDA_R_32F : CUDA_R_64F;
    spk_exec_cuda_handles(e, NULL, NULL, &c->h);
    cusell_fill(A, c->c, nslices, hoff, hcol, hval);
    const size_t ob = ((size_t)nslices + 1) * sizeof(int), cb = (size_t)padded * sizeof(int),
                 vb = (size_t)padded * (c->single ? sizeof(float) : sizeof(double));
    SPK_CHECK(st, spk_cuda_alloc(e, ob, "the sliced ELL offsets", (void **)&c->slice_off));
    SPK_CHECK(st, spk_cuda_alloc(e, cb, "the sliced ELL column indices", (void **)&c->colind));
    SPK_CHECK(st, spk_cuda_alloc(e, vb, "the sliced ELL values", (void **)&c->val));
    const double tu = spk_time_now();
    SPK_CHECK(st, spk_cuda_upload(e, c->slice_off, hoff, ob, "sliced ELL offsets"));
    SPK_CHECK(st, spk_cuda_upload(e, c->colind, hcol, cb, "sliced ELL column indices"));
    SPK_CHECK(st, spk_format_upload_values(e, c->val, hval, (size_t)padded, c->single, "sliced ELL values"));
    c->upload = spk_time_now() - tu;
    if (c->nnz > 0 && c->nrows > 0 && c->ncols > 0) {
        double one = 1.0, zero = 0.0;
        float onef = 1.0f, zerof = 0.0f;
        SPK_CUSPARSE_CHECK(st, err, cusparseCreateSlicedEll(&c->A, c->nrows, c->ncols, c->nnz, c->padded, c->c,
                                                            c->slice_off, c->colind, c->val, CUSPARSE_INDEX_32I,
                                                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                                            c->type));
        /* vector descriptors: the pointers are set on every call */
        SPK_CUSPARSE_CHECK(st, err, cusparseCreateDnVec(&c->x, c->ncols, c->val, c->type));
        SPK_CUSPARSE_CHECK(st, err, cusparseCreateDnVec(&c->y, c->nrows, c->val, c->type));
        SPK_CUSPARSE_CHECK(st, err, cusparseSpMV_bufferSize(c->h, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                            c->single ? (void *)&onef : (void *)&one, c->A, c->x,
                                                            c->single ? (void *)&zerof : (void *)&zero, c->y,
                                                            c->type, CUSPARSE_SPMV_SELL_ALG1, &c->buffer_bytes));
        SPK_CHECK(st, spk_cuda_alloc(e, c->buffer_bytes, "the cuSPARSE SpMV workspace", &c->buffer));
    }
    free(hoff);
    free(hcol);
    free(hval);
    c->setup = spk_time_now() - t0;
    *impl = c;
    return SPK_OK;
cleanup:
    free(hoff);
    free(hcol);
    free(hval);
    cusell_destroy(c);
    return st;
}

/* y = alpha*A*x + beta*y, alpha and beta pointing to the instance's type.
 * No cusparseSpMV_preprocess: the call queues the same work every time,
 * with the workspace allocated at create. */
static int cusell_spmv(cusell *c, const void *alpha, const void *x, const void *beta, void *y)
{
    spk_err *err = c->e->err;
    SPK_CUSPARSE_TRY(err, cusparseDnVecSetValues(c->x, (void *)x));
    SPK_CUSPARSE_TRY(err, cusparseDnVecSetValues(c->y, y));
    SPK_CUSPARSE_TRY(err, cusparseSpMV(c->h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, c->A, c->x, beta, c->y,
                                       c->type, CUSPARSE_SPMV_SELL_ALG1, c->buffer));
    return SPK_OK;
}

static int cusell_apply(void *impl, double alpha, const double *x, double beta, double *y)
{
    cusell *c = impl;
    if (c->single) return spk_spmv_wrong_precision(c->e, "cusparse-sell", 1);
    if (!c->A) return spk_format_scale_y(c->e, c->nrows, 0, beta, y); /* no entries */
    return cusell_spmv(c, &alpha, x, &beta, y);
}

static int cusell_apply_float(void *impl, float alpha, const float *x, float beta, float *y)
{
    cusell *c = impl;
    if (!c->single) return spk_spmv_wrong_precision(c->e, "cusparse-sell", 0);
    if (!c->A) return spk_format_scale_y(c->e, c->nrows, 1, beta, y); /* no entries */
    return cusell_spmv(c, &alpha, x, &beta, y);
}

/* New values with the same pattern: the values array built again on the
 * host (the same slices and padding) and uploaded. */
static int cusell_update(void *impl, const spk_csr *A)
{
    cusell *c = impl;
    spk_err *err = c->e->err;
    if (A->nnz != c->nnz || A->nrows != c->nrows || A->ncols != c->ncols)
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX,
                           "cusparse-sell: new values for a different pattern (%d x %d, %d entries; "
                           "was %d x %d, %d)",
                           A->nrows, A->ncols, A->nnz, c->nrows, c->ncols, c->nnz);
    int nslices = 0, padded = 0;
    SPK_TRY(cusell_plan(A, c->c, &nslices, &padded, err));
    if (nslices != c->nslices || padded != c->padded)
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX,
                           "cusparse-sell: new values for a different pattern (%d stored entries, was %d)", padded,
                           c->padded);
    int *hoff = spk_malloc((size_t)nslices + 1, sizeof(int), "sliced ELL offsets", err);
    double *hval = spk_malloc((size_t)padded, sizeof(double), "sliced ELL values", err);
    int st = SPK_ERR_NOMEM;
    if (hoff && hval) {
        cusell_fill(A, c->c, nslices, hoff, NULL, hval);
        st = spk_format_upload_values(c->e, c->val, hval, (size_t)padded, c->single, "sliced ELL values");
    }
    free(hoff);
    free(hval);
    return st;
}

static void cusell_stats(const void *impl, spk_spmv_stats *s)
{
    const cusell *c = impl;
    memset(s, 0, sizeof *s);
    s->bytes = ((size_t)c->nslices + 1) * sizeof(int) +
               (size_t)c->padded * (sizeof(int) + (c->single ? sizeof(float) : sizeof(double)));
    s->setup_seconds = c->setup;
    s->upload_seconds = c->upload;
    snprintf(s->detail, sizeof s->detail,
             "cusparseSpMV SELL_ALG1%s, slice size %d, %d slices, %d stored entries for %d nonzeros (%.2fx), "
             "workspace %zu bytes",
             c->single ? " in float" : "", c->c, c->nslices, c->padded, c->nnz, c->nnz > 0 ? (double)c->padded / c->nnz : 0.0, c->buffer_bytes);
}

const struct spk_spmv_ops spk_spmv_cusparse_sell = {
    "cusparse-sell", "cuda", "cuSPARSE sliced ELL (cusparseSpMV, SELL_ALG1; --sell-c rows per slice)",
    cusell_create, cusell_apply, cusell_update, cusell_destroy, cusell_stats, NULL, cusell_apply_float,
};

/* zspmv.c -- the complex product's dispatch, and its host format: "csr",
 * spk_zcsr_spmv on a private copy of A (the caller may free its matrix).
 * On the GPU the formats are zspmv_cuda.c's. */
#include <stdlib.h>
#include <string.h>

#include "zspmv_impl.h"

static int host_apply(spk_zspmv *s, const double *x, double *y)
{
    spk_zcsr_spmv(&s->A, x, y);
    return SPK_OK;
}

/* New values in the pattern of the copy (the same dimensions, row pointers
 * and columns; anything else is refused, the copy unchanged). */
static int host_update(spk_zspmv *s, const spk_zcsr *A)
{
    const spk_zcsr *C = &s->A;
    if (A->nrows != C->nrows || A->ncols != C->ncols || A->nnz != C->nnz ||
        memcmp(A->rowptr, C->rowptr, ((size_t)C->nrows + 1) * sizeof(int)) != 0 ||
        (C->nnz && memcmp(A->colind, C->colind, (size_t)C->nnz * sizeof(int)) != 0))
        return spk_err_set(s->e->err, SPK_ERR_INVALID_MATRIX,
                           "complex SpMV update: the new matrix (%d x %d, %d entries) does not have the "
                           "pattern of the one given at create (%d x %d, %d entries)",
                           A->nrows, A->ncols, A->nnz, C->nrows, C->ncols, C->nnz);
    if (C->nnz) memcpy(C->val, A->val, (size_t)C->nnz * 2 * sizeof(double));
    return SPK_OK;
}

#ifdef SPK_HAVE_CUDA
static int is_cuda(const spk_exec *e)
{
    return e->ops->name && strcmp(e->ops->name, "cuda") == 0;
}
#endif

/* The host's format: "csr", NULL or "auto". */
static int host_init(spk_zspmv *s, const spk_zcsr *A, const char *format)
{
    if (format && strcmp(format, "csr") != 0 && strcmp(format, "auto") != 0)
        return spk_err_set(s->e->err, SPK_ERR_NOT_FOUND, "unknown complex SpMV format '%s' (available on %s: %s)",
                           format, s->e->ops->name, spk_zspmv_formats(s->e));
    SPK_TRY(spk_zcsr_copy(A, &s->A, s->e->err));
    s->name = "csr";
    s->apply = host_apply;
    s->update = host_update;
    s->destroy = NULL;
    return SPK_OK;
}

/* The arrays of A as far as the product reads them. */
static int check_matrix(spk_err *err, const spk_zcsr *A)
{
    if (A->nrows < 0 || A->ncols < 0 || A->nnz < 0 || !A->rowptr || (A->nnz > 0 && (!A->colind || !A->val)))
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX, "complex SpMV: the matrix arrays are missing or its size "
                           "(%d x %d, %d entries) is negative", A->nrows, A->ncols, A->nnz);
    if (A->rowptr[0] != 0 || A->rowptr[A->nrows] != A->nnz)
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX, "complex SpMV: rowptr runs from %d to %d, not 0 to nnz = %d",
                           A->rowptr[0], A->rowptr[A->nrows], A->nnz);
    for (int i = 0; i < A->nrows; i++)
        if (A->rowptr[i + 1] < A->rowptr[i])
            return spk_err_set(err, SPK_ERR_INVALID_MATRIX, "complex SpMV: rowptr decreases at row %d", i);
    for (int k = 0; k < A->nnz; k++)
        if (A->colind[k] < 0 || A->colind[k] >= A->ncols)
            return spk_err_set(err, SPK_ERR_INVALID_MATRIX,
                               "complex SpMV: entry %d has column %d outside the %d columns", k, A->colind[k],
                               A->ncols);
    return SPK_OK;
}

int spk_zspmv_create(spk_exec *e, const spk_zcsr *A, const char *format, spk_zspmv **out)
{
    if (out) *out = NULL;
    if (!e || !e->ops) return SPK_ERR_INVALID_ARG;
    if (!A || !out) return spk_err_set(e->err, SPK_ERR_INVALID_ARG, "complex SpMV: the matrix or the result is NULL");
    SPK_TRY(check_matrix(e->err, A));
    spk_zspmv *s = calloc(1, sizeof *s);
    if (!s) return spk_err_set(e->err, SPK_ERR_NOMEM, "out of memory for a complex SpMV");
    s->e = e;
    s->nrows = A->nrows;
    s->ncols = A->ncols;
    int st;
    if (spk_exec_is_host(e))
        st = host_init(s, A, format);
#ifdef SPK_HAVE_CUDA
    else if (is_cuda(e))
        st = spk_zspmv_cuda_init(s, A, format);
#endif
    else
        st = spk_err_set(e->err, SPK_ERR_UNSUPPORTED, "complex SpMV: no complex product on the %s executor",
                         e->ops->name ? e->ops->name : "(unnamed)");
    if (st) {
        spk_zspmv_destroy(s);
        return st;
    }
    *out = s;
    return SPK_OK;
}

int spk_zspmv_apply(spk_zspmv *s, const double *x, double *y)
{
    if (!s) return SPK_ERR_INVALID_ARG;
    if (!x || !y) return spk_err_set(s->e->err, SPK_ERR_INVALID_ARG, "complex SpMV: x or y is NULL");
    return s->apply(s, x, y);
}

int spk_zspmv_update(spk_zspmv *s, const spk_zcsr *A)
{
    if (!s) return SPK_ERR_INVALID_ARG;
    if (!A) return spk_err_set(s->e->err, SPK_ERR_INVALID_ARG, "complex SpMV update: the matrix is NULL");
    SPK_TRY(check_matrix(s->e->err, A));
    if (A->nrows != s->nrows || A->ncols != s->ncols)
        return spk_err_set(s->e->err, SPK_ERR_INVALID_MATRIX,
                           "complex SpMV update: the matrix is %d x %d, the product was made for %d x %d",
                           A->nrows, A->ncols, s->nrows, s->ncols);
    return s->update(s, A);
}

const char *spk_zspmv_name(const spk_zspmv *s)
{
    return s && s->name ? s->name : "";
}

void spk_zspmv_size(const spk_zspmv *s, int *nrows, int *ncols)
{
    *nrows = s ? s->nrows : 0;
    *ncols = s ? s->ncols : 0;
}

void spk_zspmv_destroy(spk_zspmv *s)
{
    if (!s) return;
    if (s->destroy && s->dev) s->destroy(s);
    spk_zcsr_free(&s->A);
    free(s);
}

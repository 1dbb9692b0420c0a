/* zmatrix.c -- the public API's complex matrices and vectors (include/spk.h,
 * "complex systems"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/mmio.h"
#include "solver/api_impl.h"

/* Every value finite: (re, im) pairs, n of them. */
static int check_finite(const double *val, size_t n, const char *call, spk_err *e)
{
    for (size_t k = 0; k < 2 * n; k++)
        if (!isfinite(val[k]))
            return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "%s: value %zu has %s part %g; values must be finite",
                               call, k / 2, k % 2 ? "imaginary" : "real", val[k]);
    return SPK_OK;
}

/* A complex matrix's checks, or SPK_ERR_INVALID_ARG naming the call. */
static int complex_only(const spk_matrix *A, const char *call)
{
    if (A->complex) return SPK_OK;
    return spk_err_set(&A->ctx->err, SPK_ERR_INVALID_ARG, "%s: the matrix is real (use the call without _complex)",
                       call);
}

int spk_matrix_from_csr_complex(spk_context *ctx, int nrows, int ncols, const int *rowptr, const int *colind,
                                const double *val, spk_matrix **A)
{
    if (!ctx) return SPK_ERR_INVALID_ARG;
    spk_err *e = &ctx->err;
    spk_err_clear(e);
    if (!A || !rowptr || nrows < 0 || ncols < 0)
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "spk_matrix_from_csr_complex: need nrows, ncols >= 0, rowptr and an output pointer");
    *A = NULL;
    const int nnz = nrows > 0 ? rowptr[nrows] : 0;
    if (nnz > 0 && (!colind || !val))
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_matrix_from_csr_complex: colind and val are required for %d "
                           "entries", nnz);
    const spk_csr in = {nrows, ncols, nnz, (int *)rowptr, (int *)colind, NULL};
    if (spk_csr_validate(&in, 0, e)) return spk_err_prefix(e, "spk_matrix_from_csr_complex");
    SPK_TRY(check_finite(val, (size_t)nnz, "spk_matrix_from_csr_complex", e));
    spk_matrix *m = NULL;
    int st;
    SPK_CHECK(st, spk_matrix_new(ctx, &m));
    m->complex = 1;
    m->nin = nnz;
    m->map = spk_malloc((size_t)nnz + 1, sizeof(int), "entry map", e);
    if (!m->map) {
        st = SPK_ERR_NOMEM;
        goto cleanup;
    }
    SPK_CHECK(st, spk_zcsr_from_csr(nrows, ncols, rowptr, colind, val, &m->Z, m->map, e));
    *A = m;
    m = NULL;
cleanup:
    spk_matrix_destroy(m);
    return st;
}

int spk_matrix_is_complex(const spk_matrix *A)
{
    return A && A->complex;
}

int spk_matrix_complex_symmetry(const spk_matrix *A)
{
    return A && A->complex ? (int)spk_zcsr_symmetry(&A->Z) : -1;
}

int spk_matrix_csr_complex(const spk_matrix *A, int *nrows, int *ncols, int *nnz, const int **rowptr,
                           const int **colind, const double **val)
{
    if (!A) return SPK_ERR_INVALID_ARG;
    SPK_TRY(complex_only(A, "spk_matrix_csr_complex"));
    if (nrows) *nrows = A->Z.nrows;
    if (ncols) *ncols = A->Z.ncols;
    if (nnz) *nnz = A->Z.nnz;
    if (rowptr) *rowptr = A->Z.rowptr;
    if (colind) *colind = A->Z.colind;
    if (val) *val = A->Z.val;
    return SPK_OK;
}

int spk_matrix_multiply_complex(const spk_matrix *A, const double *x, double *y)
{
    if (!A) return SPK_ERR_INVALID_ARG;
    SPK_TRY(complex_only(A, "spk_matrix_multiply_complex"));
    if ((!x && A->Z.ncols) || (!y && A->Z.nrows))
        return spk_err_set(&A->ctx->err, SPK_ERR_INVALID_ARG, "spk_matrix_multiply_complex: x and y are required");
    spk_zcsr_spmv(&A->Z, x, y);
    return SPK_OK;
}

int spk_matrix_update_values_complex(spk_matrix *A, const double *val)
{
    if (!A) return SPK_ERR_INVALID_ARG;
    spk_err *e = &A->ctx->err;
    spk_err_clear(e);
    SPK_TRY(complex_only(A, "spk_matrix_update_values_complex"));
    if (!val && A->nin > 0) return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_matrix_update_values_complex: val is NULL");
    SPK_TRY(check_finite(val, (size_t)A->nin, "spk_matrix_update_values_complex", e));
    if (A->map) {
        memset(A->Z.val, 0, (size_t)A->Z.nnz * 2 * sizeof(double));
        for (int k = 0; k < A->nin; k++) {
            A->Z.val[2 * (size_t)A->map[k]] += val[2 * (size_t)k];
            A->Z.val[2 * (size_t)A->map[k] + 1] += val[2 * (size_t)k + 1];
        }
    } else if (A->nin > 0) {
        memcpy(A->Z.val, val, (size_t)A->nin * 2 * sizeof(double));
    }
    A->version++;
    return SPK_OK;
}

int spk_vector_read_complex(spk_context *ctx, const char *path, int *n, double **v)
{
    if (!ctx) return SPK_ERR_INVALID_ARG;
    spk_err *e = &ctx->err;
    spk_err_clear(e);
    if (!path || !n || !v) return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_vector_read_complex: NULL argument");
    int r, c;
    double *d;
    SPK_TRY(spk_mm_read_zdense(path, ctx->mem_limit, &r, &c, &d, e));
    if (r != 1 && c != 1) {
        free(d);
        return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "%s: holds a %d x %d matrix, not a vector", path, r, c);
    }
    *n = r * c;
    *v = d;
    return SPK_OK;
}

int spk_vector_write_complex(spk_context *ctx, const char *path, int n, const double *v)
{
    if (!ctx) return SPK_ERR_INVALID_ARG;
    spk_err *e = &ctx->err;
    spk_err_clear(e);
    if (!path || n < 0 || (n > 0 && !v))
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_vector_write_complex: bad argument");
    return spk_mm_write_zdense(path, n, 1, v, e);
}

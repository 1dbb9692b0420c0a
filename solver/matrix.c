/* matrix.c -- the public API's matrices and dense vectors (include/spk.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/api_impl.h"
#include "io/mmio.h"

static int check_finite(const spk_csr *A, spk_err *e, const char *what)
{
    for (int i = 0; i < A->nrows; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (!isfinite(A->val[k]))
                return spk_err_set(e, SPK_ERR_INVALID_MATRIX,
                                   "%s: entry (%d, %d) (0-based) is %g; values must be finite", what,
                                   i, A->colind[k], A->val[k]);
    return SPK_OK;
}

/* *yes = 1 when every diagonal entry of the square A is stored and > 0. */
int spk_matrix_positive_diagonal(const spk_csr *A, int *yes, spk_err *e)
{
    int *pos = spk_malloc((size_t)A->nrows, sizeof(int), "diagonal positions", e);
    if (!pos) return SPK_ERR_NOMEM;
    *yes = spk_csr_diag_pos(A, pos) == 0 && A->nrows > 0;
    for (int i = 0; i < A->nrows && *yes; i++)
        if (!(A->val[pos[i]] > 0)) *yes = 0;
    free(pos);
    return SPK_OK;
}

int spk_matrix_new(spk_context *ctx, spk_matrix **out)
{
    spk_matrix *m = calloc(1, sizeof *m);
    if (!m) return spk_err_set(&ctx->err, SPK_ERR_NOMEM, "out of host memory (matrix)");
    m->ctx = ctx;
    spk_context_hold(ctx);
    *out = m;
    return SPK_OK;
}

int spk_matrix_from_csr(spk_context *ctx, int nrows, int ncols, const int *rowptr,
                        const int *colind, const double *val, spk_matrix **A)
{
    if (!ctx) return SPK_ERR_INVALID_ARG;
    spk_err *e = &ctx->err;
    spk_err_clear(e);
    if (!A || !rowptr || nrows < 0 || ncols < 0)
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "spk_matrix_from_csr: need nrows, ncols >= 0, rowptr and an output "
                           "pointer");
    *A = NULL;
    int nnz = nrows > 0 ? rowptr[nrows] : 0;
    if (nnz > 0 && (!colind || !val))
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "spk_matrix_from_csr: colind and val are required for %d entries", nnz);
    spk_csr in = {nrows, ncols, nnz, (int *)rowptr, (int *)colind, (double *)val};
    int st = spk_csr_validate(&in, 0, e);
    if (st) return spk_err_prefix(e, "spk_matrix_from_csr");
    SPK_TRY(check_finite(&in, e, "spk_matrix_from_csr"));

    spk_matrix *m = NULL;
    int *perm = NULL, *map = NULL;
    SPK_CHECK(st, spk_matrix_new(ctx, &m));
    SPK_CHECK(st, spk_csr_copy(&in, &m->A, e));
    m->nin = nnz;
    if (!spk_csr_is_sorted(&m->A)) {
        /* keep input position -> stored position for spk_matrix_update_values */
        perm = spk_malloc((size_t)nnz, sizeof(int), "sort permutation", e);
        map = spk_malloc((size_t)nnz, sizeof(int), "entry map", e);
        if (!perm || !map) {
            st = SPK_ERR_NOMEM;
            goto cleanup;
        }
        SPK_CHECK(st, spk_csr_sort(&m->A, perm, e));
        int *dup = spk_malloc((size_t)nnz, sizeof(int), "entry map", e);
        if (!dup) {
            st = SPK_ERR_NOMEM;
            goto cleanup;
        }
        spk_csr_sum_duplicates(&m->A, dup);
        for (int k = 0; k < nnz; k++) map[perm[k]] = dup[k];
        free(dup);
        m->map = map;
        map = NULL;
    }
    *A = m;
    m = NULL;
cleanup:
    free(perm);
    free(map);
    spk_matrix_destroy(m);
    return st;
}

int spk_matrix_read(spk_context *ctx, const char *path, spk_matrix **A)
{
    if (!ctx) return SPK_ERR_INVALID_ARG;
    spk_err *e = &ctx->err;
    spk_err_clear(e);
    if (!path || !A) return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_matrix_read: NULL argument");
    *A = NULL;
    spk_matrix *m = NULL;
    SPK_TRY(spk_matrix_new(ctx, &m));
    spk_mm_info info;
    spk_mm_field field = SPK_MM_REAL;
    int st = spk_mm_peek_field(path, &field, e);
    if (!st && field == SPK_MM_COMPLEX) {
        m->complex = 1;
        st = spk_mm_read_zcsr(path, ctx->mem_limit, &m->Z, &info, e);
    } else if (!st) {
        st = spk_mm_read_csr_limit(path, ctx->mem_limit, &m->A, &info, e);
    }
    if (st) {
        spk_matrix_destroy(m);
        return st;
    }
    snprintf(m->warning, sizeof m->warning, "%s", info.warnings ? info.warning : "");
    m->nin = m->complex ? m->Z.nnz : m->A.nnz;
    *A = m;
    return SPK_OK;
}

int spk_matrix_write(const spk_matrix *A, const char *path)
{
    if (!A) return SPK_ERR_INVALID_ARG;
    spk_err *e = &A->ctx->err;
    spk_err_clear(e);
    const char *by = "written by spk " SPK_STR(SPK_VERSION_MAJOR) "." SPK_STR(SPK_VERSION_MINOR);
    return A->complex ? spk_mm_write_zcsr(path, &A->Z, 0, by, e) : spk_mm_write_csr(path, &A->A, 0, by, e);
}

int spk_matrix_update_values(spk_matrix *A, const double *val)
{
    if (!A) return SPK_ERR_INVALID_ARG;
    spk_err *e = &A->ctx->err;
    spk_err_clear(e);
    SPK_TRY(spk_matrix_real_only(A, "spk_matrix_update_values"));
    if (!val && A->nin > 0)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_matrix_update_values: val is NULL");
    for (int k = 0; k < A->nin; k++)
        if (!isfinite(val[k]))
            return spk_err_set(e, SPK_ERR_INVALID_MATRIX,
                               "spk_matrix_update_values: value %d is %g; values must be finite", k,
                               val[k]);
    if (A->map) {
        memset(A->A.val, 0, (size_t)A->A.nnz * sizeof(double));
        for (int k = 0; k < A->nin; k++) A->A.val[A->map[k]] += val[k];
    } else if (A->nin > 0) {
        memcpy(A->A.val, val, (size_t)A->nin * sizeof(double));
    }
    A->version++;
    return SPK_OK;
}

int spk_matrix_csr(const spk_matrix *A, int *nrows, int *ncols, int *nnz, const int **rowptr,
                   const int **colind, const double **val)
{
    if (!A) return SPK_ERR_INVALID_ARG;
    SPK_TRY(spk_matrix_real_only(A, "spk_matrix_csr"));
    if (nrows) *nrows = A->A.nrows;
    if (ncols) *ncols = A->A.ncols;
    if (nnz) *nnz = A->A.nnz;
    if (rowptr) *rowptr = A->A.rowptr;
    if (colind) *colind = A->A.colind;
    if (val) *val = A->A.val;
    return SPK_OK;
}

/* The properties of C (real) into info; for a complex matrix C holds the
 * moduli of its values, and the caller sets value_symmetric and
 * positive_diagonal from the complex values. */
static int info_of(const spk_csr *C, spk_matrix_info *info, spk_err *e)
{
    memset(info, 0, sizeof *info);
    info->nrows = C->nrows;
    info->ncols = C->ncols;
    info->nnz = C->nnz;
    SPK_TRY(spk_csr_symmetry(C, 1e-12, &info->pattern_symmetric, &info->value_symmetric, e));
    int n = C->nrows < C->ncols ? C->nrows : C->ncols;
    int *pos = spk_malloc((size_t)n, sizeof(int), "diagonal positions", e);
    if (!pos) return SPK_ERR_NOMEM;
    spk_csr sq = *C;
    sq.nrows = n; /* diagonal of the leading square part */
    info->missing_diagonal = spk_csr_diag_pos(&sq, pos);
    free(pos);
    info->positive_diagonal = 0;
    if (C->nrows == C->ncols) SPK_TRY(spk_matrix_positive_diagonal(C, &info->positive_diagonal, e));
    info->diag_dominant_rows = spk_csr_diag_dominant_rows(C);
    spk_csr_rowstats s;
    spk_csr_row_stats(C, &s);
    info->empty_rows = s.empty;
    info->row_min = s.min;
    info->row_max = s.max;
    info->row_mean = s.mean;
    info->row_std = s.std;
    return SPK_OK;
}

/* A complex matrix: dominance by moduli; value_symmetric means A = A^T;
 * a positive diagonal is real and positive. */
static int complex_info(const spk_zcsr *Z, spk_matrix_info *info, spk_err *e)
{
    double *mod = spk_malloc((size_t)Z->nnz + 1, sizeof(double), "the moduli of a complex matrix", e);
    if (!mod) return SPK_ERR_NOMEM;
    for (int k = 0; k < Z->nnz; k++) mod[k] = hypot(Z->val[2 * (size_t)k], Z->val[2 * (size_t)k + 1]);
    const spk_csr C = {Z->nrows, Z->ncols, Z->nnz, Z->rowptr, Z->colind, mod};
    int st = info_of(&C, info, e);
    free(mod);
    SPK_TRY(st);
    info->value_symmetric = (spk_zcsr_symmetry(Z) & SPK_ZSYM_SYMMETRIC) != 0;
    for (int i = 0; i < Z->nrows && info->positive_diagonal; i++)
        for (int k = Z->rowptr[i]; k < Z->rowptr[i + 1]; k++)
            if (Z->colind[k] == i && Z->val[2 * (size_t)k + 1] != 0) info->positive_diagonal = 0;
    return SPK_OK;
}

int spk_matrix_get_info(const spk_matrix *A, spk_matrix_info *info)
{
    if (!A || !info) return SPK_ERR_INVALID_ARG;
    return A->complex ? complex_info(&A->Z, info, &A->ctx->err) : info_of(&A->A, info, &A->ctx->err);
}

int spk_matrix_multiply(const spk_matrix *A, const double *x, double *y)
{
    if (!A || (!x && A->A.ncols) || (!y && A->A.nrows)) return SPK_ERR_INVALID_ARG;
    SPK_TRY(spk_matrix_real_only(A, "spk_matrix_multiply"));
    spk_csr_spmv(&A->A, 1.0, x, 0.0, y);
    return SPK_OK;
}

static void matrix_free(spk_matrix *A)
{
    spk_context *ctx = A->ctx;
    spk_csr_free(&A->A);
    spk_zcsr_free(&A->Z);
    free(A->map);
    free(A);
    spk_context_drop(ctx);
}

const char *spk_matrix_warning(const spk_matrix *A)
{
    return A ? A->warning : "";
}

void spk_matrix_hold(spk_matrix *A)
{
    A->ref.refs++;
}

void spk_matrix_drop(spk_matrix *A)
{
    if (spk_ref_drop(&A->ref)) matrix_free(A);
}

void spk_matrix_destroy(spk_matrix *A)
{
    if (A && spk_ref_close(&A->ref)) matrix_free(A);
}

int spk_matrix_real_only(const spk_matrix *A, const char *call)
{
    if (!A->complex) return SPK_OK;
    return spk_err_set(&A->ctx->err, SPK_ERR_INVALID_ARG, "%s: the matrix is complex (use %s_complex)", call,
                       call);
}

/* ---- vectors -------------------------------------------------------------- */

int spk_vector_read(spk_context *ctx, const char *path, int *n, double **v)
{
    if (!ctx) return SPK_ERR_INVALID_ARG;
    spk_err *e = &ctx->err;
    spk_err_clear(e);
    if (!path || !n || !v) return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_vector_read: NULL argument");
    int r, c;
    double *d;
    SPK_TRY(spk_mm_read_dense_limit(path, ctx->mem_limit, &r, &c, &d, e));
    if (r != 1 && c != 1) {
        free(d);
        return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "%s: holds a %d x %d matrix, not a vector",
                           path, r, c);
    }
    *n = r * c;
    *v = d;
    return SPK_OK;
}

int spk_vector_write(spk_context *ctx, const char *path, int n, const double *v)
{
    if (!ctx) return SPK_ERR_INVALID_ARG;
    spk_err *e = &ctx->err;
    spk_err_clear(e);
    if (!path || n < 0 || (n > 0 && !v))
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_vector_write: bad argument");
    return spk_mm_write_dense(path, n, 1, v, NULL, e);
}


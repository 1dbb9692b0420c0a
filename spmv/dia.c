/* dia.c -- the "dia" format (the survey's DIA; dia.h): A's nonzero diagonals,
 * each padded to the rows' length.  The offsets are found in one pass over
 * the entries (a mark per possible offset, nrows + ncols - 1 of them), the
 * size checked against the padding bound, then each entry placed at its
 * diagonal's slot of its row. */
#include <stdio.h>
#include <stdlib.h>

#include "core/parallel.h"
#include "dia.h"
#ifdef SPK_HAVE_CUDA
#include "core/exec_cuda.h"
#endif

static int dia_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    (void)o;
    spk_fmt_dia *D = fmt;
    const int m = A->nrows, n = A->ncols;
    D->nrows = m;
    D->ncols = n;
    D->nnz = A->nnz;
    if (m == 0 || n == 0 || A->nnz == 0) return SPK_OK;
    /* offset c - r lies in [-(m - 1), n - 1]: slot c - r + m - 1 */
    const size_t span = (size_t)m + (size_t)n - 1;
    int *slot = spk_malloc(span, sizeof(int), "DIA offsets", err);
    if (!slot) return SPK_ERR_NOMEM;
    for (size_t s = 0; s < span; s++) slot[s] = -1;
    int ndiag = 0;
    for (int i = 0; i < m; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            const size_t s = (size_t)(A->colind[k] - i + m - 1);
            if (slot[s] < 0) {
                slot[s] = 0;
                ndiag++;
            }
        }
    const size_t stored = (size_t)ndiag * (size_t)m;
    char why[96];
    snprintf(why, sizeof why, "%d diagonals: the matrix is not banded along a few", ndiag);
    const int st = spk_format_check_stored("dia", stored, (size_t)A->nnz, m, why, err);
    if (st) {
        free(slot);
        return st;
    }
    D->ndiag = ndiag;
    D->offset = spk_malloc((size_t)ndiag, sizeof(int), "DIA offsets", err);
    D->val = spk_calloc(stored, sizeof(double), "DIA values", err);
    if (!D->offset || !D->val) {
        free(slot);
        return SPK_ERR_NOMEM;
    }
    /* the diagonals in increasing offset, each slot numbered by its diagonal */
    for (size_t s = 0, d = 0; s < span; s++)
        if (slot[s] == 0) {
            D->offset[d] = (int)s - (m - 1);
            slot[s] = (int)d++;
        }
    for (int i = 0; i < m; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            const int d = slot[A->colind[k] - i + m - 1];
            D->val[(size_t)d * m + i] = A->val[k];
        }
    free(slot);
    return SPK_OK;
}

static int dia_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_dia *D = fmt;
    l[0] = (spk_format_array){(void **)&D->offset, (size_t)D->ndiag * sizeof(int), 0};
    l[1] = (spk_format_array){(void **)&D->val, (size_t)D->ndiag * (size_t)D->nrows * sizeof(double), 1};
    return 2;
}

void spk_dia_ref(const spk_fmt_dia *D, double alpha, const double *x, double beta, double *y)
{
    const int m = D->nrows;
    SPK_OMP(omp parallel for schedule(static) if (m >= SPK_PAR_MIN / 8))
    for (int i = 0; i < m; i++) {
        double s = 0;
        for (int d = 0; d < D->ndiag; d++) {
            const long long c = (long long)i + D->offset[d];
            if (c >= 0 && c < D->ncols) s += D->val[(size_t)d * m + i] * x[c];
        }
        y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
    }
}

static void dia_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    spk_dia_ref(fmt, alpha, x, beta, y);
}

static void dia_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_dia *D = fmt;
    const size_t stored = (size_t)D->ndiag * (size_t)D->nrows;
    snprintf(buf, len, "DIA, %d diagonals, %zu stored entries for %d nonzeros (%.2fx)", D->ndiag, stored, D->nnz,
             D->nnz > 0 ? (double)stored / D->nnz : 0.0);
}

static const spk_format dia_format = {
    "dia", "DIA, the nonzero diagonals", sizeof(spk_fmt_dia), dia_convert, dia_arrays, dia_ref,
    SPK_FORMAT_LAUNCH(spk_dia_launch), dia_describe, SPK_FORMAT_BUILD(NULL),
};

SPK_FORMAT_BACKENDS(dia, "dia", "DIA: the nonzero diagonals, each padded to the rows (refused beyond 3x padding)",
                    dia_format)

/* cmrs.c -- the "cmrs" format (cmrs.h): CSR's entries with, for each, its
 * row inside its strip of SPK_CMRS_STRIP rows, and the strips' starts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmrs.h"

static int cmrs_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    (void)o;
    spk_fmt_cmrs *C = fmt;
    const int m = A->nrows, h = SPK_CMRS_STRIP, nnz = A->nnz;
    C->nrows = m;
    C->ncols = A->ncols;
    C->nnz = nnz;
    C->nstrips = (m + h - 1) / h;
    C->sptr = spk_malloc((size_t)C->nstrips + 1, sizeof(int), "CMRS strip pointers", err);
    C->rin = spk_malloc((size_t)nnz + 1, 1, "CMRS rows in strip", err);
    C->colind = spk_malloc((size_t)nnz + 1, sizeof(int), "CMRS column indices", err);
    C->val = spk_malloc((size_t)nnz + 1, sizeof(double), "CMRS values", err);
    if (!C->sptr || !C->rin || !C->colind || !C->val) return SPK_ERR_NOMEM;
    for (int s = 0; s <= C->nstrips; s++) C->sptr[s] = A->rowptr[s * h < m ? s * h : m];
    for (int i = 0; i < m; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) C->rin[k] = (unsigned char)(i % h);
    if (nnz) {
        memcpy(C->colind, A->colind, (size_t)nnz * sizeof(int));
        memcpy(C->val, A->val, (size_t)nnz * sizeof(double));
    }
    return SPK_OK;
}

static int cmrs_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_cmrs *C = fmt;
    l[0] = (spk_format_array){(void **)&C->sptr, ((size_t)C->nstrips + 1) * sizeof(int), 0};
    l[1] = (spk_format_array){(void **)&C->rin, (size_t)C->nnz, 0};
    l[2] = (spk_format_array){(void **)&C->colind, (size_t)C->nnz * sizeof(int), 0};
    l[3] = (spk_format_array){(void **)&C->val, (size_t)C->nnz * sizeof(double), 1};
    return 4;
}

void spk_cmrs_ref(const spk_fmt_cmrs *C, double alpha, const double *x, double beta, double *y)
{
    enum { W = 32, H = SPK_CMRS_STRIP };
    double acc[W][H], t[W][H];
    for (int s = 0; s < C->nstrips; s++) {
        memset(acc, 0, sizeof acc);
        for (int l = 0; l < W; l++)
            for (int k = C->sptr[s] + l; k < C->sptr[s + 1]; k += W) acc[l][C->rin[k]] += C->val[k] * x[C->colind[k]];
        for (int off = W / 2; off > 0; off >>= 1) { /* __shfl_xor_sync: every lane adds its partner's */
            for (int l = 0; l < W; l++)
                for (int r = 0; r < H; r++) t[l][r] = acc[l][r] + acc[l ^ off][r];
            memcpy(acc, t, sizeof acc);
        }
        for (int r = 0; r < H; r++) {
            const int i = s * H + r;
            if (i < C->nrows) y[i] = beta == 0.0 ? alpha * acc[r][r] : alpha * acc[r][r] + beta * y[i];
        }
    }
}

static void cmrs_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    spk_cmrs_ref(fmt, alpha, x, beta, y);
}

static void cmrs_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_cmrs *C = fmt;
    snprintf(buf, len, "CMRS, %d strips of %d rows, %d nonzeros", C->nstrips, SPK_CMRS_STRIP, C->nnz);
}

static const spk_format cmrs_format = {
    "cmrs", "CMRS, compressed multi-row storage", sizeof(spk_fmt_cmrs), cmrs_convert, cmrs_arrays, cmrs_ref,
    SPK_FORMAT_LAUNCH(spk_cmrs_launch), cmrs_describe, SPK_FORMAT_BUILD(NULL),
};

SPK_FORMAT_BACKENDS(cmrs, "cmrs",
                    "CMRS: CSR's entries in strips of 8 rows, a warp per strip, each entry's row in the strip kept",
                    cmrs_format)

/* amf.c -- the "amf-csr" format (amf.h): CSR's arrays with the folding of
 * rows into row blocks (below T_s nonzeros) and of row blocks into
 * sub-blocks (below T_l), both greedy in the rows' order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amf.h"

/* The greedy folding: item i (of n, sizes size(i)) joins the current group
 * while the group's total plus its size stays below t; a group is never
 * empty.  Writes each group's first item into first[] (count + 1 entries,
 * first may be NULL to count only); returns the count. */
static int fold(int n, const int *start, int t, int *first)
{
    int groups = 0;
    long long total = 0;
    for (int i = 0; i < n; i++) {
        const long long size = start[i + 1] - start[i];
        if (i == 0 || total + size >= t) {
            if (first) first[groups] = i;
            groups++;
            total = 0;
        }
        total += size;
    }
    if (first) first[groups] = n;
    return groups;
}

static int amf_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    (void)o;
    spk_fmt_amf *F = fmt;
    const int m = A->nrows, nnz = A->nnz;
    F->nrows = m;
    F->ncols = A->ncols;
    F->nnz = nnz;
    F->nrb = fold(m, A->rowptr, SPK_AMF_TS, NULL);
    F->rowptr = spk_malloc((size_t)m + 1, sizeof(int), "AMF-CSR row pointers", err);
    F->rbrow = spk_malloc((size_t)F->nrb + 1, sizeof(int), "AMF-CSR row blocks", err);
    F->colind = spk_malloc((size_t)nnz + 1, sizeof(int), "AMF-CSR column indices", err);
    F->val = spk_malloc((size_t)nnz + 1, sizeof(double), "AMF-CSR values", err);
    if (!F->rowptr || !F->rbrow || !F->colind || !F->val) return SPK_ERR_NOMEM;
    memcpy(F->rowptr, A->rowptr, ((size_t)m + 1) * sizeof(int));
    if (nnz) {
        memcpy(F->colind, A->colind, (size_t)nnz * sizeof(int));
        memcpy(F->val, A->val, (size_t)nnz * sizeof(double));
    }
    fold(m, A->rowptr, SPK_AMF_TS, F->rbrow);
    /* the row blocks' entry counts as a pointer array, folded the same way */
    int *rbstart = spk_malloc((size_t)F->nrb + 1, sizeof(int), "AMF-CSR folding", err);
    if (!rbstart) return SPK_ERR_NOMEM;
    for (int b = 0; b <= F->nrb; b++) rbstart[b] = A->rowptr[F->rbrow[b]];
    F->nsb = fold(F->nrb, rbstart, SPK_AMF_TL, NULL);
    F->sbrb = spk_malloc((size_t)F->nsb + 1, sizeof(int), "AMF-CSR sub-blocks", err);
    if (F->sbrb) fold(F->nrb, rbstart, SPK_AMF_TL, F->sbrb);
    free(rbstart);
    return F->sbrb ? SPK_OK : SPK_ERR_NOMEM;
}

static int amf_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_amf *F = fmt;
    l[0] = (spk_format_array){(void **)&F->rowptr, ((size_t)F->nrows + 1) * sizeof(int), 0};
    l[1] = (spk_format_array){(void **)&F->rbrow, ((size_t)F->nrb + 1) * sizeof(int), 0};
    l[2] = (spk_format_array){(void **)&F->sbrb, ((size_t)F->nsb + 1) * sizeof(int), 0};
    l[3] = (spk_format_array){(void **)&F->colind, (size_t)F->nnz * sizeof(int), 0};
    l[4] = (spk_format_array){(void **)&F->val, (size_t)F->nnz * sizeof(double), 1};
    return 5;
}

void spk_amf_ref(const spk_fmt_amf *F, double alpha, const double *x, double beta, double *y)
{
    for (int b = 0; b < F->nrb; b++) {
        const int r0 = F->rbrow[b], r1 = F->rbrow[b + 1];
        for (int i = r0; i < r1; i++) {
            double s;
            if (r1 - r0 == 1) {
                s = spk_format_lane_sum(F->colind, F->val, F->rowptr[i], F->rowptr[i + 1], x, 32);
            } else {
                s = 0;
                for (int k = F->rowptr[i]; k < F->rowptr[i + 1]; k++) s += F->val[k] * x[F->colind[k]];
            }
            y[i] = beta == 0.0 ? alpha * s : alpha * s + beta * y[i];
        }
    }
}

static void amf_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    spk_amf_ref(fmt, alpha, x, beta, y);
}

static void amf_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_amf *F = fmt;
    snprintf(buf, len, "AMF-CSR, %d row blocks (T_s %d) in %d sub-blocks (T_l %d), %d nonzeros", F->nrb, SPK_AMF_TS,
             F->nsb, SPK_AMF_TL, F->nnz);
}

static const spk_format amf_format = {
    "amf-csr", "AMF-CSR, adaptive multi-row folding", sizeof(spk_fmt_amf), amf_convert, amf_arrays, amf_ref,
    SPK_FORMAT_LAUNCH(spk_amf_launch), amf_describe, SPK_FORMAT_BUILD(NULL),
};

SPK_FORMAT_BACKENDS(amf_csr, "amf-csr",
                    "AMF-CSR: rows folded into row blocks below T_s = 64 nonzeros, those into sub-blocks below "
                    "T_l = 1024; a thread block per sub-block, a warp per row block",
                    amf_format)

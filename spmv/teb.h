/* teb.h -- TEB, the threshold-exchangeorder block format (000, §3.1-3.2).
 *
 * Rows are sorted by length, longest first (stable), and merged into bLN
 * sub-blocks of nearly equal nonzeros (Alg. 2): each sub-block starts with the
 * longest remaining row and adds the shortest remaining rows while its sum
 * stays <= Threshold; the last sub-block takes every remaining row.  The
 * arrays, in that reordered row order:
 *   val, col    the nonzeros (Values, Col_Idx)
 *   rs          RowNNZ_Sum: nonzero offset of each reordered row (nrows + 1)
 *   blo         Blo_Idx: first reordered row of each sub-block (nblocks + 1)
 *   orig        the original row of each reordered row
 * Threshold = NNZ/bLN * k with k from Alg. 1, and bLN is the value of the
 * search that gives the smallest variance of the sub-blocks' nonzeros
 * (eq. 5); see teb.c for how the search stays linear in practice. */
#ifndef SPK_SPMV_TEB_H
#define SPK_SPMV_TEB_H

#include "format.h"

typedef struct spk_fmt_teb {
    int nrows, ncols, nnz;
    int nblocks;        /* sub-blocks formed (bLN, fewer only when rows run out) */
    int max_rows;       /* most rows in one sub-block */
    int threads;        /* teb-fast: threads per row (power of two <= 32) */
    int *blo;           /* nblocks + 1 */
    int *rs;            /* nrows + 1 */
    int *col;           /* nnz */
    double *val;        /* nnz */
    int *orig;          /* nrows */
    /* how it was chosen (host-side numbers) */
    int bln;            /* the bLN asked for */
    int bln_critical;   /* Alg. 1's critical block count (0: none found) */
    double k, threshold, variance;
    int min_nnz, max_nnz; /* over the sub-blocks */
    double t_threshold, t_merge; /* seconds: Alg. 1 + bLN search, Alg. 2 + arrays */
    int evaluated;      /* bLN values evaluated by the search */
} spk_fmt_teb;

/* Variance (eq. 5) of the sub-block nonzeros that Alg. 2 forms with the
 * given threshold for bLN blocks, from the histogram of row lengths
 * (lengths[] descending, counts[]; D distinct).  Blocks that cannot be
 * formed because the rows ran out count as empty. */
double spk_teb_variance(const int *lengths, const long long *counts, int D, long long nnz, int bln,
                        double threshold);
/* Alg. 1's k for bLN given the critical block count (0: none found). */
double spk_teb_k(long long nnz, int bln, int bln_critical);
/* Build the TEB arrays of canonical A for a given bLN and k (no search):
 * the worked example of the paper is bLN = 4, k = 1. */
int spk_teb_build(const spk_csr *A, int bln, double k, spk_fmt_teb *T, spk_err *err);
/* The full TEB conversion: Alg. 1, the bLN search with the early stop of
 * eq. (10), then Alg. 2. */
int spk_teb_convert(const spk_csr *A, spk_fmt_teb *T, spk_err *err);

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* Alg. 3: one thread block per sub-block, one thread per row. */
SPK_FORMAT_LAUNCH_DECL(spk_teb_launch)
/* The same partition, T threads per row sharing the row's nonzeros. */
SPK_FORMAT_LAUNCH_DECL(spk_teb_fast_launch)
#ifdef __cplusplus
}
#endif
#endif

#endif

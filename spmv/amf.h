/* amf.h -- AMF-CSR (adaptive multi-row folding of CSR, after Gao et al., as
 * the TEB paper describes it): CSR's entries in their order, consecutive
 * rows folded into row blocks while the block's nonzeros stay below T_s,
 * and consecutive row blocks folded into sub-blocks while the sub-block's
 * nonzeros stay below T_l.  A row that alone reaches T_s is a row block of
 * its own, and a row block that alone reaches T_l a sub-block of its own.
 * The GPU runs a thread block per sub-block and a warp per row block.
 *
 * Thresholds: T_s = SPK_AMF_TS (64: two entries per lane of a warp) and
 * T_l = SPK_AMF_TL (1024: eight per thread of a block of 128).  The paper
 * sets them from the matrix's size and nonzeros without saying how; these
 * are fixed, chosen for the warp and block sizes of the kernel.
 *
 * Storage (bytes): 12 nnz (values and column indices; 8 nnz in float, 4
 * bytes a value) + 4 (m + 1) (row pointers) + 4 (nrb + 1) (each row block's
 * first row: the paper's first part of RowPtr) + 4 (nsb + 1) (each
 * sub-block's first row block: its second part). */
#ifndef SPK_SPMV_AMF_H
#define SPK_SPMV_AMF_H

#include "format.h"

#define SPK_AMF_TS 64   /* T_s: a row block's nonzeros stay below it */
#define SPK_AMF_TL 1024 /* T_l: a sub-block's nonzeros stay below it */

typedef struct spk_fmt_amf {
    int nrows, ncols, nnz;
    int nrb, nsb;  /* row blocks, sub-blocks */
    int *rowptr;   /* nrows + 1 */
    int *rbrow;    /* nrb + 1: each row block's first row */
    int *sbrb;     /* nsb + 1: each sub-block's first row block */
    int *colind;   /* nnz */
    double *val;   /* nnz */
} spk_fmt_amf;

/* y = alpha*F*x + beta*y on the host, as the kernel adds: a row block of one
 * row by 32 lanes meeting pairwise (spk_format_lane_sum), a row of a block
 * of several rows by one lane in order. */
void spk_amf_ref(const spk_fmt_amf *F, double alpha, const double *x, double beta, double *y);

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* y = alpha*F*x + beta*y: a block of 128 threads per sub-block, its warps
 * taking its row blocks in turn (device arrays in F). */
SPK_FORMAT_LAUNCH_DECL(spk_amf_launch)
#ifdef __cplusplus
}
#endif
#endif

#endif

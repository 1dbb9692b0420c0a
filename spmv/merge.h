/* merge.h -- merge-path CSR (Merrill & Garland, "Merge-based parallel sparse
 * matrix-vector multiplication", SC'16): the product as a merge of the row
 * ends rowptr[1..m] with the nonzero indices 0..nnz-1, m + nnz items in all,
 * cut into segments of SPK_MERGE_ITEMS items, one segment per thread, so that
 * every thread does the same work whatever the row lengths.
 *
 * The merge: at coordinate (row i, nonzero k) the next item is nonzero k when
 * k < rowptr[i + 1] (it adds val[k] * x[col[k]] to the running sum), else the
 * end of row i (it emits y_i = alpha * sum + beta * y_i and resets the sum).
 * Segment s starts on diagonal i + k = s * ITEMS; its coordinate is found by a
 * binary search along that diagonal at convert time (precomputed, not searched
 * in the kernel) and stored in coord[], with one end entry (m, nnz).
 *
 * The row a segment ends inside (the row of its end coordinate, when that is
 * < m) gets the segment's partial sum as a carry, carry[s].  A second pass
 * adds the carries: the first segment of each run of consecutive segments
 * carrying into one row adds their carries in segment order and then alpha
 * times that total into y_row, which the segment that reaches the row's end
 * has written (with beta * y_old, the only time y_old is read) in the first
 * pass.  Deterministic, and a row spanning many segments (rows of thousands
 * of entries) is one run of carries; its R carries are one thread's R
 * additions, so a row of 10^5 entries and more makes the second pass the
 * slow part (Merrill & Garland reduce the carries by a parallel segmented
 * scan instead).
 *
 * SPK_MERGE_ITEMS = 7: odd, so that a warp's threads, about 7 items apart,
 * read their double products from shared memory on distinct banks; small
 * enough that a few hundred thousand nonzeros make a thread for every slot of
 * the GPU, large enough that a segment's 16 bytes of coordinate and carry are
 * about 2.3 bytes an item against a nonzero's 12.
 *
 * Storage: 4 * (nrows + 1) + 12 * nnz bytes of CSR (8 * nnz in float) + 8 *
 * (nseg + 1) bytes of segment coordinates + 8 * nseg bytes of carries (4 *
 * nseg in float; the kernel's workspace, held with the matrix), nseg =
 * ceil((nrows + nnz) / SPK_MERGE_ITEMS).  Holding the carries with the
 * matrix makes an instance run one product at a time: its executor's stream
 * orders them, and two products of one instance on two streams at once
 * would share carry[]. */
#ifndef SPK_SPMV_MERGE_H
#define SPK_SPMV_MERGE_H

#include "format.h"

#define SPK_MERGE_ITEMS 7 /* merge items (row ends + nonzeros) per thread */

typedef struct spk_fmt_merge {
    int nrows, ncols, nnz;
    int nseg;       /* ceil((nrows + nnz) / SPK_MERGE_ITEMS) */
    int *rowptr;    /* nrows + 1 */
    int *colind;    /* nnz */
    double *val;    /* nnz */
    int *coord;     /* 2 * (nseg + 1): (row, nonzero) where segment s starts, then (nrows, nnz) */
    double *carry;  /* nseg: the partial sum each segment leaves in the row it ends inside */
} spk_fmt_merge;

/* y = alpha*M*x + beta*y on the host: the segments in order, each as a
 * thread runs it, then the carries of each run added as the second pass adds
 * them (the kernel's sums in the kernel's order). */
void spk_merge_ref(const spk_fmt_merge *M, double alpha, const double *x, double beta, double *y);

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* y = alpha*M*x + beta*y: the segments (a thread each, a block's nonzero
 * products and row ends staged in shared memory), then the carries (device
 * arrays in M; M->carry is written). */
SPK_FORMAT_LAUNCH_DECL(spk_merge_launch)
#ifdef __cplusplus
}
#endif
#endif

#endif

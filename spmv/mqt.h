/* mqt.h -- MQT (the survey's minimal quad tree): the matrix, in a square of
 * side 2^K covering it, as a quad tree whose structure alone is stored, as a
 * bit stream: each node with entries that is larger than one cell gives 4
 * bits, one per quadrant (top left, top right, bottom left, bottom right),
 * set where the quadrant has entries, in depth-first order; the cells of
 * the last level are the entries, and their values follow in the same
 * order.  Nothing else positions an entry: its row and column come from the
 * path to it.
 *
 * The GPU adaptation: decoding the stream is sequential, so the conversion
 * also lists where each nonempty subtree of side SPK_MQT_SUB starts (its
 * first row and column, its bits' and its values' offsets: 16 bytes each),
 * and a thread decodes one subtree, summing its rows locally and adding
 * them into y with atomic adds (y scaled by beta first).
 *
 * Storage (bytes): 4 ceil(bits / 32) (the stream, bits = 4 x the nodes with
 * entries larger than one cell) + 8 nnz (values; 4 nnz in float) + 16 Nsub (the subtree
 * table); the survey's bound on the stream is 4 N (1/3 + log4(n^2 / N))
 * bits. */
#ifndef SPK_SPMV_MQT_H
#define SPK_SPMV_MQT_H

#include "format.h"

#define SPK_MQT_SUB 32 /* a subtree's side: a thread decodes it (at most 5 levels) */

typedef struct spk_fmt_mqt {
    int nrows, ncols, nnz;
    int side;               /* 2^K */
    int sub;                /* the subtrees' side: min(2^K, SPK_MQT_SUB) */
    long long nbits;
    int nsub;
    unsigned *bits;         /* ceil(nbits / 32) words, bit i at word i / 32, bit i % 32 */
    double *val;            /* nnz, in depth-first order */
    int *sub_row, *sub_col; /* nsub: each subtree's first row and column */
    int *sub_bit;           /* nsub: where its bits start (its own 4 first) */
    int *sub_val;           /* nsub: where its values start */
} spk_fmt_mqt;

/* y = alpha*M*x + beta*y on the host: y scaled, then each subtree decoded
 * in turn, its rows' sums added into y (the kernel's order within a
 * subtree; across subtrees the atomics choose). */
void spk_mqt_ref(const spk_fmt_mqt *M, double alpha, const double *x, double beta, double *y);

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* y = alpha*M*x + beta*y: y scaled, then a thread per subtree (device arrays in M). */
SPK_FORMAT_LAUNCH_DECL(spk_mqt_launch)
#ifdef __cplusplus
}
#endif
#endif

#endif

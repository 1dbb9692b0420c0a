/* qcsr.h -- QCSR (the survey's quad-tree CSR): the matrix, in a square of
 * side 2^K covering it, split recursively into four quadrants down to
 * nodes of side SPK_QCSR_DENSITY (the density size); nodes with no entries
 * are dropped at the level where they are found empty, and each remaining
 * leaf is a small CSR matrix of its own, with the row pointers and column
 * indices local to the leaf (so they fit in 2 and 1 bytes).  Leaves are
 * kept in bands of SPK_QCSR_DENSITY rows, each band's leaves in column
 * order, so that each row's sum runs over its leaves left to right.
 *
 * Storage (bytes): for each leaf, its CSR (2 (D + 1) row pointers, a 1-byte
 * column and an 8-byte value per entry, 4-byte in float) plus its block column
 * and where its entries start (4 + 4), and 4 (nbands + 1) band pointers: 9 nnz
 * (5 nnz in float) + (2 (D + 1) + 8) Nq + 4 (nbands + 2), D =
 * SPK_QCSR_DENSITY, Nq the leaves (the survey's Nq x CSR_storage). */
#ifndef SPK_SPMV_QCSR_H
#define SPK_SPMV_QCSR_H

#include "format.h"

#define SPK_QCSR_DENSITY 64 /* a leaf's side: its local columns fit a byte, its row pointers 2 bytes */

typedef struct spk_fmt_qcsr {
    int nrows, ncols, nnz;
    int nbands, nleaves;
    int *bandptr;            /* nbands + 1: each band's first leaf */
    int *leafcol;            /* nleaves: the leaf's block column (its first column / D) */
    int *leafent;            /* nleaves + 1: where the leaf's entries start */
    unsigned short *leafrp;  /* nleaves (D + 1): local row pointers (offsets in the leaf's entries) */
    unsigned char *lcol;     /* nnz: column inside the leaf */
    double *val;             /* nnz */
} spk_fmt_qcsr;

/* y = alpha*Q*x + beta*y on the host, each row over its band's leaves in
 * column order, each leaf's row in order (the kernel's order). */
void spk_qcsr_ref(const spk_fmt_qcsr *Q, double alpha, const double *x, double beta, double *y);

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* y = alpha*Q*x + beta*y: a warp per band, each lane two of its rows (device arrays in Q). */
SPK_FORMAT_LAUNCH_DECL(spk_qcsr_launch)
#ifdef __cplusplus
}
#endif
#endif

#endif

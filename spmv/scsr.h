/* scsr.h -- streamed CSR and streamed BCSR (the survey's formats, made for
 * the hardware prefetch streams of IBM's Power processors), adapted to the
 * GPU.
 *
 * scsr: row i goes to stream i mod S (S = SPK_SCSR_STREAMS = 32), and the S
 * rows of a block row (rows S br .. S br + S - 1) are padded to the block
 * row's longest row, so all streams have the same length L and one pointer
 * per block row serves them all (ptr).  Each stream is its own array, as in
 * the survey: entry k of row i at (i mod S) L + ptr[i / S] + k.  On the GPU
 * a stream is a lane: a warp takes a block row, lane s its row of stream s,
 * and each lane reads its stream sequentially (where Power prefetches a
 * stream, a lane's consecutive entries share cache lines); the lanes of a
 * warp read S streams at once, so the loads are not coalesced across the
 * warp, by design.  Padding: value 0 at the row's last column.
 * Storage (bytes): 12 S L (values and column indices; 8 S L in float) + 4 (nbr + 1)
 * (pointers), nbr = ceil(m / S) (the survey's 2 N_S max(NZS) + S_r + 1).
 * Refused beyond the ELL family's padding bound (format.h).
 *
 * sbcsr: BCSR's b x b blocks (b = spk_spmv_opts.bcsr_block, default 4), with
 * stream r holding row r of every block in block order, as the survey
 * stores them: value (r, c) of block q at r (nblocks b) + q b + c.  On the
 * GPU a thread per row of A: row i = b br + r walks its block row's blocks
 * reading stream r sequentially.  Partial blocks at the right and bottom
 * edges are padded with zeros; x and y are never read or written beyond n
 * and m.
 * Storage (bytes): 8 b^2 nblocks (values; 4 b^2 nblocks in float) + 4 nblocks (block columns) + 4
 * (mb + 1) (block row pointers), mb = ceil(m / b).  Refused beyond the
 * padding bound. */
#ifndef SPK_SPMV_SCSR_H
#define SPK_SPMV_SCSR_H

#include "format.h"

#define SPK_SCSR_STREAMS 32

typedef struct spk_fmt_scsr {
    int nrows, ncols, nnz;
    int nbr;        /* block rows */
    long long len;  /* L: each stream's length */
    int *ptr;       /* nbr + 1 */
    int *colind;    /* S L, stream-major */
    double *val;    /* S L */
} spk_fmt_scsr;

typedef struct spk_fmt_sbcsr {
    int nrows, ncols, nnz;
    int b, mb, nblocks;
    int *browptr;   /* mb + 1 */
    int *bcol;      /* nblocks */
    double *val;    /* b nblocks b, stream-major (stream r = row r of each block) */
} spk_fmt_sbcsr;

/* y = alpha*A*x + beta*y on the host, each row over its own (padded) entries
 * in order (the kernels' order). */
void spk_scsr_ref(const spk_fmt_scsr *S, double alpha, const double *x, double beta, double *y);
void spk_sbcsr_ref(const spk_fmt_sbcsr *B, double alpha, const double *x, double beta, double *y);

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
SPK_FORMAT_LAUNCH_DECL(spk_scsr_launch)
SPK_FORMAT_LAUNCH_DECL(spk_sbcsr_launch)
#ifdef __cplusplus
}
#endif
#endif

#endif

/* bcsr.h -- BCSR (the survey's blocked CSR): the matrix cut into b x b
 * blocks, b = spk_spmv_opts.bcsr_block (0: 4; 1..32); every block holding at
 * least one entry of A is stored dense, with zeros where A has none, and the
 * blocks are indexed like CSR's entries: browptr gives where each block row's
 * blocks start, bcolind the block column of each block, in increasing block
 * column.  The last block row and block column are partial when the rows or
 * columns are not a multiple of b: their missing rows and columns are stored
 * as zeros and never multiply x or reach y.
 *
 * Inside a block the entries are column-major: entry (r, c) of block k, that
 * is A(br*b + r, bcolind[k]*b + c) for k in block row br, is at
 * val[k*b*b + c*b + r].  The blocks of a block row are consecutive, so its
 * values form one run whose position t gives the row as t mod b: the
 * kernel's lanes read that run coalesced and each lane keeps to one row.
 *
 * Storage: 4 * (mb + 1) + 4 * nblocks + 8 * b * b * nblocks bytes (4 * b * b *
 * nblocks of values in float instead of 8), with
 * mb = ceil(rows / b) block rows and nblocks the nonzero blocks.  Refused
 * (SPK_ERR_UNSUPPORTED, before the values are allocated) when the
 * b * b * nblocks stored entries would exceed SPK_PAD_LIMIT (3) times the
 * nonzeros and SPK_PAD_FLOOR (2^20) entries: scattered entries fill the
 * blocks mostly with zeros. */
#ifndef SPK_SPMV_BCSR_H
#define SPK_SPMV_BCSR_H

#include "format.h"

#define SPK_BCSR_DEFAULT_BLOCK 4
#define SPK_BCSR_MAX_BLOCK 32

typedef struct spk_fmt_bcsr {
    int nrows, ncols, nnz; /* nnz: the stored nonzeros of A (padding excluded) */
    int b;                 /* block size */
    int mb, nb;            /* block rows ceil(nrows / b), block columns ceil(ncols / b) */
    int nblocks;           /* nonzero blocks */
    int *browptr;          /* mb + 1 */
    int *bcolind;          /* nblocks, increasing within a block row */
    double *val;           /* nblocks * b * b, each block column-major */
} spk_fmt_bcsr;

/* The block size the options ask for: o->bcsr_block, 0 (or no options)
 * meaning SPK_BCSR_DEFAULT_BLOCK. */
int spk_bcsr_block(const spk_spmv_opts *o);
/* Fill B (zeroed) from canonical A with b x b blocks (b in 1..32); `name`
 * names the format in a refusal (the padding bound).  On failure the arrays
 * already allocated stay in B for the caller to free. */
int spk_bcsr_build(const spk_csr *A, int b, const char *name, spk_fmt_bcsr *B, spk_err *err);

/* y = alpha*B*x + beta*y on the host, each row's sum formed as the kernel
 * forms it (bcsr.cu): lane j of the block row's warp adds the entries of its
 * row at run positions r + b*j, r + b*j + W, ... (W = b * floor(32 / b)),
 * then the lanes meet pairwise in a tree.  beta == 0: y is not read. */
void spk_bcsr_ref(const spk_fmt_bcsr *B, double alpha, const double *x, double beta, double *y);

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* y = alpha*B*x + beta*y, one warp per block row (device arrays in B). */
SPK_FORMAT_LAUNCH_DECL(spk_bcsr_launch)
#ifdef __cplusplus
}
#endif
#endif

#endif

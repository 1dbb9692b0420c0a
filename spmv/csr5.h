/* csr5.h -- CSR5 (Liu & Vinter, ICS'15): the nonzeros in CSR order cut into
 * tiles of 32 x sigma entries, one warp per tile whatever the row lengths.
 *
 * Layout, W = 32 * sigma entries a tile, ntiles = nnz / W full tiles:
 *   col, val      tile t's entries tW .. tW + W - 1 transposed: lane j owns
 *                 the sigma consecutive entries tW + j*sigma + i (i < sigma),
 *                 stored at tW + i*32 + j, so that each of a warp's sigma
 *                 load steps reads 32 consecutive words; the tail (the last
 *                 nnz mod W entries) follows in CSR order
 *   rowptr        CSR's row pointers, kept for the tail, the tiles whose first
 *                 entry continues a row (rowptr[tile_ptr] < tW) and the
 *                 calibration
 *   tile_ptr      ntiles + 1: the row holding entry tW (the paper's
 *                 tile_ptr); for t = ntiles, the row of the tail's first
 *                 entry, or nrows when there is no tail.  Bit 31
 *                 (SPK_CSR5_EMPTY) flags a tile with empty rows between
 *                 tile_ptr[t] and tile_ptr[t + 1]
 *   tile_desc     32 words a tile, lane j's at t*32 + j: bits 0 .. sigma-1
 *                 the bit_flag (bit i set where lane j's entry i starts a
 *                 row; bit 0 of lane 0 always, by convention), bits 16 .. 24
 *                 y_offset (the set bits of lanes 0 .. j-1: the number of the
 *                 tile's segment that lane j's first set bit starts)
 *   empty_ptr     ntiles + 1 offsets into empty_offset (equal for a tile
 *                 without the flag)
 *   empty_offset  for each flagged tile, the row of each of its segments,
 *                 relative to tile_ptr (unflagged: segment s is row
 *                 tile_ptr + s)
 *   calib         ntiles + 1 partial sums written by each product: slot t
 *                 holds tile t's share of a row that began in an earlier
 *                 tile, slot ntiles the tail's (the calibration adds them);
 *                 so an instance runs one product at a time (its executor's
 *                 stream orders them; two products of one instance on two
 *                 streams at once would share calib)
 *
 * Storage: 12 * nnz bytes of values and columns (8 * nnz in float)
 * + 4 * (nrows + 1) of rowptr + 4 * (ntiles + 1) of tile_ptr + 128 * ntiles
 * of tile_desc + 4 * (ntiles + 1) of empty_ptr + 4 * nempty of empty_offset
 * (nempty: the segments of the flagged tiles) + 8 * (ntiles + 1) of calib
 * (4 * (ntiles + 1) in float), that is 12 nnz + 4 (nrows + 1) + 128 ntiles
 * + 16 (ntiles + 1) + 4 nempty (in float: 8 nnz, 12 (ntiles + 1)), with
 * sigma = ceil(nnz / nrows) clamped to [4, 16] and ntiles = nnz / (32 sigma)
 * (integer division; sigma = 4 when nrows = 0). */
#ifndef SPK_SPMV_CSR5_H
#define SPK_SPMV_CSR5_H

#include "format.h"

#define SPK_CSR5_OMEGA 32            /* lanes of a tile: a warp */
#define SPK_CSR5_SIGMA_MIN 4
#define SPK_CSR5_SIGMA_MAX 16        /* the bit_flag's bits in a descriptor word */
#define SPK_CSR5_YOFF_SHIFT 16       /* y_offset's place in a descriptor word */
#define SPK_CSR5_YOFF_MASK 0x1ffu    /* 9 bits: y_offset <= 31 * 16 = 496 */
#define SPK_CSR5_EMPTY 0x80000000u   /* tile_ptr's flag: the tile has empty rows */

typedef struct spk_fmt_csr5 {
    int nrows, ncols, nnz;
    int sigma;              /* entries a lane, in [4, 16] */
    int ntiles;             /* full tiles: nnz / (32 sigma) */
    int nempty;             /* entries of empty_offset */
    int tail_row;           /* the first row the tail pass writes: tile_ptr[ntiles], 0 without tiles */
    int *rowptr;            /* nrows + 1 */
    int *col;               /* nnz: the tiles transposed, then the tail */
    double *val;            /* nnz, as col */
    unsigned *tile_ptr;     /* ntiles + 1 */
    unsigned *tile_desc;    /* 32 * ntiles */
    int *empty_ptr;         /* ntiles + 1 */
    int *empty_offset;      /* nempty */
    double *calib;          /* ntiles + 1, written by each product */
} spk_fmt_csr5;

/* y = alpha*A*x + beta*y on the host, as the kernels form it: each tile's
 * lanes summed over their bit_flags, the lanes' open segments joined by the
 * warp's segmented scan (simulated step by step), the tail row by row, then
 * the carried partials added in tile order.  Writes F->calib. */
void spk_csr5_ref(const spk_fmt_csr5 *F, double alpha, const double *x, double beta, double *y);

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* y = alpha*A*x + beta*y: a warp per tile, a thread per tail row, then a
 * thread per chain of carried partials (device arrays in F). */
SPK_FORMAT_LAUNCH_DECL(spk_csr5_launch)
#ifdef __cplusplus
}
#endif
#endif

#endif

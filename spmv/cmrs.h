/* cmrs.h -- CMRS (the survey's compressed multi-row storage, after Koza,
 * Matyka, Szkoda and Miroslaw): CSR's values and column indices, in CSR
 * order, cut into strips of SPK_CMRS_STRIP consecutive rows; for each entry
 * its row inside its strip, and for each strip where its entries start.
 * No padding and no reordering: a warp reads a whole strip's entries at
 * consecutive addresses however short its rows are, and adds each product
 * into one of SPK_CMRS_STRIP sums by the entry's row in the strip.
 *
 * Storage (bytes): 12 nnz (values and column indices; 8 nnz in float, 4
 * bytes a value) + nnz (the row in the strip, one byte an entry) + 4 (Ns
 * + 1) (strip pointers), Ns = ceil(m / SPK_CMRS_STRIP) (the survey's 3 NZV
 * + Ns + 1, in entries). */
#ifndef SPK_SPMV_CMRS_H
#define SPK_SPMV_CMRS_H

#include "format.h"

#define SPK_CMRS_STRIP 8 /* rows per strip: a warp's lanes each keep that many sums */

typedef struct spk_fmt_cmrs {
    int nrows, ncols, nnz;
    int nstrips;
    int *sptr;          /* nstrips + 1: where each strip's entries start */
    unsigned char *rin; /* nnz: the entry's row inside its strip */
    int *colind;        /* nnz */
    double *val;        /* nnz */
} spk_fmt_cmrs;

/* y = alpha*C*x + beta*y on the host, as the kernel adds: in a strip, lane l
 * (of 32) sums entries l, l + 32, ... into the sum of each entry's row, then
 * the lanes' sums meet pairwise (offsets 16, 8, 4, 2, 1), as shuffles do. */
void spk_cmrs_ref(const spk_fmt_cmrs *C, double alpha, const double *x, double beta, double *y);

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* y = alpha*C*x + beta*y, a warp per strip (device arrays in C). */
SPK_FORMAT_LAUNCH_DECL(spk_cmrs_launch)
#ifdef __cplusplus
}
#endif
#endif

#endif

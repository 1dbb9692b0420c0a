/* bell.h -- blocked ELLPACK: ELL per group of 32 rows, each group with its
 * own width; gptr (like CSR's row pointer, one entry per group) gives where
 * each group's block starts, so group g has width (gptr[g+1]-gptr[g])/32.
 * Inside a block, entry k of the group's row r is at gptr[g] + 32*k + r. */
#ifndef SPK_SPMV_BELL_H
#define SPK_SPMV_BELL_H

#include "format.h"

#define SPK_BELL_ROWS 32 /* rows per group: one warp */

typedef struct spk_fmt_bell {
    int nrows, ncols, nnz, ngroups;
    int stored;  /* gptr[ngroups]: entries stored, padding included */
    int wmax;    /* the widest group's width */
    int *gptr;   /* ngroups + 1 */
    int *colind; /* gptr[ngroups] */
    double *val;
} spk_fmt_bell;

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
SPK_FORMAT_LAUNCH_DECL(spk_bell_launch)
#ifdef __cplusplus
}
#endif
#endif

#endif

/* rgcsr.h -- RgCSR (the survey's row-grouped CSR, after Oberhuber, Suzuki
 * and Vacata): the rows in groups of SPK_RGCSR_GROUP consecutive rows; inside
 * a group, the first entries of its rows, then their second entries, and
 * so on (column-major in the group, so that the group's threads read
 * consecutive addresses), each group padded to its longest row.  Each row's
 * length is kept, so a row stops at its own entries and the padding is
 * never multiplied.
 *
 * Storage (bytes): 12 X (values and column indices; 8 X in float, 4 bytes a
 * value) + 4 m (row lengths) + 4 (Ng + 1) (group pointers), X = sum over the
 * Ng groups of the group's longest row times SPK_RGCSR_GROUP (the survey's
 * 2X + m + Ng, in entries).
 * Refused, before anything is allocated, beyond the padding bound of the
 * ELL family (format.h: SPK_PAD_LIMIT times the nonzeros and SPK_PAD_FLOOR
 * entries). */
#ifndef SPK_SPMV_RGCSR_H
#define SPK_SPMV_RGCSR_H

#include "format.h"

#define SPK_RGCSR_GROUP 32 /* rows per group: a warp's threads, a row each */

typedef struct spk_fmt_rgcsr {
    int nrows, ncols, nnz;
    int ngroups;
    long long stored; /* X: entries stored, padding included */
    int *gptr;        /* ngroups + 1: where each group's entries start */
    int *rowlen;      /* nrows */
    int *colind;      /* stored */
    double *val;      /* stored */
} spk_fmt_rgcsr;

/* y = alpha*G*x + beta*y on the host, row by row over its own entries in
 * order (the kernel's order). */
void spk_rgcsr_ref(const spk_fmt_rgcsr *G, double alpha, const double *x, double beta, double *y);

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* y = alpha*G*x + beta*y, one thread per row (device arrays in G). */
SPK_FORMAT_LAUNCH_DECL(spk_rgcsr_launch)
#ifdef __cplusplus
}
#endif
#endif

#endif

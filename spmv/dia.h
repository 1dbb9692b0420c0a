/* dia.h -- DIA (the survey's diagonal format): the matrix as its nonzero
 * diagonals, each as long as the rows, stored diagonal after diagonal (entry
 * i of diagonal d, A(i, i + offset[d]), at d*nrows + i; 0 where that column
 * is outside the matrix or the entry is not stored).
 *
 * Storage: 8 * ndiag * nrows bytes of values (4 * in float) + 4 * ndiag
 * bytes of offsets.
 * Refused (SPK_ERR_UNSUPPORTED, before anything is allocated) when ndiag *
 * nrows stored entries would exceed SPK_PAD_LIMIT (3) times the nonzeros and
 * SPK_PAD_FLOOR (2^20) entries: a matrix that is not banded along a few
 * diagonals would mostly store zeros. */
#ifndef SPK_SPMV_DIA_H
#define SPK_SPMV_DIA_H

#include "format.h"

typedef struct spk_fmt_dia {
    int nrows, ncols, nnz; /* nnz: the stored nonzeros of A (padding excluded) */
    int ndiag;
    int *offset;           /* ndiag, increasing: column - row of each diagonal */
    double *val;           /* ndiag * nrows */
} spk_fmt_dia;

/* y = alpha*D*x + beta*y on the host, row by row over the diagonals in
 * increasing offset (the kernel's order; for a row, CSR's column order). */
void spk_dia_ref(const spk_fmt_dia *D, double alpha, const double *x, double beta, double *y);

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* y = alpha*D*x + beta*y, one thread per row (device arrays in D); _float
 * over the float values. */
SPK_FORMAT_LAUNCH_DECL(spk_dia_launch)
#ifdef __cplusplus
}
#endif
#endif

#endif

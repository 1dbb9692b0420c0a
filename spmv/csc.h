/* csc.h -- CSC (the survey's compressed sparse column format): A's
 * columns, each a run of (row, value) pairs in increasing row, the runs
 * delimited by colptr.  The product traverses A transposed: column j adds
 * x_j times its entries into their rows of y.
 *
 * Storage: 4 * (ncols + 1) bytes of column pointers + 12 * nnz bytes of row
 * indices and values (8 * nnz in float: 4 bytes a value) (CSR's with the
 * roles of rows and columns exchanged). */
#ifndef SPK_SPMV_CSC_H
#define SPK_SPMV_CSC_H

#include "format.h"

typedef struct spk_fmt_csc {
    int nrows, ncols, nnz;
    int *colptr; /* ncols + 1 */
    int *rowind; /* nnz */
    double *val; /* nnz */
} spk_fmt_csc;

/* y = alpha*C*x + beta*y on the host: y scaled by beta (set to 0 where beta
 * is 0), then column by column, each entry's alpha * a_ij * x_j added to y_i
 * (the kernel's additions, whose order across columns the atomics choose). */
void spk_csc_ref(const spk_fmt_csc *C, double alpha, const double *x, double beta, double *y);

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* y = alpha*C*x + beta*y: y scaled, then a thread per column adding its
 * entries into y with atomic adds (device arrays in C). */
SPK_FORMAT_LAUNCH_DECL(spk_csc_launch)
#ifdef __cplusplus
}
#endif
#endif

#endif

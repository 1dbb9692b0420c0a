/* coo.h -- coordinate format: (row, col, val) triplets sorted by row.  Also
 * the rest part of HYB. */
#ifndef SPK_SPMV_COO_H
#define SPK_SPMV_COO_H

#include "format.h"

typedef struct spk_fmt_coo {
    int nrows, ncols, nnz;
    int *row, *col;
    double *val;
} spk_fmt_coo;

/* Entries k >= skip of every row of A (all of them for skip = 0) into C. */
int spk_coo_fill(const spk_csr *A, int skip, spk_fmt_coo *C, spk_err *err);
int spk_coo_arrays(spk_fmt_coo *C, spk_format_array *l);
/* y += alpha*C*x on the host (entry by entry, in storage order). */
void spk_coo_accumulate_ref(const spk_fmt_coo *C, double alpha, const double *x, double *y);

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* y = alpha*C*x + beta*y (beta == 0: y is not read). */
SPK_FORMAT_LAUNCH_DECL(spk_coo_launch)
/* y += alpha*C*x; _float over the float values (HYB's COO part). */
cudaError_t spk_coo_accumulate(const spk_fmt_coo *C, cudaStream_t s, double alpha, const double *x,
                               double *y);
cudaError_t spk_coo_accumulate_float(const spk_fmt_coo *C, cudaStream_t s, float alpha, const float *x, float *y);
#ifdef __cplusplus
}
#endif
#endif

#endif

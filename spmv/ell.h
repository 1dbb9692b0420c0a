/* ell.h -- ELLPACK: every row padded to one width, stored column-major
 * (entry k of row i at k*nrows + i), padding repeating a valid column of the
 * row with value 0.  Also the ELL part of HYB. */
#ifndef SPK_SPMV_ELL_H
#define SPK_SPMV_ELL_H

#include "format.h"

typedef struct spk_fmt_ell {
    int nrows, ncols, nnz; /* nnz: real entries (padding excluded) */
    int width;
    int *colind;           /* width * nrows */
    double *val;           /* width * nrows */
} spk_fmt_ell;

/* The first min(width, row length) entries of every row of A into E (width
 * given; rest ignored).  Stored entries are checked against the padding bound
 * under the name `name`. */
int spk_ell_fill(const spk_csr *A, int width, const char *name, spk_fmt_ell *E, spk_err *err);
#ifdef SPK_HAVE_CUDA
/* spk_ell_fill on the device from dA, A's CSR arrays in device memory. */
int spk_ell_build_dev(spk_exec *e, const spk_csr *A, const spk_csr *dA, int width, const char *name, spk_fmt_ell *E);
#endif
/* List E's arrays into l; returns the count. */
int spk_ell_arrays(spk_fmt_ell *E, spk_format_array *l);
/* y = alpha*E*x + beta*y on the host. */
void spk_ell_ref(const spk_fmt_ell *E, double alpha, const double *x, double beta, double *y);

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* y = alpha*E*x + beta*y, one thread per row (device arrays in E). */
SPK_FORMAT_LAUNCH_DECL(spk_ell_launch)
#ifdef __cplusplus
}
#endif
#endif

#endif

/* devbuild.h -- kernels that build storage formats on the GPU from CSR
 * arrays already in device memory (used by the formats' build_device hooks,
 * which "auto" uses to try candidates from one upload).  Each produces
 * exactly the arrays of the format's host conversion. */
#ifndef SPK_SPMV_DEVBUILD_H
#define SPK_SPMV_DEVBUILD_H

#ifdef SPK_HAVE_CUDA
#include <cuda_runtime_api.h>
#ifdef __cplusplus
extern "C" {
#endif
/* ELL slots k < width of rows 0..n-1, column-major (k*n + i); a short row is
 * padded with its last kept column (0 for an empty row) and value 0. */
cudaError_t spk_dev_ell_fill(cudaStream_t s, int n, int width, const int *rowptr, const int *colind,
                             const double *val, int *out_col, double *out_val);
/* Blocked ELL: group g of 32 rows at gptr[g], slot k of row r at gptr[g] + k*32 + r,
 * padded with the row's last column (0 for an empty row) and value 0. */
cudaError_t spk_dev_bell_fill(cudaStream_t s, int n, int ngroups, const int *gptr, const int *rowptr,
                              const int *colind, const double *val, int *out_col, double *out_val);
/* widths[g] = the longest of rows 32g .. 32g+31 (< n), g < ngroups. */
cudaError_t spk_dev_bell_widths(cudaStream_t s, int n, int ngroups, const int *rowptr, int *widths);
/* The entries k >= skip of each row, row-sorted triplets from offset off[i]. */
cudaError_t spk_dev_coo_rest(cudaStream_t s, int n, int skip, const int *off, const int *rowptr,
                             const int *colind, const double *val, int *row, int *col, double *out_val);
#ifdef __cplusplus
}
#endif
#endif

#endif

/* cuda_kernels.h -- the few element-wise kernels spk needs beyond cuBLAS and
 * cuSPARSE.  Each launcher enqueues on the given stream and returns the
 * launch status (cudaGetLastError). */
#ifndef SPK_CORE_CUDA_KERNELS_H
#define SPK_CORE_CUDA_KERNELS_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y = a*x + b*y; b == 0 does not read y  (2 reads, 1 write per entry) */
cudaError_t spk_cuda_axpby(cudaStream_t s, int n, double a, const double *x, double b, double *y);
/* x[i] = a  (1 write) */
cudaError_t spk_cuda_fill(cudaStream_t s, int n, double a, double *x);
/* z[i] = d[i] * r[i]  (2 reads, 1 write) */
cudaError_t spk_cuda_scale(cudaStream_t s, int n, const double *d, const double *r, double *z);
/* x = a and y = b in one launch (n entries each) */
cudaError_t spk_cuda_copy2(cudaStream_t s, int n, const double *a, double *x, const double *b, double *y);
/* piv[i] = val[diag[i]]; bad[i] = 1 when row i of (rowptr, val) holds a
 * non-finite value, else 0  (one pass over the values) */
cudaError_t spk_cuda_pivots(cudaStream_t s, int n, const int *rowptr, const int *diag,
                            const double *val, double *piv, unsigned char *bad);
/* Holds the stream: a one-thread kernel that returns once the host has set
 * *release (a device pointer to pinned, mapped host memory) or after
 * timeout_ns, so that work queued behind it then runs back to back, without
 * waiting for the host's launches. */
cudaError_t spk_cuda_hold(cudaStream_t s, const int *release, unsigned long long timeout_ns);

/* Is the canonical CSR matrix symmetric (pattern, and values to rtol as
 * spk_csr_symmetry), with every diagonal entry stored and positive, shaped
 * like a Laplacian (spk_csr_stencil_like), with every diagonal entry stored,
 * nonzero and finite, all equal?  flags[0] (pattern), flags[1] (values),
 * flags[2] (positive diagonal), flags[3] (stencil-like), flags[4] (nonzero
 * diagonal), flags[5] (constant diagonal) must be 1 on entry; each is set
 * to 0 when the answer is no. */
cudaError_t spk_cuda_symmetry(cudaStream_t s, int n, const int *rowptr, const int *colind,
                              const double *val, double rtol, int *flags);

/* inv[i] = 1 / a_ii of a canonical CSR matrix; *bad (n on entry) = the
 * least row whose a_ii is missing, zero or not finite. */
cudaError_t spk_cuda_inv_diagonal(cudaStream_t s, int n, const int *rowptr, const int *colind,
                                  const double *val, double *inv, int *bad);

/* A kernel that does nothing: one block of one warp (the launch floor). */
cudaError_t spk_cuda_empty(cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif

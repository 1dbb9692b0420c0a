/* zops_kernels.h -- the element-wise complex kernels of core/zops_cuda.c.
 * Vectors hold (re, im) pairs; scalars are passed by value.  Each launcher
 * enqueues on stream s and returns the launch status. */
#ifndef SPK_CORE_ZOPS_KERNELS_H
#define SPK_CORE_ZOPS_KERNELS_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif
/* y = a x + b y (bzero: y is not read) */
cudaError_t spk_cuda_zaxpby(cudaStream_t s, int n, double ar, double ai, const double *x, double br, double bi,
                            int bzero, double *y);
/* z = d .* x */
cudaError_t spk_cuda_zmul(cudaStream_t s, int n, const double *d, const double *x, double *z);
#ifdef __cplusplus
}
#endif

#endif

/* csr_gpu.h -- CSR as a storage format for the "csr-scalar" and "csr-vector"
 * kernels: the plain CSR arrays plus the number of threads per row. */
#ifndef SPK_SPMV_CSR_GPU_H
#define SPK_SPMV_CSR_GPU_H

#include "format.h"

typedef struct spk_fmt_csr {
    int nrows, ncols, nnz;
    int threads; /* threads per row: 1 (scalar), or a power of two <= 32 (vector) */
    int *rowptr, *colind;
    double *val;
} spk_fmt_csr;

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* y = alpha*A*x + beta*y with fmt->threads threads per row (device arrays). */
SPK_FORMAT_LAUNCH_DECL(spk_csr_gpu_launch)
/* y = A x in complex: val, x and y hold (re, im) pairs (spmv/zspmv_cuda.c). */
cudaError_t spk_csr_gpu_launch_complex(const void *dev_fmt, cudaStream_t s, const double *x, double *y);
#ifdef __cplusplus
}
#endif
#endif

#endif

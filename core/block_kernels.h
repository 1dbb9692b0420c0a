/* block_kernels.h -- whole CG and BiCGStab iterations in one thread block
 * (block_kernels.cu; the job and its outcome: exec.h, spk_block_job). */
#ifndef SPK_CORE_BLOCK_KERNELS_H
#define SPK_CORE_BLOCK_KERNELS_H

#include <cuda_runtime_api.h>

#include "exec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Load every kernel of the module (the compiled source file) that holds
 * `kernel` (its host symbol) now.  Under lazy loading, CUDA's default, a
 * kernel is loaded at its first launch, and the load may wait for all the
 * device's work, a kernel running alongside on another stream included
 * (spk_exec_krylov_ops.side_run).  *done = 0 where the driver cannot
 * (before CUDA 12.4). */
cudaError_t spk_module_preload(const void *kernel, int *done);
/* A kernel of each source file whose kernels a solve may launch first
 * while a job runs alongside. */
const void *spk_block_kernels_probe(void);
const void *spk_krylov_kernels_probe(void);
const void *spk_cuda_kernels_probe(void);
const void *spk_devfactor_probe(void);

/* Allow the kernels shared_bytes of dynamic shared memory (outside any
 * capture; once for the largest size used). */
cudaError_t spk_block_allow(unsigned shared_bytes);
/* *out: the most blocks of a cluster the block iterations can run in on the
 * current device (a power of two up to SPK_BLOCK_CLUSTER_MAX; 1: none,
 * before sm_90). */
cudaError_t spk_block_cluster_max(int *out);
/* Queue the iterations of j on stream s (one block, or a cluster of
 * j->cluster blocks): slots are the executor's scalar
 * slots; reads (3 * (2 * j->iters) doubles, or 3 * j->ring), *count and
 * cycles (SPK_PHASES) are device memory written at the end. */
cudaError_t spk_block_run(cudaStream_t s, const spk_block_job *j, double *slots, double *reads, int *count,
                          long long *cycles);

#ifdef __cplusplus
}
#endif
#endif

/* block_kernels.h -- whole CG and BiCGStab iterations in one thread block
 * (block_kernels.cu; the job and its outcome: block_job.h, spk_block_job). */
#ifndef SPK_SOLVER_ENGINE_BLOCK_KERNELS_H
#define SPK_SOLVER_ENGINE_BLOCK_KERNELS_H

#include <cuda_runtime_api.h>

#include "core/exec.h"
#include "solver/engine/block_job.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A kernel of block_kernels.cu (core/cuda_module.h). */
const void *spk_block_kernels_probe(void);

/* Allow the kernels shared_bytes of dynamic shared memory (outside any
 * capture; once for the largest size used). */
cudaError_t spk_block_allow(unsigned shared_bytes);
/* *out: the most blocks of a cluster the block iterations can run in on the
 * current device (a power of two up to SPK_BLOCK_CLUSTER_MAX; 1: none,
 * before sm_90). */
cudaError_t spk_block_cluster_max(int *out);
/* Halve *cluster until the device runs it (1 stays 1); *most caches
 * spk_block_cluster_max (0: not asked yet; one per executor). */
cudaError_t spk_block_cluster_fit(int *most, int *cluster);
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

/* cuda_module.h -- loading a compiled source file's kernels ahead of their
 * first launch.  Under lazy loading, CUDA's default, a kernel is loaded at
 * its first launch, and the load may wait for all the device's work, a
 * kernel running alongside on another stream included. */
#ifndef SPK_CORE_CUDA_MODULE_H
#define SPK_CORE_CUDA_MODULE_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Load every kernel of the module that holds `kernel` (its host symbol)
 * now; *done = 0 where the driver cannot (before CUDA 12.4). */
cudaError_t spk_module_preload(const void *kernel, int *done);
/* A kernel of core/cuda_kernels.cu, for spk_module_preload. */
const void *spk_cuda_kernels_probe(void);

#ifdef __cplusplus
}
#endif
#endif

/* slot_kernels.h -- the reductions of the CUDA executor's scalars
 * (exec.h, struct spk_exec_async_ops): each launcher enqueues one kernel on
 * stream s that writes its result into a scalar slot in device memory, so
 * that work is queued without waiting and the host reads the slots once. */
#ifndef SPK_CORE_SLOT_KERNELS_H
#define SPK_CORE_SLOT_KERNELS_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Most blocks of a reduction (its block sums need 2 x this many doubles). */
#define SPK_SLOT_MAX_BLOCKS 1024

/* Device memory of the reductions: the scalar slots, the block sums of a
 * reduction (2 * SPK_SLOT_MAX_BLOCKS doubles) and its ticket counter (0
 * between reductions). */
typedef struct spk_slot_dev {
    double *slots;
    double *part;
    unsigned *ticket;
} spk_slot_dev;

/* slots[o] = v */
cudaError_t spk_slot_set(cudaStream_t s, double *slots, int o, double v);
/* slots[o] = x'y */
cudaError_t spk_slot_dot(cudaStream_t s, const spk_slot_dev *d, int n, const double *x, const double *y, int o);
/* slots[o1] = x'x, slots[o2] = x'y */
cudaError_t spk_slot_dot2(cudaStream_t s, const spk_slot_dev *d, int n, const double *x, const double *y, int o1,
                          int o2);
/* A kernel of this file (core/cuda_module.h). */
const void *spk_slot_kernels_probe(void);

#ifdef __cplusplus
}
#endif
#endif

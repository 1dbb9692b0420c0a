/* step_kernels.h -- the fused CG and BiCGStab steps on the GPU (the CUDA
 * side of steps.h).  Each launcher enqueues one kernel on stream s and
 * returns the launch status; d holds the executor's scalar slots and the
 * reduction's scratch (core/slot_kernels.h). */
#ifndef SPK_SOLVER_ENGINE_STEP_KERNELS_H
#define SPK_SOLVER_ENGINE_STEP_KERNELS_H

#include <cuda_runtime_api.h>

#include "core/slot_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t spk_step_cg_update(cudaStream_t s, const spk_slot_dev *d, int n, int rz, int pq, const double *p,
                               const double *q, double *x, double *r, int o);
cudaError_t spk_step_cg_direction(cudaStream_t s, const spk_slot_dev *d, int n, int num, int den, const double *z,
                                  double *p);
cudaError_t spk_step_bicg_direction(cudaStream_t s, const spk_slot_dev *d, int n, int fresh, int rho, int rho_old,
                                    int r0v, int ts, int tt, const double *r, const double *v, double *p);
cudaError_t spk_step_bicg_s(cudaStream_t s, const spk_slot_dev *d, int n, int rho, int r0v, const double *v,
                            double *r, int o);
cudaError_t spk_step_axpy_ratio(cudaStream_t s, const spk_slot_dev *d, int n, int num, int den, const double *x,
                                double *y);
cudaError_t spk_step_bicg_update(cudaStream_t s, const spk_slot_dev *d, int n, int rho, int r0v, int ts, int tt,
                                 const double *ph, const double *sh, const double *t, double *x, double *r, int o);
/* A kernel of this file (core/cuda_module.h). */
const void *spk_step_kernels_probe(void);

#ifdef __cplusplus
}
#endif
#endif

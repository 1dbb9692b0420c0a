/* krylov_kernels.h -- the fused CG and BiCGStab steps on the GPU (see
 * krylov_kernels.cu and exec.h's struct spk_exec_krylov_ops).  Each
 * launcher enqueues one kernel on stream s and returns the launch status. */
#ifndef SPK_CORE_KRYLOV_KERNELS_H
#define SPK_CORE_KRYLOV_KERNELS_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Most blocks of a reduction (its block sums need 2 x this many doubles). */
#define KRYLOV_MAX_BLOCKS 1024

/* Device memory of the fused steps: the scalar slots, the block sums of a
 * reduction (2 * KRYLOV_MAX_BLOCKS doubles) and its ticket counter (0
 * between reductions). */
typedef struct spk_krylov_dev {
    double *slots;
    double *part;
    unsigned *ticket;
} spk_krylov_dev;

cudaError_t spk_krylov_set(cudaStream_t s, double *slots, int o, double v);
cudaError_t spk_krylov_dot(cudaStream_t s, const spk_krylov_dev *d, int n, const double *x, const double *y, int o);
cudaError_t spk_krylov_dot2(cudaStream_t s, const spk_krylov_dev *d, int n, const double *x, const double *y, int o1,
                            int o2);
cudaError_t spk_krylov_cg_update(cudaStream_t s, const spk_krylov_dev *d, int n, int rz, int pq, const double *p,
                                 const double *q, double *x, double *r, int o);
cudaError_t spk_krylov_cg_direction(cudaStream_t s, const spk_krylov_dev *d, int n, int num, int den,
                                    const double *z, double *p);
cudaError_t spk_krylov_bicg_direction(cudaStream_t s, const spk_krylov_dev *d, int n, int fresh, int rho,
                                      int rho_old, int r0v, int ts, int tt, const double *r, const double *v,
                                      double *p);
cudaError_t spk_krylov_bicg_s(cudaStream_t s, const spk_krylov_dev *d, int n, int rho, int r0v, const double *v,
                              double *r, int o);
cudaError_t spk_krylov_axpy_ratio(cudaStream_t s, const spk_krylov_dev *d, int n, int num, int den, const double *x,
                                  double *y);
cudaError_t spk_krylov_bicg_update(cudaStream_t s, const spk_krylov_dev *d, int n, int rho, int r0v, int ts, int tt,
                                   const double *ph, const double *sh, const double *t, double *x, double *r, int o);

#ifdef __cplusplus
}
#endif
#endif

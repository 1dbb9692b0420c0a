// step_kernels.cu -- the fused CG and BiCGStab steps on the GPU
// (solver/engine/steps.h): each a single kernel that updates its vectors
// and, where it has one, reduces its result into a scalar slot of the
// executor (core/reduce.cuh's order), so that an iteration queues its work
// without waiting and the host reads the slots once.
//
// Guards: the ratios are computed by every thread from the slots (s[a] /
// s[b]); when a guard fails no vector changes and block 0 writes NaN into
// the result slot (the drivers then stop with the plain drivers' reason).
#include <cuda_runtime.h>

#include "core/reduce.cuh"
#include "solver/engine/step_kernels.h"

using namespace spk_reduce;

namespace {

__global__ void cg_update_kernel(int n, int rz, int pq, const double *__restrict__ p, const double *__restrict__ q,
                                 double *__restrict__ x, double *__restrict__ r, double *slots, int o, double *part,
                                 unsigned *ticket)
{
    const double srz = slots[rz], spq = slots[pq], a = srz / spq;
    if (!(srz > 0 && spq > 0 && fin(srz) && fin(spq) && fin(a))) {
        fail(slots, o);
        return;
    }
    double acc = 0;
    for (int i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
        x[i] += a * p[i];
        const double ri = r[i] - a * q[i];
        r[i] = ri;
        acc += ri * ri;
    }
    finish<0>(acc, 0, part, nullptr, ticket, slots, o, 0);
}

__global__ void cg_direction_kernel(int n, int num, int den, const double *__restrict__ z, double *__restrict__ p,
                                    const double *slots)
{
    const double b = slots[num] / slots[den];
    if (!fin(b)) return;
    for (int i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) p[i] = z[i] + b * p[i];
}

__global__ void bicg_direction_kernel(int n, int fresh, int rho, int rho_old, int r0v, int ts, int tt,
                                      const double *__restrict__ r, const double *__restrict__ v,
                                      double *__restrict__ p, const double *slots)
{
    const double srho = slots[rho];
    if (!(fin(srho) && srho != 0)) return;
    if (fresh) {
        for (int i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) p[i] = r[i];
        return;
    }
    const double alpha = slots[rho_old] / slots[r0v], omega = slots[ts] / slots[tt];
    const double beta = (srho / slots[rho_old]) * (alpha / omega);
    if (!fin(beta)) return;
    for (int i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads)
        p[i] = r[i] + beta * (p[i] - omega * v[i]);
}

__global__ void bicg_s_kernel(int n, int rho, int r0v, const double *__restrict__ v, double *__restrict__ r,
                              double *slots, int o, double *part, unsigned *ticket)
{
    const double a = slots[rho] / slots[r0v];
    if (!fin(a)) {
        fail(slots, o);
        return;
    }
    double acc = 0;
    for (int i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
        const double ri = r[i] - a * v[i];
        r[i] = ri;
        acc += ri * ri;
    }
    finish<0>(acc, 0, part, nullptr, ticket, slots, o, 0);
}

__global__ void axpy_ratio_kernel(int n, int num, int den, const double *__restrict__ x, double *__restrict__ y,
                                  const double *slots)
{
    const double a = slots[num] / slots[den];
    if (!fin(a)) return;
    for (int i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) y[i] += a * x[i];
}

// sh is r itself without a preconditioner (s lives in r): no __restrict__ on
// either, and sh[i] is read before r[i] is written.
__global__ void bicg_update_kernel(int n, int rho, int r0v, int ts, int tt, const double *__restrict__ ph,
                                   const double *sh, const double *__restrict__ t, double *__restrict__ x, double *r,
                                   double *slots, int o, double *part, unsigned *ticket)
{
    const double stt = slots[tt], sts = slots[ts], a = slots[rho] / slots[r0v], w = sts / stt;
    if (!(stt != 0 && fin(stt) && fin(sts) && fin(a) && fin(w))) {
        fail(slots, o);
        return;
    }
    double acc = 0;
    for (int i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
        const double si = sh[i];
        x[i] = (x[i] + a * ph[i]) + w * si;
        const double ri = r[i] - w * t[i];
        r[i] = ri;
        acc += ri * ri;
    }
    finish<0>(acc, 0, part, nullptr, ticket, slots, o, 0);
}

}  // namespace

extern "C" cudaError_t spk_step_cg_update(cudaStream_t s, const spk_slot_dev *d, int n, int rz, int pq,
                                            const double *p, const double *q, double *x, double *r, int o)
{
    cg_update_kernel<<<grid_for(n), kThreads, 0, s>>>(n, rz, pq, p, q, x, r, d->slots, o, d->part, d->ticket);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_step_cg_direction(cudaStream_t s, const spk_slot_dev *d, int n, int num, int den,
                                               const double *z, double *p)
{
    if (n <= 0) return cudaSuccess;
    cg_direction_kernel<<<grid_for(n), kThreads, 0, s>>>(n, num, den, z, p, d->slots);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_step_bicg_direction(cudaStream_t s, const spk_slot_dev *d, int n, int fresh, int rho,
                                                 int rho_old, int r0v, int ts, int tt, const double *r,
                                                 const double *v, double *p)
{
    if (n <= 0) return cudaSuccess;
    bicg_direction_kernel<<<grid_for(n), kThreads, 0, s>>>(n, fresh, rho, rho_old, r0v, ts, tt, r, v, p, d->slots);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_step_bicg_s(cudaStream_t s, const spk_slot_dev *d, int n, int rho, int r0v,
                                         const double *v, double *r, int o)
{
    bicg_s_kernel<<<grid_for(n), kThreads, 0, s>>>(n, rho, r0v, v, r, d->slots, o, d->part, d->ticket);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_step_axpy_ratio(cudaStream_t s, const spk_slot_dev *d, int n, int num, int den,
                                             const double *x, double *y)
{
    if (n <= 0) return cudaSuccess;
    axpy_ratio_kernel<<<grid_for(n), kThreads, 0, s>>>(n, num, den, x, y, d->slots);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_step_bicg_update(cudaStream_t s, const spk_slot_dev *d, int n, int rho, int r0v,
                                              int ts, int tt, const double *ph, const double *sh, const double *t,
                                              double *x, double *r, int o)
{
    bicg_update_kernel<<<grid_for(n), kThreads, 0, s>>>(n, rho, r0v, ts, tt, ph, sh, t, x, r, d->slots, o, d->part,
                                                         d->ticket);
    return cudaGetLastError();
}

extern "C" const void *spk_step_kernels_probe(void)
{
    return (const void *)cg_direction_kernel;
}

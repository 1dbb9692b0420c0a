// krylov_kernels.cu -- the fused CG and BiCGStab steps of the CUDA executor
// (exec.h, struct spk_exec_krylov_ops): each a single kernel that updates
// its vectors and, where it has one, reduces its result into a scalar slot
// in device memory, so that an iteration queues its work without waiting
// and the host reads the slots once.
//
// Reductions: a grid of min(ceil(n / 256), KRYLOV_MAX_BLOCKS) blocks of 256
// threads (a function of n alone); each thread adds its entries in a
// grid-stride loop, each block its threads in a shared-memory tree, and the
// last block to finish (a ticket taken after a memory fence) adds the block
// sums in block order and writes the slot.  The order of every addition is
// fixed by n, so a run repeats to the bit.  The ticket counter is reset by
// that last block, ready for the next reduction on the same stream.
//
// Guards: the ratios are computed by every thread from the slots (s[a] /
// s[b]); when a guard fails no vector changes and block 0 writes NaN into
// the result slot (krylov.h's drivers then stop with the plain drivers'
// reason).
#include <cuda_runtime.h>

#include "krylov_kernels.h"

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ bool finite(double v)
{
    return isfinite(v);
}

// Block sum of v (all threads take part); the result in thread 0.
__device__ double block_sum(double v, double *sh)
{
    const int t = threadIdx.x;
    sh[t] = v;
    __syncthreads();
    for (int w = kThreads / 2; w > 0; w >>= 1) {
        if (t < w) sh[t] += sh[t + w];
        __syncthreads();
    }
    return sh[0];
}

// The block sums v0 (and v1 when two) reach part0 (part1); the last block
// adds them in block order into slots[o0] (slots[o1]).
template <int kTwo>
__device__ void finish(double v0, double v1, double *part0, double *part1, unsigned *ticket, double *slots, int o0,
                       int o1)
{
    __shared__ double sh[kThreads];
    __shared__ bool last;
    const double b0 = block_sum(v0, sh);
    __syncthreads();
    double b1 = 0;
    if (kTwo) {
        b1 = block_sum(v1, sh);
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        part0[blockIdx.x] = b0;
        if (kTwo) part1[blockIdx.x] = b1;
        __threadfence();
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    // the block sums, in block order: thread t adds blocks t, t + 256, ...
    double a0 = 0, a1 = 0;
    for (int b = threadIdx.x; b < gridDim.x; b += kThreads) {
        a0 += ((volatile double *)part0)[b];
        if (kTwo) a1 += ((volatile double *)part1)[b];
    }
    const double s0 = block_sum(a0, sh);
    __syncthreads();
    double s1 = 0;
    if (kTwo) s1 = block_sum(a1, sh);
    if (threadIdx.x == 0) {
        slots[o0] = s0;
        if (kTwo) slots[o1] = s1;
        *ticket = 0;
    }
}

__global__ void set_kernel(double *slots, int o, double v)
{
    slots[o] = v;
}

__global__ void dot_kernel(int n, const double *__restrict__ x, const double *__restrict__ y, double *slots, int o,
                           double *part, unsigned *ticket)
{
    double a = 0;
    for (int i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) a += x[i] * y[i];
    finish<0>(a, 0, part, nullptr, ticket, slots, o, 0);
}

__global__ void dot2_kernel(int n, const double *__restrict__ x, const double *__restrict__ y, double *slots, int o1,
                            int o2, double *part, unsigned *ticket, int cap)
{
    double a = 0, b = 0;
    for (int i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
        const double xi = x[i];
        a += xi * xi;
        b += xi * y[i];
    }
    finish<1>(a, b, part, part + cap, ticket, slots, o1, o2);
}

__global__ void cg_update_kernel(int n, int rz, int pq, const double *__restrict__ p, const double *__restrict__ q,
                                 double *__restrict__ x, double *__restrict__ r, double *slots, int o, double *part,
                                 unsigned *ticket)
{
    const double srz = slots[rz], spq = slots[pq], a = srz / spq;
    if (!(srz > 0 && spq > 0 && finite(srz) && finite(spq) && finite(a))) {
        if (blockIdx.x == 0 && threadIdx.x == 0) slots[o] = __longlong_as_double(0x7ff8000000000000ULL);
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
    if (!finite(b)) return;
    for (int i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) p[i] = z[i] + b * p[i];
}

__global__ void bicg_direction_kernel(int n, int fresh, int rho, int rho_old, int r0v, int ts, int tt,
                                      const double *__restrict__ r, const double *__restrict__ v,
                                      double *__restrict__ p, const double *slots)
{
    const double srho = slots[rho];
    if (!(finite(srho) && srho != 0)) return;
    if (fresh) {
        for (int i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) p[i] = r[i];
        return;
    }
    const double alpha = slots[rho_old] / slots[r0v], omega = slots[ts] / slots[tt];
    const double beta = (srho / slots[rho_old]) * (alpha / omega);
    if (!finite(beta)) return;
    for (int i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads)
        p[i] = r[i] + beta * (p[i] - omega * v[i]);
}

__global__ void bicg_s_kernel(int n, int rho, int r0v, const double *__restrict__ v, double *__restrict__ r,
                              double *slots, int o, double *part, unsigned *ticket)
{
    const double a = slots[rho] / slots[r0v];
    if (!finite(a)) {
        if (blockIdx.x == 0 && threadIdx.x == 0) slots[o] = __longlong_as_double(0x7ff8000000000000ULL);
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
    if (!finite(a)) return;
    for (int i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) y[i] += a * x[i];
}

// sh is r itself without a preconditioner (s lives in r): no __restrict__ on
// either, and sh[i] is read before r[i] is written.
__global__ void bicg_update_kernel(int n, int rho, int r0v, int ts, int tt, const double *__restrict__ ph,
                                   const double *sh, const double *__restrict__ t, double *__restrict__ x, double *r,
                                   double *slots, int o, double *part, unsigned *ticket)
{
    const double stt = slots[tt], sts = slots[ts], a = slots[rho] / slots[r0v], w = sts / stt;
    if (!(stt != 0 && finite(stt) && finite(sts) && finite(a) && finite(w))) {
        if (blockIdx.x == 0 && threadIdx.x == 0) slots[o] = __longlong_as_double(0x7ff8000000000000ULL);
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

int grid_for(int n)
{
    const int g = (n + kThreads - 1) / kThreads;
    return g < 1 ? 1 : g > KRYLOV_MAX_BLOCKS ? KRYLOV_MAX_BLOCKS : g;
}

}  // namespace

extern "C" cudaError_t spk_krylov_set(cudaStream_t s, double *slots, int o, double v)
{
    set_kernel<<<1, 1, 0, s>>>(slots, o, v);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_krylov_dot(cudaStream_t s, const spk_krylov_dev *d, int n, const double *x,
                                      const double *y, int o)
{
    if (n <= 0) return spk_krylov_set(s, d->slots, o, 0.0);
    dot_kernel<<<grid_for(n), kThreads, 0, s>>>(n, x, y, d->slots, o, d->part, d->ticket);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_krylov_dot2(cudaStream_t s, const spk_krylov_dev *d, int n, const double *x,
                                       const double *y, int o1, int o2)
{
    if (n <= 0) {
        cudaError_t st = spk_krylov_set(s, d->slots, o1, 0.0);
        return st != cudaSuccess ? st : spk_krylov_set(s, d->slots, o2, 0.0);
    }
    dot2_kernel<<<grid_for(n), kThreads, 0, s>>>(n, x, y, d->slots, o1, o2, d->part, d->ticket, KRYLOV_MAX_BLOCKS);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_krylov_cg_update(cudaStream_t s, const spk_krylov_dev *d, int n, int rz, int pq,
                                            const double *p, const double *q, double *x, double *r, int o)
{
    cg_update_kernel<<<grid_for(n), kThreads, 0, s>>>(n, rz, pq, p, q, x, r, d->slots, o, d->part, d->ticket);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_krylov_cg_direction(cudaStream_t s, const spk_krylov_dev *d, int n, int num, int den,
                                               const double *z, double *p)
{
    if (n <= 0) return cudaSuccess;
    cg_direction_kernel<<<grid_for(n), kThreads, 0, s>>>(n, num, den, z, p, d->slots);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_krylov_bicg_direction(cudaStream_t s, const spk_krylov_dev *d, int n, int fresh, int rho,
                                                 int rho_old, int r0v, int ts, int tt, const double *r,
                                                 const double *v, double *p)
{
    if (n <= 0) return cudaSuccess;
    bicg_direction_kernel<<<grid_for(n), kThreads, 0, s>>>(n, fresh, rho, rho_old, r0v, ts, tt, r, v, p, d->slots);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_krylov_bicg_s(cudaStream_t s, const spk_krylov_dev *d, int n, int rho, int r0v,
                                         const double *v, double *r, int o)
{
    bicg_s_kernel<<<grid_for(n), kThreads, 0, s>>>(n, rho, r0v, v, r, d->slots, o, d->part, d->ticket);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_krylov_axpy_ratio(cudaStream_t s, const spk_krylov_dev *d, int n, int num, int den,
                                             const double *x, double *y)
{
    if (n <= 0) return cudaSuccess;
    axpy_ratio_kernel<<<grid_for(n), kThreads, 0, s>>>(n, num, den, x, y, d->slots);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_krylov_bicg_update(cudaStream_t s, const spk_krylov_dev *d, int n, int rho, int r0v,
                                              int ts, int tt, const double *ph, const double *sh, const double *t,
                                              double *x, double *r, int o)
{
    bicg_update_kernel<<<grid_for(n), kThreads, 0, s>>>(n, rho, r0v, ts, tt, ph, sh, t, x, r, d->slots, o, d->part,
                                                         d->ticket);
    return cudaGetLastError();
}

extern "C" const void *spk_krylov_kernels_probe(void)
{
    return (const void *)set_kernel;
}

// slot_kernels.cu -- the reductions into the CUDA executor's scalar slots
// (slot_kernels.h), in core/reduce.cuh's fixed order.
#include <cuda_runtime.h>

#include "core/reduce.cuh"
#include "core/slot_kernels.h"

using namespace spk_reduce;

namespace {

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

}  // namespace

extern "C" cudaError_t spk_slot_set(cudaStream_t s, double *slots, int o, double v)
{
    set_kernel<<<1, 1, 0, s>>>(slots, o, v);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_slot_dot(cudaStream_t s, const spk_slot_dev *d, int n, const double *x, const double *y,
                                    int o)
{
    if (n <= 0) return spk_slot_set(s, d->slots, o, 0.0);
    dot_kernel<<<grid_for(n), kThreads, 0, s>>>(n, x, y, d->slots, o, d->part, d->ticket);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_slot_dot2(cudaStream_t s, const spk_slot_dev *d, int n, const double *x, const double *y,
                                     int o1, int o2)
{
    if (n <= 0) {
        cudaError_t st = spk_slot_set(s, d->slots, o1, 0.0);
        return st != cudaSuccess ? st : spk_slot_set(s, d->slots, o2, 0.0);
    }
    dot2_kernel<<<grid_for(n), kThreads, 0, s>>>(n, x, y, d->slots, o1, o2, d->part, d->ticket, SPK_SLOT_MAX_BLOCKS);
    return cudaGetLastError();
}

extern "C" const void *spk_slot_kernels_probe(void)
{
    return (const void *)set_kernel;
}

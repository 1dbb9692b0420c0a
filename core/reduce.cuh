// reduce.cuh -- the reduction of the kernels that write a scalar slot
// (core/slot_kernels.cu, solver/engine/step_kernels.cu): a grid of
// min(ceil(n / 256), SPK_SLOT_MAX_BLOCKS) blocks of 256 threads (a function
// of n alone); each thread adds its entries in a grid-stride loop, each
// block its threads in a shared-memory tree, and the last block to finish
// (a ticket taken after a memory fence) adds the block sums in block order
// and writes the slot.  The order of every addition is fixed by n, so a run
// repeats to the bit.  The ticket counter is reset by that last block,
// ready for the next reduction on the same stream.
#ifndef SPK_CORE_REDUCE_CUH
#define SPK_CORE_REDUCE_CUH

#include <cuda_runtime.h>

#include "core/slot_kernels.h"

namespace spk_reduce {

constexpr int kThreads = 256;

__device__ __forceinline__ bool fin(double v)
{
    return isfinite(v);
}

// Block sum of v (all threads take part); the result in thread 0.
static __device__ double block_sum(double v, double *sh)
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

// A NaN into the result slot: the step's guard failed (block 0 writes it).
__device__ __forceinline__ void fail(double *slots, int o)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) slots[o] = __longlong_as_double(0x7ff8000000000000ULL);
}

static inline int grid_for(int n)
{
    const int g = (n + kThreads - 1) / kThreads;
    return g < 1 ? 1 : g > SPK_SLOT_MAX_BLOCKS ? SPK_SLOT_MAX_BLOCKS : g;
}

}  // namespace spk_reduce

#endif

// cluster_steps.cu -- what one step of the block iterations costs in a
// cluster of 16 thread blocks of 1024 threads (sm_90): a cluster barrier,
// a relaxed one, a cluster reduction as block_kernels.cu made it before
// c0a9f29 (each block's sum read by the others after the barrier), vector
// updates and a gather product over global memory or distributed shared
// memory.  Each mode loops 20,000 times in one launch; thread 0 of block 0
// times it with %globaltimer; the best of 3 launches is printed, us a step.
//
//   nvcc -O3 -arch=sm_90 -o cluster_steps cluster_steps.cu && ./cluster_steps
//
// Results on an H100: docs/bench/data/solve/cluster-push/cluster-steps-h100.txt
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
namespace cg = cooperative_groups;
constexpr int T = 1024, NB = 16, CH = 512; // chunk per block for n = NB*CH = 8192 max
__device__ __forceinline__ void relaxed_sync()
{
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;\n" ::: "memory");
}
__global__ void __launch_bounds__(T) k(int mode, int iters, int n, double *r, double *v, double *y, const int *ci,
                                        const double *val, unsigned long long *out, double *sink)
{
    cg::cluster_group cl = cg::this_cluster();
    __shared__ double w[32];
    __shared__ double part[2];
    __shared__ double lr[CH], lv[CH], lx[CH];
    const int rank = cl.block_rank(), first = rank * T + threadIdx.x, stride = NB * T;
    const int chunk = (n + NB - 1) / NB;
    for (int i = threadIdx.x; i < chunk; i += T) { lr[i] = 1.0; lv[i] = 0.5; lx[i] = 1.0; }
    cl.sync();
    double acc = 0;
    unsigned long long t0 = 0;
    int turn = 0;
    if (rank == 0 && threadIdx.x == 0) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    for (int it = 0; it < iters; it++) {
        switch (mode) {
        case 0: cl.sync(); break;
        case 1: relaxed_sync(); break;
        case 2: { // block_sum
            double s = (double)threadIdx.x + acc * 1e-30;
            for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(~0u, s, o);
            if ((threadIdx.x & 31) == 0) w[threadIdx.x >> 5] = s;
            __syncthreads();
            double t = 0;
            for (int q = 0; q < 32; q++) t += w[q];
            if (threadIdx.x == 0) part[turn] = t;
            cl.sync();
            int lane = threadIdx.x & 31;
            double c = lane < NB ? *cl.map_shared_rank(&part[turn], lane) : 0.0;
            for (int o = 16; o > 0; o >>= 1) c += __shfl_xor_sync(~0u, c, o);
            turn ^= 1;
            acc += c;
            break;
        }
        case 3: // axpy global
            for (int i = first; i < n; i += stride) r[i] = __ldcg(r + i) - 1e-9 * __ldcg(v + i);
            cl.sync();
            break;
        case 4: // axpy local smem
            for (int i = threadIdx.x; i < chunk; i += T) lr[i] = lr[i] - 1e-9 * lv[i];
            cl.sync();
            break;
        case 5: // gather product global, 5 per row, 1 lane
            for (int i = first; i < n; i += stride) {
                double s = 0;
                for (int q = 0; q < 5; q++) s += val[5 * i + q] * __ldcg(r + ci[5 * i + q]);
                y[i] = s;
            }
            cl.sync();
            break;
        case 6: // gather product DSMEM (x owned in chunks)
            for (int i = threadIdx.x; i < chunk; i += T) {
                const int row = rank * chunk + i;
                if (row >= n) break;
                double s = 0;
                for (int q = 0; q < 5; q++) {
                    const int c = ci[5 * row + q];
                    s += val[5 * row + q] * *cl.map_shared_rank(&lx[c % chunk], c / chunk);
                }
                lr[i] = s;
            }
            cl.sync();
            break;
        case 7: // axpy global, relaxed barrier + fence
            for (int i = first; i < n; i += stride) r[i] = __ldcg(r + i) - 1e-9 * __ldcg(v + i);
            __threadfence();
            relaxed_sync();
            break;
        case 8: // only __syncthreads
            __syncthreads();
            break;
        case 9: // axpy global + reduction (residual_step)
        {
            double a = 0;
            for (int i = first; i < n; i += stride) { double ri = __ldcg(r + i) - 1e-9 * __ldcg(v + i); r[i] = ri; a += ri * ri; }
            for (int o = 16; o > 0; o >>= 1) a += __shfl_xor_sync(~0u, a, o);
            if ((threadIdx.x & 31) == 0) w[threadIdx.x >> 5] = a;
            __syncthreads();
            double t = 0;
            for (int q = 0; q < 32; q++) t += w[q];
            if (threadIdx.x == 0) part[turn] = t;
            cl.sync();
            int lane = threadIdx.x & 31;
            double c = lane < NB ? *cl.map_shared_rank(&part[turn], lane) : 0.0;
            for (int o = 16; o > 0; o >>= 1) c += __shfl_xor_sync(~0u, c, o);
            turn ^= 1;
            acc += c;
            break;
        }
        case 10: // same, local smem
        {
            double a = 0;
            for (int i = threadIdx.x; i < chunk; i += T) { double ri = lr[i] - 1e-9 * lv[i]; lr[i] = ri; a += ri * ri; }
            for (int o = 16; o > 0; o >>= 1) a += __shfl_xor_sync(~0u, a, o);
            if ((threadIdx.x & 31) == 0) w[threadIdx.x >> 5] = a;
            __syncthreads();
            double t = 0;
            for (int q = 0; q < 32; q++) t += w[q];
            if (threadIdx.x == 0) part[turn] = t;
            cl.sync();
            int lane = threadIdx.x & 31;
            double c = lane < NB ? *cl.map_shared_rank(&part[turn], lane) : 0.0;
            for (int o = 16; o > 0; o >>= 1) c += __shfl_xor_sync(~0u, c, o);
            turn ^= 1;
            acc += c;
            break;
        }
        }
    }
    if (rank == 0 && threadIdx.x == 0) {
        unsigned long long t1;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
        *out = t1 - t0;
    }
    if (acc == 12345.0) *sink = acc + lr[0];
    cl.sync();
}
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
int main()
{
    const int n = 4960, iters = 20000;
    double *r, *v, *y, *val, *sink;
    int *ci;
    unsigned long long *out;
    CK(cudaMalloc(&r, 8 * 8192)); CK(cudaMalloc(&v, 8 * 8192)); CK(cudaMalloc(&y, 8 * 8192));
    CK(cudaMalloc(&val, 8 * 5 * 8192)); CK(cudaMalloc(&ci, 4 * 5 * 8192)); CK(cudaMalloc(&out, 8)); CK(cudaMalloc(&sink, 8));
    int *hci = (int *)malloc(4 * 5 * 8192);
    double *hv = (double *)malloc(8 * 5 * 8192);
    for (int i = 0; i < 8192; i++)
        for (int q = 0; q < 5; q++) { int off[5] = {0, 1, -1, 70, -70}; hci[5 * i + q] = ((i + off[q]) % n + n) % n; hv[5 * i + q] = 0.1; }
    CK(cudaMemcpy(ci, hci, 4 * 5 * 8192, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(val, hv, 8 * 5 * 8192, cudaMemcpyHostToDevice));
    CK(cudaMemset(r, 0, 8 * 8192)); CK(cudaMemset(v, 0, 8 * 8192));
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    const char *names[] = {"cluster.sync", "relaxed barrier", "block_sum", "axpy global+sync", "axpy smem+sync",
                           "gather5 global+sync", "gather5 dsmem+sync", "axpy global+fence+relaxed", "__syncthreads",
                           "axpy+reduce global", "axpy+reduce smem"};
    for (int nb : {16}) {
        for (int mode = 0; mode <= 10; mode++) {
            cudaLaunchConfig_t cfg = {};
            cudaLaunchAttribute at;
            at.id = cudaLaunchAttributeClusterDimension;
            at.val.clusterDim.x = nb; at.val.clusterDim.y = 1; at.val.clusterDim.z = 1;
            cfg.gridDim = dim3(nb); cfg.blockDim = dim3(T); cfg.attrs = &at; cfg.numAttrs = 1;
            unsigned long long best = ~0ull;
            for (int rep = 0; rep < 3; rep++) {
                CK(cudaLaunchKernelEx(&cfg, k, mode, iters, n, r, v, y, (const int *)ci, (const double *)val, out, sink));
                CK(cudaDeviceSynchronize());
                unsigned long long h;
                CK(cudaMemcpy(&h, out, 8, cudaMemcpyDeviceToHost));
                if (h < best) best = h;
            }
            printf("blocks %2d  %-28s %8.3f us/step\n", nb, names[mode], best / 1e3 / iters);
        }
    }
    return 0;
}

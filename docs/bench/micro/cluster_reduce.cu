// cluster_reduce.cu -- a cluster's sum of one double per thread (16 blocks
// of 1024 threads, sm_90), four ways: (0) each block's sum read by the others
// from its shared memory after the cluster barrier (block_kernels.cu before
// c0a9f29); (1) a wrong sum that reads no other block (what the remote read
// costs); (2) each block's sum written into every block's shared memory
// before the barrier, then read locally (block_kernels.cu since c0a9f29);
// (3) each warp's sum written into every block before the barrier.  Each way
// adds the block sums pairwise across a warp's lanes, so (0), (2) and (3)
// give the same bits in every thread; the program checks it.
//
//   nvcc -O3 -arch=sm_90 -o cluster_reduce cluster_reduce.cu && ./cluster_reduce
//
// Results on an H100: docs/bench/data/solve/cluster-push/cluster-reduce-h100.txt
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
namespace cg = cooperative_groups;
constexpr int T = 1024, W = 32, NB = 16;
__global__ void __launch_bounds__(T) k(int mode, int iters, unsigned long long *out, double *res)
{
    cg::cluster_group cl = cg::this_cluster();
    __shared__ double w[W];
    __shared__ double part[2];
    __shared__ double all[2][NB];
    __shared__ double allw[2][NB][W];
    const int rank = cl.block_rank(), lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    cl.sync();
    double acc = 0;
    unsigned long long t0 = 0;
    int turn = 0;
    if (rank == 0 && threadIdx.x == 0) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    for (int it = 0; it < iters; it++) {
        double s = 1.0 / (1 + threadIdx.x + 7 * rank + it) + acc * 1e-30;
        for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(~0u, s, o);
        double c = 0;
        if (mode == 0 || mode == 1 || mode == 2) {
            if (lane == 0) w[warp] = s;
            __syncthreads();
            double t = 0;
            for (int q = 0; q < W; q++) t += w[q];
            if (mode == 2) {
                if (threadIdx.x < NB) *cl.map_shared_rank(&all[turn][rank], threadIdx.x) = t;
            } else if (threadIdx.x == 0) part[turn] = t;
            cl.sync();
            if (mode == 0) c = lane < NB ? *cl.map_shared_rank(&part[turn], lane) : 0.0;
            else if (mode == 1) c = lane < NB ? part[turn] : 0.0;
            else c = lane < NB ? all[turn][lane] : 0.0;
        } else if (mode == 3) { // warp leaders push to all blocks
            if (lane < NB) *cl.map_shared_rank(&allw[turn][rank][warp], lane) = s;
            cl.sync();
            double t = 0;
            if (lane < NB)
                for (int q = 0; q < W; q++) t += allw[turn][lane][q];
            c = t;
        }
        for (int o = 16; o > 0; o >>= 1) c += __shfl_xor_sync(~0u, c, o);
        turn ^= 1;
        acc += c;
    }
    if (rank == 0 && threadIdx.x == 0) {
        unsigned long long t1;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
        *out = t1 - t0;
    }
    res[rank * T + threadIdx.x] = acc;
    cl.sync();
}
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
int main()
{
    const int iters = 20000;
    unsigned long long *out;
    double *res;
    CK(cudaMalloc(&out, 8));
    CK(cudaMalloc(&res, 8 * NB * T));
    static double h[4][NB * T];
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    const char *names[] = {"block_sum (remote read)", "local read (wrong sum)", "thread0 pushes, local", "warp leaders push"};
    for (int mode = 0; mode < 4; mode++) {
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute at;
        at.id = cudaLaunchAttributeClusterDimension;
        at.val.clusterDim.x = NB; at.val.clusterDim.y = 1; at.val.clusterDim.z = 1;
        cfg.gridDim = dim3(NB); cfg.blockDim = dim3(T); cfg.attrs = &at; cfg.numAttrs = 1;
        unsigned long long best = ~0ull;
        for (int rep = 0; rep < 3; rep++) {
            CK(cudaLaunchKernelEx(&cfg, k, mode, iters, out, res));
            CK(cudaDeviceSynchronize());
            unsigned long long hh;
            CK(cudaMemcpy(&hh, out, 8, cudaMemcpyDeviceToHost));
            if (hh < best) best = hh;
        }
        CK(cudaMemcpy(h[mode], res, 8 * NB * T, cudaMemcpyDeviceToHost));
        int same = 1, uniform = 1;
        for (int i = 0; i < NB * T; i++) {
            if (h[mode][i] != h[0][i]) same = 0;
            if (h[mode][i] != h[mode][0]) uniform = 0;
        }
        printf("%-28s %8.3f us/step  bits as block_sum: %d  same in every thread: %d\n", names[mode], best / 1e3 / iters, same, uniform);
    }
    return 0;
}

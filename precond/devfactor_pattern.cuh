/* devfactor_pattern.cuh -- the working pattern F from A's CSR arrays in
 * device memory (a count, a scan and a fill), the rows' dependencies and
 * the order the factorization takes them in (devfactor.h).  Part of
 * devfactor.cu's module: included there once. */
#ifndef SPK_PRECOND_DEVFACTOR_PATTERN_CUH
#define SPK_PRECOND_DEVFACTOR_PATTERN_CUH

#include <cub/device/device_scan.cuh>
#include <cuda/atomic>

#include "devfactor.h"
#include "devfactor_common.cuh"

namespace {

/* The order of the factorization.  Handing out rows in row order lets the
 * groups in flight (a few planes of a 3D grid) wait on each other's chains,
 * which serialized the factorization; handing out only rows whose
 * dependencies are all done (a ready queue) removes that, but a row then
 * starts only when its last dependency is done, where row order let it work
 * through its first entries meanwhile: on banded matrices with long rows
 * that cost many times more.  So the order is computed once per pattern,
 * without arithmetic (order_kernel: a ready queue of rows, each counted
 * off in its dependents), and the factorization hands out rows in
 * that order (topological: each row after all its dependencies) and waits
 * per entry, as row order did.
 *
 * Wait for slot t of the queue: polls (relaxed, backing off: a poll is an L2
 * access, and many pollers would crowd out the work they wait for), then an
 * acquire load.  Threads of one warp that wait for each other make progress
 * by independent thread scheduling (sm_70 and later). */
__device__ __forceinline__ int take_slot(int *queue, int t)
{
    cuda::atomic_ref<int, cuda::thread_scope_device> slot(queue[t]);
    unsigned ns = 32;
    while (slot.load(cuda::memory_order_relaxed) < 0) {
        __nanosleep(ns);
        if (ns < 512) ns *= 2;
    }
    return slot.load(cuda::memory_order_acquire);
}

/* A thread per queue slot: take the slot's row, count it off in the rows that
 * depend on it, and queue those whose count reaches zero.  Slots are handed
 * out to running threads by ticket, and the row of a slot is queued by a
 * thread holding an earlier one, so every wait ends. */
__global__ void order_kernel(int n, const int *__restrict__ dptr, const int *__restrict__ dep, int *indeg,
                             int *queue, int *ctl)
{
    for (int t = atomicAdd(ctl, 1); t < n; t = atomicAdd(ctl, 1)) {
        const int i = take_slot(queue, t);
        for (int q = dptr[i], e = dptr[i + 1]; q < e; q++) {
            const int d = dep[q];
            if (atomicSub(indeg + d, 1) == 1) {
                const int pos = atomicAdd(ctl + 2, 1);
                cuda::atomic_ref<int, cuda::thread_scope_device>(queue[pos]).store(d, cuda::memory_order_release);
            }
        }
    }
}

/* Positions [lo, hi) of row i's strictly lower entries in F. */
__device__ __forceinline__ int strict_end(int ic, const int *rp, const int *dpos, int i)
{
    return ic ? rp[i + 1] - 1 : dpos[i];
}

/* dcnt[c + 1] += 1 for each strictly lower entry (i, c) of F. */
__global__ void deps_count_kernel(int n, int ic, const int *__restrict__ rp, const int *__restrict__ ci,
                                  const int *__restrict__ dpos, int *dcnt)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    for (int k = rp[i], e = strict_end(ic, rp, dpos, i); k < e; k++) atomicAdd(dcnt + ci[k] + 1, 1);
}

/* dep[dptr[c] ..]: the rows with a strictly lower entry in column c. */
__global__ void deps_fill_kernel(int n, int ic, const int *__restrict__ rp, const int *__restrict__ ci,
                                 const int *__restrict__ dpos, const int *__restrict__ dptr, int *fill,
                                 int *__restrict__ dep)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    for (int k = rp[i], e = strict_end(ic, rp, dpos, i); k < e; k++) {
        const int c = ci[k];
        dep[dptr[c] + atomicAdd(fill + c, 1)] = i;
    }
}

/* indeg[i] = the rows row i depends on; the rows without any are queued. */
__global__ void queue_init_kernel(int n, int ic, const int *__restrict__ rp, const int *__restrict__ dpos,
                                  int *__restrict__ indeg, int *queue, int *tail)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    const int c = strict_end(ic, rp, dpos, i) - rp[i];
    indeg[i] = c;
    if (c == 0) queue[atomicAdd(tail, 1)] = i;
}

__global__ void rows_kernel(int n, int lower, const int *__restrict__ rp, const int *__restrict__ ci, int *cnt)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i == 0) cnt[0] = 0;
    if (i >= n) return;
    const int b = rp[i], e = rp[i + 1];
    const int lo = lower_bound(ci, b, e, i);
    const int has = lo < e && ci[lo] == i;
    cnt[i + 1] = lower ? lo - b + 1 : e - b + !has;
}

__global__ void fill_kernel(int n, int lower, const int *__restrict__ rp, const int *__restrict__ ci,
                            const double *__restrict__ val, const int *__restrict__ frp, int *__restrict__ fci,
                            double *__restrict__ fval, int *__restrict__ dpos, double *__restrict__ adiag,
                            unsigned char *__restrict__ missing)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    int q = frp[i], placed = 0;
    double ad = 0;
    unsigned char miss = 1;
    for (int k = rp[i], e = rp[i + 1]; k < e; k++) {
        const int c = ci[k];
        if (lower && c > i) break;
        if (!placed && c > i) { /* the diagonal goes before the first column beyond it */
            fci[q] = i;
            fval[q] = 0;
            dpos[i] = q++;
            placed = 1;
        }
        if (c == i) {
            dpos[i] = q;
            placed = 1;
            ad = val[k];
            miss = 0;
        }
        fci[q] = c;
        fval[q++] = val[k];
    }
    if (!placed) {
        fci[q] = i;
        fval[q] = 0;
        dpos[i] = q;
    }
    adiag[i] = ad;
    missing[i] = miss;
}

} // namespace

extern "C" cudaError_t spk_dev_pattern_temp(int n, size_t *temp_bytes)
{
    *temp_bytes = 0;
    return cub::DeviceScan::InclusiveSum(nullptr, *temp_bytes, (int *)nullptr, (int *)nullptr, n > 0 ? n : 1);
}

extern "C" cudaError_t spk_dev_pattern_rows(cudaStream_t s, int n, int lower, const int *rp, const int *ci, int *cnt,
                                            void *temp, size_t temp_bytes)
{
    if (n == 0) return cudaMemsetAsync(cnt, 0, sizeof(int), s);
    rows_kernel<<<blocks_for(n), kBlock, 0, s>>>(n, lower, rp, ci, cnt);
    cudaError_t st = cudaGetLastError();
    if (st != cudaSuccess) return st;
    return cub::DeviceScan::InclusiveSum(temp, temp_bytes, cnt + 1, cnt + 1, n, s);
}

extern "C" cudaError_t spk_dev_pattern_fill(cudaStream_t s, int n, int lower, const int *rp, const int *ci,
                                            const double *val, const int *frp, int *fci, double *fval, int *dpos,
                                            double *adiag, unsigned char *missing)
{
    if (n == 0) return cudaSuccess;
    fill_kernel<<<blocks_for(n), kBlock, 0, s>>>(n, lower, rp, ci, val, frp, fci, fval, dpos, adiag, missing);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_deps(cudaStream_t s, int n, int ic, const int *frp, const int *fci, const int *dpos,
                                    int *dptr, int *dep, int *work, void *temp, size_t temp_bytes)
{
    cudaError_t st = cudaMemsetAsync(dptr, 0, ((size_t)n + 1) * sizeof(int), s);
    if (st != cudaSuccess || n == 0) return st;
    deps_count_kernel<<<blocks_for(n), kBlock, 0, s>>>(n, ic, frp, fci, dpos, dptr);
    st = cudaGetLastError();
    if (st == cudaSuccess) st = cub::DeviceScan::InclusiveSum(temp, temp_bytes, dptr + 1, dptr + 1, n, s);
    if (st == cudaSuccess) st = cudaMemsetAsync(work, 0, (size_t)n * sizeof(int), s);
    if (st != cudaSuccess) return st;
    deps_fill_kernel<<<blocks_for(n), kBlock, 0, s>>>(n, ic, frp, fci, dpos, dptr, work, dep);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_order(cudaStream_t s, int n, int ic, const int *frp, const int *dpos,
                                     const int *dptr, const int *dep, int *indeg, int *order, int *ctl)
{
    if (n == 0) return cudaSuccess;
    unsigned grid = 0;
    cudaError_t st = resident_grid(n, kBlock, &grid);
    if (st == cudaSuccess) st = cudaMemsetAsync(ctl, 0, 3 * sizeof(int), s);
    if (st == cudaSuccess) st = cudaMemsetAsync(order, 0xff, (size_t)n * sizeof(int), s);
    if (st != cudaSuccess) return st;
    queue_init_kernel<<<blocks_for(n), kBlock, 0, s>>>(n, ic, frp, dpos, indeg, order, ctl + 2);
    st = cudaGetLastError();
    if (st != cudaSuccess) return st;
    order_kernel<<<grid, kBlock, 0, s>>>(n, dptr, dep, indeg, order, ctl);
    return cudaGetLastError();
}

#endif

// merge.cu -- merge-path CSR kernels (merge.h).  First pass: a thread per
// segment of ITEMS merge items, THREADS segments a block; the block first
// stages its nonzeros' products val*x[col] and the row ends its threads
// compare against in shared memory (coalesced loads), then each thread walks
// its segment from its precomputed start coordinate, writing every row whose
// end it reaches and leaving its partial sum in carry[s].  Second pass: the
// first segment of each run of segments ending inside one row adds the run's
// carries, in segment order, into that row.  y = alpha*A*x + beta*y; beta == 0
// does not read y.
#include "merge.h"
#include "real.cuh"

namespace {

constexpr int ITEMS = SPK_MERGE_ITEMS;
constexpr int THREADS = 128;
constexpr int TILE = THREADS * ITEMS; /* merge items of a block */

template <typename T>
__global__ void __launch_bounds__(THREADS)
    merge_kernel(int nrows, int nnz, int nseg, const int *__restrict__ rowptr, const int *__restrict__ colind,
                 const T *__restrict__ val, const int *__restrict__ coord, T alpha, const T *__restrict__ x, T beta,
                 T *__restrict__ y, T *__restrict__ carry)
{
    /* a block's items hold at most TILE nonzeros and TILE row ends; its
     * threads compare against the ends of rows i0 .. min(i1, nrows - 1) */
    __shared__ T prod[TILE];
    __shared__ int rend[TILE + 1];
    const int s0 = blockIdx.x * THREADS, s1 = min(s0 + THREADS, nseg);
    const int i0 = coord[2 * s0], k0 = coord[2 * s0 + 1];
    const int i1 = coord[2 * s1], k1 = coord[2 * s1 + 1];
    for (int q = threadIdx.x; q < k1 - k0; q += THREADS) prod[q] = val[k0 + q] * __ldg(&x[colind[k0 + q]]);
    /* i0 < nrows: a block starts before the end of the merge, where every row end is consumed */
    const int rlast = min(i1, nrows - 1);
    for (int q = threadIdx.x; q <= rlast - i0; q += THREADS) rend[q] = rowptr[i0 + 1 + q];
    __syncthreads();
    const int s = s0 + threadIdx.x;
    if (s >= nseg) return;
    int i = coord[2 * s], k = coord[2 * s + 1];
    const long long left = (long long)nrows + nnz - (long long)s * ITEMS;
    const int n = left < ITEMS ? (int)left : ITEMS;
    T sum = 0;
#pragma unroll
    for (int t = 0; t < ITEMS; t++) {
        if (t >= n) break;
        if (k < rend[i - i0]) { /* nonzero k of row i */
            sum += prod[k - k0];
            k++;
        } else { /* the end of row i */
            y[i] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[i];
            sum = 0;
            i++;
        }
    }
    carry[s] = sum; /* used only when the segment ends inside a row (i < nrows) */
}

/* Thread s: when segment s ends inside row r and segment s - 1 does not (it
 * is the first of the run carrying into r), y_r += alpha * (the run's carries
 * summed in segment order).  y_r was written by the run's successor, the
 * segment that reached row r's end, in the first pass.  The run is segments
 * s .. e - 1, e the segment holding row r's end item (merge item
 * rowptr[r + 1] + r), so its length is known before its carries are read:
 * their loads overlap.  A row spanning R segments costs its thread R adds. */
template <typename T>
__global__ void merge_fixup_kernel(int nrows, int nseg, const int *__restrict__ rowptr,
                                   const int *__restrict__ coord, const T *__restrict__ carry, T alpha,
                                   T *__restrict__ y)
{
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nseg) return;
    const int r = coord[2 * (s + 1)]; /* the row segment s ends in */
    if (r >= nrows || (s > 0 && coord[2 * s] == r)) return;
    const int e = (int)(((long long)rowptr[r + 1] + r) / ITEMS);
    T t = 0;
    for (int q = s; q < e; q++) t += carry[q];
    y[r] += alpha * t;
}

template <typename T>
cudaError_t merge_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_merge *M = static_cast<const spk_fmt_merge *>(fmt);
    if (M->nrows == 0) return cudaSuccess; /* no rows: no items, no segments */
    merge_kernel<T><<<(M->nseg + THREADS - 1) / THREADS, THREADS, 0, s>>>(
        M->nrows, M->nnz, M->nseg, M->rowptr, M->colind, spk_real<T>(M->val), M->coord, alpha, x, beta, y,
        spk_real_w<T>(M->carry));
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    merge_fixup_kernel<T><<<(M->nseg + 255) / 256, 256, 0, s>>>(M->nrows, M->nseg, M->rowptr, M->coord,
                                                                  spk_real<T>(M->carry), alpha, y);
    return cudaGetLastError();
}

}  // namespace

SPK_LAUNCH_BOTH(spk_merge_launch, merge_launch)

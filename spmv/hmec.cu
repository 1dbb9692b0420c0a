// hmec.cu -- HMEC kernels (003 §4.1): one thread per sorted row, one kernel
// per ELL part (column-major, so a warp reads consecutive entries) and one for
// the CSR rest, each adding into y[jds_row[r]].  The first kernel launched
// covers all nrows and sets y = alpha*sum + beta*y (beta == 0: y not read);
// the later ones add alpha*sum.  Traffic: see hmec.c.
#include "hmec.h"
#include "real.cuh"

namespace {

const int kThreads = 256;

template <bool FIRST, typename T>
__device__ __forceinline__ void put(T *__restrict__ y, int i, T alpha, T s, T beta)
{
    if (!FIRST)
        y[i] += alpha * s;
    else
        y[i] = beta == T(0) ? alpha * s : alpha * s + beta * y[i];
}

// Sorted row r < rows sums its K entries r, r + rows, r + 2 rows, ...;
// threads rows <= r < cover add 0.
template <bool FIRST, typename T>
__global__ void ell_part(int rows, int cover, int K, const int *__restrict__ col, const T *__restrict__ val,
                         const int *__restrict__ jds, T alpha, const T *__restrict__ x, T beta, T *__restrict__ y)
{
    const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= cover) return;
    T s = 0;
    if (r < rows) {
        const int *c = col + r;
        const T *v = val + r;
        for (int k = 0; k < K; k++, c += rows, v += rows) s += *v * __ldg(&x[*c]);
    }
    put<FIRST>(y, jds[r], alpha, s, beta);
}

// Sorted row r < rows sums its CSR-rest entries; rows <= r < cover add 0.
template <bool FIRST, typename T>
__global__ void csr_rest(int rows, int cover, const int *__restrict__ rowptr, const int *__restrict__ col,
                         const T *__restrict__ val, const int *__restrict__ jds, T alpha, const T *__restrict__ x,
                         T beta, T *__restrict__ y)
{
    const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= cover) return;
    T s = 0;
    if (r < rows)
        for (int k = rowptr[r]; k < rowptr[r + 1]; k++) s += val[k] * __ldg(&x[col[k]]);
    put<FIRST>(y, jds[r], alpha, s, beta);
}

unsigned blocks_for(int cover)
{
    return (unsigned)(((long long)cover + kThreads - 1) / kThreads);
}

template <typename T>
cudaError_t hmec_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_hmec *F = static_cast<const spk_fmt_hmec *>(fmt);
    const spk_hmec_split_info &I = F->info;
    if (F->nrows == 0) return cudaSuccess;
    bool first = true;
    for (int p = 0; p < I.nparts; p++) {
        const int *col = F->ell_col + F->ell_off[p];
        const T *val = spk_real<T>(F->ell_val) + F->ell_off[p];
        if (first)
            ell_part<true, T><<<blocks_for(F->nrows), kThreads, 0, s>>>(I.rows[p], F->nrows, I.K[p], col, val,
                                                                       F->jds_row, alpha, x, beta, y);
        else
            ell_part<false, T><<<blocks_for(I.rows[p]), kThreads, 0, s>>>(I.rows[p], I.rows[p], I.K[p], col, val,
                                                                         F->jds_row, alpha, x, beta, y);
        cudaError_t st = cudaGetLastError();
        if (st != cudaSuccess) return st;
        first = false;
    }
    if (first)
        csr_rest<true, T><<<blocks_for(F->nrows), kThreads, 0, s>>>(I.csr_rows, F->nrows, F->csr_rowptr,
                                                                   F->csr_col, spk_real<T>(F->csr_val), F->jds_row,
                                                                   alpha, x, beta, y);
    else if (I.csr_rows > 0)
        csr_rest<false, T><<<blocks_for(I.csr_rows), kThreads, 0, s>>>(I.csr_rows, I.csr_rows, F->csr_rowptr,
                                                                      F->csr_col, spk_real<T>(F->csr_val),
                                                                      F->jds_row, alpha, x, beta, y);
    return cudaGetLastError();
}

}  // namespace

SPK_LAUNCH_BOTH(spk_hmec_launch, hmec_launch)

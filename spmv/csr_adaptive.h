/* csr_adaptive.h -- CSR-Adaptive (Greathouse & Daga, "Efficient Sparse
 * Matrix-Vector Multiplication on GPUs using the CSR Storage Format", SC'14):
 * A's CSR arrays plus row blocks, runs of consecutive rows that one thread
 * block multiplies.
 *
 * Row blocks are formed at convert time, greedily in row order: a block takes
 * whole rows while their nonzeros fit the shared-memory tile of
 * SPK_ADAPTIVE_NNZ values and it holds fewer than SPK_ADAPTIVE_ROWS rows (the
 * cap keeps runs of empty rows from making one block of thousands of rows); a
 * row longer than the tile gets a block of its own.  row_blocks[b] is the
 * first row of block b, row_blocks[nblocks] = nrows.
 *
 * The kernel, one block of SPK_ADAPTIVE_THREADS threads per row block:
 *   CSR-stream (a block of several rows): the threads load the block's
 *     products val*x[col] into shared memory (consecutive threads,
 *     consecutive entries), then reduce each row from there with L threads
 *     per row, L the largest power of two <= 32 with L * rows <= threads (1
 *     for more rows than threads: each thread then takes every threads-th
 *     row), the L partial sums meeting through warp shuffles;
 *   CSR-vector (a block of one row, whatever its length): all threads stride
 *     along the row, then a block reduction (shuffles in each warp, then the
 *     warps' sums).  The paper's CSR-VectorL (a very long row split over
 *     several blocks) is not implemented: one block takes any row.
 *
 * Storage: 4 * (nrows + 1) + 12 * nnz bytes of CSR (8 * nnz in float) + 4 *
 * (nblocks + 1) bytes of row blocks. */
#ifndef SPK_SPMV_CSR_ADAPTIVE_H
#define SPK_SPMV_CSR_ADAPTIVE_H

#include "format.h"

#define SPK_ADAPTIVE_NNZ 1024     /* nonzeros of a CSR-stream block: its shared-memory tile (8 KiB; 4 KiB in float) */
#define SPK_ADAPTIVE_ROWS 1024    /* rows of a block, at most */
#define SPK_ADAPTIVE_THREADS 256  /* threads of a block */

typedef struct spk_fmt_csr_adaptive {
    int nrows, ncols, nnz;
    int nblocks;     /* row blocks */
    int nvector;     /* of which single-row blocks (CSR-vector) */
    int *rowptr;     /* nrows + 1 */
    int *colind;     /* nnz */
    double *val;     /* nnz */
    int *row_blocks; /* nblocks + 1: first row of each block, then nrows */
} spk_fmt_csr_adaptive;

#ifdef __CUDACC__
#define SPK_ADAPTIVE_HD __host__ __device__
#else
#define SPK_ADAPTIVE_HD
#endif
/* Threads per row of a CSR-stream block of `rows` rows: the largest power of
 * two L <= 32 with L * rows <= SPK_ADAPTIVE_THREADS, at least 1 (the kernel's
 * and the host reference's one rule). */
static inline SPK_ADAPTIVE_HD int spk_adaptive_lanes(int rows)
{
    int L = 1;
    while (L < 32 && 2 * L * rows <= SPK_ADAPTIVE_THREADS) L *= 2;
    return L;
}

/* y = alpha*C*x + beta*y on the host, block by block as the kernel groups the
 * rows: a stream block's rows summed by as many lanes as the kernel gives
 * them, meeting in its order; a vector block's row summed as its threads and
 * warps do. */
void spk_csr_adaptive_ref(const spk_fmt_csr_adaptive *C, double alpha, const double *x, double beta, double *y);

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* y = alpha*C*x + beta*y, one thread block per row block (device arrays in C). */
SPK_FORMAT_LAUNCH_DECL(spk_csr_adaptive_launch)
#ifdef __cplusplus
}
#endif
#endif

#endif

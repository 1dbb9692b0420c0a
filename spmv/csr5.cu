// csr5.cu -- CSR5 kernels (csr5.h; the scheme in csr5.c, whose host reference
// forms the same sums):
//   tile kernel   a warp per tile: lane j sums its sigma entries down its
//                 column (one coalesced load step per entry), writing the
//                 segments that close inside it; the lanes' open sums meet in
//                 a shuffle segmented scan; each row starting in the tile is
//                 written once with alpha*sum + beta*y, a continued first
//                 segment goes to calib[t];
//   tail kernel   a thread per row from tail_row (the last nnz mod 32 sigma
//                 entries, CSR-style, and the empty rows after them);
//   calibration   a thread per calib slot; the first slot of each run carried
//                 into one row adds the run's partials, in tile order.
// beta == 0 does not read y; every row, empty ones included, is written once
// before the calibration adds to it.
#include "csr5.h"
#include "real.cuh"

namespace {

constexpr int L = SPK_CSR5_OMEGA;
constexpr unsigned FULL = 0xffffffffu;
constexpr int TILE_BLOCK = 128;  // 4 warps, 4 tiles a block

template <typename T>
__device__ __forceinline__ void put_row(T *y, int r, T alpha, T v, T beta)
{
    y[r] = beta == T(0) ? alpha * v : alpha * v + beta * y[r];
}

template <typename T>
__device__ void put_empty(T *y, int lo, int hi, T beta)
{
    for (int r = lo; r < hi; r++) y[r] = beta == T(0) ? T(0) : beta * y[r];
}

struct tile_ctx {
    int t, row0, flagged, cont;  // cont: the first entry continues a row begun before the tile
    int eb, ee, next;            // flagged: empty_offset range, tile_ptr[t + 1]'s row
};

// Segment g of the tile sums to v: its row (or calib, for a continued first
// segment), then (flagged tiles) the empty rows up to the next segment's row.
template <typename T>
__device__ void put_segment(const spk_fmt_csr5 &F, const tile_ctx &c, int g, T v, T alpha, T beta, T *y)
{
    const int row = c.row0 + (c.flagged ? F.empty_offset[c.eb + g] : g);
    if (g == 0 && c.cont)
        spk_real_w<T>(F.calib)[c.t] = alpha * v;
    else
        put_row(y, row, alpha, v, beta);
    if (c.flagged) {
        const int e = c.eb + g + 1;
        put_empty(y, row + 1, e < c.ee ? c.row0 + F.empty_offset[e] : c.next, beta);
    }
}

template <typename T>
__global__ void __launch_bounds__(TILE_BLOCK) csr5_tile_kernel(spk_fmt_csr5 F, T alpha, const T *__restrict__ x,
                                                                T beta, T *__restrict__ y)
{
    // blockDim is a multiple of 32: t is the same across a warp, which leaves or stays whole
    const long long t64 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / L;
    if (t64 >= F.ntiles) return;
    const int t = (int)t64, j = (int)(threadIdx.x % L), sigma = F.sigma, base = t * L * sigma;

    tile_ctx c;
    const unsigned tp = F.tile_ptr[t];
    c.t = t;
    c.row0 = (int)(tp & ~SPK_CSR5_EMPTY);
    c.flagged = (tp & SPK_CSR5_EMPTY) != 0;
    c.cont = F.rowptr[c.row0] < base;
    c.eb = c.ee = c.next = 0;
    if (c.flagged) {
        c.eb = F.empty_ptr[t];
        c.ee = F.empty_ptr[t + 1];
        c.next = (int)(F.tile_ptr[t + 1] & ~SPK_CSR5_EMPTY);
    }

    const unsigned d = F.tile_desc[(size_t)t * L + j], flags = d & ((1u << sigma) - 1u);
    const int yoff = (int)((d >> SPK_CSR5_YOFF_SHIFT) & SPK_CSR5_YOFF_MASK);
    // down the column: a segment closed inside the lane is written, the part
    // before the first set bit is the head, the rest is the lane's open sum
    T s = 0, head = 0;
    int n = 0;
    for (int i = 0; i < sigma; i++) {
        const int q = base + i * L + j;
        if ((flags >> i) & 1u) {
            if (n == 0)
                head = s;
            else
                put_segment(F, c, yoff + n - 1, s, alpha, beta, y);
            s = 0;
            n++;
        }
        s += spk_real<T>(F.val)[q] * __ldg(&x[F.col[q]]);
    }
    // inclusive segmented scan of the open sums; a lane with a set bit starts anew
    T S = s;
    int f = n > 0;
    for (int off = 1; off < L; off *= 2) {
        const T So = __shfl_up_sync(FULL, S, off);
        const int fo = __shfl_up_sync(FULL, f, off);
        if (j >= off && !f) {
            S = So + S;
            f = fo;
        }
    }
    // a lane with a set bit closes the segment open before it with its head;
    // lane 31 writes the tile's last segment; lane 0 of tile 0 the empty rows before it
    const T prev = __shfl_up_sync(FULL, S, 1);
    if (j > 0 && n > 0) put_segment(F, c, yoff - 1, prev + head, alpha, beta, y);
    if (j == L - 1) put_segment(F, c, yoff + n - 1, S, alpha, beta, y);
    if (t == 0 && j == 0) put_empty(y, 0, c.row0, beta);
}

template <typename T>
__global__ void csr5_tail_kernel(spk_fmt_csr5 F, T alpha, const T *__restrict__ x, T beta, T *__restrict__ y)
{
    const int tb = F.ntiles * L * F.sigma;
    for (long long r64 = F.tail_row + (long long)blockIdx.x * blockDim.x + threadIdx.x; r64 < F.nrows;
         r64 += (long long)gridDim.x * blockDim.x) {
        const int r = (int)r64, b = F.rowptr[r], e = F.rowptr[r + 1];
        T s = 0;
        // spk_real<T>(F.val) spelled out: the call reorders the double kernel's address arithmetic
        for (int q = b > tb ? b : tb; q < e; q++) s += reinterpret_cast<const T *>(F.val)[q] * __ldg(&x[F.col[q]]);
        if (b < tb)
            spk_real_w<T>(F.calib)[F.ntiles] = alpha * s;  // tail_row, begun in the last tile
        else
            put_row(y, r, alpha, s, beta);
    }
}

// calib slot c holds a carried partial: tile c (the tail for c = ntiles) starts inside a row begun before it
__device__ bool carried(const spk_fmt_csr5 &F, int c, int *row)
{
    *row = (int)(F.tile_ptr[c] & ~SPK_CSR5_EMPTY);
    const long long p = (long long)c * L * F.sigma;
    return p < F.nnz && F.rowptr[*row] < p;
}

template <typename T>
__global__ void csr5_calib_kernel(spk_fmt_csr5 F, T *__restrict__ y)
{
    const long long c64 = 1 + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (c64 > F.ntiles) return;
    const int c = (int)c64;
    int row, prow;
    if (!carried(F, c, &row) || (carried(F, c - 1, &prow) && prow == row)) return;
    T s = 0;
    const T *calib = spk_real<T>(F.calib);
    for (int q = c, qrow; q <= F.ntiles && carried(F, q, &qrow) && qrow == row; q++) s += calib[q];
    y[row] += s;
}

template <typename T>
cudaError_t csr5_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_csr5 *F = static_cast<const spk_fmt_csr5 *>(fmt);
    if (F->nrows == 0) return cudaSuccess;
    cudaError_t e;
    if (F->ntiles > 0) {
        const long long blocks = ((long long)F->ntiles * L + TILE_BLOCK - 1) / TILE_BLOCK;
        csr5_tile_kernel<T><<<(unsigned)blocks, TILE_BLOCK, 0, s>>>(*F, alpha, x, beta, y);
        if ((e = cudaGetLastError()) != cudaSuccess) return e;
    }
    const long long tail_rows = (long long)F->nrows - F->tail_row;
    if (tail_rows > 0) {
        const long long blocks = (tail_rows + 255) / 256;
        csr5_tail_kernel<T><<<(unsigned)(blocks < 65535 ? blocks : 65535), 256, 0, s>>>(*F, alpha, x, beta, y);
        if ((e = cudaGetLastError()) != cudaSuccess) return e;
    }
    if (F->ntiles > 0) {
        csr5_calib_kernel<T><<<(unsigned)((F->ntiles + 255) / 256), 256, 0, s>>>(*F, y);
        if ((e = cudaGetLastError()) != cudaSuccess) return e;
    }
    return cudaSuccess;
}

}  // namespace

SPK_LAUNCH_BOTH(spk_csr5_launch, csr5_launch)

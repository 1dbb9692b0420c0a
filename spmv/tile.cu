// tile.cu -- TileSpMV kernel: one warp per work unit (at most
// SPK_TILE_BALANCE tiles of one tile row).  For each tile the warp stages the
// tile's 16 entries of x in shared memory once, then runs the warp-level
// product of the tile's format:
//   CSR     two lanes per row, alternate entries, one shuffle to combine
//   ELL     lanes r and r+16 take alternate slots of row r (a slot of 16 rows
//           is 16 consecutive values, so a step reads 32 in a row)
//   Dns     like ELL over the 16 columns (8 per lane)
//   DnsCol  like ELL over the full columns
//   DnsRow  16 lanes per full row, a shuffle reduction per row
//   COO     one entry per lane, atomic adds into the warp's 16 row sums in
//           shared memory; HYB = its ELL part, then its COO part
// Lane r (< 16) holds row r of the unit's sum; a tile row that spans
// several warps is scaled by beta first and the warps add atomically.
// y = alpha*A*x + beta*y; beta == 0 does not read y.
#include "tile.h"

namespace {

constexpr unsigned FULL = 0xffffffffu;
constexpr int WARPS = 4; // warps per block

__device__ __forceinline__ int nibble(const unsigned char *b, int q)
{
    unsigned char v = b[q >> 1];
    return (q & 1) ? v >> 4 : v & 15;
}

__global__ void __launch_bounds__(WARPS * 32)
    tile_kernel(const spk_fmt_tile T, double alpha, const double *__restrict__ x, double beta,
                double *__restrict__ y)
{
    __shared__ double sx[WARPS][SPK_TILE];
    __shared__ double sy[WARPS][SPK_TILE];
    const int wib = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int u = blockIdx.x * WARPS + wib;
    if (u >= T.nunits) return; // the whole warp leaves together
    const int tr = T.unit_row[u], t0 = T.unit_tile[u], tend0 = T.tile_ptr[tr + 1];
    const int tend = min(t0 + SPK_TILE_BALANCE, tend0);
    const bool split = tend0 - T.tile_ptr[tr] > SPK_TILE_BALANCE;
    const int r = lane & 15, h = lane >> 4;
    double *wsx = sx[wib], *wsy = sy[wib];
    double acc = 0;
    if (lane < SPK_TILE) wsy[lane] = 0;
    for (int t = t0; t < tend; t++) {
        const int c0 = T.tile_col[t] * SPK_TILE;
        __syncwarp();
        if (lane < SPK_TILE) wsx[lane] = c0 + lane < T.ncols ? __ldg(&x[c0 + lane]) : 0.0;
        __syncwarp();
        const int vo = T.val_off[t], k = T.val_off[t + 1] - vo;
        const double *__restrict__ v = T.val + vo;
        const unsigned char *__restrict__ ix = T.idx + T.idx_off[t];
        const int w = T.width[t];
        double s = 0;
        switch (T.kind[t]) {
        case SPK_TILE_CSR: {
            const int row = lane >> 1;
            const int b = ix[row], e = row + 1 < SPK_TILE ? ix[row + 1] : k;
            for (int q = b + (lane & 1); q < e; q += 2) s += v[q] * wsx[nibble(ix + SPK_TILE, q)];
            s += __shfl_xor_sync(FULL, s, 1);
            acc += __shfl_sync(FULL, s, 2 * r);
            break;
        }
        case SPK_TILE_ELL:
        case SPK_TILE_HYB:
        case SPK_TILE_COO: {
            const int ew = T.kind[t] == SPK_TILE_COO ? 0 : w;
            for (int j = h; j < ew; j += 2) {
                const int q = j * SPK_TILE + r;
                s += v[q] * wsx[nibble(ix, q)];
            }
            acc += s + __shfl_xor_sync(FULL, s, 16);
            const int nc = k - SPK_TILE * ew;
            const double *cv = v + SPK_TILE * ew;
            const unsigned char *ci = ix + SPK_TILE / 2 * ew;
            for (int q = lane; q < nc; q += 32) {
                const unsigned char b = ci[q];
                atomicAdd(&wsy[b >> 4], cv[q] * wsx[b & 15]);
            }
            break;
        }
        case SPK_TILE_DNS:
#pragma unroll
            for (int c = h; c < SPK_TILE; c += 2) s += v[c * SPK_TILE + r] * wsx[c];
            acc += s + __shfl_xor_sync(FULL, s, 16);
            break;
        case SPK_TILE_DNSCOL:
            for (int i = h; i < w; i += 2) s += v[i * SPK_TILE + r] * wsx[ix[i]];
            acc += s + __shfl_xor_sync(FULL, s, 16);
            break;
        default: { // DnsRow: lane r is column r of rows h, h+2, ...
            for (int i0 = 0; i0 < w; i0 += 2) {
                const int i = i0 + h;
                double p = i < w ? v[i * SPK_TILE + r] * wsx[r] : 0.0;
                p += __shfl_xor_sync(FULL, p, 8);
                p += __shfl_xor_sync(FULL, p, 4);
                p += __shfl_xor_sync(FULL, p, 2);
                p += __shfl_xor_sync(FULL, p, 1);
                if (r == 0 && i < w) wsy[ix[i]] += p; // the two halves hold different rows
            }
            break;
        }
        }
    }
    __syncwarp();
    const int row = tr * SPK_TILE + lane;
    if (lane < SPK_TILE && row < T.nrows) {
        const double tot = alpha * (acc + wsy[lane]);
        if (split)
            atomicAdd(&y[row], tot);
        else
            y[row] = beta == 0.0 ? tot : tot + beta * y[row];
    }
}

// y = beta*y on the rows of the tile rows split over several warps
__global__ void tile_scale_split(const int *__restrict__ rows, int nsplit, int nrows, double beta,
                                 double *__restrict__ y)
{
    for (int q = blockIdx.x * blockDim.x + threadIdx.x; q < nsplit * SPK_TILE; q += gridDim.x * blockDim.x) {
        const int i = rows[q / SPK_TILE] * SPK_TILE + q % SPK_TILE;
        if (i < nrows) y[i] = beta == 0.0 ? 0.0 : beta * y[i];
    }
}

} // namespace

extern "C" cudaError_t spk_tile_launch(const void *fmt, cudaStream_t s, double alpha, const double *x,
                                       double beta, double *y)
{
    const spk_fmt_tile *T = static_cast<const spk_fmt_tile *>(fmt);
    if (T->nunits == 0) return cudaSuccess;
    if (T->nsplit > 0) {
        const int n = T->nsplit * SPK_TILE, blocks = (n + 255) / 256;
        tile_scale_split<<<blocks, 256, 0, s>>>(T->split_rows, T->nsplit, T->nrows, beta, y);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
    }
    const int blocks = (T->nunits + WARPS - 1) / WARPS;
    tile_kernel<<<blocks, WARPS * 32, 0, s>>>(*T, alpha, x, beta, y);
    return cudaGetLastError();
}

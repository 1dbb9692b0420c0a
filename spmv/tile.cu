// tile.cu -- TileSpMV kernel: one warp per work unit (at most
// SPK_TILE_BALANCE tiles of one tile row).  The warp first loads the unit's
// tile descriptors (one lane per tile) and stages each tile's 16 entries of x
// in shared memory, all loads in flight together, then runs the warp-level
// product of each tile's format:
//   CSR     two lanes per row, alternate entries, one shuffle to combine
//   ELL     lanes r and r+16 take alternate slots of row r (a slot of 16 rows
//           is 16 consecutive values, so a step reads 32 in a row)
//   Dns     like ELL over the 16 columns (8 per lane)
//   DnsCol  like ELL over the full columns
//   DnsRow  16 lanes per full row, a shuffle reduction per row
//   COO     one entry per lane, atomic adds into the warp's 16 row sums in
//           shared memory; HYB = its ELL part, then its COO part
// (DnsRow also adds its row sums there.)
// Lane r (< 16) holds row r of the unit's sum; a tile row that spans
// several warps is scaled by beta first and the warps add atomically.
// y = alpha*A*x + beta*y; beta == 0 does not read y.
#include "tile.h"
#include "real.cuh"

namespace {

constexpr unsigned FULL = 0xffffffffu;
constexpr int WARPS = 4; // warps per block
// when every unit's values and index bytes fit SPK_TILE_STAGE_VALS/_IDX, the
// STAGED kernel copies them to shared memory in one burst of loads (the
// common case: 8 tiles of up to 32 values)

__device__ __forceinline__ int nibble(const unsigned char *b, int q)
{
    unsigned char v = b[q >> 1];
    return (q & 1) ? v >> 4 : v & 15;
}

template <typename T, bool STAGED>
__global__ void __launch_bounds__(WARPS * 32, 12)
    tile_kernel(const spk_fmt_tile F, T alpha, const T *__restrict__ x, T beta, T *__restrict__ y)
{
    __shared__ T sx[WARPS][SPK_TILE_BALANCE * SPK_TILE];
    __shared__ T sy[WARPS][SPK_TILE];
    __shared__ T s_val[WARPS][STAGED ? SPK_TILE_STAGE_VALS : 1];
    __shared__ unsigned char s_idx[WARPS][STAGED ? SPK_TILE_STAGE_IDX : 1];
    __shared__ int s_vo[WARPS][SPK_TILE_BALANCE + 1], s_io[WARPS][SPK_TILE_BALANCE];
    __shared__ unsigned char s_kind[WARPS][SPK_TILE_BALANCE], s_w[WARPS][SPK_TILE_BALANCE];
    const int wib = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int u = blockIdx.x * WARPS + wib;
    if (u >= F.nunits) return; // the whole warp leaves together
    // the unit's record: tile row, tiles, where its values and index bytes are
    const int4 ua = __ldg(reinterpret_cast<const int4 *>(F.unit) + 2 * (size_t)u);
    const int4 ub = __ldg(reinterpret_cast<const int4 *>(F.unit) + 2 * (size_t)u + 1);
    const int tr = ua.x, t0 = ua.y, nt = ua.z;
    const bool split = ua.w != 0;
    const int vo0 = ub.x, nv = ub.y, io0 = ub.z, ni = ub.w;
    const int r = lane & 15, h = lane >> 4;
    T *wsy = sy[wib];
    // in one burst: the tile descriptors (one lane per tile), the unit's values
    // and index bytes when they fit in shared memory, and x's 16 entries of
    // every tile (their columns passed by shuffle)
    int c0 = 0;
    if (lane < nt) {
        const int t = t0 + lane;
        c0 = __ldg(&F.tile_col[t]) * SPK_TILE;
        s_vo[wib][lane] = __ldg(&F.val_off[t]) - vo0;
        s_io[wib][lane] = __ldg(&F.idx_off[t]) - io0;
        s_kind[wib][lane] = __ldg(&F.kind[t]);
        s_w[wib][lane] = __ldg(&F.width[t]);
    }
    if (lane == 0) s_vo[wib][nt] = nv;
    if (lane < SPK_TILE) wsy[lane] = 0;
    if (STAGED) {
        for (int q = lane; q < nv; q += 32) s_val[wib][q] = __ldg(&spk_real<T>(F.val)[vo0 + q]);
        for (int q = lane; q < ni; q += 32) s_idx[wib][q] = __ldg(&F.idx[io0 + q]);
    }
    for (int q0 = 0; q0 < nt * SPK_TILE; q0 += 32) { // the same trip count in every lane
        const int q = q0 + lane;
        const int c = __shfl_sync(FULL, c0, (q / SPK_TILE) & 31) + q % SPK_TILE;
        if (q < nt * SPK_TILE) sx[wib][q] = c < F.ncols ? __ldg(&x[c]) : T(0);
    }
    __syncwarp();
    const T *vbase = STAGED ? s_val[wib] : spk_real<T>(F.val) + vo0;
    const unsigned char *ibase = STAGED ? s_idx[wib] : F.idx + io0;
    T acc = 0;
    for (int j = 0; j < nt; j++) {
        const T *wsx = sx[wib] + j * SPK_TILE;
        const int vo = s_vo[wib][j], k = s_vo[wib][j + 1] - vo;
        const T *v = vbase + vo;
        const unsigned char *ix = ibase + s_io[wib][j];
        const int w = s_w[wib][j], kind = s_kind[wib][j];
        T s = 0;
        switch (kind) {
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
            const int ew = kind == SPK_TILE_COO ? 0 : w;
            for (int sl = h; sl < ew; sl += 2) {
                const int q = sl * SPK_TILE + r;
                s += v[q] * wsx[nibble(ix, q)];
            }
            acc += s + __shfl_xor_sync(FULL, s, 16);
            const int nc = k - SPK_TILE * ew;
            const T *cv = v + SPK_TILE * ew;
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
                T p = i < w ? v[i * SPK_TILE + r] * wsx[r] : T(0);
                p += __shfl_xor_sync(FULL, p, 8);
                p += __shfl_xor_sync(FULL, p, 4);
                p += __shfl_xor_sync(FULL, p, 2);
                p += __shfl_xor_sync(FULL, p, 1);
                if (r == 0 && i < w) atomicAdd(&wsy[ix[i]], p);
            }
            break;
        }
        }
    }
    __syncwarp();
    const int row = tr * SPK_TILE + lane;
    if (lane < SPK_TILE && row < F.nrows) {
        const T tot = alpha * (acc + wsy[lane]);
        if (split)
            atomicAdd(&y[row], tot);
        else
            y[row] = beta == T(0) ? tot : tot + beta * y[row];
    }
}

// y = beta*y on the rows of the tile rows split over several warps
template <typename T>
__global__ void tile_scale_split(const int *__restrict__ rows, int nsplit, int nrows, T beta, T *__restrict__ y)
{
    for (int q = blockIdx.x * blockDim.x + threadIdx.x; q < nsplit * SPK_TILE; q += gridDim.x * blockDim.x) {
        const int i = rows[q / SPK_TILE] * SPK_TILE + q % SPK_TILE;
        if (i < nrows) y[i] = beta == T(0) ? T(0) : beta * y[i];
    }
}

template <typename T>
cudaError_t tile_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_tile *F = static_cast<const spk_fmt_tile *>(fmt);
    if (F->nunits == 0) return cudaSuccess;
    if (F->nsplit > 0) {
        const int n = F->nsplit * SPK_TILE, blocks = (n + 255) / 256;
        tile_scale_split<T><<<blocks, 256, 0, s>>>(F->split_rows, F->nsplit, F->nrows, beta, y);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
    }
    const int blocks = (F->nunits + WARPS - 1) / WARPS;
    if (F->staged)
        tile_kernel<T, true><<<blocks, WARPS * 32, 0, s>>>(*F, alpha, x, beta, y);
    else
        tile_kernel<T, false><<<blocks, WARPS * 32, 0, s>>>(*F, alpha, x, beta, y);
    return cudaGetLastError();
}

} // namespace

SPK_LAUNCH_BOTH(spk_tile_launch, tile_launch)

/* devfactor_sweep.cuh -- the Jacobi sweeps that replace the triangular
 * solves, on F as stored, on its sliced copies and on the lean copies of a
 * large system, and the kernels that make those copies (devfactor.h).
 * Part of devfactor.cu's module: included there once. */
#ifndef SPK_PRECOND_DEVFACTOR_SWEEP_CUH
#define SPK_PRECOND_DEVFACTOR_SWEEP_CUH

#include <cub/device/device_scan.cuh>

#include "devfactor.h"
#include "devfactor_common.cuh"
#include "devtri.cuh"

namespace {

using namespace spk_devtri;

/* the lean sweeps' loop over a row's entries unrolled 4 times: loads of
 * several entries in flight (rows of a dozen entries gain; rows of three
 * lose nothing) */
constexpr int kLeanUnroll = 4;

template <int T>
__global__ void sweep_kernel(int n, const int *__restrict__ beg, int boff, const int *__restrict__ end, int eoff,
                             const int *__restrict__ col, const double *__restrict__ val,
                             const double *__restrict__ idiag, const double *__restrict__ b,
                             const double *__restrict__ x, double *__restrict__ out)
{
    const int g = blockIdx.x * (kBlock / T) + threadIdx.x / T, lane = threadIdx.x % T;
    const bool ok = g < n;
    double s = 0;
    if (ok) {
        const int e = end[g] + eoff;
        for (int k = beg[g] + boff + lane; k < e; k += T) {
            const int c = col[k];
            const double xc = x ? x[c] : (idiag ? idiag[c] * b[c] : b[c]);
            s += val[k] * xc;
        }
    }
    for (int o = T / 2; o > 0; o >>= 1) s += __shfl_xor_sync(FULL_MASK, s, o, T);
    if (ok && lane == 0) {
        const double r = b[g] - s;
        out[g] = idiag ? r * idiag[g] : r;
    }
}


__global__ void sell_width_kernel(int n, const int *__restrict__ beg, int boff, const int *__restrict__ end, int eoff,
                                  int *sp)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    const int len = i < n ? end[i] + eoff - (beg[i] + boff) : 0;
    int w = len;
    for (int o = 16; o > 0; o >>= 1) w = max(w, __shfl_xor_sync(FULL_MASK, w, o));
    if (i < n && (i & (kSlice - 1)) == 0) sp[i / kSlice + 1] = w * kSlice;
    if (i == 0) sp[0] = 0;
}

/* The sliced copy: columns (offsets: c - i) and values (scale: times
 * scale[i]); padding at the row's own column with value 0. */
template <typename C, typename V>
__global__ void sell_fill_kernel(int n, const int *__restrict__ beg, int boff, const int *__restrict__ end, int eoff,
                                 const int *__restrict__ col, const double *__restrict__ val,
                                 const double *__restrict__ scale, int offsets, const int *__restrict__ sp,
                                 C *__restrict__ scol, V *__restrict__ sval)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    const int base = sp[i / kSlice] + (i & (kSlice - 1)), w = (sp[i / kSlice + 1] - sp[i / kSlice]) / kSlice;
    const int b = beg[i] + boff, len = end[i] + eoff - b, from = offsets ? i : 0;
    const double d = scale ? scale[i] : 1.0;
    for (int k = 0; k < w; k++) {
        scol[base + k * kSlice] = (C)((k < len ? col[b + k] : i) - from);
        sval[base + k * kSlice] = k < len ? (V)(d * val[b + k]) : (V)0;
    }
}

/* The sweep of sweep_kernel on the sliced copy, a thread per row. */
template <typename V>
__global__ void sell_sweep_kernel(int n, const int *__restrict__ sp, const int *__restrict__ scol,
                                  const V *__restrict__ sval, const double *__restrict__ idiag,
                                  const double *__restrict__ b, const double *__restrict__ x, double *__restrict__ out)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    if (i >= n) return;
    const int s0 = sp[i / kSlice], base = s0 + (i & (kSlice - 1)), w = (sp[i / kSlice + 1] - s0) / kSlice;
    double s = 0;
    for (int k = 0; k < w; k++) {
        const int c = scol[base + k * kSlice];
        const double xc = x ? x[c] : (idiag ? idiag[c] * b[c] : b[c]);
        s += (double)sval[base + k * kSlice] * xc;
    }
    const double r = b[i] - s;
    out[i] = idiag ? r * idiag[i] : r;
}

/* The lean copy's pattern: the largest |c - i| of the strict part, into
 * *span (atomicMax; zeroed by the caller). */
__global__ void span_kernel(int n, const int *__restrict__ beg, int boff, const int *__restrict__ end, int eoff,
                            const int *__restrict__ col, int *span)
{
    const int i = blockIdx.x * kBlock + threadIdx.x;
    int m = 0;
    if (i < n)
        for (int k = beg[i] + boff; k < end[i] + eoff; k++) m = max(m, abs(col[k] - i));
    for (int o = 16; o > 0; o >>= 1) m = max(m, __shfl_xor_sync(FULL_MASK, m, o));
    if ((threadIdx.x & 31) == 0 && m > 0) atomicMax(span, m);
}

/* 2^e, e in [-1022, 1023]. */
__device__ __forceinline__ double pow2(int e)
{
    return __longlong_as_double((long long)(1023 + e) << 52);
}

/* The least e with |v| < 2^e (v finite), kept in [-1022, 1022]. */
__device__ __forceinline__ int exponent_above(double v)
{
    const int e = (int)((__double_as_longlong(v) >> 52) & 0x7ff) - 1022;
    return e < -1022 ? -1022 : (e > 1022 ? 1022 : e);
}

/* The float iterates' scale 2^-(eb + ef): m (the bits of a non-negative
 * double) < 2^eb and f < 2^ef (within a factor 4 at the ends of double's
 * range); 2^0 where there is no m, or it is 0 or not finite (then the
 * result is not finite either).  Applied as two factors, each in double's
 * range. */
__device__ __forceinline__ void lean_exponents(const unsigned long long *m, double f, int *eb, int *ef)
{
    *eb = *ef = 0;
    if (!m) return;
    const double v = __longlong_as_double((long long)*m);
    if (!(v > 0) || !isfinite(v)) return;
    *eb = exponent_above(v);
    *ef = exponent_above(f);
}

/* *m = max(*m, v over the block) (the bits of a non-negative double): one
 * atomic per block, and only where it raises *m (atomics on one address
 * from every warp of a large grid cost more than the sweep). */
__device__ __forceinline__ void raise_max(double v, unsigned long long *m)
{
    __shared__ double warp_max[kBlock / 32];
    for (int k = 16; k > 0; k >>= 1) v = fmax(v, __shfl_xor_sync(FULL_MASK, v, k));
    if ((threadIdx.x & 31) == 0) warp_max[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < kBlock / 32; w++) v = fmax(v, warp_max[w]);
        const unsigned long long bits = (unsigned long long)__double_as_longlong(v);
        if (v > 0 && bits > *(volatile unsigned long long *)m) atomicMax(m, bits);
    }
}

/* One sweep on the lean copy (devfactor.h, spk_dev_lean_sweep): a thread
 * per R rows kBlock apart, their loads issued together (a short row alone
 * reads too few bytes per dependent load to keep the memory busy). */
template <int R, typename C, typename V, typename X, typename XO>
__global__ void lean_sweep_kernel(int n, const int *__restrict__ sp, const C *__restrict__ scol,
                                  const V *__restrict__ sval, const double *__restrict__ idiag,
                                  const double *__restrict__ b, const unsigned long long *bmax, double f, X *c,
                                  const X *__restrict__ x, XO *__restrict__ out, int last, unsigned long long *omax)
{
    const int i0 = blockIdx.x * kBlock * R + threadIdx.x;
    int eb, ef;
    lean_exponents(bmax, f, &eb, &ef);
    const double sb = pow2(-eb), sf = pow2(-ef);
    /* c_j = d_j b_j, scaled */
    auto cj = [&](int j) { return (b[j] * sb) * (idiag ? idiag[j] * sf : sf); };
    int base[R], w[R], wmax = 0;
    double s[R], ci[R];
#pragma unroll
    for (int r = 0; r < R; r++) {
        const int i = i0 + r * kBlock;
        s[r] = 0;
        ci[r] = 0;
        w[r] = 0;
        base[r] = 0;
        if (i < n) {
            const int s0 = sp[i / kSlice];
            base[r] = s0 + (i & (kSlice - 1));
            w[r] = (sp[i / kSlice + 1] - s0) / kSlice;
            ci[r] = x && c ? (double)c[i] : cj(i);
        }
        wmax = max(wmax, w[r]);
    }
#pragma unroll kLeanUnroll
    for (int k = 0; k < wmax; k++) {
#pragma unroll
        for (int r = 0; r < R; r++)
            if (k < w[r]) {
                const int j = i0 + r * kBlock + (int)scol[base[r] + k * kSlice];
                s[r] += (double)sval[base[r] + k * kSlice] * (x ? (double)x[j] : cj(j));
            }
    }
    double m = 0;
#pragma unroll
    for (int r = 0; r < R; r++) {
        const int i = i0 + r * kBlock;
        if (i >= n) continue;
        if (!x && c) c[i] = (X)ci[r];
        double o = ci[r] - s[r];
        if (last) o = eb + ef >= -1022 && eb + ef <= 1023 ? o * pow2(eb + ef) : o * pow2(eb) * pow2(ef);
        out[i] = (XO)o;
        m = fmax(m, fabs(o));
    }
    if (omax) raise_max(m, omax);
}

/* *m = max(*m, max_i |x_i|) as the bits of a double (zeroed by the caller). */
__global__ void absmax_kernel(int n, const double *__restrict__ x, unsigned long long *m)
{
    double v = 0;
    for (int i = blockIdx.x * kBlock + threadIdx.x; i < n; i += gridDim.x * kBlock) v = fmax(v, fabs(x[i]));
    raise_max(v, m);
}

__global__ void round_kernel(long long m, double *v)
{
    const long long k = (long long)blockIdx.x * kBlock + threadIdx.x;
    if (k < m) v[k] = (double)(float)v[k];
}

} // namespace

extern "C" cudaError_t spk_dev_sweep(cudaStream_t s, int n, int threads, const int *beg, int boff, const int *end,
                                     int eoff, const int *col, const double *val, const double *idiag, const double *b,
                                     const double *x, double *out)
{
    if (n == 0) return cudaSuccess;
    const unsigned grid = blocks_for((long long)n * threads);
#define SPK_SWEEP(T)                                                                                                 \
    case T: sweep_kernel<T><<<grid, kBlock, 0, s>>>(n, beg, boff, end, eoff, col, val, idiag, b, x, out); break;
    switch (threads) {
        SPK_SWEEP(1)
        SPK_SWEEP(2)
        SPK_SWEEP(4)
        SPK_SWEEP(8)
        SPK_SWEEP(16)
        SPK_SWEEP(32)
    default: return cudaErrorInvalidValue;
    }
#undef SPK_SWEEP
    return cudaGetLastError();
}

extern "C" int spk_dev_sell_slices(int n)
{
    return (n + kSlice - 1) / kSlice;
}

extern "C" cudaError_t spk_dev_sell_pattern(cudaStream_t s, int n, const int *beg, int boff, const int *end, int eoff,
                                            int *sp, void *temp, size_t temp_bytes)
{
    const int ns = spk_dev_sell_slices(n);
    if (n == 0) return cudaMemsetAsync(sp, 0, sizeof(int), s);
    sell_width_kernel<<<blocks_for((long long)ns * kSlice), kBlock, 0, s>>>(n, beg, boff, end, eoff, sp);
    cudaError_t st = cudaGetLastError();
    if (st != cudaSuccess) return st;
    return cub::DeviceScan::InclusiveSum(temp, temp_bytes, sp + 1, sp + 1, ns, s);
}

namespace {
cudaError_t sell_fill(cudaStream_t s, int n, const int *beg, int boff, const int *end, int eoff, const int *col,
                      const double *val, const double *scale, int offsets, const int *sp, void *scol, int narrow,
                      void *sval, int single)
{
    if (n == 0) return cudaSuccess;
    const unsigned g = blocks_for(n);
    if (narrow && single)
        sell_fill_kernel<short, float><<<g, kBlock, 0, s>>>(n, beg, boff, end, eoff, col, val, scale, offsets, sp,
                                                            (short *)scol, (float *)sval);
    else if (narrow)
        sell_fill_kernel<short, double><<<g, kBlock, 0, s>>>(n, beg, boff, end, eoff, col, val, scale, offsets, sp,
                                                             (short *)scol, (double *)sval);
    else if (single)
        sell_fill_kernel<int, float><<<g, kBlock, 0, s>>>(n, beg, boff, end, eoff, col, val, scale, offsets, sp,
                                                          (int *)scol, (float *)sval);
    else
        sell_fill_kernel<int, double><<<g, kBlock, 0, s>>>(n, beg, boff, end, eoff, col, val, scale, offsets, sp,
                                                           (int *)scol, (double *)sval);
    return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t spk_dev_sell_fill(cudaStream_t s, int n, const int *beg, int boff, const int *end, int eoff,
                                         const int *col, const double *val, const int *sp, int *scol, void *sval,
                                         int single)
{
    return sell_fill(s, n, beg, boff, end, eoff, col, val, NULL, 0, sp, scol, 0, sval, single);
}

extern "C" cudaError_t spk_dev_sell_sweep(cudaStream_t s, int n, const int *sp, const int *scol, const void *sval,
                                          int single, const double *idiag, const double *b, const double *x,
                                          double *out)
{
    if (n == 0) return cudaSuccess;
    if (single)
        sell_sweep_kernel<float><<<blocks_for(n), kBlock, 0, s>>>(n, sp, scol, (const float *)sval, idiag, b, x, out);
    else
        sell_sweep_kernel<double><<<blocks_for(n), kBlock, 0, s>>>(n, sp, scol, (const double *)sval, idiag, b, x,
                                                                   out);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_tri_span(cudaStream_t s, int n, const int *beg, int boff, const int *end, int eoff,
                                       const int *col, int *span)
{
    cudaError_t st = cudaMemsetAsync(span, 0, sizeof(int), s);
    if (st != cudaSuccess || n == 0) return st;
    span_kernel<<<blocks_for(n), kBlock, 0, s>>>(n, beg, boff, end, eoff, col, span);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_lean_fill(cudaStream_t s, int n, const int *beg, int boff, const int *end, int eoff,
                                        const int *col, const double *val, const double *idiag, const int *sp,
                                        void *scol, int narrow, void *sval, int single)
{
    return sell_fill(s, n, beg, boff, end, eoff, col, val, idiag, 1, sp, scol, narrow, sval, single);
}

namespace {
/* wide: a thread per row (devsweep_slice.c, LEAN_SHORT_ROWS), else per two */
template <typename C, typename V, typename X, typename XO>
cudaError_t lean_launch(cudaStream_t s, int n, int wide, const int *sp, const void *scol, const void *sval,
                        const double *idiag, const double *b, const unsigned long long *bmax, double f, void *c,
                        const void *x, void *out, int last, unsigned long long *omax)
{
    if (wide)
        lean_sweep_kernel<1, C, V, X, XO><<<blocks_for(n), kBlock, 0, s>>>(
            n, sp, (const C *)scol, (const V *)sval, idiag, b, bmax, f, (X *)c, (const X *)x, (XO *)out, last, omax);
    else
        lean_sweep_kernel<2, C, V, X, XO><<<blocks_for(((long long)n + 1) / 2), kBlock, 0, s>>>(
            n, sp, (const C *)scol, (const V *)sval, idiag, b, bmax, f, (X *)c, (const X *)x, (XO *)out, last, omax);
    return cudaGetLastError();
}

template <typename C>
cudaError_t lean_by_type(cudaStream_t s, int n, int wide, const int *sp, const void *scol, const void *sval, int single,
                         int xf, int of, const double *idiag, const double *b, const unsigned long long *bmax, double f,
                         void *c, const void *x, void *out, int last, unsigned long long *omax)
{
#define LEAN_ARGS s, n, wide, sp, scol, sval, idiag, b, bmax, f, c, x, out, last, omax
    if (!single && (xf || of)) return cudaErrorInvalidValue; /* double values: double iterates */
    if (!single) return lean_launch<C, double, double, double>(LEAN_ARGS);
    if (xf && of) return lean_launch<C, float, float, float>(LEAN_ARGS);
    if (xf) return lean_launch<C, float, float, double>(LEAN_ARGS);
    if (of) return cudaErrorInvalidValue; /* float out from double iterates: not used */
    return lean_launch<C, float, double, double>(LEAN_ARGS);
#undef LEAN_ARGS
}

} // namespace

extern "C" cudaError_t spk_dev_lean_sweep(cudaStream_t s, int n, int wide, const int *sp, const void *scol, int narrow,
                                         const void *sval, int single, int xf, int of, const double *idiag,
                                         const double *b, const unsigned long long *bmax, double f, void *c,
                                         const void *x, void *out, int last, unsigned long long *omax)
{
    if (n == 0) return cudaSuccess;
    if (narrow)
        return lean_by_type<short>(s, n, wide, sp, scol, sval, single, xf, of, idiag, b, bmax, f, c, x, out, last,
                                   omax);
    return lean_by_type<int>(s, n, wide, sp, scol, sval, single, xf, of, idiag, b, bmax, f, c, x, out, last, omax);
}

extern "C" cudaError_t spk_dev_absmax(cudaStream_t s, int n, const double *x, unsigned long long *m)
{
    if (n == 0) return cudaSuccess;
    /* a grid-stride loop over at most 1024 blocks: a GPU's worth of blocks in flight, and few atomics */
    const long long t = (long long)n < 1024LL * kBlock ? n : 1024LL * kBlock;
    absmax_kernel<<<blocks_for(t), kBlock, 0, s>>>(n, x, m);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_round_float(cudaStream_t s, long long m, double *v)
{
    if (m == 0) return cudaSuccess;
    round_kernel<<<blocks_for(m), kBlock, 0, s>>>(m, v);
    return cudaGetLastError();
}

#endif

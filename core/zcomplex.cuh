// zcomplex.cuh -- a complex double for kernels templated on the value type.
//
// spk_zc has the layout of cuDoubleComplex (and of the host's interleaved
// re, im pairs) with the operators those templates use (+, *, ==, the
// constructor from a real), and the warp shuffle and read-only load they
// call, so a kernel written for double instantiates for complex unchanged.
#ifndef SPK_CORE_ZCOMPLEX_CUH
#define SPK_CORE_ZCOMPLEX_CUH

#include <cuda_runtime.h>

struct __align__(16) spk_zc {
    double re, im;
    __host__ __device__ spk_zc() : re(0), im(0) {}
    __host__ __device__ spk_zc(double r) : re(r), im(0) {}
    __host__ __device__ spk_zc(double r, double i) : re(r), im(i) {}
    __host__ __device__ spk_zc &operator+=(const spk_zc &b)
    {
        re += b.re;
        im += b.im;
        return *this;
    }
};

__host__ __device__ __forceinline__ spk_zc operator+(spk_zc a, spk_zc b)
{
    return spk_zc(a.re + b.re, a.im + b.im);
}
__host__ __device__ __forceinline__ spk_zc operator*(spk_zc a, spk_zc b)
{
    return spk_zc(fma(a.re, b.re, -a.im * b.im), fma(a.re, b.im, a.im * b.re));
}
__host__ __device__ __forceinline__ bool operator==(spk_zc a, spk_zc b)
{
    return a.re == b.re && a.im == b.im;
}

__device__ __forceinline__ spk_zc __shfl_down_sync(unsigned mask, spk_zc v, unsigned off, int width)
{
    return spk_zc(__shfl_down_sync(mask, v.re, off, width), __shfl_down_sync(mask, v.im, off, width));
}
__device__ __forceinline__ spk_zc __ldg(const spk_zc *p)
{
    const double2 v = __ldg(reinterpret_cast<const double2 *>(p));
    return spk_zc(v.x, v.y);
}

#endif

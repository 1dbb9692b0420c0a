// real.cuh -- one kernel template for both precisions of a format.
//
// A format's kernels take the value type T (double, or float for an
// instance in single precision: spk_spmv_opts.precision).  The struct's
// real arrays (format.h) are declared double; in single precision they hold
// floats, and spk_real<T>() gives them their type.  SPK_LAUNCH_BOTH(FN, IMPL)
// defines the format's two launches, FN (double) and FN_float, from one
// template IMPL<T>(fmt, stream, alpha, x, beta, y).
#ifndef SPK_SPMV_REAL_CUH
#define SPK_SPMV_REAL_CUH

#include <cuda_runtime.h>

template <typename T>
__host__ __device__ __forceinline__ const T *spk_real(const double *p)
{
    return reinterpret_cast<const T *>(p);
}

template <typename T>
__host__ __device__ __forceinline__ T *spk_real_w(double *p)
{
    return reinterpret_cast<T *>(p);
}

#define SPK_LAUNCH_BOTH(FN, IMPL)                                                                         \
    extern "C" cudaError_t FN(const void *f, cudaStream_t s, double alpha, const double *x, double beta,  \
                              double *y)                                                                  \
    {                                                                                                     \
        return IMPL<double>(f, s, alpha, x, beta, y);                                                     \
    }                                                                                                     \
    extern "C" cudaError_t FN##_float(const void *f, cudaStream_t s, float alpha, const float *x,        \
                                      float beta, float *y)                                               \
    {                                                                                                     \
        return IMPL<float>(f, s, alpha, x, beta, y);                                                      \
    }

#endif

// real.cu -- y = beta*y on a float vector (beta 0: y = 0, y not read), for
// the single-precision products of a matrix without entries.
#include "format.h"

namespace {

__global__ void scale_float(int n, float beta, float *__restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = beta == 0.0f ? 0.0f : beta * y[i];
}

}  // namespace

extern "C" cudaError_t spk_scale_float(cudaStream_t s, int n, float beta, float *y)
{
    if (n <= 0) return cudaSuccess;
    const int blocks = n / 256 + 1 < 4096 ? n / 256 + 1 : 4096;
    scale_float<<<blocks, 256, 0, s>>>(n, beta, y);
    return cudaGetLastError();
}

// control_device.cu -- control_eval (control_eval.h) on the GPU, one thread
// a case, for test_control_cuda.
#include <cuda_runtime.h>

#include "control_eval.h"

__global__ void control_kernel(int n, const double *cases, int *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) control_eval(cases + (size_t)i * CONTROL_IN, out + (size_t)i * CONTROL_OUT);
}

extern "C" int control_eval_device(int n, const double *cases, int *out, const char **why)
{
    double *dc = nullptr;
    int *dout = nullptr;
    const size_t cin = (size_t)n * CONTROL_IN * sizeof(double), cout = (size_t)n * CONTROL_OUT * sizeof(int);
    cudaError_t st = cudaMalloc(&dc, cin);
    if (st == cudaSuccess) st = cudaMalloc(&dout, cout);
    if (st == cudaSuccess) st = cudaMemcpy(dc, cases, cin, cudaMemcpyHostToDevice);
    if (st == cudaSuccess) {
        control_kernel<<<(n + 127) / 128, 128>>>(n, dc, dout);
        st = cudaGetLastError();
    }
    if (st == cudaSuccess) st = cudaMemcpy(out, dout, cout, cudaMemcpyDeviceToHost);
    cudaFree(dc);
    cudaFree(dout);
    *why = cudaGetErrorString(st);
    return st == cudaSuccess ? 0 : -1;
}

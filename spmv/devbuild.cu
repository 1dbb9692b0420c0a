// devbuild.cu -- format builders on the GPU (devbuild.h): one thread per row.
#include "devbuild.h"

namespace {

__global__ void ell_fill(int n, int width, const int *__restrict__ rowptr, const int *__restrict__ colind,
                         const double *__restrict__ val, int *__restrict__ oc, double *__restrict__ ov)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const int b = rowptr[i], len = rowptr[i + 1] - b, keep = len < width ? len : width;
        const int pad = keep > 0 ? colind[b + keep - 1] : 0;
        for (int k = 0; k < width; k++) {
            const size_t q = (size_t)k * n + i;
            oc[q] = k < keep ? colind[b + k] : pad;
            ov[q] = k < keep ? val[b + k] : 0.0;
        }
    }
}

__global__ void bell_fill(int n, int groups, const int *__restrict__ gptr, const int *__restrict__ rowptr,
                          const int *__restrict__ colind, const double *__restrict__ val, int *__restrict__ oc,
                          double *__restrict__ ov)
{
    const int rows = groups * 32;
    for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < rows; t += gridDim.x * blockDim.x) {
        const int g = t / 32, r = t % 32, w = (gptr[g + 1] - gptr[g]) / 32;
        const int b = t < n ? rowptr[t] : 0, len = t < n ? rowptr[t + 1] - b : 0;
        const int pad = len > 0 ? colind[b + len - 1] : 0;
        for (int k = 0; k < w; k++) {
            const size_t q = (size_t)gptr[g] + (size_t)k * 32 + r;
            oc[q] = k < len ? colind[b + k] : pad;
            ov[q] = k < len ? val[b + k] : 0.0;
        }
    }
}

__global__ void bell_widths(int n, int groups, const int *__restrict__ rowptr, int *__restrict__ w)
{
    for (int g = blockIdx.x * blockDim.x + threadIdx.x; g < groups; g += gridDim.x * blockDim.x) {
        const int end = (g + 1) * 32 < n ? (g + 1) * 32 : n;
        int m = 0, prev = rowptr[g * 32];
        for (int i = g * 32; i < end; i++) {
            const int next = rowptr[i + 1];
            m = next - prev > m ? next - prev : m;
            prev = next;
        }
        w[g] = m;
    }
}

__global__ void coo_rest(int n, int skip, const int *__restrict__ off, const int *__restrict__ rowptr,
                         const int *__restrict__ colind, const double *__restrict__ val, int *__restrict__ row,
                         int *__restrict__ col, double *__restrict__ ov)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int q = off[i];
        for (int k = rowptr[i] + skip; k < rowptr[i + 1]; k++, q++) {
            row[q] = i;
            col[q] = colind[k];
            ov[q] = val[k];
        }
    }
}

int blocks_for(long long n)
{
    long long b = (n + 255) / 256;
    return (int)(b < 1 ? 1 : b > 65535 ? 65535 : b);
}

} // namespace

extern "C" cudaError_t spk_dev_ell_fill(cudaStream_t s, int n, int width, const int *rowptr, const int *colind,
                                        const double *val, int *out_col, double *out_val)
{
    if (n == 0 || width == 0) return cudaSuccess;
    ell_fill<<<blocks_for(n), 256, 0, s>>>(n, width, rowptr, colind, val, out_col, out_val);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_bell_fill(cudaStream_t s, int n, int ngroups, const int *gptr, const int *rowptr,
                                         const int *colind, const double *val, int *out_col, double *out_val)
{
    if (ngroups == 0) return cudaSuccess;
    bell_fill<<<blocks_for((long long)ngroups * 32), 256, 0, s>>>(n, ngroups, gptr, rowptr, colind, val, out_col,
                                                                  out_val);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_bell_widths(cudaStream_t s, int n, int ngroups, const int *rowptr, int *widths)
{
    if (ngroups == 0) return cudaSuccess;
    bell_widths<<<blocks_for(ngroups), 256, 0, s>>>(n, ngroups, rowptr, widths);
    return cudaGetLastError();
}

extern "C" cudaError_t spk_dev_coo_rest(cudaStream_t s, int n, int skip, const int *off, const int *rowptr,
                                        const int *colind, const double *val, int *row, int *col, double *out_val)
{
    if (n == 0) return cudaSuccess;
    coo_rest<<<blocks_for(n), 256, 0, s>>>(n, skip, off, rowptr, colind, val, row, col, out_val);
    return cudaGetLastError();
}

/* csr_device.cuh -- device helpers on CSR rows shared by the CUDA sources. */
#ifndef SPK_CORE_CSR_DEVICE_CUH
#define SPK_CORE_CSR_DEVICE_CUH

/* Position of column c in ci[lo, hi) (sorted), or -1. */
__device__ __forceinline__ int spk_find_col(const int *ci, int lo, int hi, int c)
{
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        const int v = ci[mid];
        if (v == c) return mid;
        if (v < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

#endif
